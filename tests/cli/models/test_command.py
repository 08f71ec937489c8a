"""`wisp models` through the real console script, against a loopback Ollama and llama-cpp-python's
server running the embedded GGUF, with a fresh WISP_HOME."""

from __future__ import annotations

import asyncio
import io
import json
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import pytest

from tests.hang import HANG
from tests.models import conftest as servers

WISP = str(Path(sys.executable).parent / "wisp")
SMOLLM2 = "SmolLM2-135M-Instruct.Q4_1"
LAYER_A = "sha256:" + "3f2a9c1e" * 8
LAYER_B = "sha256:" + "77bb0011" * 8
AuditLines = Callable[[], list[dict[str, Any]]]


FakeOllama = Any
HEADINGS = [
    "MODEL", "RUNTIME", "PARAMS", "SIZE", "FORMAT", "CONTEXT", "FROM", "WHERE", "ENABLED",
    "CAPABILITIES",
]  # fmt: skip


@dataclass(frozen=True)
class Done:
    code: int
    out: str
    err: str


@pytest.fixture
def env(bare_env: dict[str, str], llama_server: Any) -> dict[str, str]:
    return {**bare_env, "WISP_LLAMACPP_API_KEY": llama_server.key}


async def wisp(env: dict[str, str], *args: str) -> Done:
    """Run `wisp ARGS…` without blocking the loop the fake servers answer on."""
    process = await asyncio.create_subprocess_exec(
        WISP, *args, env=env, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(), HANG)
    done = Done(process.returncode or 0, out.decode(), err.decode())
    assert "Traceback" not in done.err, done.err
    return done


def model_lines(out: str) -> list[str]:
    """The piped listing's models table: the lines before the routed tasks' (an empty line)."""
    return out.split("\n\n", 1)[0].splitlines()


def route_rows(out: str) -> list[list[str]]:
    """The piped listing's routed tasks: a row of cells a task, under their headings."""
    headings, *rows = [line.split("\t") for line in out.split("\n\n", 1)[1].splitlines()]
    assert headings == ["TASK", "MODEL", "WHY"]
    return rows


def write_config(home: Path, data: dict[str, Any]) -> None:
    home.mkdir(mode=0o700, exist_ok=True)
    (home / "config.json").write_text(json.dumps(data))


def stored(home: Path) -> dict[str, Any]:
    return msgspec.json.decode((home / "config.json").read_bytes())


def events(audit_lines: AuditLines, *kinds: str) -> list[dict[str, Any]]:
    return [line for line in audit_lines() if not kinds or line["kind"] in kinds]


@pytest.fixture
def servers_config(
    wisp_home: Path, ollama: FakeOllama, llama_server: Any, refused_url: str
) -> dict[str, Any]:
    """Two Ollama models and the llama-cpp-python server; LM Studio and openai: nowhere."""
    ollama.install("qwen3:8b")
    ollama.install("gemma3:latest", capabilities=["completion"])
    config = {
        "ollama": {"baseURL": ollama.base_url},
        "llamacpp": {"baseURL": llama_server.base_url},
        "lmstudio": {"baseURL": refused_url},
        "openai": {"baseURL": refused_url},
    }
    write_config(wisp_home, config)
    return config


# -- list --------------------------------------------------------------------------------------


async def test_models_lists_local_and_both_runtimes_models(
    env: dict[str, str], servers_config: dict[str, Any]
) -> None:
    done = await wisp(env, "models")
    assert done.code == 0
    headings, *rows = [line.split("\t") for line in model_lines(done.out)]
    assert headings == HEADINGS  # piped too, the columns are named
    assert [row[0] for row in rows] == [
        "* local",
        "  ollama:qwen3:8b",
        "  ollama:gemma3:latest",
        f"  llamacpp:{SMOLLM2}",
    ]
    assert {len(row) for row in rows} == {10}  # piped: every column, empty or not
    assert [row[1] for row in rows] == ["local", "Ollama", "Ollama", "llama.cpp"]
    assert rows[1][-1] == "tool calling, structured replies"
    assert rows[2][-1] == "text only, structured replies"
    assert done.err.splitlines() == [
        f"LM Studio at {servers_config['lmstudio']['baseURL']} is unreachable: connection refused",
        f"OpenAI-compatible at {servers_config['openai']['baseURL']} is unreachable: "
        "connection refused",
    ]


