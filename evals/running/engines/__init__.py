"""Engines that run a suite's jobs on a pool of sandbox slots: `local` (threads) and `ray` (a Ray cluster)."""
