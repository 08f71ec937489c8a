"""A shell word's value, read from tree-sitter-bash's tree as bash would after quote removal.

A word whose value is filled in only when the line runs (``$X``, ``$(…)``) has no value here:
the readers return None for it, and the splitter then treats its command as unreadable.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["literal", "named_tail", "node_text", "quoted", "read_ansi_c"]

_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")


def node_text(node: Node | None) -> str:
    """The node's source text; bytes that are not UTF-8 survive as surrogate escapes."""
    if node is None:
        return ""
    return (node.text or b"").decode("utf-8", "surrogateescape")


def literal(node: Node | None) -> str | None:
    """The word's value after quote removal; None when part of it is only known at run time."""
    if node is None:
        return None
    text = node_text(node)
    match node.type:
        case "command_name":
            return literal(node.named_children[0]) if node.named_child_count == 1 else None
        case "word" | "number":
            return re.sub(r"\\(\n|.)", lambda m: "" if m.group(1) == "\n" else m.group(1), text)
        case "raw_string":
            return text[1:-1]
        case "ansi_c_string":
            return read_ansi_c(text[2:-1])
        case "string":
            return _string_literal(node)
        case "translated_string":
            return literal(node.named_children[0]) if node.named_child_count == 1 else None
        case "concatenation":
            pieces = [literal(child) for child in node.named_children]
            return None if None in pieces else "".join(pieces)  # type: ignore[arg-type]
    return None


def named_tail(node: Node) -> str | None:
    """The literal path after a program word's last expansion, when it names the program:
    ``"$VENV/bin/pytest"`` → ``/bin/pytest``; ``$X``, ``$D$N`` and ``${X}s`` → None."""
    pieces = _pieces(node)
    last = max((i for i, piece in enumerate(pieces) if piece is None), default=-1)
    tail = "".join(piece for piece in pieces[last + 1 :] if piece is not None)
    name = tail.rsplit("/", 1)[-1]
    return tail if "/" in tail and _PLAIN_NAME.fullmatch(name) else None


def quoted(word: str) -> str:
    """``word`` in single quotes, so that the shell reads it back as the one word it is."""
    return "'" + word.replace("'", "'\\''") + "'"


def read_ansi_c(body: str) -> str:
    r"""The text of a ``$'…'`` string's body: ``a\nb`` → a newline between a and b."""
    return _ANSI_C_ESCAPE.sub(_ansi_c_char, body)


def _pieces(node: Node) -> list[str | None]:
    """A word's pieces in order: each literal text, or None for what is filled in at run time."""
    match node.type:
        case "command_name" | "concatenation":
            return [piece for child in node.named_children for piece in _pieces(child)]
        case "string":
            return [
                _string_content(child) if child.type == "string_content" else None
                for child in node.named_children
            ]
    return [literal(node)]


def _string_literal(node: Node) -> str | None:
    pieces = [
        _string_content(child) if child.type == "string_content" else None
        for child in node.named_children
    ]
    return None if None in pieces else "".join(pieces)  # type: ignore[arg-type]


def _string_content(node: Node) -> str:
    return re.sub(r'\\(?:([\\"$`])|\n)', lambda m: m.group(1) or "", node_text(node))


_ANSI_C_ESCAPE = re.compile(
    r"\\(?:x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})|([0-7]{1,3})|c(.)|(.))",
    re.DOTALL,
)
_ANSI_C_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n",
                  "r": "\r", "t": "\t", "v": "\v"}  # fmt: skip


def _ansi_c_char(match: re.Match[str]) -> str:
    hex2, hex4, hex8, octal, control, other = match.groups()
    if number := hex2 or hex4 or hex8:
        return chr(min(int(number, 16), 0x10FFFF))
    if octal:
        return chr(int(octal, 8) & 0xFF)
    if control:
        return chr(ord(control) & 0x1F)
    return _ANSI_C_SIMPLE.get(other, other)