async def test_llamacpp_context_length_is_a_setting_that_gives_the_servers_window(
    env: dict[str, str], servers_config: dict[str, Any]
) -> None:
    def llamacpp_row(listing: str) -> dict[str, Any]:
        models = json.loads(listing)["models"]
        return next(m for m in models if m["selection"] == f"llamacpp:{SMOLLM2}")

    # llama-cpp-python's server reports no window: unknown, and the note says what to set.
    row = llamacpp_row((await wisp(env, "models", "--json")).out)
    assert (row["contextLength"], row["contextFrom"]) == (None, "unknown")
    assert "set llamacpp.contextLength" in row["contextNote"]
    done = await wisp(env, "config", "set", "llamacpp.contextLength", "2048")
    assert done.code == 0, done.err
    row = llamacpp_row((await wisp(env, "models", "--json")).out)
    assert (row["contextLength"], row["contextFrom"]) == (2048, "config")
    done = await wisp(env, "config", "set", "lmstudio.contextLength", "100")
    assert done.code != 0 and "512 to 4194304" in done.err


async def test_models_json_is_one_object_that_parses(
    env: dict[str, str], servers_config: dict[str, Any]
) -> None:
    done = await wisp(env, "models", "--json")
    assert done.code == 0
    listing = json.loads(done.out)
    assert [m["selection"] for m in listing["models"]] == [
        "local",
        "ollama:qwen3:8b",
        "ollama:gemma3:latest",
        f"llamacpp:{SMOLLM2}",
    ]
    for model in listing["models"]:
        assert {"selection", "runtime", "enabled", "inUse", "capabilities", "contextLength",
                "size"} <= set(model)  # fmt: skip
    assert [m["inUse"] for m in listing["models"]] == [True, False, False, False]
    assert [u["runtime"] for u in listing["unreachable"]] == ["LM Studio", "OpenAI-compatible"]
    assert set(listing["unreachable"][0]) == {"runtime", "baseURL", "reason"}
    # `models list` is the same listing. (Details a runtime gives within the listing's deadline,
    # such as a window, may be missing from one run on a busy machine: not compared.)
    again = json.loads((await wisp(env, "models", "list", "--json")).out)
    assert [_identity(m) for m in again["models"]] == [_identity(m) for m in listing["models"]]
    assert again["unreachable"] == listing["unreachable"]


def _identity(model: dict[str, Any]) -> tuple[Any, ...]:
    return model["selection"], model["runtime"], model["enabled"], model["inUse"]


async def test_with_no_server_running_local_and_a_line_per_runtime_come_in(
    bare_env: dict[str, str], wisp_home: Path, refused_url: str
) -> None:
    schemes = ("ollama", "llamacpp", "lmstudio", "openai")
    write_config(wisp_home, {scheme: {"baseURL": refused_url} for scheme in schemes})
    done = await wisp(bare_env, "models")  # how soon: bench/models_listing.py
    assert done.code == 0
    assert [line.split("\t")[0] for line in model_lines(done.out)] == ["MODEL", "* local"]
    lines = done.err.splitlines()
    assert [line.split(" at ")[0] for line in lines] == [
        "Ollama",
        "llama.cpp",
        "LM Studio",
        "OpenAI-compatible",
    ]
    assert all(line.endswith("is unreachable: connection refused") for line in lines)


ROUTED_TASKS = [
    "assess", "distill", "summary", "summarise", "condense", "scan", "redact", "triage", "draft",
    "verify", "classify",
]  # fmt: skip


