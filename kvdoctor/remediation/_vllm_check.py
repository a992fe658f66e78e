"""Have a real vLLM build its engine configuration from argument lists (no server started).

Runs inside the lab's vLLM environment (``python _vllm_check.py < cases.json``), like
``kvdoctor/lab/_genmodel.py``: it imports vLLM and the standard library only. Input: a JSON list
of argument lists (vLLM CLI flags, ``--model`` included). Output: one JSON line per list,
``{"ok": true}`` or ``{"ok": false, "error": "<first line of vLLM's refusal>"}``.

``AsyncEngineArgs.from_cli_args(...).create_engine_config()`` runs vLLM's own validation of
every config object (scheduler, cache, model, parallel) the way ``vllm serve`` does before it
allocates anything; it needs no accelerator and no server on the CPU build.
"""

from __future__ import annotations

import json
import sys


def main() -> int:
    from vllm.engine.arg_utils import AsyncEngineArgs
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    cases = json.load(sys.stdin)
    parser = AsyncEngineArgs.add_cli_args(FlexibleArgumentParser())
    for argv in cases:
        try:
            ns = parser.parse_args(argv)
            AsyncEngineArgs.from_cli_args(ns).create_engine_config()
        except SystemExit as exc:  # argparse refuses an unknown or malformed flag this way
            print(json.dumps({"ok": False, "error": f"argument parser exit {exc.code}"}))
        except Exception as exc:  # vLLM raises ValueError / pydantic ValidationError
            text = " ".join(str(exc).split())
            print(json.dumps({"ok": False, "error": f"{type(exc).__name__}: {text[:400]}"}))
        else:
            print(json.dumps({"ok": True}))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
