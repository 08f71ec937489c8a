"""Whether an edit breaks a file's syntax: a JSON or TOML file that parsed before an edit must
parse after it (docs/turn.md, "Tool arguments").

A config file that no longer parses stops the program that reads it, and small models write
``port: 9090`` into ``settings.json`` (Qwen2.5-Coder-1.5B did, on the right line). A file that
did not parse before is left to the edit: it may be the fix.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable

_PARSERS: dict[str, tuple[str, Callable[[str], object], type[Exception]]] = {
    ".json": ("JSON", json.loads, json.JSONDecodeError),
    ".toml": ("TOML", tomllib.loads, tomllib.TOMLDecodeError),
}


def broken_by(name: str, before: bytes | None, after: bytes) -> str | None:
    """What is wrong with ``after`` when ``name`` is a JSON or TOML file that ``before``
    parsed as such and ``after`` does not (``JSON: Expecting ',' delimiter: line 3 column
    3``); else None."""
    suffix = name[name.rfind(".") :].lower() if "." in name else ""
    if before is None or suffix not in _PARSERS:
        return None
    kind, parse, failure = _PARSERS[suffix]
    try:
        parse(before.decode())
    except (failure, UnicodeDecodeError):
        return None  # broken already: the edit may be the fix
    try:
        parse(after.decode())
    except UnicodeDecodeError:
        return f"{kind}: it would not be UTF-8 text"
    except failure as exc:
        return f"{kind}: {exc}"
    return None