async def test_under_the_models_each_routed_task_names_its_model_and_why(
    bare_env: dict[str, str], wisp_home: Path, refused_url: str
) -> None:
    schemes = ("ollama", "llamacpp", "lmstudio", "openai")
    write_config(
        wisp_home, {"model": "ollama:qwen3", **{s: {"baseURL": refused_url} for s in schemes}}
    )
    done = await wisp(bare_env, "models")
    assert done.code == 0, done.err
    routes = {row[0]: row[1:] for row in route_rows(done.out)}
    assert list(routes) == ROUTED_TASKS
    nothing_checked = "no enabled model's recorded capability check passed"
    # A conversation's task falls back to its model (the default here); a command's to local.
    assert routes["assess"] == [
        "ollama:qwen3",
        f"{nothing_checked} structured replies: the conversation's model",
    ]
    assert routes["draft"] == ["local", f"{nothing_checked} a plain reply: the default local model"]


async def test_routing_tasks_draft_overrides_the_default_in_the_listing_and_its_json(
    bare_env: dict[str, str], wisp_home: Path, refused_url: str
) -> None:
    schemes = ("ollama", "llamacpp", "lmstudio", "openai")
    config: dict[str, Any] = {scheme: {"baseURL": refused_url} for scheme in schemes}
    write_config(wisp_home, {**config, "routing": {"tasks": {"draft": "ollama:qwen3:8b"}}})
    routes = {row[0]: row[1:] for row in route_rows((await wisp(bare_env, "models")).out)}
    assert routes["draft"] == ["ollama:qwen3:8b", "routing.tasks.draft names it"]
    assert routes["summary"][0] == "local"  # the other tasks keep theirs
    listing = json.loads((await wisp(bare_env, "models", "--json")).out)
    assert [route["task"] for route in listing["routes"]] == ROUTED_TASKS
    draft = next(route for route in listing["routes"] if route["task"] == "draft")
    assert draft == {
        "task": "draft",
        "model": "ollama:qwen3:8b",
        "reason": "routing.tasks.draft names it",
        "structured": False,
    }


# -- enable and disable ------------------------------------------------------------------------


async def test_disable_then_enable_agree_in_listing_config_and_audit(
    env: dict[str, str], servers_config: dict[str, Any], wisp_home: Path, audit_lines: AuditLines
) -> None:
    done = await wisp(env, "models", "disable", "ollama:gemma3")
    assert (done.code, done.out) == (
        0,
        "disabled ollama:gemma3: hidden from /model and refused until enabled\n",
    )
    assert stored(wisp_home)["models"] == {"disabled": ["ollama:gemma3"]}
    listing = json.loads((await wisp(env, "models", "--json")).out)
    enabled = {m["selection"]: m["enabled"] for m in listing["models"]}
    assert enabled["ollama:gemma3:latest"] is False and enabled["ollama:qwen3:8b"] is True
    piped = (await wisp(env, "models")).out.splitlines()
    assert piped[3].split("\t")[:1] + piped[3].split("\t")[8:9] == ["  ollama:gemma3:latest", "no"]

    again = await wisp(env, "models", "disable", "ollama:gemma3:latest")
    assert again.out == "ollama:gemma3:latest is disabled\n"

    done = await wisp(env, "models", "enable", "ollama:gemma3:latest")  # another spelling
    assert (done.code, done.out) == (0, "enabled ollama:gemma3:latest\n")
    assert "models" not in stored(wisp_home)  # an empty list is unset
    changes = events(audit_lines, "config.change")
    assert [(c["details"]["path"], c["details"]["old"], c["details"]["new"]) for c in changes] == [
        ("models.disabled", None, ["ollama:gemma3"]),
        ("models.disabled", ["ollama:gemma3"], None),
    ]
    assert {c["details"]["source"] for c in changes} == {"cli"}
    starts = events(audit_lines, "session.start")
    assert [s["details"]["entryPoint"] for s in starts] == ["models", "models", "models"]


