"""Errors that end a command with exit code 2 and a one-line message (never a traceback)."""

from __future__ import annotations


class KvdoctorError(Exception):
    """Bad input or nothing could be diagnosed: the CLI prints ``str(self)`` and exits 2."""

    exit_code = 2


class BundleError(KvdoctorError):
    """A bundle that cannot be read (missing, corrupt, hostile, or of a future schema)."""


class ProbeError(KvdoctorError):
    """Nothing at all could be collected from the endpoint."""
