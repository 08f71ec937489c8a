"""Dotted paths into config.json: the one syntax wisp reads, writes and prints.

A path is names joined by dots: ``audit.keepFiles`` is ``{"audit": {"keepFiles": …}}``. A name
that holds a dot is written in double quotes, as model names often do (``qwen2.5-coder:1.5b``,
``hf.co/owner/repo``, ``SmolLM2-135M-Instruct.Q4_1``):

    local.models."SmolLM2-135M-Instruct.Q4_1".capabilities

Inside quotes a backslash takes the next character as it is (``\\"``, ``\\\\``). Colons and slashes
need no quotes. ``join_path`` quotes exactly the names that need it, so every path wisp prints
splits back to the same names; ``shell_word`` adds the shell's quoting where a path is shown
to be typed at a prompt. This module is pure (stdlib only): the model backends build the paths
they print with it too.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable

from wisp.errors import UsageError

_HINT = 'use dotted names like audit.keepFiles, and "quotes" around a name that holds a dot'


def split_path(text: str) -> tuple[str, ...]:
    """``local.models."a.b".think`` → ``("local", "models", "a.b", "think")``.

    A malformed path is a ``UsageError`` that names it and the 1-based position of the fault.
    """
    if not text:
        raise _malformed(text, "it is empty")
    names: list[str] = []
    index = 0
    while True:
        name, index = _name_at(text, index)
        names.append(name)
        if index == len(text):
            return tuple(names)
        index += 1  # the dot: _name_at stops only at one, or at the end


def _name_at(text: str, start: int) -> tuple[str, int]:
    """The name starting at ``start``, and the index just past it (a dot or the end)."""
    if start < len(text) and text[start] == '"':
        return _quoted_at(text, start)
    end = text.find(".", start)
    end = len(text) if end < 0 else end
    if end == start:
        raise _malformed(text, f"no name at position {start + 1}; {_HINT}")
    quote = text.find('"', start, end)
    if quote >= 0:
        raise _malformed(
            text,
            f'a quote inside a name at position {quote + 1}; put the whole name in quotes: "NAME"',
        )
    return text[start:end], end


def _quoted_at(text: str, start: int) -> tuple[str, int]:
    chars: list[str] = []
    index = start + 1
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            chars.append(text[index + 1])
            index += 2
        elif char == '"':
            after = index + 1
            if after < len(text) and text[after] != ".":
                raise _malformed(
                    text, f"expected a dot after the closing quote at position {index + 1}"
                )
            return "".join(chars), after
        else:
            chars.append(char)
            index += 1
    raise _malformed(text, f"the quote at position {start + 1} is never closed")


def _malformed(text: str, why: str) -> UsageError:
    return UsageError(f"{text!r} is not a setting's path: {why}")


def join_path(names: Iterable[str]) -> str:
    """The path of ``names``, each quoted only when it must be: the inverse of ``split_path``."""
    return ".".join(_quoted(name) if _needs_quotes(name) else name for name in names)


def _needs_quotes(name: str) -> bool:
    return not name or any(char in name for char in '."\\')


def _quoted(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def model_path(scheme: str, name: str, *field: str) -> str:
    """``<scheme>.models.<name>`` (then ``field``), the name quoted when it holds a dot."""
    return join_path((scheme, "models", name, *field))


def shell_word(path: str) -> str:
    """``path`` as typed at a shell prompt: in single quotes when it holds a quote or space."""
    return shlex.quote(path)
