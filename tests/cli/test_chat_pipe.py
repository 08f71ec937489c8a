"""Plain `wisp chat` with stdin not a terminal (a pipe): a dialog takes the next line only when
that line answers it; any other line is left for the chat, and the dialog is refused with a
note that says so."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.hang import HANG


@pytest.fixture
def chat(wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path):
    """`wisp chat --plain -m script:…` in a folder of its own, `lines` piped to its stdin."""
    work = tmp_path / "work"
    work.mkdir()

    def run(responses: list[dict], lines: str) -> subprocess.CompletedProcess[str]:
        script = tmp_path / "script.json"
        script.write_text(json.dumps({"responses": responses}))
        return subprocess.run(
            [str(wisp_script), "chat", "--plain", "-m", f"script:{script}"],
            env=wisp_env, cwd=work, input=lines, capture_output=True, text=True, timeout=HANG,
        )  # fmt: skip

    return run


NEVER = {"text": "THIS TURN SHOULD NOT RUN"}


def test_models_shows_the_table_and_how_to_change_it_rather_than_a_choice(chat) -> None:
    # The plain chat has no picker: a number typed to its choice changed nothing.
    result = chat([NEVER], "/models\n/quit\nhello\n")
    assert result.returncode == 0, result.stderr
    assert re.search(r"^MODEL +CONTEXT +ENABLED +CAPABILITIES$", result.stdout, re.MULTILINE)
    assert re.search(r"^  local +\S+ +yes", result.stdout, re.MULTILINE)
    assert (
        "/models enable|disable NAME… turns models on or off; /model NAME switches to one"
    ) in result.stderr
    assert "type a number" not in result.stderr
    assert "does not answer the choice" not in result.stderr
    assert "THIS TURN SHOULD NOT RUN" not in result.stdout  # /quit quit


def test_an_approval_is_refused_by_a_line_that_does_not_answer_it(chat, tmp_path: Path) -> None:
    call = {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch made"}}]}
    result = chat([call, {"text": "I could not."}, NEVER], "make a file\n/quit\nhello\n")
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "work" / "made").exists()
    assert (
        "no terminal: '/quit' does not answer the approval, so it was refused (y, s, p, a or n "
        "answers one; --yes approves each command once)"
    ) in result.stderr
    assert "THIS TURN SHOULD NOT RUN" not in result.stdout


def test_an_approval_is_answered_by_an_explicit_line(chat, tmp_path: Path) -> None:
    call = {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch made"}}]}
    result = chat([call, {"text": "Made it."}], "make a file\ny\n/quit\n")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "work" / "made").exists()


def test_a_question_is_declined_by_a_slash_command_on_the_next_line(chat) -> None:
    ask = {"tool_calls": [{"name": "ask", "arguments": {"question": "Which one?"}}]}
    result = chat([ask, {"text": "No answer, then."}, NEVER], "pick\n/quit\nhello\n")
    assert result.returncode == 0, result.stderr
    assert (
        "no terminal: '/quit' does not answer the question, so it was declined (a number, an "
        "option or text answers one)"
    ) in result.stderr
    assert "THIS TURN SHOULD NOT RUN" not in result.stdout
