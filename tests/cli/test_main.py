"""The `wisp` command itself: version, help, usage errors, diagnostics."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hang import HANG
from wisp import __version__
from wisp.cli.main import COMMANDS, _build_parsers


def test_version_names_the_release(run_wisp) -> None:
    result = run_wisp("--version")
    assert (result.returncode, result.stdout.strip()) == (0, f"wisp {__version__}")


def test_help_lists_the_commands_and_the_environment(run_wisp) -> None:
    result = run_wisp("--help")
    assert result.returncode == 0
    for word in ("config", "logs", "WISP_HOME", "WISP_LOG", "examples:"):
        assert word in result.stdout


def test_no_command_shows_help_on_stderr_and_exits_2(run_wisp) -> None:
    result = run_wisp()
    assert result.returncode == 2
    assert result.stdout == "" and "usage: wisp" in result.stderr


def test_an_unknown_option_is_a_usage_error(run_wisp) -> None:
    result = run_wisp("--frobnicate")
    assert result.returncode == 2
    assert "unrecognized arguments: --frobnicate" in result.stderr
    assert "Traceback" not in result.stderr


def test_words_that_are_not_a_command_are_a_prompt(run_wisp, tmp_path) -> None:
    script = tmp_path / "s.json"
    script.write_text('{"responses": [{"text": "a reply"}]}')
    result = run_wisp("-m", f"script:{script}", "frobnicate")
    assert (result.returncode, result.stdout) == (0, "a reply\n")


def test_every_subcommand_has_help(run_wisp) -> None:
    for args in (["config"], ["config", "list"], ["config", "get"], ["config", "set"],
                 ["config", "unset"], ["logs"]):  # fmt: skip
        result = run_wisp(*args, "--help")
        assert result.returncode == 0, args
        assert result.stdout.startswith("usage: wisp"), args


def test_wisp_log_mirrors_diagnostics_to_stderr_never_stdout(run_wisp, wisp_env) -> None:
    wisp_env["WISP_LOG"] = "debug"
    result = run_wisp("config", "get", "model")
    assert result.stdout == "local\n"
    assert "wisp DEBUG" in result.stderr


def test_without_wisp_log_there_are_no_diagnostics(run_wisp) -> None:
    result = run_wisp("config", "get", "model")
    assert (result.stdout, result.stderr) == ("local\n", "")


def test_a_bad_wisp_log_level_is_named(run_wisp, wisp_env) -> None:
    wisp_env["WISP_LOG"] = "loud"
    result = run_wisp("config", "get", "model")
    assert result.stdout == "local\n"
    assert "WISP_LOG='loud' is not a level" in result.stderr


def test_python_dash_m_wisp_is_the_same_command(wisp_env) -> None:
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "wisp", "--version"], env=wisp_env, capture_output=True, text=True
    )
    assert result.stdout.strip() == f"wisp {__version__}"


def test_wisp_tui_has_version_and_help(wisp_script, wisp_env) -> None:
    tui = wisp_script.with_name("wisp-tui")
    result = subprocess.run([str(tui), "--help"], env=wisp_env, capture_output=True, text=True)
    assert result.returncode == 0 and "usage: wisp-tui" in result.stdout


@pytest.mark.parametrize(
    "options",
    [["-m", "local"], ["--model", "ollama:qwen3"], ["--model=local"], ["-r", "notes"],
     ["--save", "notes", "--yes"], ["--yes"], ["--no-tools"], ["--unsafe"]],
)  # fmt: skip
def test_help_after_the_prompt_options_is_wisps_help(run_wisp, options: list[str]) -> None:
    result = run_wisp(*options, "--help")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.startswith("usage: wisp")
    for word in ("chat", "models", "--model", "--yes", "--save"):
        assert word in result.stdout


def test_help_of_chat_after_the_prompt_options_is_chats_help(run_wisp) -> None:
    result = run_wisp("-m", "local", "--yes", "chat", "--help")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.startswith("usage: wisp chat") and "--plain" in result.stdout


def test_options_before_chat_are_chats(run_wisp, tmp_path) -> None:
    script = tmp_path / "s.json"
    script.write_text('{"responses": [{"text": "a reply"}]}')
    result = run_wisp("-m", f"script:{script}", "chat", "--plain", input="hello\n")
    assert (result.returncode, result.stdout) == (0, "a reply\n")


def test_an_option_after_chat_wins_over_the_same_before_it(run_wisp, tmp_path) -> None:
    script = tmp_path / "s.json"
    script.write_text('{"responses": [{"text": "a reply"}]}')
    result = run_wisp("-m", "nosuch:x", "chat", "--plain", "-m", f"script:{script}", input="hi\n")
    assert (result.returncode, result.stdout) == (0, "a reply\n")


def test_prompt_options_before_another_command_are_a_usage_error(run_wisp) -> None:
    result = run_wisp("-m", "local", "config", "list")
    assert (result.returncode, result.stdout) == (2, "")
    assert "-m" in result.stderr and "config" in result.stderr
    assert "invalid choice" not in result.stderr


def test_prompt_options_and_nothing_else_show_help_and_exit_2(run_wisp) -> None:
    result = run_wisp("-m", "local")
    assert (result.returncode, result.stdout) == (2, "")
    assert "usage: wisp" in result.stderr and "invalid choice" not in result.stderr


def test_an_abbreviated_option_takes_its_value_before_a_command(run_wisp, tmp_path) -> None:
    script = tmp_path / "s.json"
    script.write_text('{"responses": [{"text": "a reply"}]}')
    result = run_wisp("--mod", f"script:{script}", "chat", "--plain", input="hello\n")
    assert (result.returncode, result.stdout) == (0, "a reply\n")


@pytest.mark.parametrize("command", [("logs",), ("config", "list"), ("models",)])
def test_a_home_that_is_a_file_is_one_line_naming_it(wisp_env, tmp_path, command) -> None:
    # WISP_HOME pointing at a file (say, what mktemp made): no traceback, the file named.
    home = tmp_path / "not-a-folder"
    home.write_text("")
    wisp = Path(sys.executable).parent / "wisp"
    result = subprocess.run(
        [str(wisp), *command], env={**wisp_env, "WISP_HOME": str(home)},
        capture_output=True, text=True, timeout=HANG,
    )  # fmt: skip
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert str(home) in result.stderr and len(result.stderr.strip().splitlines()) == 1


# -- the command table ----------------------------------------------------------------------------

CLI = Path(__file__).resolve().parents[2] / "wisp" / "cli"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_command_of_the_table_adds_its_own_parser_and_no_other(name: str) -> None:
    _parser, commands = _build_parsers(only=name)
    assert list(commands) == [name]


def test_no_module_of_the_command_line_imports_wisp_by_a_computed_name() -> None:
    """The command table names each module in an import a reader and a linter can follow."""
    computed = []
    for path in sorted(CLI.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not (isinstance(node, ast.Call) and node.args):
                continue
            name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
            first = node.args[0]
            named_wisp = isinstance(first, ast.Constant) and str(first.value).startswith("wisp")
            if name in ("import_module", "__import__") and (
                isinstance(first, ast.JoinedStr) or named_wisp
            ):
                computed.append(f"{path.relative_to(CLI.parent.parent)}:{node.lineno}")
    assert computed == []
