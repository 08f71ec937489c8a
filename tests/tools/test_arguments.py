"""A tool's arguments as a model sends them: checked against the tool's Struct, forgiving where
that is safe (docs/turn.md, "Tool arguments")."""

from __future__ import annotations

from pathlib import Path

from wisp.agent.types import ToolContext
from wisp.tools.arguments import parse_arguments, resolve_path
from wisp.tools.read_file import ReadFileArgs, ReadFileTool


def test_an_unknown_argument_is_ignored_and_noted() -> None:
    notes: list[str] = []
    args = parse_arguments("read_file", {"path": "a.txt", "encoding": "utf8"}, ReadFileArgs, notes)
    assert isinstance(args, ReadFileArgs) and args.path == "a.txt"
    assert notes == ["(ignored unknown argument: encoding)"]


def test_known_arguments_leave_no_note() -> None:
    notes: list[str] = []
    parse_arguments("read_file", {"path": "a.txt", "offset": 3, "limit": None}, ReadFileArgs, notes)
    assert notes == []


async def test_a_tool_puts_its_note_in_the_calls_context(
    context: ToolContext, workdir: Path
) -> None:
    (workdir / "notes.txt").write_text("one\n")
    result = await ReadFileTool().run({"path": "notes.txt", "lines": 5}, context)
    assert result == "1\tone\n[end of file: 1 line]"
    assert context.notes == ["(ignored unknown argument: lines)"]


def test_a_relative_path_is_resolved_in_the_working_directory(tmp_path: Path) -> None:
    assert resolve_path(".", tmp_path) == tmp_path
    assert resolve_path(" src/../lib ", tmp_path) == tmp_path / "lib"
    assert resolve_path("..", tmp_path) == tmp_path.parent  # the policy and sandbox decide
