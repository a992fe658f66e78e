"""The reproducer experiments (docs/reproducers.md): one small, bounded test per suspected cause.

One module per experiment (``prefix_probe``, ``ttft_split``, ``itl_context``, ``capacity_ramp``,
``memory_headroom``, ``quant_canary``), the interface in :mod:`.base`, the way a run starts in
:mod:`.registry`; what each one is (name, causes, measured keys, needs) in
:mod:`kvdoctor.experiment_catalog`. This package re-exports what callers use.

Adding an experiment: its entry in :mod:`kvdoctor.experiment_catalog`, one module here (an
:class:`Experiment` subclass with that ``spec``, its measured model and
``plan``/``run``/``verdict``), its instance in ``registry._ALL``, and the playbook causes that
name it (``reproducer:``); loading the playbooks checks they agree.
"""

from kvdoctor.reproducers.experiments.base import (
    CauseRef,
    Effect,
    Experiment,
    Judgement,
    Measured,
    Plan,
    ReproContext,
    Session,
)
from kvdoctor.reproducers.experiments.registry import (
    DEFAULT_SET,
    EXPERIMENTS,
    NAMES,
    check_allowed,
    describe,
    get_experiment,
    run_experiment,
    run_experiment_async,
)

__all__ = [
    "DEFAULT_SET",
    "EXPERIMENTS",
    "NAMES",
    "CauseRef",
    "Effect",
    "Experiment",
    "Judgement",
    "Measured",
    "Plan",
    "ReproContext",
    "Session",
    "check_allowed",
    "describe",
    "get_experiment",
    "run_experiment",
    "run_experiment_async",
]
