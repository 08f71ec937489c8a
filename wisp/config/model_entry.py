"""A model's entry, ``<scheme>.models."NAME"``, typed: what it can do, what a check found, its
window and thinking switch, and for ``local`` the file it loads and that file's checksum.

An entry is read as it is stored, field by field: a field of the right type and range (the one
``MODEL_FIELDS`` gives it, so it is said once, in the registry) is its value; a field stored
otherwise is kept ``Malformed``, for the part that reads it to report or pass over as it always
has (a bad ``contextLength`` stops resolving the model; a bad ``think`` is ignored), never for
the whole entry to fail. The object as stored is kept beside the fields: a change sets its own
keys and keeps every other one (a newer wisp's too) in its place, so the file, and the
``config.change`` recorded, are as they were written before (docs/models.md, "Capabilities").
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar, get_args

import msgspec

from wisp.config.settings import MODEL_FIELDS, Names, Setting


class Malformed(msgspec.Struct, frozen=True):
    """A known field stored with a value not of its type or range (``null`` included)."""

    value: Any


def as_stored(value: Any) -> Any:
    """A field's value as the file holds it: a ``Malformed`` one's own value."""
    return value.value if isinstance(value, Malformed) else value


class Verified(msgspec.Struct, frozen=True, omit_defaults=True):
    """``verified``: what ``wisp models check`` last found (docs/models.md, "The capability
    check")."""

    date: str | Malformed | None = None
    """The day it asked the model, ``YYYY-MM-DD``."""
    passed: list[str] | Malformed | None = None
    failed: list[str] | Malformed | None = None


class Hub(msgspec.Struct, frozen=True, omit_defaults=True):
    """``hub``: where ``wisp models pull hf:…`` fetched a local model from."""

    repository: str | Malformed | None = None
    file: str | Malformed | None = None
    revision: str | Malformed | None = None


class ModelEntry(msgspec.Struct, frozen=True, rename="camel"):
    """``<scheme>.models."NAME"``; a field not stored is None."""

    stored: dict[str, Any] = msgspec.field(default_factory=dict)
    """The object as stored (a copy), unknown fields included: what a change is written into."""
    capabilities: list[str] | Malformed | None = None
    """What the model can do, declared by hand or recorded by a check."""
    verified: Verified | Malformed | None = None
    context_length: int | Malformed | None = None
    """This model's window, ahead of the runtime's ``contextLength``."""
    think: bool | str | Malformed | None = None
    """This model's thinking switch, ahead of the runtime's (a level too, for Ollama)."""
    sha256: str | Malformed | None = None
    """``local``: the checksum of the GGUF file it loads."""
    sha256_path: str | Malformed | None = None
    """``local``: the real path of the file ``sha256`` was taken of."""
    sha256_stamp: list[int] | Malformed | None = None
    """``local``: the file's ``[size, mtimeNs, ctimeNs, inode, device]`` when it was hashed."""
    file: str | Malformed | None = None
    """``local``: the GGUF file ``local:NAME`` loads, for a pulled model."""
    hub: Hub | Malformed | None = None

    @classmethod
    def read(cls, scheme: str, stored: Any) -> ModelEntry:
        """The entry stored as ``stored`` under ``<scheme>.models`` (not an object: none)."""
        if not isinstance(stored, dict):
            return cls()
        fields = MODEL_FIELDS.get(scheme, {})
        return _read(cls, stored, fields, ()) if fields else cls(stored=stored)

    def failed_checks(self) -> set[str]:
        """What a recorded capability check found missing (``verified.failed``): its names, none
        when it is malformed (a record is wisp's own, passed over rather than refused)."""
        failed = as_stored(self.verified.failed) if isinstance(self.verified, Verified) else None
        if not isinstance(failed, list):
            return set()
        return {name for name in failed if isinstance(name, str)}

    def with_fields(self, **changes: Any) -> ModelEntry:
        """This entry with ``changes`` (fields by name) set, as it will be stored: a changed key
        keeps its place, a new one goes last, every other key stays as it was."""
        stored = dict(self.stored)
        for name, value in changes.items():
            stored[_ENCODED[name]] = msgspec.to_builtins(value)
        return msgspec.structs.replace(self, stored=stored, **changes)


_ENCODED = {field.name: field.encode_name for field in msgspec.structs.fields(ModelEntry)}

_E = TypeVar("_E", bound=msgspec.Struct)


def _read(kind: type[_E], stored: dict[str, Any], fields: dict[Names, Setting], above: Names) -> _E:
    """``kind`` with each field stored in ``stored`` checked by its setting in ``fields``."""
    values: dict[str, Any] = {"stored": stored} if kind is ModelEntry else {}
    for field in msgspec.structs.fields(kind):
        names = (*above, field.encode_name)
        if field.name == "stored" or field.encode_name not in stored:
            continue
        value = stored[field.encode_name]
        nested = _nested(field.type)
        if nested is not None:
            is_object = isinstance(value, dict)
            read = _read(nested, value, fields, names) if is_object else Malformed(value)
            values[field.name] = read
        elif names in fields:
            values[field.name] = _checked(fields[names], value)
    return kind(**values)


def _nested(annotation: Any) -> type[msgspec.Struct] | None:
    """The entry's object a field holds (``verified``, ``hub``), or None for a value."""
    for kind in get_args(annotation):
        if isinstance(kind, type) and issubclass(kind, msgspec.Struct) and kind is not Malformed:
            return kind
    return None


def _checked(setting: Setting, value: Any) -> Any:
    try:
        return setting.check(value)
    except ValueError:
        return Malformed(value)


class ModelEntries(msgspec.Struct, frozen=True):
    """``<scheme>.models``: each model's entry as stored. A model's name may hold dots, so an
    entry is found by name here; each part that reads a field reports a malformed one."""

    path: Path
    """The config file, for the backends' messages about an entry."""
    scheme: str
    stored: dict[str, Any] | None
    """The object at ``<scheme>.models`` (a copy); None when there is none or it is not one."""

    @classmethod
    def read(cls, path: Path, scheme: str, stored: Any) -> ModelEntries:
        copied = copy.deepcopy(stored) if isinstance(stored, dict) else None
        return cls(path, scheme, copied)

    def entry(self, name: str) -> ModelEntry:
        """``<scheme>.models."<name>"``: empty when there is none or it is not an object."""
        return ModelEntry.read(self.scheme, (self.stored or {}).get(name))

    def items(self) -> Iterator[tuple[str, ModelEntry]]:
        """Each (name, entry) stored, in file order; one that is not an object is left out."""
        for name, stored in (self.stored or {}).items():
            if isinstance(stored, dict):
                yield name, ModelEntry.read(self.scheme, stored)
