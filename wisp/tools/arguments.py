"""A tool's arguments: its JSON Schema from a typed args Struct, and checking what a model sent.

Each tool declares its arguments once, as a msgspec Struct (``rename="camel"``, optional fields
``UNSET``); the schema offered to the model is derived from it, and the same Struct checks the
call. Bad arguments are an ordinary failure: an ``error:`` result the model can act on.
Arguments the Struct does not know are ignored, and the result says so in a note at its end
(docs/turn.md, "Tool arguments").
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, TypeVar

import msgspec

A = TypeVar("A", bound=msgspec.Struct)


def schema_of(args_type: type[msgspec.Struct]) -> dict[str, Any]:
    """The JSON Schema of ``args_type``, inlined (no ``$ref``), as a model wants it."""
    schema = msgspec.json.schema(args_type)
    body = dict(schema["$defs"][args_type.__name__])
    # The tool's own description says what it does; the Struct's name means nothing to a model.
    body.pop("title", None)
    body.pop("description", None)
    return body


def parse_arguments(
    tool: str, arguments: Any, args_type: type[A], notes: list[str] | None = None
) -> A | str:
    """The call's arguments as ``args_type``, or an ``error:`` result saying what is wrong.

    Lenient where a model is often sloppy: a null stands for an argument not given, a number
    written as a string is taken as the number, and an argument ``args_type`` does not have is
    ignored, with a note added to ``notes`` (the call's ``ToolContext.notes``, put at the end of
    its result) so the model knows it had no effect.
    """
    if not isinstance(arguments, dict):
        shown = msgspec.json.encode(arguments).decode()
        return f"error: {tool} takes a JSON object of arguments, got {shown}"
    known = {field.encode_name for field in msgspec.structs.fields(args_type)}
    if (unknown := [str(name) for name in arguments if name not in known]) and notes is not None:
        plural = "s" if len(unknown) > 1 else ""
        notes.append(f"(ignored unknown argument{plural}: {', '.join(unknown)})")
    given = {name: value for name, value in arguments.items() if value is not None}
    try:
        return msgspec.convert(given, args_type, strict=False)
    except msgspec.ValidationError as exc:
        return f"error: bad arguments for {tool}: {exc}"


def nul_path_refusal(name: str, value: str) -> str | None:
    """An ``error:`` result for a path argument that holds a NUL, which no OS call can take
    (Python would raise ``ValueError`` at the first one); None when it holds none."""
    if "\0" not in value:
        return None
    return f"error: {name} {value!r} holds a NUL character (\\0), which no file name can carry"


def resolve_path(raw: str, working_directory: Path) -> Path:
    """A path argument: ``~`` expanded, relative to the working directory (the conversation's
    folder), ``..`` folded (symlinks are left for a caller that needs the real path). What the
    path may reach is decided after, on the resolved path: the policy and the sandbox."""
    path = Path(raw.strip()).expanduser()
    if not path.is_absolute():
        path = working_directory / path
    return Path(os.path.normpath(path))
