"""read_file: pages of numbered lines, their markers, their limits, and its refusals."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from tests.hang import HANG
from tests.tools.conftest import reader_let_go
from tests.tools.swapping import exchange, swapping, watching
from wisp.agent.types import ToolContext
from wisp.tools import read_file
from wisp.tools.read_file import ReadFileTool


async def read(context: ToolContext, **arguments: object) -> str:
    return await ReadFileTool().run(dict(arguments), context)


def write_lines(path: Path, count: int) -> Path:
    path.write_text("".join(f"line {n}\n" for n in range(1, count + 1)))
    return path


async def test_a_short_file_is_numbered_and_ends_at_the_end(
    context: ToolContext, workdir: Path
) -> None:
    write_lines(workdir / "notes.txt", 3)
    result = await read(context, path=str(workdir / "notes.txt"))
    assert result == "1\tline 1\n2\tline 2\n3\tline 3\n[end of file: 3 lines]"


async def test_a_relative_path_is_read_from_the_working_directory(
    context: ToolContext, workdir: Path
) -> None:
    write_lines(workdir / "notes.txt", 1)
    assert await read(context, path="notes.txt") == "1\tline 1\n[end of file: 1 line]"


async def test_a_page_stops_at_the_limit_and_names_the_next_line(
    context: ToolContext, workdir: Path
) -> None:
    write_lines(workdir / "notes.txt", 10)
    result = await read(context, path="notes.txt", offset=4, limit=2)
    assert result == "4\tline 4\n5\tline 5\n[more: call again with offset 6]"


async def test_the_default_page_is_a_hundred_lines(context: ToolContext, workdir: Path) -> None:
    write_lines(workdir / "notes.txt", 150)
    result = await read(context, path="notes.txt")
    assert result.splitlines()[-2:] == ["100\tline 100", "[more: call again with offset 101]"]


async def test_a_range_past_the_end_has_no_lines(context: ToolContext, workdir: Path) -> None:
    write_lines(workdir / "notes.txt", 3)
    result = await read(context, path="notes.txt", offset=9)
    # Small models fill in every parameter they see: the result says where the file ends.
    assert (
        result
        == "(no lines in range): the file has 3 lines, fewer than offset 9\n[end of file: 3 lines]"
    )


async def test_crlf_endings_are_removed(context: ToolContext, workdir: Path) -> None:
    (workdir / "dos.txt").write_bytes(b"one\r\ntwo\r\n")
    assert await read(context, path="dos.txt") == "1\tone\n2\ttwo\n[end of file: 2 lines]"


async def test_a_last_line_without_a_newline_is_read(context: ToolContext, workdir: Path) -> None:
    (workdir / "f.txt").write_bytes(b"one\ntwo")
    assert await read(context, path="f.txt") == "1\tone\n2\ttwo\n[end of file: 2 lines]"


async def test_a_page_ends_early_to_stay_within_the_budget(
    context: ToolContext, workdir: Path
) -> None:
    (workdir / "wide.txt").write_text("".join("x" * 99 + "\n" for _ in range(100)))
    result = await read(context, path="wide.txt")
    assert len(result.encode()) <= context.output_budget
    last = result.splitlines()[-1]
    shown = len(result.splitlines()) - 1
    assert last == f"[more: call again with offset {shown + 1}]"


async def test_a_line_longer_than_the_budget_is_cut_with_a_note(
    context: ToolContext, workdir: Path
) -> None:
    (workdir / "long.txt").write_text("é" * 10_000 + "\nafter\n")
    result = await read(context, path="long.txt")
    lines = result.splitlines()
    assert lines[0].startswith("1\téé")
    assert lines[1].startswith("[truncated: 20002 bytes, showing ")
    assert lines[-1] == "[more: call again with offset 2]"
    assert len(result.encode()) <= context.output_budget


async def test_the_next_page_after_a_long_line_reads_on(
    context: ToolContext, workdir: Path
) -> None:
    (workdir / "long.txt").write_text("x" * 100_000 + "\nafter\n")
    assert await read(context, path="long.txt", offset=2) == "2\tafter\n[end of file: 2 lines]"


async def test_a_binary_file_is_refused(context: ToolContext, workdir: Path) -> None:
    (workdir / "blob.bin").write_bytes(b"\x7fELF\0\0\1")
    result = await read(context, path="blob.bin")
    assert result == (
        f"error: {workdir / 'blob.bin'} looks binary (it has a NUL byte); read_file reads text only"
    )


async def test_a_folder_is_refused(context: ToolContext, workdir: Path) -> None:
    result = await read(context, path=str(workdir))
    assert result == (
        f"error: {workdir} is a folder, not a file; list it with run_command, e.g. ls '{workdir}'"
    )


async def test_a_missing_file_is_an_error(context: ToolContext, workdir: Path) -> None:
    assert await read(context, path="gone.txt") == f"error: no such file: {workdir / 'gone.txt'}"


async def test_a_pattern_is_refused_with_a_hint(context: ToolContext, workdir: Path) -> None:
    result = await read(context, path="*.py")
    pattern = workdir / "*.py"
    assert result == (
        f"error: read_file takes one path, not a pattern: {pattern}; "
        f"list matches with run_command, e.g. ls {pattern}"
    )


async def test_offset_below_one_is_an_error(context: ToolContext, workdir: Path) -> None:
    write_lines(workdir / "notes.txt", 3)
    result = await read(context, path="notes.txt", offset=0)
    assert result == "error: offset must be 1 or more (lines count from 1), got 0"


async def test_limit_below_one_is_an_error(context: ToolContext, workdir: Path) -> None:
    write_lines(workdir / "notes.txt", 3)
    assert await read(context, path="notes.txt", limit=0) == "error: limit must be 1 or more, got 0"


async def test_a_number_written_as_a_string_is_taken(context: ToolContext, workdir: Path) -> None:
    write_lines(workdir / "notes.txt", 3)
    result = await read(context, path="notes.txt", offset="3")
    assert result == "3\tline 3\n[end of file: 3 lines]"


async def test_a_missing_path_argument_is_an_error(context: ToolContext) -> None:
    result = await read(context)
    assert result == "error: bad arguments for read_file: Object missing required field `path`"


async def test_a_fifo_is_refused_rather_than_waited_on(context: ToolContext, workdir: Path) -> None:
    os.mkfifo(workdir / "pipe")
    result = await read(context, path="pipe")
    assert result == f"error: {workdir / 'pipe'} is not a regular file; read_file reads files only"


async def test_a_file_made_a_fifo_after_its_check_is_refused_at_once(
    context: ToolContext, fifo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The check saw a regular file; a command swapped in a FIFO before the open.
    monkeypatch.setattr(read_file, "_refusal", lambda path: None)
    with reader_let_go(fifo):
        result = await asyncio.wait_for(read(context, path="notes.txt"), HANG)
    assert result == f"error: {fifo} is a FIFO, not a regular file; read_file reads files only"


# -- WISP_HOME is wisp's (docs/sandbox.md, "Threat model") -----------------------------------------


async def test_a_file_in_wisp_home_is_refused(context: ToolContext, home: Path) -> None:
    (home / "config.json").write_text('{"openai": {"apiKey": "sk-secret"}}\n')
    result = await read(context, path=str(home / "config.json"))
    assert result == (
        f"error: cannot read {home / 'config.json'}: it is inside WISP_HOME ({home}), "
        "which holds wisp's own settings and logs"
    )


async def test_a_symlink_into_wisp_home_is_refused(
    context: ToolContext, workdir: Path, home: Path
) -> None:
    (home / "approvals.json").write_text("{}\n")
    (workdir / "innocent.txt").symlink_to(home / "approvals.json")
    (workdir / "folder").symlink_to(home)
    for path in ("innocent.txt", "folder/approvals.json"):
        result = await read(context, path=path)
        assert result.startswith(f"error: cannot read {workdir / path}: it is inside WISP_HOME")


async def test_wisp_home_inside_the_working_directory_is_refused(
    context: ToolContext, workdir: Path, conversation
) -> None:
    conversation.home = workdir / ".wisp"
    (workdir / ".wisp").mkdir()
    (workdir / ".wisp" / "history").write_text("typed before\n")
    result = await read(context, path=".wisp/history")
    assert result.startswith("error: cannot read")
    assert "typed before" not in result


# -- a folder swapped for a link after the check --------------------------------------------


def _swappable(workdir: Path, home: Path) -> tuple[Path, Path]:
    """``d/config.json`` in the working directory, and ``link`` beside ``d``, to WISP_HOME,
    whose ``config.json`` holds a key."""
    (home / "config.json").write_text('{"openai": {"apiKey": "sk-secret"}}')
    (workdir / "d").mkdir()
    (workdir / "d/config.json").write_text('{"mine": true}')
    (workdir / "link").symlink_to(home)
    return workdir / "d", workdir / "link"


async def test_a_folder_swapped_for_a_link_after_the_check_is_never_followed(
    context: ToolContext,
    workdir: Path,
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    resolver: str,
) -> None:
    folder, link = _swappable(workdir, home)
    checked = read_file._refusal

    def check_then_swap(path: Path) -> str | None:
        refusal = checked(path)  # d/config.json judged while d is a folder
        exchange(folder, link)
        return refusal

    monkeypatch.setattr(read_file, "_refusal", check_then_swap)
    with watching(home) as in_home:
        result = await read(context, path="d/config.json")
        # Not a byte read, and not even opened: the walk stops at the link.
        assert in_home.events() == []
    assert result == (
        f"error: cannot read {workdir / 'd/config.json'}: it changed while wisp was reading it "
        "(a symlink appeared on the way): refused"
    )


def test_ten_thousand_reads_raced_by_a_swapping_command_never_open_wisp_home(
    workdir: Path, home: Path, resolver: str
) -> None:
    # The tool's own worker, called directly; whatever the interleaving, nothing in WISP_HOME
    # is opened, let alone read.
    folder, link = _swappable(workdir, home)
    allowed = ("symlink appeared", "inside WISP_HOME")
    with watching(home) as in_home, swapping((folder, link)):
        for _ in range(10_000):
            result = read_file.read_page(workdir / "d/config.json", 1, 100, 4096, home)
            assert "sk-secret" not in result
            assert result.startswith('1\t{"mine": true}') or any(
                reason in result for reason in allowed
            ), result
        assert in_home.events() == []
