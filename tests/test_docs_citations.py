"""Every document the code, tests, benchmarks and docs cite is in this repository.

Our docs are cited by page and heading (`docs/turn.md, "Output budget"`), never by a section
sign or a number, so a citation is checked the way a reader follows it: the page exists and has
that heading. Documents outside the repository (decision records, ADRs, an issue tracker's
numbers, reference pages) are never cited; what the code relies on from them is written down in
docs/. And no file names the place this checkout happens to live on a machine.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCANNED = ("wisp", "wisp_tui", "tests", "bench", "docs", "README.md", "pyproject.toml")
"""Where citations are looked for. Snapshot SVGs (`snapshots/`) and test data are not docs."""
TEST_DATA = ("tests/scan/corpus",)
"""Files kept as the world writes them (the scan's labelled corpus), not docs of this project."""
SUFFIXES = {".py", ".md"}
DATA_SUFFIXES_IN_CODE = {".json"}
"""Data files that carry prose beside the code (`wisp/policy/rules.json`'s `about`)."""

DATA_FILE_NAMES = {"notes.md", "alpha.md", "overview.md", "AGENTS.md", "CLAUDE.md"}
"""`.md` names that tests use as files they make or paths in examples, not documents cited; and
the guidance files wisp reads in a project's folders (docs/turn.md, "Guidance files")."""

OUTSIDE = re.compile(
    r"§"  # a section sign: our docs are cited by heading
    r"|\bADR[ -]?\d+"  # architecture decision records live outside the repository
    r"|(?<![\w/.-])D(?:[1-9]|1[0-9])(?![\w.-])"  # decision numbers of the same records
    r"|\b[Ii]ssues?\s+#?\d+"  # an issue tracker's numbers: the reason is written down instead
)
SELF = Path(__file__).resolve()
"""This file: its examples of what is refused are not citations."""
MD_NAME = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.md)\b")
HEADING_CITATION = re.compile(r"\bdocs/([\w-]+\.md),((?:\s*(?:,|and)?\s*\"[^\"]+\")+)")
QUOTED = re.compile(r"\"([^\"]+)\"")
LINK = re.compile(r"\]\(([^)#\s]*)(?:#([^)\s]+))?\)")
COMMENT_BREAK = re.compile(r"[ \t]*\n[ \t]*(?:#[ \t]*)?")


def scanned_files() -> Iterator[Path]:
    for name in SCANNED:
        path = REPO / name
        if path.is_file():
            yield path
            continue
        for file in sorted(path.rglob("*")):
            if "__pycache__" in file.parts or not file.is_file() or is_test_data(file):
                continue
            if file.suffix in SUFFIXES or (name == "wisp" and file.suffix in DATA_SUFFIXES_IN_CODE):
                yield file


def is_test_data(file: Path) -> bool:
    return any(file.is_relative_to(REPO / folder) for folder in TEST_DATA)


def checked_files() -> list[Path]:
    return [file for file in scanned_files() if file != SELF]


def headings(page: Path) -> set[str]:
    """A Markdown page's headings as written, without the #s (fenced code left out)."""
    found: set[str] = set()
    fenced = False
    for line in page.read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (match := re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)):
            found.add(match.group(1))
    return found


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    kept = re.sub(r"[^\w\- ]", "", heading.lower())
    return kept.replace(" ", "-")


def resolve(name: str, citing: Path) -> Path | None:
    """The repository file a `.md` name means: beside the citing file, at the root, or in docs/."""
    for base in (citing.parent, REPO, REPO / "docs"):
        candidate = (base / name).resolve()
        if candidate.is_file() and candidate.is_relative_to(REPO):
            return candidate
    return None


def problems_in(file: Path) -> list[str]:
    return problems_in_text(file.read_text(), file)


def problems_in_text(text: str, file: Path) -> list[str]:
    """What a reader of ``text``, found in ``file``, could not follow."""
    where = file.relative_to(REPO).as_posix()
    problems = [
        f"{where}:{text.count(chr(10), 0, m.start()) + 1}: cites outside the repository: "
        f"{m.group(0)!r}"
        for m in OUTSIDE.finditer(text)
    ]
    for match in MD_NAME.finditer(text):
        name = match.group(1)
        if Path(name).name not in DATA_FILE_NAMES and resolve(name, file) is None:
            line = text.count("\n", 0, match.start()) + 1
            problems.append(f"{where}:{line}: cites {name}, which is not in the repository")
    joined = COMMENT_BREAK.sub(" ", text)  # a heading may be wrapped across comment lines
    for match in HEADING_CITATION.finditer(joined):
        page = REPO / "docs" / match.group(1)
        if not page.is_file():
            continue  # reported above as a missing file
        known = {" ".join(h.split()) for h in headings(page)}
        for heading in QUOTED.findall(match.group(2)):
            if " ".join(heading.split()) not in known:
                problems.append(f'{where}: docs/{match.group(1)} has no heading "{heading}"')
    if file.suffix == ".md":
        for target, fragment in LINK.findall(text):
            if not fragment or target.startswith(("http:", "https:")):
                continue
            page = resolve(target, file) if target else file
            if page is not None and fragment not in {anchor(h) for h in headings(page)}:
                problems.append(f"{where}: {target or 'itself'} has no heading #{fragment}")
    return problems


def test_every_cited_document_and_heading_is_in_the_repository() -> None:
    problems = [problem for file in checked_files() for problem in problems_in(file)]
    assert not problems, "\n".join(problems)


def test_no_file_names_where_this_checkout_lives() -> None:
    machine_paths = (str(REPO), "/" + "Users/")  # spelled apart, so this file passes
    named = [
        file.relative_to(REPO).as_posix()
        for file in scanned_files()
        if any(path in file.read_text() for path in machine_paths)
    ]
    assert not named, f"paths of a build machine in: {named}"


ISSUE = "issue"
"""Spelled apart from its numbers below, so that a grep of the repository for them passes here."""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('see docs/turn.md, "Output budget"', []),
        ('see docs/turn.md, "No such heading"', ['docs/turn.md has no heading "No such heading"']),
        ("as policy.md §5.2 says", ["§"]),
        ("the interrupt (D8) of ADR 0054", ["D8", "ADR 0054"]),
        ("read agent.md first", ["agent.md, which is not in the repository"]),
        ("the 3D view and D100 and wisp/store", []),
        (f"the mark ({ISSUE} 14) and {ISSUE} 12.4's forms", [f"{ISSUE} 14", f"{ISSUE} 12"]),
        (
            f"{ISSUE.title()} 3's target, {ISSUE}s #2, {ISSUE}\n15",
            [f"'{ISSUE.title()} 3'", f"'{ISSUE}s #2'", f"'{ISSUE}\\n15'"],
        ),
        ("no issues with 3 files, the tissue 5", []),
    ],
)
def test_the_checker_finds_what_a_reader_could_not_follow(text: str, expected: list[str]) -> None:
    found = problems_in_text(f'"""{text}"""\n', REPO / "tests" / "probe.py")
    assert len(found) == len(expected), found
    for problem, part in zip(found, expected, strict=True):
        assert part in problem
