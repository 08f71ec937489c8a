"""What ``wisp scan`` and ``wisp redact`` read: files (a folder walked, ``.gitignore``
respected in a git work tree), stdin, and the added lines of a unified diff."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import msgspec

STDIN = "-"
_BINARY_PROBE = 8192
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(?P<start>\d+)(?:,\d+)? @@")


class Source(msgspec.Struct):
    """One input: its name as reported, its text, and its size in bytes."""

    name: str
    text: str
    size: int
    truncated: bool = False
    lines: list[int] | None = None
    """For a diff's added lines: each one's line number in the new file."""
    working_directory: str | None = None
    """For a command's output: the folder it ran in."""
    raw: bytes | None = None
    """The bytes ``text`` was read from, when they are its whole: what ``wisp redact`` writes
    back unchanged for a source with nothing to replace, without encoding it again."""


class Walk(msgspec.Struct):
    """The files a scan reads, and the binary ones it skipped."""

    files: list[Path] = msgspec.field(default_factory=list)
    binary: int = 0


def read_bytes(data: bytes, name: str, max_bytes: int | None) -> Source:
    """``data`` as text (bytes that are not UTF-8 kept, so ``wisp redact`` writes them back as
    they were), bounded by ``max_bytes``."""
    truncated = max_bytes is not None and len(data) > max_bytes
    if truncated:
        data = data[:max_bytes]
    text = data.decode("utf-8", "surrogateescape")
    return Source(name, text, len(data), truncated, raw=data)


def encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def read_stdin(max_bytes: int | None) -> Source:
    return read_bytes(sys.stdin.buffer.read(), STDIN, max_bytes)


def is_binary(data: bytes) -> bool:
    return b"\0" in data[:_BINARY_PROBE]


def walk(path: Path) -> Walk:
    """The text files at ``path``: itself, or those under a folder (in a git work tree, the
    files git would see: tracked and untracked, ignored ones left out)."""
    found = Walk()
    if not path.is_dir():
        candidates: list[Path] = [path]
    else:
        candidates = _git_files(path)
        if candidates is None:
            candidates = list(_plain_walk(path))
    for candidate in candidates:
        if not candidate.is_file() or candidate.is_symlink():
            continue
        with candidate.open("rb") as file:
            if is_binary(file.read(_BINARY_PROBE)):
                found.binary += 1
                continue
        found.files.append(candidate)
    return found


def _git_files(folder: Path) -> list[Path] | None:
    try:
        listed = subprocess.run(
            ["git", "-C", str(folder), "ls-files", "-z", "--others", "--cached",
             "--exclude-standard"],
            capture_output=True, check=False,
        )  # fmt: skip
    except FileNotFoundError:
        return None  # no git here: a plain walk
    if listed.returncode != 0:
        return None
    names = [name for name in listed.stdout.decode("utf-8", "surrogateescape").split("\0") if name]
    return sorted(folder / name for name in dict.fromkeys(names))


def _plain_walk(folder: Path) -> Iterator[Path]:
    for root, folders, files in os.walk(folder):
        folders[:] = sorted(name for name in folders if name != ".git")
        for name in sorted(files):
            yield Path(root, name)


def looks_like_diff(text: str) -> bool:
    """Whether ``text`` is a unified diff (``git diff``, ``diff -u``)."""
    head = text[:4096]
    return head.startswith("diff --git ") or bool(
        re.search(r"^--- .*\n\+\+\+ .*\n@@ ", head, re.MULTILINE)
    )


def added_lines(diff: Source) -> list[Source]:
    """Each file's added lines in a unified diff, one source a file, with each line's number
    in the new file."""
    files: list[tuple[str, list[str], list[int]]] = []
    new_line = 0
    for line in diff.text.splitlines():
        if line.startswith("+++ "):
            name = line[4:].split("\t", 1)[0]
            files.append((name[2:] if name.startswith("b/") else name, [], []))
        elif (hunk := _HUNK.match(line)) is not None:
            new_line = int(hunk["start"])
        elif not files or line.startswith("--- "):
            continue
        elif line.startswith("+"):
            files[-1][1].append(line[1:])
            files[-1][2].append(new_line)
            new_line += 1
        elif line.startswith(" "):
            new_line += 1
    sources = []
    for name, texts, numbers in files:
        text = "\n".join(texts)
        sources.append(Source(name, text, len(encode(text)), lines=numbers))
    return sources
