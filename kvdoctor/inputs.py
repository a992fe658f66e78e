"""Reading a file the user names, bounded: a size cap, devices and pipes included.

``--slo-file /dev/zero`` once took 3.7 GB in 8 s and ``--logs /dev/zero`` never ended: a path
can name a device, a FIFO or a file that grows while it is read, and ``read_text()`` trusts none
of that. Every small input kvdoctor reads (SLO files, model configs, fixture expectations) goes
through :func:`read_capped_bytes`, which reads at most its cap plus one byte and refuses the rest
with one line.
"""

from __future__ import annotations

from pathlib import Path

from kvdoctor.errors import KvdoctorError

# Caps for small inputs: each is hundreds of times what the real file holds.
MAX_SLO_FILE_BYTES = 1 << 20  # a handful of objectives
MAX_CONFIG_BYTES = 16 << 20  # an HF config.json is a few KB
MAX_YAML_BYTES = 16 << 20  # a fixture's expected.yaml


def size_text(n: int) -> str:
    if n >= 1 << 30:
        return f"{n / (1 << 30):g} GiB"
    if n >= 1 << 20:
        return f"{n / (1 << 20):g} MiB"
    if n >= 1 << 10:
        return f"{n / (1 << 10):g} KiB"
    return f"{n} bytes"


def read_capped_bytes(path: str | Path, what: str, cap: int) -> bytes:
    """The bytes of ``path``, at most ``cap``; more (or an endless device) → one-line error."""
    p = Path(path)
    try:
        with p.open("rb") as fh:
            data = fh.read(cap + 1)
    except IsADirectoryError:
        raise KvdoctorError(f"{what}: {p} is a directory, not a file") from None
    except OSError as exc:
        raise KvdoctorError(f"{what}: cannot read {p}: {exc.strerror or exc}") from None
    if len(data) > cap:
        raise KvdoctorError(f"{what}: {p} is larger than {size_text(cap)}; not read")
    return data


def read_capped_text(path: str | Path, what: str, cap: int) -> str:
    """:func:`read_capped_bytes` as UTF-8 text (a bad byte is a one-line error)."""
    data = read_capped_bytes(path, what, cap)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise KvdoctorError(f"{what}: {Path(path)} is not UTF-8 text") from None
