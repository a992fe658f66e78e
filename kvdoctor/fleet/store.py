"""A Prometheus fleet bundle written and read back: the fleet view and raw answers composed.

:mod:`kvdoctor.fleet.bundle` knows the layouts and stays light (``diagnose --bundle`` asks it
whether a single-replica bundle is a fleet one); this module joins it with the capture and the
fleet view, which only a fleet run needs.
"""

from __future__ import annotations

from pathlib import Path

from kvdoctor.bundle.writer import bundle_files
from kvdoctor.fleet.build import FleetData, fleet_view_with_text
from kvdoctor.fleet.bundle import prometheus_files, write_files
from kvdoctor.fleet.capture import FleetCapture, capture_files, capture_from_files


def write_fleet_bundle(data: FleetData, dest: str | Path) -> Path:
    """Write the fleet view and the raw answers to ``dest`` atomically (dir or .tar.gz)."""
    view = fleet_view_with_text(data)
    files: dict[str, bytes] = {k: v.encode("utf-8") for k, v in bundle_files(view).items()}
    files.update(capture_files(data.capture))
    return write_files(files, dest, int(data.capture.end))


def read_fleet_capture(path: str | Path) -> FleetCapture:
    """The Prometheus answers a fleet bundle at ``path`` holds, as the capture made them."""
    return capture_from_files(prometheus_files(path), str(path))
