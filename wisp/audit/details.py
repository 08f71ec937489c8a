"""The base of every audit kind's details, and the one registry of kinds.

Each kind is a ``Details`` Struct registered under its kind name with ``@register``. Its
fields *are* the kind's details: a field that is "null when …" is typed ``T | None`` and always
written; one that is "absent otherwise" is ``T | UnsetType = UNSET`` and left out when unset.
Field names are camelCase on disk (``rename="camel"``); the few that camel-casing cannot spell
(``approvalID``, ``from``) name themselves with ``msgspec.field(name=...)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, TypeVar

import msgspec


class Details(msgspec.Struct, kw_only=True, rename="camel"):
    """One event's kind-specific fields. Subclasses are registered with ``@register``."""

    kind: ClassVar[str]
    """The kind name, as written in the envelope's ``kind``."""

    written_by: ClassVar[str]
    """Which part of wisp records it ("Written by" in docs/logging.md)."""

    owner_tool: ClassVar[str | None] = None
    """The tool whose work these events record, for ``wisp logs --tool`` (None: no tool's)."""


REGISTRY: dict[str, type[Details]] = {}
"""Every kind this build knows, by name."""

D = TypeVar("D", bound=type[Details])


def register(kind: str, *, written_by: str, owner_tool: str | None = None) -> Callable[[D], D]:
    """Register a ``Details`` Struct as the fields of ``kind``."""

    def decorate(cls: D) -> D:
        if kind in REGISTRY:
            raise ValueError(f"audit kind {kind!r} is registered twice")
        cls.kind = kind
        cls.written_by = written_by
        cls.owner_tool = owner_tool
        REGISTRY[kind] = cls
        return cls

    return decorate


def field_names(cls: type[Details]) -> tuple[str, ...]:
    """The details' field names as written on disk, in declaration order."""
    return tuple(f.encode_name for f in msgspec.structs.fields(cls))
