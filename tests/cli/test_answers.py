"""Replies through a real `wisp`: "Thank you!" after a read is asked once more and the second
reply is the answer (docs/turn.md, "An answer that answers"); a reply that copies a read's
output is recorded as cut from later requests ("Copies of output cut from later requests")."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.hang import HANG

READ = {"tool_calls": [{"name": "read_file", "arguments": {"path": "config.ini"}}]}


def ask_port(wisp_script, wisp_env, tmp_path: Path, *responses) -> subprocess.CompletedProcess:
    """``wisp --yes "What port does config.ini set?"`` over a script of ``responses``, in a
    folder holding config.ini."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "config.ini").write_text("[server]\nport = 8080\n")
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": list(responses)}))
    done = subprocess.run(
        [str(wisp_script), "--yes", "-m", f"script:{script}", "What port does config.ini set?"],
        env=wisp_env, cwd=work, capture_output=True, text=True, timeout=HANG,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done


def test_thank_you_after_a_read_is_asked_once_more(
    wisp_script, wisp_env, tmp_path: Path, audit_lines
) -> None:
    responses = [READ, {"text": "Thank you!"}, {"text": "The port is 8080."}]
    done = ask_port(wisp_script, wisp_env, tmp_path, *responses)
    assert done.stdout == "Thank you!\n\nThe port is 8080.\n"
    lines = audit_lines()
    kinds = [line["kind"] for line in lines]
    asked = kinds.index("response.verification")
    assert kinds[asked:] == ["response.verification", "response"]
    check = lines[asked]["details"]
    assert (check["method"], check["status"]) == ("readers", "unanswered")
    assert check["claims"] == [
        {
            "reader": "answers",
            "claim": "Thank you!",
            "reason": "it thanks and uses none of the results",
        }
    ]
    assert lines[-1]["details"]["text"] == "The port is 8080."


def test_a_copied_output_is_recorded_as_cut_in_a_real_chat(
    wisp_script, wisp_env, tmp_path: Path, audit_lines
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    lines = [f"setting_{n} = value {n} of the service configuration" for n in range(6)]
    (work / "config.ini").write_text("\n".join(lines) + "\n")
    copy = "```\n" + "\n".join(lines) + "\n```"
    script = tmp_path / "script.json"
    responses = [READ, {"text": f"Here it is:\n{copy}"}, {"text": "Bye."}]
    script.write_text(json.dumps({"responses": responses}))
    done = subprocess.run(
        [str(wisp_script), "chat", "--plain", "--yes", "-m", f"script:{script}"],
        input="Show me config.ini\nThanks\n",
        env=wisp_env, cwd=work, capture_output=True, text=True, timeout=HANG,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert copy in done.stdout  # shown whole
    events = audit_lines()
    (cut,) = [line for line in events if line["kind"] == "context.cut"]
    response = next(line for line in events if line["kind"] == "response")
    result = next(line for line in events if line["kind"] == "tool.result")
    details = cut["details"]
    assert (details["response"], details["result"]) == (response["id"], result["id"])
    assert details["tool"] == "read_file" and details["coverage"] == 1.0
    assert details["words"] == len(copy.split()) and details["tokens"] == details["bytes"] // 4
    assert details["output"] == details["entry"] - 1  # the output, then the reply


def test_text_before_a_call_and_the_answer_after_it_are_apart(
    wisp_script, wisp_env, tmp_path: Path
) -> None:
    # Qwen2.5-Coder-1.5B wrote "{}" before its call; the answer came after the result.
    before = {"text": "{}", **READ}
    done = ask_port(wisp_script, wisp_env, tmp_path, before, {"text": "The port is 8080."})
    assert done.stdout == "{}\n\nThe port is 8080.\n"