async def test_the_default_model_cannot_be_disabled(
    bare_env: dict[str, str], wisp_home: Path, audit_lines: AuditLines
) -> None:
    done = await wisp(bare_env, "models", "disable", "local")
    assert done.code == 1
    assert done.err == (
        "wisp: local is the default model, so it cannot be disabled; make another model the "
        "default first (config.json's model: wisp config set model <name>, or /config set "
        "model in chat)\n"
    )
    assert not (wisp_home / "config.json").exists()
    assert events(audit_lines, "config.change") == []


async def test_enabling_a_model_with_nothing_recorded_checks_it_first(
    bare_env: dict[str, str], wisp_home: Path, audit_lines: AuditLines
) -> None:
    write_config(wisp_home, {"model": "ollama:qwen3", "models": {"disabled": ["local"]}})
    done = await wisp(bare_env, "models", "enable", "local")
    assert done.code == 0, done.err
    lines = done.out.splitlines()
    assert lines[0].startswith("checking local: loads the model (98 MB) and asks three short")
    assert lines[-2] == (
        "local holds a conversation but did not call a tool; it is usable only with tools off: "
        "its conversations open with no tools"
    )
    assert lines[-1] == "enabled local"
    assert "models" not in stored(wisp_home)
    order = [(e["kind"], e["details"].get("path")) for e in audit_lines()]
    assert order == [
        ("session.start", None),
        ("model.verified", None),
        ("config.change", f'local.models."{SMOLLM2}"'),
        ("config.change", "models.disabled"),
    ]
    assert events(audit_lines, "model.verified")[0]["details"]["trigger"] == "enable"


async def test_enabling_a_model_that_cannot_reply_leaves_it_disabled(
    bare_env: dict[str, str], wisp_home: Path, loopback: Any, audit_lines: AuditLines
) -> None:
    reply = servers.Reply
    loopback.routes[("GET", "/v1/models")] = lambda _: reply(body={"data": [{"id": "m"}]})
    loopback.routes[("POST", "/v1/chat/completions")] = lambda _: reply(
        500, {"error": {"message": "out of memory"}}
    )
    config = {"openai": {"baseURL": loopback.base_url}, "models": {"disabled": ["openai:m"]}}
    write_config(wisp_home, config)
    done = await wisp(bare_env, "models", "enable", "openai:m")
    assert done.code == 1
    assert done.out.splitlines()[-1] == (
        "openai:m cannot hold a conversation (OpenAI-compatible server returned HTTP 500: "
        "out of memory); it stays disabled"
    )
    assert stored(wisp_home) == config
    assert [line["kind"] for line in audit_lines()] == ["session.start", "model.verified"]
    verified = events(audit_lines, "model.verified")[0]["details"]
    assert (verified["outcome"], verified["recorded"], len(verified["checks"])) == (
        "refused",
        None,
        1,
    )


# -- check -------------------------------------------------------------------------------------


