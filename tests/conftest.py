"""Shared test set-up: this file's presence puts tests/ on sys.path (helpers like labenv)."""
