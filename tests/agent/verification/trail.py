"""A turn's audit trail, as the recorder keeps it, built call by call for the readers' tests."""

from __future__ import annotations

import itertools

from tests.recorded import recorded
from wisp.audit.event import AuditEvent

_ids = itertools.count()


def command(line: str, outcome: str = "succeeded") -> list[AuditEvent]:
    """A ``run_command`` the gate let through (exit 0 or 1) or did not (denied, declined)."""
    call = f"c{next(_ids)}"
    events = [recorded("tool.call", call, tool="run_command", arguments={"command": line})]
    if outcome in ("denied", "declined"):
        verdict = "denied by pattern" if outcome == "denied" else "disapproved by the person"
        events.append(recorded("policy.decision", command=line, verdict=verdict))
        events.append(recorded("tool.result", call, tool="run_command", output="error: no"))
        return events
    status = 0 if outcome == "succeeded" else 1
    events.append(recorded("policy.decision", command=line, verdict="allowed"))
    events.append(recorded("command.outcome", command=line, exitStatus=status))
    events.append(recorded("tool.result", call, tool="run_command", output=f"exit {status}"))
    return events


def file_call(tool: str, path: str, *, ok: bool = True) -> list[AuditEvent]:
    """An ``edit_file`` or ``read_file`` of ``path`` that succeeded or failed."""
    call = f"c{next(_ids)}"
    output = "done" if ok else "error: no such file"
    return [
        recorded("tool.call", call, tool=tool, arguments={"path": path, "content": "x"}),
        recorded("tool.result", call, tool=tool, output=output),
    ]


def edit(path: str, *, ok: bool = True) -> list[AuditEvent]:
    return file_call("edit_file", path, ok=ok)


def read(path: str, *, ok: bool = True) -> list[AuditEvent]:
    return file_call("read_file", path, ok=ok)


def trail(*calls: list[AuditEvent]) -> list[AuditEvent]:
    return [event for events in calls for event in events]


REPEAT_NOTE = (
    "note: you already made this exact call in this turn, and its result is the same as before "
    "(above). Do not call it a third time: use the results you have."
)


def repeated(tool: str, path: str) -> list[AuditEvent]:
    """The same ``tool`` call on ``path`` as ``file_call`` makes, made again and answered with
    the repeat note."""
    call = f"c{next(_ids)}"
    return [
        recorded("tool.call", call, tool=tool, arguments={"path": path, "content": "x"}),
        recorded("tool.result", call, tool=tool, output=REPEAT_NOTE, repeat=2),
    ]