async def test_check_local_finds_it_text_only_and_records_it(
    bare_env: dict[str, str], wisp_home: Path, audit_lines: AuditLines
) -> None:
    done = await wisp(bare_env, "models", "check", "local")
    assert done.code == 0, done.err
    assert "\nreply: passed in " in done.out
    assert "\ntool calling: failed in " in done.out
    assert (
        "local holds a conversation but did not call a tool; it is usable only with tools off"
        in done.out
    )
    declared = stored(wisp_home)["local"]["models"][SMOLLM2]
    assert "toolCalling" not in declared["capabilities"]
    assert "toolCalling" in declared["verified"]["failed"]
    assert "recorded in config.json: local is text only" in done.out
    # The path to declare the rest by hand, ready to paste into `wisp config set`.
    assert f"in 'local.models.\"{SMOLLM2}\".capabilities' if it has them\n" in done.out
    assert 'not checked: thinking, vision; declare them by hand ("reasoning", "vision") in ' in (
        done.out
    )
    kinds = [line["kind"] for line in audit_lines()]
    assert kinds == ["session.start", "model.verified", "config.change"]
    verified = events(audit_lines, "model.verified")[0]["details"]
    assert (verified["model"], verified["trigger"], verified["outcome"]) == (
        "local",
        "check",
        "text only",
    )
    assert [c["check"] for c in verified["checks"]] == ["reply", "toolCalling", "guidedGeneration"]
    assert verified["recorded"] == declared["capabilities"]
    assert verified["unchecked"] == ["reasoning", "vision"]
    change = events(audit_lines, "config.change")[0]["details"]
    assert (change["path"], change["old"], change["new"]) == (
        f'local.models."{SMOLLM2}"',
        None,
        declared,
    )

    # What `wisp models` says of it agrees with what the check recorded, question by question.
    structured = "guidedGeneration" in declared["verified"]["passed"]
    assert f"\nstructured replies: {'passed' if structured else 'failed'} in " in done.out
    listing = await wisp(bare_env, "models")
    row = next(line.split("\t") for line in listing.out.splitlines() if line.startswith("* local"))
    said = "text only, structured replies" if structured else "text only"
    assert row[-1] == f"{said} (verified)"


async def test_a_runtime_that_reports_capabilities_has_nothing_to_check(
    bare_env: dict[str, str],
) -> None:
    done = await wisp(bare_env, "models", "check", "ollama:qwen3")
    assert (done.code, done.out) == (
        0,
        "ollama:qwen3: its runtime reports what it can do; there is nothing to check\n",
    )


# -- pull --------------------------------------------------------------------------------------


async def test_pull_shows_progress_and_records_what_it_fetched(
    bare_env: dict[str, str], wisp_home: Path, ollama: FakeOllama, audit_lines: AuditLines
) -> None:
    write_config(wisp_home, {"ollama": {"baseURL": ollama.base_url}})
    ollama.pull_with(
        servers.ollama_pull_lines((LAYER_A, 5_000_000, 1_000_000), (LAYER_B, 2_000, 2_000))
    )
    done = await wisp(bare_env, "models", "pull", "ollama:qwen3:8b")
    assert done.code == 0, done.err
    assert done.out.startswith(
        "pulled ollama:qwen3:8b: 1 layer fetched (4.0 MB), 1 already here, in "
    )
    progress = done.err.splitlines()
    assert progress[0] == "pulling manifest"
    assert progress[1] == "[1/1] sha256:3f2a9c1e… 1.0 MB of 5.0 MB (20%)"
    assert any(
        line.startswith("[2/2] sha256:77bb0011… 2.0 KB of 2.0 KB (100%)") for line in progress
    )
    assert progress[-3:] == ["verifying sha256 digest", "writing manifest", "success"]
    assert ollama.server.requests_to("/api/pull")[0].body == {"model": "qwen3:8b", "stream": True}
    pulled = events(audit_lines, "model.pull")[0]["details"]
    assert pulled == {
        "model": "ollama:qwen3:8b",
        "repository": "qwen3:8b",
        "directory": None,
        "cache": None,
        "files": 2,
        "bytes": 5_002_000,
        "reused": 1,
        "seeded": 0,
        "fetchedFiles": 1,
        "fetched": 4_000_000,
        "link": None,
        "outcome": "fetched",
        "seconds": pulled["seconds"],
        "source": "cli",
        "approval": None,
    }
    assert [line["kind"] for line in audit_lines()] == ["session.start", "model.pull"]


async def test_pulling_what_is_all_here_is_linked(
    bare_env: dict[str, str], wisp_home: Path, ollama: FakeOllama, audit_lines: AuditLines
) -> None:
    write_config(wisp_home, {"ollama": {"baseURL": ollama.base_url}})
    ollama.pull_with(servers.ollama_pull_lines((LAYER_A, 1_000, 1_000)))
    done = await wisp(bare_env, "models", "pull", "ollama:qwen3")
    assert done.out.startswith("pulled ollama:qwen3:latest: 0 layers fetched (0 B), 1 already")
    assert events(audit_lines, "model.pull")[0]["details"]["outcome"] == "linked"


