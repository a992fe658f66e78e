"""Bundles: the raw, replayable capture of one diagnosis (DESIGN.md §3)."""
