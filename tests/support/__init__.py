"""Helpers the tests share: servers that speak a provider's wire format, VM doubles, sites, scripted runs."""
