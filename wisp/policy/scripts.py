"""The script a command hands on to be parsed in turn: to a shell, ``eval``, ``trap``, an alias.

``bash -lc '…'``, a heredoc or here-string into ``sh``, ``eval …``, ``trap '…' EXIT``,
``env -S '…'`` and ``alias x='…'`` each carry a script of their own, which the splitter parses
like the line itself. A script built only when the line runs (``sh -c "$X"``) has no text here,
and the command that runs it is then unreadable.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import msgspec

from wisp.policy.program import Program
from wisp.policy.shell_words import literal, node_text, quoted

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["Script", "defines_alias", "has_quoted_delimiter", "script_of", "split_string"]

SHELLS = frozenset(["sh", "bash", "zsh", "dash", "ksh", "fish"])
SHELL_VALUE_OPTIONS = frozenset(["-o", "+o", "-O", "+O", "--rcfile", "--init-file"])
_EXPANSIONS = frozenset(
    {"simple_expansion", "expansion", "command_substitution", "process_substitution",
     "arithmetic_expansion"}
)  # fmt: skip


class Script(msgspec.Struct, frozen=True):
    text: str | None
    """The script's text; None when it is only known when the line runs."""


def split_string(words: list[str | None], program: Program) -> Script | None:
    """``env -S 'rm -rf /'``: env splits the string into the command it runs, so it is a script
    of its own (with the words after it)."""
    for index, name in [*program.layers, (program.index, program.name)]:
        if name != "env":
            continue
        end = program.index if index < program.index else len(words)
        for at in range(index + 1, end):
            option = words[at] or ""
            if option in ("-S", "--split-string") and at + 1 < len(words):
                value, rest = words[at + 1], words[at + 2 :]
            elif option.startswith("--split-string="):
                value, rest = option.removeprefix("--split-string="), words[at + 1 :]
            elif option.startswith("-S"):
                value, rest = option[2:], words[at + 1 :]
            else:
                continue
            if value is None or None in rest:
                return Script(None)
            return Script(" ".join([value, *(quoted(word) for word in rest)]))  # type: ignore[arg-type]
    return None


def script_of(program: Program, redirects: list[Node]) -> Script | None:
    """The script this command hands to a shell, ``eval`` or ``trap``, if it hands one."""
    match program.name:
        case name if name in SHELLS:
            return _shell_script(program.rest, redirects)
        case "eval" if program.rest:
            return Script(None if None in program.rest else " ".join(program.rest))  # type: ignore[arg-type]
        case "trap" if len(program.rest) >= 2 and not (program.rest[0] or "-").startswith("-"):
            return Script(program.rest[0])
        case "alias" if defines_alias(program):
            # dash (/bin/sh) expands aliases in `sh -c` too: an alias's text runs where its name
            # is used, so it is judged as a script; the names it renames cannot be (the splitter
            # keeps the alias command unreadable).
            bodies = [word.split("=", 1)[1] for word in program.rest if word and "=" in word]
            return Script(None if None in program.rest else "\n".join(bodies))
    return None


def defines_alias(program: Program) -> bool:
    """``alias s=sudo``: after it, a command named ``s`` is not what its name says."""
    return program.name == "alias" and any(word is None or "=" in word for word in program.rest)


def has_quoted_delimiter(heredoc: Node) -> bool:
    """``<<'EOF'``, ``<<"EOF"``, ``<<\\EOF``: the body is data, expanded and run by nothing."""
    start = next((c for c in heredoc.children if c.type == "heredoc_start"), None)
    return start is not None and any(ch in node_text(start) for ch in "'\"\\")


def _shell_script(args: list[str | None], redirects: list[Node]) -> Script | None:
    """``-c SCRIPT`` (``-lc``, ``-o opt`` handled), else a heredoc or here-string on stdin."""
    has_c = False
    index = 0
    while index < len(args):
        arg = args[index]
        if arg is None:
            return Script(None) if has_c else None
        if arg.startswith("--command="):  # fish
            return Script(arg.removeprefix("--command="))
        if arg in ("--", "-"):
            index += 1
            break
        if arg[:1] in ("-", "+") and len(arg) > 1:
            is_cluster = not arg.startswith("--")
            has_c = has_c or arg == "--command" or (is_cluster and arg[0] == "-" and "c" in arg)
            takes_value = arg in SHELL_VALUE_OPTIONS or (
                is_cluster and len(arg) > 2 and arg[-1] in "oO"  # `-eo pipefail`
            )
            index += 2 if takes_value else 1
            continue
        break
    if has_c:
        return Script(args[index]) if index < len(args) else None
    if index < len(args):
        return None  # a script file: its text is not on the line
    return _stdin_script(redirects)


def _stdin_script(redirects: list[Node]) -> Script | None:
    for redirect in redirects:
        if redirect.type == "herestring_redirect":
            value = redirect.named_children[-1] if redirect.named_children else None
            return Script(literal(value) if value is not None else None)
        if redirect.type == "heredoc_redirect":
            return Script(_heredoc_text(redirect))
    return None


def _heredoc_text(redirect: Node) -> str | None:
    body = next((c for c in redirect.children if c.type == "heredoc_body"), None)
    if body is None:
        return ""
    if has_quoted_delimiter(redirect):
        return node_text(body)
    if any(child.type in _EXPANSIONS for child in body.named_children):
        return None  # the body is filled in when the line runs
    return re.sub(r"\\(?:([\\`$])|\n)", lambda m: m.group(1) or "", node_text(body))
