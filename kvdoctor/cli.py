"""The ``kvdoctor`` command line: a thin, lazily loaded layer over the pipeline.

Each subcommand lives in its own module under ``kvdoctor.commands`` and is imported only when it
runs, so ``kvdoctor --help`` stays fast (no pydantic, httpx or rich at start-up).
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import threading


def _interrupted_at_start(signum: int, frame: object) -> None:
    # Ctrl-C while the modules below load would print an import traceback; at that point there
    # is nothing to keep, so say one line and leave (130, as for any interrupt).
    sys.stderr.write("kvdoctor: interrupted\n")
    sys.stderr.flush()
    os._exit(130)


# Only the console entry point gets here before the imports below; a library import of this
# module from another thread (where signal handlers cannot be set) is left alone.
if threading.current_thread() is threading.main_thread() and (
    signal.getsignal(signal.SIGINT) is signal.default_int_handler
):
    signal.signal(signal.SIGINT, _interrupted_at_start)

import importlib  # noqa: E402
from typing import Any  # noqa: E402

import click  # noqa: E402

from kvdoctor import __version__  # noqa: E402
from kvdoctor.errors import KvdoctorError  # noqa: E402

# name -> ("module", "attribute", "one-line help shown in `kvdoctor --help`")
COMMANDS: dict[str, tuple[str, str, str]] = {
    "diagnose": ("kvdoctor.commands.diagnose", "diagnose", "Diagnose a live endpoint or a bundle."),
    "record": ("kvdoctor.commands.record", "record", "Record a bundle from a live endpoint."),
    "reproduce": ("kvdoctor.commands.reproduce", "reproduce", "Run one reproducer experiment."),
    "kv": ("kvdoctor.commands.kv", "kv", "The locker math: KV bytes, capacity, planning."),
    "rules": ("kvdoctor.commands.rules", "rules", "List the playbooks and their causes."),
    "explain": (
        "kvdoctor.commands.rules",
        "explain",
        "Print the runbook of one playbook or cause.",
    ),
    "check": (
        "kvdoctor.commands.check",
        "check",
        "Replay fixtures and compare with expected.yaml.",
    ),
    "compare": (
        "kvdoctor.commands.compare",
        "compare",
        "Is the finding gone after the change? BEFORE bundle vs AFTER bundle or URL.",
    ),
    "lab": ("kvdoctor.commands.lab", "lab", "Start and stop a real vLLM lab server."),
    "demo": ("kvdoctor.commands.lab", "demo", "Lab up, drive a workload, diagnose, report, down."),
    "alerts": ("kvdoctor.commands.alerts", "alerts", "Generate Prometheus alerting rules."),
    "serve": ("kvdoctor.commands.serve", "serve", "Receive Alertmanager webhooks; diagnose them."),
    "investigate": (
        "kvdoctor.commands.investigate",
        "investigate",
        "Diagnose what fires in Alertmanager now (cron, one-off).",
    ),
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module_name, attr, _ = entry
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            return None
        command: click.Command = getattr(module, attr)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Short help comes from the table above so that `--help` imports no command module.
        rows = [(name, COMMANDS[name][2]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kvdoctor")
def cli() -> None:
    """kvdoctor: find out whether the KV cache is what hurts a vLLM server, and prove it.

    Exit codes: 0 nothing firing, 1 at least one confirmed or suspected finding,
    2 usage error or nothing could be diagnosed.
    """


class Terminated(BaseException):
    """SIGTERM (a pod shut down, ``timeout``, a supervisor): unwinds like an exception, so every
    ``finally`` runs and no staging directory or temporary file is left behind."""


def _terminated(signum: int, frame: object) -> None:
    raise Terminated()


def _where(exc: BaseException) -> str:
    """``module.py:line`` of the innermost kvdoctor frame of ``exc`` (for a bug report)."""
    import traceback

    spot = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        if f"{os.sep}kvdoctor{os.sep}" in frame.filename:
            spot = f"{os.path.basename(frame.filename)}:{frame.lineno}"
    return spot


def main(argv: list[str] | None = None) -> Any:
    """Console-script entry point: known errors become one line on stderr and exit code 2.

    Whatever else goes wrong also ends as one line (exit 2), never a traceback: a full disk, a
    recursion limit, memory, or a bug (named by its type and place, never its message, which
    can quote a credential). ``KVDOCTOR_DEBUG=1`` shows the traceback instead.
    """

    if signal.getsignal(signal.SIGINT) is _interrupted_at_start:
        # From here on Ctrl-C is a KeyboardInterrupt again: the capture window turns it into an
        # early end and keeps what it has, and the handlers below make it one line.
        signal.signal(signal.SIGINT, signal.default_int_handler)
    own_sigterm = threading.current_thread() is threading.main_thread() and (
        signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    )
    if own_sigterm:
        signal.signal(signal.SIGTERM, _terminated)
    threshold = gc.get_threshold()
    _gc_for_a_short_run()
    try:
        _main(argv)
    finally:
        # A caller in the same process (tests, an embedding tool) gets its disposition back.
        if own_sigterm:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
        gc.set_threshold(*threshold)


# Objects allocated before the cyclic collector runs a young-generation pass (Python: 700).
GC_YOUNG_THRESHOLD = 50_000


def _gc_for_a_short_run() -> None:
    """Spend less of a command's time in the cyclic garbage collector (none of its output).

    Start-up is almost all long-lived allocation (modules, classes, pydantic schemas, a replay's
    parsed samples): collections find next to nothing to free, yet with Python's defaults they
    walked everything loaded so far many times over (about 20 ms of a ~280 ms replay). Young
    passes are made rarer, never stopped, so a long run (``serve``, a live capture) still frees
    its cycles. The last full collection at exit is kept: it is what finalizes an object left in
    a cycle (a file not yet flushed), and nothing a user gave may be lost for 30 ms.
    """
    young, *older = gc.get_threshold()
    if 0 < young < GC_YOUNG_THRESHOLD:
        gc.set_threshold(GC_YOUNG_THRESHOLD, *older)


def _main(argv: list[str] | None) -> None:

    debug = os.environ.get("KVDOCTOR_DEBUG", "") not in ("", "0")
    try:
        # Commands return their exit code; standalone_mode=False hands it back here.
        rc = cli.main(args=argv, prog_name="kvdoctor", standalone_mode=False)
        sys.exit(rc if isinstance(rc, int) else 0)
    except click.exceptions.Abort:
        click.echo("kvdoctor: interrupted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except KvdoctorError as exc:
        click.echo(f"kvdoctor: error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("kvdoctor: interrupted", err=True)
        sys.exit(130)
    except Terminated:
        click.echo("kvdoctor: terminated (SIGTERM); nothing half-written was left", err=True)
        sys.exit(143)
    except OSError as exc:
        if debug:
            raise
        what = exc.strerror or type(exc).__name__
        name = f" ({os.path.basename(str(exc.filename))})" if exc.filename else ""
        click.echo(f"kvdoctor: error: {what}{name}", err=True)
        sys.exit(2)
    except RecursionError:
        if debug:
            raise
        click.echo("kvdoctor: error: input nested too deeply to read", err=True)
        sys.exit(2)
    except MemoryError:
        click.echo("kvdoctor: error: out of memory", err=True)
        sys.exit(2)
    except Exception as exc:
        if debug:
            raise
        click.echo(
            f"kvdoctor: internal error: {type(exc).__name__} at {_where(exc) or '?'} "
            "(rerun with KVDOCTOR_DEBUG=1 for the traceback, and please report it)",
            err=True,
        )
        sys.exit(2)
