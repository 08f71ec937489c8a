"""tldr-pages' examples as commands: each page's example lines, placeholders filled in.

A page (``pages/common/tar.md``) is a title, a summary and pairs of lines: ``- What it does:``
then ``\\`command\\```. A placeholder is ``{{…}}``: ``{{[-r|--recursive]}}`` spells one option two
ways (one is picked), ``{{start|stop|restart}}`` names different things to do (each becomes its
own command), and anything else is a value to fill in (``{{path/to/file}}``). The choices are
drawn from a generator seeded by the page's name, so a build is repeatable.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path

from msgspec import Struct

PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}(?!\})")
MOST_ALTERNATIVES = 6
"""``{{a|b|c|…}}`` becomes at most this many commands."""

FILES = [
    "notes.txt", "report.pdf", "main.py", "src/app.js", "data.csv", "config.yaml", "README.md",
    "image.png", "build.log", "index.html", "lib/util.go", "archive.tar.gz", "photo.jpg",
]  # fmt: skip
FOLDERS = ["src", "build", "docs", "project", "out", "assets", "tests", "backup", "dist"]


class Example(Struct, frozen=True):
    """One example of a page: what it does in words, and a command that does it."""

    page: str
    description: str
    command: str


def examples(pages: Path, sections: tuple[str, ...] = ("common", "linux")) -> Iterator[Example]:
    """Every example of every page in ``sections``, each placeholder filled in."""
    for section in sections:
        for path in sorted((pages / section).glob("*.md")):
            yield from page_examples(path.stem, path.read_text(encoding="utf-8"))


def page_examples(name: str, text: str) -> Iterator[Example]:
    choose = random.Random(name)
    description = ""
    for line in text.splitlines():
        if line.startswith("- "):
            description = line[2:].rstrip(":").strip()
        elif line.startswith("`") and line.endswith("`") and description:
            for command in render(line[1:-1], choose):
                yield Example(name, description, command)


def render(template: str, choose: random.Random) -> list[str]:
    """The commands one example line stands for."""
    match = PLACEHOLDER.search(template)
    if match is None:
        return [_tidy(template)]
    before, after = template[: match.start()], template[match.end() :]
    return [
        command
        for value in _values(match.group(1), choose)
        for command in render(before + value + after, choose)
    ]


def _values(inner: str, choose: random.Random) -> list[str]:
    inner = inner.strip()
    if inner.startswith("[") and inner.endswith("]") and "|" in inner:
        return [choose.choice(inner[1:-1].split("|"))]  # one option, spelled two ways
    if "|" in inner and not inner.startswith(("'", '"')) and " " not in inner.strip("|"):
        spelled = [part for part in inner.split("|") if part and part != "..."]
        return spelled[:MOST_ALTERNATIVES]
    return [_filled(inner, choose)]


def _filled(value: str, choose: random.Random) -> str:
    """A value as a person would type it: ``path/to/file`` is a file's name, and so on."""
    value = re.sub(r"\[(\.[\w.]+)\|[^\]]*\]", r"\1", value)  # `source.tar[.gz|.bz2]`
    words = [word for word in value.split() if word != "..."]
    return " ".join(_filled_word(word, choose) for word in words)


def _filled_word(word: str, choose: random.Random) -> str:
    if word.startswith("path/to/"):
        rest = word.removeprefix("path/to/")
        if rest.startswith(("directory", "folder", "dir")):
            return choose.choice(FOLDERS)
        if rest.startswith("file") or rest in {"input", "output", "source", "target"}:
            return choose.choice(FILES)
        return rest
    return word


def _tidy(command: str) -> str:
    return re.sub(r"\s+", " ", command.replace("...", "")).strip()
