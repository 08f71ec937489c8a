"""Recorded events for the face's tests: a kind's Details Struct from the fields a test names
(as written on disk, camelCase), the required fields it leaves out filled with empty values, and
the same wrapped in its envelope as the recorder hands it to the face."""

from __future__ import annotations

from typing import Any

import msgspec
import msgspec.inspect as mi

from wisp.audit.details import REGISTRY, Details
from wisp.audit.event import AuditEvent

_EMPTY: dict[type[mi.Type], Any] = {
    mi.StrType: "",
    mi.IntType: 0,
    mi.FloatType: 0.0,
    mi.BoolType: False,
    mi.ListType: [],
    mi.DictType: {},
}


def typed(kind: str, /, **fields: Any) -> Details:
    """The ``kind`` event's details from ``fields``, checked as the registry types them."""
    cls = REGISTRY[kind]
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    given = dict(fields)
    for field in info.fields:
        if field.required and field.encode_name not in given:
            given[field.encode_name] = _empty(field.type)
    return msgspec.convert(given, cls)


def _empty(t: mi.Type) -> Any:
    if isinstance(t, mi.UnionType):
        return _empty(t.types[0])
    return _EMPTY.get(type(t))


def recorded(
    kind: str, call: str | None = None, /, *, turn: int | None = 1,
    event_id: str = "8a7b6c5d4e3f2a1b", **fields: Any,
) -> AuditEvent:  # fmt: skip
    """``typed(kind, **fields)`` in the envelope the recorder stamps."""
    return AuditEvent(
        id=event_id, time="2026-12-01T18:00:00.000Z", version="0", pid=1, session="s" * 16,
        turn=turn, call=call, kind=kind, details=typed(kind, **fields),
    )  # fmt: skip
