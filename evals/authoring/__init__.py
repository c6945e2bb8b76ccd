"""Writing tasks and corpora: the long suites' generators, mutators and checker sensitivity, and the gate
corpus."""
