"""`wisp PROMPT` and `wisp chat` end to end, through the real console script and `script:`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.fixture
def script(tmp_path: Path):
    def write(*responses: dict, name: str = "script.json") -> Path:
        path = tmp_path / name
        path.write_text(json.dumps({"responses": list(responses)}))
        return path

    return write


CHECK_THE_CONFIG = (
    {"tool_calls": [{"name": "inspect", "arguments": {"what": "config"}}]},
    {"tool_calls": [{"name": "system_info", "arguments": {"topic": "memory", "process": ""}}]},
    {
        "text": "Checked. (All steps logged in entries 16-30; timestamps omitted for brevity.)",
        "usage": {"input": 300, "output": 30},
    },
)


def test_a_prompt_prints_the_reply_and_its_checked_lines(run_wisp, script, audit_lines) -> None:
    result = run_wisp("-m", f"script:{script(*CHECK_THE_CONFIG)}", "check the config")
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        "Checked. (All steps logged in entries 16-30; timestamps omitted for brevity.)\n"
    )
    lines = result.stderr.splitlines()
    assert "ran: inspect · system_info" in lines
    # The store holds 7 entries (instructions, prompt, two calls with outputs, the reply).
    assert "cited but not in this conversation: entries 16–30 (15)" in lines

    events = audit_lines()
    assert len({event["session"] for event in events}) == 1
    kinds = [event["kind"] for event in events]
    assert kinds == [
        "session.start", "model.resolved", "prompt",
        "tool.call", "tool.result", "tool.call", "tool.result", "response",
    ]  # fmt: skip
    calls = [e for e in events if e["kind"] in ("tool.call", "tool.result")]
    assert calls[0]["call"] == calls[1]["call"] != calls[2]["call"] == calls[3]["call"]
    response = events[-1]["details"]
    assert response["usage"] == {"input": 300, "output": 30, "cached": 0, "reasoning": 0}


def test_a_model_that_stays_silent_is_said_plainly_and_exits_1(run_wisp, script) -> None:
    result = run_wisp("-m", f"script:{script({'text': ''}, {'text': ''})}", "hello?")
    assert result.returncode == 1
    assert result.stdout.strip() == ""
    assert "wisp: the model gave no answer" in result.stderr


def test_chat_says_so_when_the_model_stays_silent(run_wisp, script) -> None:
    message = json.dumps({"type": "message", "text": "hello?"}) + "\n"
    silent = script({"text": ""}, {"text": ""})
    result = run_wisp("chat", "--json", "-m", f"script:{silent}", input=message)
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    notes = [line["text"] for line in lines if line["type"] == "note"]
    assert any(note.startswith("error: the model gave no answer") for note in notes)
    end = next(line for line in lines if line["type"] == "turn" and line["phase"] == "end")
    assert end["outcome"] == "error"


def test_a_reply_that_repeats_itself_is_cut_with_a_note(run_wisp, script, audit_lines) -> None:
    runaway = "I'm a wizard, a wizard, " * 2000  # 48,000 characters
    result = run_wisp("-m", f"script:{script({'text': runaway})}", "hello, who are you?")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("I'm a wizard, a wizard, ")
    assert len(result.stdout) < 2000  # cut soon after the loop showed, not at the end
    assert "(the reply was cut: it kept repeating itself)" in result.stderr.splitlines()
    response = next(e["details"] for e in audit_lines() if e["kind"] == "response")
    assert response["text"] == result.stdout.rstrip("\n")


def test_a_reply_running_away_inside_what_looks_like_a_call_is_cut(run_wisp, script) -> None:
    # Text that may still become a call is held, never shown: the guard counts it all the same
    # (seen with Qwen2.5-Coder-0.5B, which wrote `{"name": "current_date", "arguments":` and
    # then thousands of tokens of a never-closing object, showing nothing).
    runaway = '{"name": "current_date", "arguments": {"type": ' + '"date", "type": ' * 3000
    twice = script({"text": runaway}, {"text": runaway})
    result = run_wisp("-m", f"script:{twice}", "what is the date?")
    assert result.returncode == 1
    assert result.stdout == ""
    assert "wisp: the model's reply was cut before any of it could be shown" in result.stderr
    assert "it kept repeating itself" in result.stderr
    # Asked once more (tools withheld), an answer is the turn's answer, with no note of a cut.
    then_answers = script({"text": runaway}, {"text": "It is the first of December."})
    result = run_wisp("-m", f"script:{then_answers}", "what is the date?")
    assert (result.returncode, result.stdout) == (0, "It is the first of December.\n")
    assert "the reply was cut" not in result.stderr


def test_a_held_span_that_never_repeats_is_cut_at_the_cap(run_wisp, script, wisp_home) -> None:
    wisp_home.mkdir(parents=True, exist_ok=True)
    (wisp_home / "config.json").write_text(json.dumps({"agent": {"maxReplyTokens": 1024}}))
    # Keys and values in hexadecimal: their letters differ too, so no template repeats.
    fields = "".join(
        f'"{n * 2654435761 % 2**32:x}": "{n * 40503 % 65536:x}", ' for n in range(2000)
    )
    runaway = '{"name": "current_date", "arguments": {' + fields
    twice = script({"text": runaway}, {"text": runaway})
    result = run_wisp("-m", f"script:{twice}", "what is the date?")
    assert result.returncode == 1
    assert "it ran past 1,024 tokens (agent.maxReplyTokens)" in result.stderr


def test_a_failed_turn_exits_1_with_the_reason(run_wisp, script) -> None:
    result = run_wisp("-m", f"script:{script({'error': 'the model fell over'})}", "hi")
    assert result.returncode == 1
    assert "the model fell over" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_failed_tool_is_not_a_failed_turn(run_wisp, script) -> None:
    path = script(
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "/no/such/file"}}]},
        {"text": "There is no such file."},
    )
    result = run_wisp("-m", f"script:{path}", "read it")
    assert result.returncode == 0
    assert "ran: read_file (1 failed)" in result.stderr


def test_an_unknown_model_is_an_error_naming_it(run_wisp) -> None:
    result = run_wisp("-m", "nosuch:thing", "hi")
    assert result.returncode == 1
    assert "no model backend 'nosuch'" in result.stderr
    assert "Traceback" not in result.stderr


def test_no_prompt_words_is_a_usage_error(run_wisp) -> None:
    result = run_wisp("-m", "local")
    assert result.returncode == 2


def test_a_saved_conversation_resumes_with_its_entry_numbers(run_wisp, script) -> None:
    first = script(
        {"tool_calls": [{"name": "current_date", "arguments": {}}]},
        {"text": "It is today."},
        name="first.json",
    )
    assert run_wisp("-m", f"script:{first}", "--save", "x", "what day is it?").returncode == 0
    second = script({"text": "As entry 4 shows, it is today."}, name="second.json")
    result = run_wisp("-m", f"script:{second}", "--resume", "x", "and again?")
    assert result.returncode == 0, result.stderr
    assert "cited but not" not in result.stderr
    invented = script({"text": "As entry 40 shows."}, name="third.json")
    result = run_wisp("-m", f"script:{invented}", "--resume", "x", "once more?")
    assert "cited but not in this conversation: entry 40" in result.stderr


def test_save_says_where_it_saved_and_how_to_go_on(run_wisp, script, wisp_home) -> None:
    result = run_wisp("-m", f"script:{script({'text': 'Noted.'})}", "--save", "notes", "hi")
    assert result.returncode == 0, result.stderr
    saved = wisp_home / "transcripts" / "notes.json"
    assert saved.is_file()
    assert result.stderr.splitlines()[-1] == (
        f'saved to {saved}; continue with: wisp --resume notes "…" (or wisp chat --resume notes)'
    )
    # A resumed conversation is saved back under its name, and says so too.
    result = run_wisp("-m", f"script:{script({'text': 'Again.'})}", "--resume", "notes", "more")
    assert result.stderr.splitlines()[-1].startswith(f"saved to {saved}; ")


def test_model_in_chat_names_capabilities_as_wisp_models_does(run_wisp, script) -> None:
    result = run_wisp("chat", "-m", f"script:{script()}", input="/model\n/quit\n")
    assert result.returncode == 0, result.stderr
    assert "(tool calling, structured replies, thinking)" in result.stdout + result.stderr


def test_resuming_a_missing_transcript_says_so(run_wisp, script) -> None:
    result = run_wisp("-m", f"script:{script({'text': 'x'})}", "--resume", "nope", "hi")
    assert result.returncode == 1
    assert "no transcript named 'nope'" in result.stderr


def test_plain_chat_in_a_pipe(run_wisp, script) -> None:
    path = script(
        {"text": "Hello! What would you like?"},
        {"tool_calls": [{"name": "current_date", "arguments": {}}]},
        {"text": "Done."},
    )
    result = run_wisp(
        "chat", "-m", f"script:{path}", input="hi\n/tools\nwhat day?\n/show 2\n/quit\n"
    )
    assert result.returncode == 0, result.stderr
    out, err = result.stdout, result.stderr
    assert "Hello! What would you like?" in out
    assert "current_date" in out and "read_file" in out  # /tools
    assert "⚙ current_date" in err and "  ↳ " in err  # the call and its result, on stderr
    assert "  ran: current_date" in err
    assert "\nhi\n" in out  # /show 2: the prompt, whole


def test_chat_model_and_new_keep_the_session_and_the_turn_count(
    run_wisp, script, audit_lines
) -> None:
    first = script({"text": "one"}, name="first.json")
    second = script({"text": "two"}, {"text": "three"}, name="second.json")
    lines = f"hi\n/model script:{second}\nstill there?\n/new\nfresh\n/inspect context next\n/quit\n"
    result = run_wisp("chat", "-m", f"script:{first}", input=lines)
    assert result.returncode == 0, result.stderr
    assert f"model: script:{second}; the transcript continues" in result.stderr
    assert "new conversation" in result.stderr
    events = audit_lines()
    assert len({event["session"] for event in events}) == 1
    assert [e["kind"] for e in events].count("model.resolved") == 2
    starts = [e["details"] for e in events if e["kind"] == "session.start"]
    assert starts[1] == {"tools": starts[0]["tools"], "model": f"script:{second}", "reason": "new"}
    assert [e["turn"] for e in events if e["kind"] == "prompt"] == [1, 2, 3]
    # After /new, the next request carries the instructions, the new turn, and nothing older.
    context = result.stdout.split("# The context the next request carries")[1]
    parts = [line.split(" · ")[0] for line in context.splitlines() if line.startswith("#")]
    headings = ["## instructions", "## turn 3", "### entry 2", "### entry 3"]
    assert parts == headings
    assert "\nfresh\n" in context


def test_the_local_model_answers_with_no_server(run_wisp) -> None:
    result = run_wisp("-m", "local", "What is the capital of France? One word.")
    assert result.returncode == 0, result.stderr
    assert "Paris" in result.stdout
    assert "local is text only" in result.stderr