async def test_a_pull_ollama_refuses_fails_with_its_words(
    bare_env: dict[str, str], wisp_home: Path, ollama: FakeOllama, audit_lines: AuditLines
) -> None:
    write_config(wisp_home, {"ollama": {"baseURL": ollama.base_url}})
    error = {"error": "pull model manifest: file does not exist"}
    ollama.pull_with([json.dumps({"status": "pulling manifest"}) + "\n", json.dumps(error) + "\n"])
    done = await wisp(bare_env, "models", "pull", "ollama:nope")
    assert done.code == 1
    message = "Ollama could not pull nope: pull model manifest: file does not exist"
    assert done.err.endswith(f"wisp: {message}\n")
    pulled = events(audit_lines, "model.pull")[0]["details"]
    assert (pulled["outcome"], pulled["reason"]) == ("failed", message)


async def test_a_pull_cut_off_fails_saying_what_arrived_is_kept(
    bare_env: dict[str, str], wisp_home: Path, ollama: FakeOllama, audit_lines: AuditLines
) -> None:
    write_config(wisp_home, {"ollama": {"baseURL": ollama.base_url}})
    ollama.pull_with(servers.ollama_pull_lines((LAYER_A, 10_000_000, 0))[:3], then="drop")
    done = await wisp(bare_env, "models", "pull", "ollama:qwen3")
    assert done.code == 1
    assert "wisp: Ollama stopped pulling qwen3 before it was done (" in done.err
    assert done.err.endswith("what arrived is kept, and pulling again resumes from it\n")
    assert events(audit_lines, "model.pull")[0]["details"]["outcome"] == "failed"


