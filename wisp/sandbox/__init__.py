"""The Linux sandbox: namespaces and Landlock applied in a helper before exec, and the
refusal check (docs/sandbox.md).

    plan.py         probe() once per process; confined_argv() wraps a command in the helper
    writable.py     the writable set
    cache.py        the model's commands' own cache per working folder, and its sweep
    narrowing.py    narrowing a root that holds WISP_HOME, where no namespace can be made
    mounts.py       the helper's namespaces and mounts (read-only install, hidden WISP_HOME,
                    a /dev of the command's own)
    landlock.py     the Landlock syscalls through ctypes, the rights per ABI, capabilities
    spec.py         what the planner tells the helper; spec_reader.py, how the helper reads it
    __main__.py     the helper: ``python -I -S -c BOOTSTRAP SPEC_JSON -- argv...``
    refusal.py      the refusal check on Linux's messages
    process.py      run_process(): its own process group, time limit, stops
    launch.py       launch_stdio(): a long-lived server with pipes (an MCP server), stopped
                    with its group

The names below load on first use: ``python -m wisp.sandbox`` imports this package on every
command, and must not pay for asyncio and the rest.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # not typing's: importing typing costs the helper, on every command
if TYPE_CHECKING:
    from typing import Any

    from wisp.sandbox.launch import StdioServer, launch_stdio
    from wisp.sandbox.plan import (
        SandboxState,
        SandboxSupport,
        confined_argv,
        probe,
        unconfined,
    )
    from wisp.sandbox.process import ProcessResult, run_process
    from wisp.sandbox.refusal import Refusal, Verdict, check_refusal
    from wisp.sandbox.spec import EXIT_CANNOT_CONFINE, HelperSpec
    from wisp.sandbox.writable import WritableSet

_HOMES = {
    "EXIT_CANNOT_CONFINE": "spec",
    "HelperSpec": "spec",
    "ProcessResult": "process",
    "Refusal": "refusal",
    "SandboxState": "plan",
    "SandboxSupport": "plan",
    "StdioServer": "launch",
    "Verdict": "refusal",
    "WritableSet": "writable",
    "check_refusal": "refusal",
    "confined_argv": "plan",
    "launch_stdio": "launch",
    "probe": "plan",
    "run_process": "process",
    "unconfined": "plan",
}

__all__ = [
    "EXIT_CANNOT_CONFINE",
    "HelperSpec",
    "ProcessResult",
    "Refusal",
    "SandboxState",
    "SandboxSupport",
    "StdioServer",
    "Verdict",
    "WritableSet",
    "check_refusal",
    "confined_argv",
    "launch_stdio",
    "probe",
    "run_process",
    "unconfined",
]


def __getattr__(name: str) -> Any:
    module = _HOMES.get(name)
    if module is None:
        raise AttributeError(f"module 'wisp.sandbox' has no attribute {name!r}")
    return getattr(importlib.import_module(f"wisp.sandbox.{module}"), name)
