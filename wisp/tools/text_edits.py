"""``edit_file``'s ``replace`` on a file's text, pure: one line made new, one found text
replaced, and, for a replace refused for its place, the call it meant (docs/turn.md, "Tool
arguments")."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec

from wisp.tools.output import split_lines

QUOTE_CHARACTERS = 200
SHOWN_LINES = 3


class EditRefused(Exception):
    """An edit that cannot be made as asked; the message is the result after ``error: ``."""

    def __init__(self, message: str, *, shows_file: bool = False) -> None:
        super().__init__(message)
        self.shows_file = shows_file
        """The place to edit was missing or not found: a small file's lines are shown."""


class LineEdit(msgspec.Struct, frozen=True):
    """Where a ``replace`` landed, for its one-line result."""

    first: int
    """The first line changed (1-based)."""
    shown: list[str]
    """The changed lines as they now read (a multi-line replacement: its first few)."""
    count: int
    """How many lines the replacement now spans."""
    asked: int | None = None
    """The line the model named, when the edit went to the one line holding ``find`` instead."""
    find: str = ""
    indentation: str = ""
    """The indentation kept from the old line, when the new line came without one."""

    def describe(self, path: Path, size: str) -> str:
        if self.asked is not None:
            where = (
                f"line {self.asked} did not contain {quote(self.find)}; "
                f"replaced line {self.first} of {path}, the one line that does"
            )
        else:
            where = f"replaced at line {self.first} of {path}"
        if self.indentation:
            where += f", keeping the line's indentation ({_indentation_words(self.indentation)})"
        if self.count <= 1:
            now = f"line {self.first} now: {quote(self.shown[0] if self.shown else '')}"
        else:
            last = self.first + self.count - 1
            now = f"lines {self.first}-{last} now: {quote(chr(10).join(self.shown))}"
            if self.count > len(self.shown):
                now += f" and {self.count - len(self.shown)} more"
        return f"{where}; {size}; {now}"


def quote(text: str) -> str:
    """``text`` in double quotes with JSON escapes, cut at 200 characters (then ``…``)."""
    shown = msgspec.json.encode(text[:QUOTE_CHARACTERS]).decode()
    return shown + ("…" if len(text) > QUOTE_CHARACTERS else "")


def _indentation_words(indentation: str) -> str:
    count = len(indentation)
    if set(indentation) == {" "}:
        return "1 space" if count == 1 else f"{count} spaces"
    if set(indentation) == {"\t"}:
        return "1 tab" if count == 1 else f"{count} tabs"
    return f"{count} whitespace characters"


def _ending(line: str) -> str:
    if line.endswith("\r\n"):
        return "\r\n"
    return "\n" if line.endswith("\n") else ""


def replace_line(text: str, line: int, content: str, find: str, path: Path) -> tuple[str, LineEdit]:
    """``text`` with line ``line`` (or, when it lacks ``find``, the one line holding it) made
    ``content``, keeping the line's ending, and its indentation when ``content`` has none."""
    content = content.removesuffix("\n").removesuffix("\r")
    if "\n" in content:
        raise EditRefused(
            f"a line edit replaces one line, and content has {content.count(chr(10)) + 1} "
            "lines; use find (the exact text to replace) to change several lines"
        )
    lines = split_lines(text)
    if not 1 <= line <= len(lines):
        raise EditRefused(f"line {line} is not in {path}, which has {len(lines)} lines")
    target, asked = line, None
    if find and find not in lines[line - 1]:
        holders = [number for number, held in enumerate(lines, start=1) if find in held]
        if not holders:
            raise EditRefused(f"text to replace not found: {quote(find)}", shows_file=True)
        if len(holders) > 1:
            raise EditRefused(
                f"text to replace occurs {len(holders)} times, include more surrounding "
                f"text: {quote(find)}"
            )
        target, asked = holders[0], line
    old = lines[target - 1]
    ending = _ending(old)
    body = old[: len(old) - len(ending)]
    indentation = body[: len(body) - len(body.lstrip(" \t"))]
    kept = ""
    if indentation and content and content[0] not in " \t":
        content, kept = indentation + content, indentation
    lines[target - 1] = content + ending
    edit = LineEdit(target, [content], 1, asked, find if asked else "", kept)
    return "".join(lines), edit


_WORD = re.compile(r"\w[\w.-]*")


def closest_edit(text: str, find: str, content: str, line: int | None) -> str:
    """How to make the edit a refused ``replace`` meant in ``text``: on ``line`` (the line
    named, when ``find`` is not given) or the one line sharing most words with ``find`` (else
    ``content``), the ``find`` and ``content`` that change the one word that differs from
    ``content`` (``"port": 8080,`` and ``port: 9090`` give find ``8080``, content ``9090``);
    when more differs, the line to send whole. Empty when no one line is like it.
    Qwen2.5-Coder-1.5B sent ``port: 9090`` as a replace with no place, then as line 3 of a JSON
    file, and gave up after each refusal; the 0.5B sent ``find: "port: 8080"`` twice."""
    lines = [held.removesuffix("\n").removesuffix("\r") for held in split_lines(text)]
    wanted = _WORD.findall(content)
    probe = _WORD.findall(find) if find else wanted
    shared = [len(set(probe) & set(_WORD.findall(held))) for held in lines]
    if find or line is None:
        best = max(shared, default=0)
        if best == 0 or shared.count(best) > 1:
            return ""
        line = shared.index(best) + 1
    elif not 1 <= line <= len(lines) or shared[line - 1] == 0:
        return ""
    old = lines[line - 1]
    have = _WORD.findall(old)
    gone = [word for word in have if word not in wanted]
    new = [word for word in wanted if word not in have]
    if len(gone) == 1 and len(new) == 1 and text.count(gone[0]) == 1:
        return (
            f"To change {quote(gone[0])} to {quote(new[0])} on line {line} ({quote(old)}), call "
            f"again with find {quote(gone[0])} and content {quote(new[0])}."
        )
    return (
        f"Line {line} reads {quote(old)}: to replace it, call again with line {line} and the "
        "whole new line as content."
    )


def replace_text(text: str, find: str, content: str) -> tuple[str, LineEdit]:
    """``text`` with the one occurrence of ``find`` replaced by ``content``."""
    asked, count = find, text.count(find)
    if count == 0 and "\r\n" in text and "\n" in find and "\r\n" not in find:
        # A CRLF file, and a model that wrote its text with LF: match it as the file has it.
        find = find.replace("\n", "\r\n")
        content = content.replace("\r\n", "\n").replace("\n", "\r\n")
        count = text.count(find)
    if count == 0:
        raise EditRefused(f"text to replace not found: {quote(asked)}", shows_file=True)
    if count > 1:
        raise EditRefused(
            f"text to replace occurs {count} times, include more surrounding text: {quote(asked)}"
        )
    start = text.index(find)
    new_text = text[:start] + content + text[start + len(find) :]
    first = text.count("\n", 0, start) + 1
    end = start + len(content)
    last = new_text.count("\n", 0, end - 1) + 1 if content else first
    lines = split_lines(new_text)[first - 1 : last]
    shown = [line.removesuffix("\n").removesuffix("\r") for line in lines[:SHOWN_LINES]]
    return new_text, LineEdit(first, shown, max(last - first + 1, 1))
