"""The model's `notify` tool in a real `wisp chat --json` (docs/watch.md, "Notifications"):
offered only when notify.enabled is on; posted by the front end when its hello declared
`notify` (the `host` route), each route passed over said otherwise; a few a turn at most."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.hang import HANG
from wisp import protocol as p

NOTIFY = {"name": "notify", "arguments": {"title": "Build", "message": "tests pass"}}


def chat(
    wisp_script: Path, env: dict[str, str], tmp_path: Path, calls: list[dict], effects: list[str]
) -> list[p.Outbound]:
    script = tmp_path / "script.json"
    responses: list[dict[str, Any]] = [{"tool_calls": calls}, {"text": "Done."}]
    script.write_text(json.dumps({"responses": responses}))
    hello = {"type": "hello", "effects": effects, "client": "test", "version": "1"}
    message = {"type": "message", "text": "run the build and tell me"}
    done = subprocess.run(
        [str(wisp_script), "chat", "--json", "-m", f"script:{script}"],
        input="\n".join(json.dumps(line) for line in (hello, message)) + "\n",
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=HANG,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [p.decode_outbound(line.encode()) for line in done.stdout.splitlines()]


def results(lines: list[p.Outbound]) -> list[str]:
    return [
        line.output.text
        for line in lines
        if isinstance(line, p.Event) and line.kind == "tool.result"
        and isinstance(line.output, p.EventOutput)
    ]  # fmt: skip


def notifications(audit_lines) -> list[dict]:
    return [line["details"] for line in audit_lines() if line["kind"] == "notification"]


def test_a_front_end_that_declared_notify_posts_the_models_notification(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path, run_wisp, audit_lines
) -> None:
    assert run_wisp("config", "set", "notify.enabled", "true").returncode == 0
    lines = chat(wisp_script, wisp_env, tmp_path, [NOTIFY], ["approve", "notify"])
    hello = next(line for line in lines if isinstance(line, p.WispHello))
    assert "notify" in hello.tools
    notify, turn_end = [line for line in lines if isinstance(line, p.Notify)]
    assert turn_end.title == "wisp: turn finished"  # the front end's own notice, after
    assert (notify.title, notify.subtitle, notify.body) == ("Build", None, "tests pass")
    assert "notification posted via host" in results(lines)[0]
    [event] = notifications(audit_lines)
    assert (event["source"], event["outcome"], event["route"]) == ("model", "posted", "host")


def test_without_the_effect_each_route_says_why_it_could_not(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path, run_wisp, audit_lines
) -> None:
    assert run_wisp("config", "set", "notify.enabled", "true").returncode == 0
    lines = chat(wisp_script, wisp_env, tmp_path, [NOTIFY], ["approve"])
    assert not [line for line in lines if isinstance(line, p.Notify)]
    assert "error: notification not shown: no route could post it" in results(lines)[0]
    [event] = notifications(audit_lines)
    assert event["skipped"] == [
        "host: the front end did not declare notify",
        "terminal: wisp's output is a protocol's here, not a terminal's",
        "app: no desktop session bus (DBUS_SESSION_BUS_ADDRESS is not set)",
    ]


def test_a_turn_has_room_for_a_few(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path, run_wisp, audit_lines
) -> None:
    assert run_wisp("config", "set", "notify.enabled", "true").returncode == 0
    calls = [
        {"name": "notify", "arguments": {"title": f"Step {n}", "message": "done"}}
        for n in (1, 2, 3)
    ]
    lines = chat(wisp_script, wisp_env, tmp_path, calls, ["approve", "notify"])
    posted = [line.title for line in lines if isinstance(line, p.Notify)]
    assert posted[:2] == ["Step 1", "Step 2"] and "Step 3" not in posted
    assert "error: notification not shown: more than 2 this turn" in results(lines)[2]
    assert [e["outcome"] for e in notifications(audit_lines)] == ["posted", "posted", "refused"]


def test_off_by_default_the_model_is_not_offered_it(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path
) -> None:
    lines = chat(wisp_script, wisp_env, tmp_path, [], ["approve", "notify"])
    hello = next(line for line in lines if isinstance(line, p.WispHello))
    assert "notify" not in hello.tools


def test_the_same_notification_twice_in_a_turn_is_shown_once(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path, run_wisp, audit_lines
) -> None:
    # Small models repeat a call; the person wants to be told once.
    assert run_wisp("config", "set", "notify.enabled", "true").returncode == 0
    lines = chat(wisp_script, wisp_env, tmp_path, [NOTIFY, NOTIFY], ["approve", "notify"])
    assert [line.title for line in lines if isinstance(line, p.Notify)].count("Build") == 1
    assert "notification already posted via host this turn" in results(lines)[1]
    events = notifications(audit_lines)
    assert [(e["outcome"], e.get("reason")) for e in events] == [
        ("posted", None),
        ("refused", "the same notification was posted this turn"),
    ]
