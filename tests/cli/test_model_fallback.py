"""Choosing a model: the chat's fallback to local (docs/models.md, "Falling back at start"), and
disabled models refused."""

from __future__ import annotations

import json
from pathlib import Path

from wisp import protocol as p


def test_chat_falls_back_to_local_when_its_configured_model_is_unavailable(
    run_wisp, audit_lines
) -> None:
    assert run_wisp("config", "set", "model", "ollama:x").returncode == 0
    assert run_wisp("config", "set", "ollama.baseURL", "http://127.0.0.1:9").returncode == 0
    result = run_wisp("chat", "--json", input="/quit\n")
    assert result.returncode == 0, result.stderr
    lines = [p.decode_outbound(raw) for raw in result.stdout.encode().splitlines()]
    hello = lines[0]
    assert isinstance(hello, p.WispHello) and hello.model == "local"
    notes = [line.text for line in lines if isinstance(line, p.Note)]
    assert any(text.startswith("ollama:x is unavailable (") for text in notes)
    kinds = [e["kind"] for e in audit_lines()]
    assert kinds.index("model.fallback") < kinds.index("model.resolved")
    fallback = next(e["details"] for e in audit_lines() if e["kind"] == "model.fallback")
    assert (fallback["model"], fallback["fallback"]) == ("ollama:x", "local")


def test_a_one_shot_never_falls_back(run_wisp) -> None:
    run_wisp("config", "set", "model", "ollama:x")
    run_wisp("config", "set", "ollama.baseURL", "http://127.0.0.1:9")
    result = run_wisp("hi")
    assert result.returncode == 1
    assert "no Ollama server" in result.stderr


def test_a_model_named_with_model_does_not_fall_back(run_wisp) -> None:
    run_wisp("config", "set", "ollama.baseURL", "http://127.0.0.1:9")
    result = run_wisp("chat", "--json", "-m", "ollama:x", input="/quit\n")
    assert result.returncode == 1 and result.stdout == ""


def test_a_disabled_model_is_refused_by_any_spelling(run_wisp, tmp_path: Path) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"responses": [{"text": "hi"}]}))
    assert (
        run_wisp("config", "set", "models.disabled", json.dumps([f"script:{script}"])).returncode
        == 0
    )
    spelled = f"script:{tmp_path}/../{tmp_path.name}/s.json"
    result = run_wisp("-m", spelled, "hi")
    assert result.returncode == 1
    assert "is disabled; enable it with wisp models enable" in result.stderr


def test_a_disabled_ollama_model_is_refused_before_any_server_is_asked(run_wisp) -> None:
    assert run_wisp("models", "disable", "ollama:qwen3").returncode == 0
    result = run_wisp("-m", "ollama:qwen3:latest", "hi")
    assert result.returncode == 1
    assert "model 'ollama:qwen3:latest' is disabled" in result.stderr
