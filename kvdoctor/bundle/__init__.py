"""Bundles: the raw, replayable capture of one diagnosis (docs/bundle.md)."""