async def test_ctrl_c_cancels_a_pull_cleanly(
    bare_env: dict[str, str], wisp_home: Path, ollama: FakeOllama, audit_lines: AuditLines
) -> None:
    write_config(wisp_home, {"ollama": {"baseURL": ollama.base_url}})
    first = servers.ollama_pull_lines((LAYER_A, 10_000_000, 0), steps=10)[:3]  # 0, then 1 MB of it
    second = servers.ollama_pull_lines((LAYER_B, 5_000_000, 0))[1:2]  # its first report: [2/2]
    ollama.pull_with(first + second, then="hang")
    process = await asyncio.create_subprocess_exec(
        WISP, "models", "pull", "ollama:qwen3", env=bare_env, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stderr is not None
    seen = b""
    async with asyncio.timeout(HANG):
        while b"[2/2]" not in seen:  # printed once every line before it was taken
            seen += await process.stderr.readline()
    process.send_signal(signal.SIGINT)
    _, err = await asyncio.wait_for(process.communicate(), HANG)
    assert process.returncode == 130
    assert b"Traceback" not in err
    assert b"pull cancelled: Ollama keeps what arrived" in err
    await asyncio.wait_for(ollama.server.hung_up.wait(), HANG)  # the stream was closed
    pulled = events(audit_lines, "model.pull")[0]["details"]
    assert (pulled["outcome"], pulled["files"], pulled["fetched"]) == ("cancelled", 2, 1_000_000)


@pytest.mark.parametrize(
    ("model", "words"),
    [
        ("llamacpp:qwen3", "llama.cpp loads models itself: start llama-server with -hf"),
        ("lmstudio:qwen/qwen3-8b", "download it in LM Studio, or with lms get"),
        ("local", "local models are GGUF files: pull one from the Hugging Face Hub with wisp"),
        ("openai:gpt-4o", "openai models cannot be pulled"),
    ],
)
async def test_only_ollama_models_are_pulled(
    bare_env: dict[str, str], model: str, words: str
) -> None:
    done = await wisp(bare_env, "models", "pull", model)
    assert done.code == 1
    assert done.err.startswith(f"wisp: {words}")


# -- in process: what chat's /models uses, and the renderers -----------------------------------


def context_at(home: Path) -> Any:
    from wisp.cli.context import Context
    from wisp.home import Home

    return Context(Home(home), {}, stdout=io.StringIO(), stderr=io.StringIO())


def test_set_disabled_makes_the_set_the_whole_list_and_says_what_changed(
    wisp_home: Path,
) -> None:
    from wisp.cli.models.command import set_disabled

    write_config(wisp_home, {"models": {"disabled": ["ollama:a", "ollama:b"]}})
    recorded: list[Any] = []
    notes = set_disabled(
        context_at(wisp_home), {"ollama:b:latest", "llamacpp:c"}, source="chat",
        record=recorded.append,
    )  # fmt: skip
    assert notes == [
        "enabled ollama:a",
        "disabled llamacpp:c: hidden from /model and refused until enabled",
    ]
    assert stored(wisp_home)["models"]["disabled"] == ["ollama:b", "llamacpp:c"]
    assert [(e.path, e.old, e.new, e.source) for e in recorded] == [
        ("models.disabled", ["ollama:a", "ollama:b"], ["ollama:b", "llamacpp:c"], "chat")
    ]
    assert set_disabled(context_at(wisp_home), {"ollama:b", "llamacpp:c"}, source="chat",
                        record=recorded.append) == []  # fmt: skip
    assert len(recorded) == 1  # nothing changed, nothing recorded


def test_set_disabled_refuses_the_default_and_writes_nothing(wisp_home: Path) -> None:
    from wisp.cli.models.command import set_disabled
    from wisp.errors import WispError

    write_config(wisp_home, {"model": "ollama:qwen3", "models": {"disabled": ["ollama:a"]}})
    with pytest.raises(WispError, match=r"^ollama:qwen3:latest is the default model, so it"):
        set_disabled(context_at(wisp_home), {"ollama:qwen3:latest"}, source="chat",
                     record=lambda _: None)  # fmt: skip
    assert stored(wisp_home)["models"]["disabled"] == ["ollama:a"]


async def test_picker_rows_marks_the_conversations_model(
    wisp_home: Path, ollama: FakeOllama, refused_url: str
) -> None:
    from wisp.cli.models.command import picker_rows
    from wisp.config import Config

    ollama.install("qwen3:latest")
    config = Config(wisp_home / "config.json", {
        "ollama": {"baseURL": ollama.base_url},
        **{s: {"baseURL": refused_url} for s in ("llamacpp", "lmstudio", "openai")},
    })  # fmt: skip
    catalog = await picker_rows(config, {}, in_use="ollama:qwen3")
    assert [(m.selection, m.in_use) for m in catalog.models] == [
        ("local", False),
        ("ollama:qwen3:latest", True),
    ]


def test_a_narrow_terminal_drops_columns_by_rank_and_wraps_the_last() -> None:
    from wisp.cli.models.table import terminal_lines
    from wisp.models.catalog import ModelRow

    row = ModelRow(
        selection="ollama:qwen3:8b", runtime="Ollama", enabled=True, in_use=True,
        capabilities=["toolCalling", "guidedGeneration", "reasoning"], capabilities_from="runtime",
        context_length=40960, context_from="memory", size="5.2 GB", parameters="8.2B",
        format="qwen3 Q4_K_M", problem="Ollama has no model 'x'",
    )  # fmt: skip
    wide = terminal_lines([row], 200, color=False)
    # WHERE is left out: no row has a value for it.
    assert wide[0] == (
        "MODEL              RUNTIME  PARAMS  SIZE    FORMAT        CONTEXT  FROM    ENABLED  "
        "CAPABILITIES"
    )
    narrow = terminal_lines([row], 66, color=False)  # 21 cells left for CAPABILITIES
    assert narrow[0].split() == ["MODEL", "SIZE", "CONTEXT", "ENABLED", "CAPABILITIES"]
    assert narrow[1].startswith("* ollama:qwen3:8b") and narrow[1].endswith("tool calling,")
    assert narrow[2].strip() == "structured replies,"
    assert narrow[3].strip() == "thinking"
    assert narrow[2].index("structured") == narrow[0].index("CAPABILITIES")
    assert narrow[4] == "    not usable: Ollama has no model 'x'"
    assert max(len(line) for line in narrow) <= 66
    assert terminal_lines([row], 64, color=False)[0].split()[1] == "CONTEXT"  # SIZE went too


def test_an_unknown_window_is_shown_as_a_question_mark_from_unknown() -> None:
    from wisp.cli.models.table import piped_lines, terminal_lines
    from wisp.models.catalog import ModelRow

    row = ModelRow(
        selection="llamacpp:m", runtime="llama.cpp", enabled=True, in_use=False,
        capabilities=[], capabilities_from="undeclared", context_from="unknown",
        context_note="unknown: llama.cpp has no /props (HTTP 404); set llamacpp.contextLength",
    )  # fmt: skip
    lines = terminal_lines([row], 200, color=False)
    heading, cells = lines[0].split(), lines[1].split()
    assert cells[heading.index("CONTEXT")] == "?"
    assert piped_lines([row])[1].split("\t")[5:7] == ["?", "unknown"]


def test_a_verified_row_names_what_the_check_did_not_pass() -> None:
    from wisp.cli.models.table import terminal_lines
    from wisp.models.catalog import ModelRow

    def cell(capabilities: list[str], passed: list[str]) -> str:
        row = ModelRow(
            selection="llamacpp:m", runtime="llama.cpp", enabled=True, in_use=False,
            capabilities=capabilities, capabilities_from="verified 2026-12-01",
            capabilities_verified=passed,
        )  # fmt: skip
        return terminal_lines([row], 200, color=False)[1].split("  ")[-1]

    assert cell([], []) == "text only (verified)"
    assert cell(["toolCalling", "guidedGeneration"], ["toolCalling", "guidedGeneration"]) == (
        "tool calling, structured replies (verified)"
    )
    # Declared by hand: kept though the check failed it, or never asked (thinking).
    assert cell(["toolCalling", "guidedGeneration", "reasoning"], ["guidedGeneration"]) == (
        "tool calling, structured replies, thinking "
        "(verified, except tool calling and thinking: declared by hand)"
    )


def test_the_help_names_each_capability_as_people_read_it_and_as_config_json_holds_it() -> None:
    done = subprocess.run([WISP, "models", "--help"], capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    assert [line.split() for line in lines[-4:]] == [
        ["tool", "calling", "toolCalling"],
        ["structured", "replies", "guidedGeneration"],
        ["thinking", "reasoning"],
        ["vision", "vision"],
    ]


def test_on_a_terminal_the_pull_is_one_line_rewritten_with_a_bar_rate_and_time_left() -> None:
    from wisp.cli.models.pull import PullView
    from wisp.models.ollama_pull import PullLine, new_progress

    now = [100.0]
    progress = new_progress("qwen3", clock=lambda: now[0])
    out = io.StringIO()
    view = PullView(out, is_terminal=True, width=120, clock=lambda: now[0])
    for completed, at in ((0, 100.0), (250_000_000, 110.0), (500_000_000, 120.0)):
        now[0] = at
        progress.take(PullLine("pulling 3f2a9c1e", LAYER_A, 1_000_000_000, completed))
        view.update(progress)
    view.finish()
    frames = out.getvalue().split("\r")[1:]
    assert len(frames) == 3 and out.getvalue().endswith("\n")
    assert frames[-1] == (
        "[1/1] sha256:3f2a9c1e… [##########----------] 500 MB of 1.0 GB (50%) · 25 MB/s · "
        "20 s left\x1b[K\n"
    )
