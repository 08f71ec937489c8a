"""``list_models``: every runtime asked at once, the unreachable ones named, never a long wait."""

from __future__ import annotations

import asyncio
import importlib.util
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from wisp.config import Config
from wisp.models.catalog import Catalog, ModelRow, context_from, human_bytes, list_models
from wisp.models.local_engine import NEEDS_EXTRA

SMOLLM2 = "SmolLM2-135M-Instruct.Q4_1"
FakeOllama = Any  # conftest's FakeOllama, reached through the ``ollama`` fixture
LlamaServer = Any  # conftest's LlamaServer
MakeConfig = Callable[[dict[str, Any]], Config]


@pytest.fixture
def nowhere(refused_url: str) -> dict[str, Any]:
    """Every server section pointed where nothing listens."""
    return {
        scheme: {"baseURL": refused_url} for scheme in ("ollama", "llamacpp", "lmstudio", "openai")
    }


def selections(catalog: Catalog) -> list[str]:
    return [row.selection for row in catalog.models]


def row_of(catalog: Catalog, selection: str) -> ModelRow:
    return next(row for row in catalog.models if row.selection == selection)


async def listing(
    config: Config, client: httpx.AsyncClient, *, in_use: str | None = "local", **kw: Any
) -> Catalog:
    return await list_models(config, {}, client, in_use=in_use, **kw)


# -- every runtime -----------------------------------------------------------------------------


async def test_local_then_every_answering_runtimes_models_are_listed(
    ollama: FakeOllama,
    llama_server: LlamaServer,
    nowhere: dict[str, Any],
    make_config: MakeConfig,
    http_client: httpx.AsyncClient,
) -> None:
    ollama.install("qwen3:8b")
    ollama.install("gemma3:latest", capabilities=["completion"])
    config = make_config(
        {
            **nowhere,
            "ollama": {"baseURL": ollama.base_url},
            "llamacpp": {"baseURL": llama_server.base_url},
        }
    )
    environ = {"WISP_LLAMACPP_API_KEY": llama_server.key}
    catalog = await list_models(config, environ, http_client, in_use="local")
    assert selections(catalog) == [
        "local",
        "ollama:qwen3:8b",
        "ollama:gemma3:latest",
        f"llamacpp:{SMOLLM2}",
    ]
    assert [(u.runtime, u.reason) for u in catalog.unreachable] == [
        ("LM Studio", "connection refused"),
        ("OpenAI-compatible", "connection refused"),
    ]


async def test_an_ollama_row_carries_its_listing_and_what_resolving_found(
    ollama: FakeOllama, make_config: MakeConfig, http_client: httpx.AsyncClient
) -> None:
    ollama.install("qwen3:8b", size=5_200_000_000, capabilities=["completion", "tools"])
    config = make_config({"ollama": {"baseURL": ollama.base_url}})
    row = row_of(await listing(config, http_client), "ollama:qwen3:8b")
    assert (row.runtime, row.size, row.bytes) == ("Ollama", "5.2 GB", 5_200_000_000)
    assert (row.parameters, row.format) == ("8.2B", "qwen3 Q4_K_M")
    assert (row.capabilities, row.capabilities_from) == (
        ["guidedGeneration", "toolCalling"],
        "runtime",
    )
    assert (row.context_length, row.context_from) == (8192, "default")
    assert (row.enabled, row.in_use, row.problem) == (True, False, None)


async def test_a_llamacpp_row_is_named_by_its_file_and_undeclared(
    llama_server: LlamaServer,
    nowhere: dict[str, Any],
    make_config: MakeConfig,
    http_client: httpx.AsyncClient,
) -> None:
    config = make_config({**nowhere, "llamacpp": {"baseURL": llama_server.base_url}})
    environ = {"WISP_LLAMACPP_API_KEY": llama_server.key}
    catalog = await list_models(config, environ, http_client, in_use=None)
    row = row_of(catalog, f"llamacpp:{SMOLLM2}")
    assert (row.runtime, row.capabilities_from, row.context_length) == (
        "llama.cpp",
        "undeclared",
        None,  # llama-cpp-python's server reports no window: unknown, not a guess
    )
    assert row.context_from == "unknown"
    assert row.context_note is not None and "set llamacpp.contextLength" in row.context_note


async def test_a_configured_window_is_listed_for_a_server_that_reports_none(
    llama_server: LlamaServer,
    nowhere: dict[str, Any],
    make_config: MakeConfig,
    http_client: httpx.AsyncClient,
) -> None:
    section = {"baseURL": llama_server.base_url, "contextLength": 2048}
    config = make_config({**nowhere, "llamacpp": section})
    environ = {"WISP_LLAMACPP_API_KEY": llama_server.key}
    catalog = await list_models(config, environ, http_client, in_use=None)
    row = row_of(catalog, f"llamacpp:{SMOLLM2}")
    assert (row.context_length, row.context_from) == (2048, "config")


async def test_local_is_described_from_its_file(
    nowhere: dict[str, Any], make_config: MakeConfig, http_client: httpx.AsyncClient
) -> None:
    row = (await listing(make_config(nowhere), http_client)).models[0]
    assert (row.selection, row.runtime, row.in_use, row.enabled) == ("local", "local", True, True)
    assert (row.parameters, row.format, row.location) == ("135M", "llama Q4_1", "package")
    assert row.capabilities == ["guidedGeneration"] and row.capabilities_from == "runtime"
    assert (row.context_length, row.context_from, row.problem) == (8192, "model", None)


async def test_local_is_described_however_busy_the_machine(
    nowhere: dict[str, Any], make_config: MakeConfig, http_client: httpx.AsyncClient
) -> None:
    # The listing's deadline is for servers; on a machine too busy to read the GGUF's header
    # within it (here: no time at all), local still has its details.
    row = (await listing(make_config(nowhere), http_client, whole_seconds=0.0)).models[0]
    assert row.selection == "local"
    assert (row.parameters, row.context_length, row.problem) == ("135M", 8192, None)


# -- runtimes that do not answer ---------------------------------------------------------------


async def test_with_nothing_running_local_is_listed_and_each_runtime_is_one_entry(
    nowhere: dict[str, Any], make_config: MakeConfig, http_client: httpx.AsyncClient
) -> None:
    catalog = await listing(make_config(nowhere), http_client)
    assert selections(catalog) == ["local"]
    assert [u.runtime for u in catalog.unreachable] == [
        "Ollama",
        "llama.cpp",
        "LM Studio",
        "OpenAI-compatible",
    ]
    assert {u.base_url for u in catalog.unreachable} == {nowhere["ollama"]["baseURL"]}


async def test_a_server_that_never_answers_is_given_up_on_at_the_limit(
    nowhere: dict[str, Any], make_config: MakeConfig, http_client: httpx.AsyncClient
) -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # accepts, then says nothing until the client leaves
        writer.close()

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    config = make_config({**nowhere, "ollama": {"baseURL": f"http://127.0.0.1:{port}"}})
    try:  # it never answers: without the limit, this would not return
        catalog = await listing(config, http_client, whole_seconds=0.4)
    finally:
        server.close()
    assert catalog.unreachable[0].runtime == "Ollama"
    assert catalog.unreachable[0].reason == "no listing within 0.4 s"
    assert selections(catalog) == ["local"]


async def test_a_runtime_answering_an_error_is_unreachable_with_its_words(
    ollama: FakeOllama, make_config: MakeConfig, http_client: httpx.AsyncClient
) -> None:
    reply = type(ollama.chat)  # conftest's Reply
    ollama.server.routes[("GET", "/api/tags")] = lambda _: reply(500, {"error": "disk on fire"})
    config = make_config({"ollama": {"baseURL": ollama.base_url}})
    catalog = await listing(config, http_client)
    assert catalog.unreachable[0].reason == "GET /api/tags: HTTP 500: disk on fire"


async def test_local_without_its_extra_is_listed_with_how_to_install_it(
    nowhere: dict[str, Any],
    make_config: MakeConfig,
    http_client: httpx.AsyncClient,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *args: None if name == "llama_cpp" else find_spec(name, *args),
    )
    row = (await listing(make_config(nowhere), http_client)).models[0]
    assert (row.selection, row.problem) == ("local", NEEDS_EXTRA)
    assert "pip install 'wisp[local]'" in (row.problem or "")


# -- config ------------------------------------------------------------------------------------


async def test_disabled_models_are_marked_and_listed_even_when_no_runtime_lists_them(
    ollama: FakeOllama,
    nowhere: dict[str, Any],
    make_config: MakeConfig,
    http_client: httpx.AsyncClient,
) -> None:
    ollama.install("qwen3:latest")
    config = make_config(
        {
            **nowhere,
            "ollama": {"baseURL": ollama.base_url},
            "models": {"disabled": ["ollama:qwen3", "ollama:gone"]},
        }
    )
    catalog = await listing(config, http_client)
    assert selections(catalog) == ["local", "ollama:qwen3:latest", "ollama:gone:latest"]
    assert [row.enabled for row in catalog.models] == [True, False, False]
    assert row_of(catalog, "ollama:gone:latest").problem == (
        "Ollama has no model 'gone:latest'; installed: qwen3:latest"
    )


async def test_the_model_in_use_is_marked_under_any_spelling(
    ollama: FakeOllama, make_config: MakeConfig, http_client: httpx.AsyncClient
) -> None:
    ollama.install("qwen3:latest")
    config = make_config({"ollama": {"baseURL": ollama.base_url}})
    catalog = await listing(config, http_client, in_use="ollama:qwen3")
    assert [(row.selection, row.in_use) for row in catalog.models][:2] == [
        ("local", False),
        ("ollama:qwen3:latest", True),
    ]


async def test_a_configured_script_model_is_listed(
    tmp_path: Path,
    nowhere: dict[str, Any],
    make_config: MakeConfig,
    http_client: httpx.AsyncClient,
) -> None:
    script = tmp_path / "demo.json"
    script.write_text(json.dumps({"responses": [], "contextSize": 4096}))
    config = make_config({**nowhere, "model": f"script:{script}"})
    catalog = await listing(config, http_client, in_use=f"script:{script}")
    row = row_of(catalog, f"script:{script}")
    assert (row.runtime, row.in_use, row.context_length) == ("script", True, 4096)
    assert "toolCalling" in row.capabilities


async def test_a_verified_declaration_says_when(
    nowhere: dict[str, Any], make_config: MakeConfig, http_client: httpx.AsyncClient
) -> None:
    declared = {"capabilities": [], "verified": {"date": "2026-01-02", "passed": [], "failed": []}}
    config = make_config({**nowhere, "local": {"models": {SMOLLM2: declared}}})
    row = (await listing(config, http_client)).models[0]
    assert row.capabilities_from == "verified 2026-01-02"


# -- the JSON ----------------------------------------------------------------------------------


async def test_the_json_has_the_issues_names(
    nowhere: dict[str, Any], make_config: MakeConfig, http_client: httpx.AsyncClient
) -> None:
    catalog = await listing(make_config(nowhere), http_client)
    decoded = msgspec.json.decode(msgspec.json.encode(catalog))
    assert set(decoded) == {"models", "unreachable"}
    assert {
        "selection",
        "runtime",
        "enabled",
        "inUse",
        "capabilities",
        "contextLength",
        "size",
    } <= (set(decoded["models"][0]))
    assert set(decoded["unreachable"][0]) == {"runtime", "baseURL", "reason"}


# -- words -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("note", "where"),
    [
        (None, "model"),
        ("set for this model (local.models.x.contextLength)", "model config"),
        ("configured (ollama.contextLength)", "config"),
        ("reported by llama.cpp (/props n_ctx): the server holds the model", "server"),
        ("the default: Ollama reported no model shape to size from", "default"),
        ("8,192 of 131,072, the default floor", "default"),
        ("24,576 of 131,072: 9.2 GiB of a 9.8 GiB budget", "memory"),
        ("unknown: llama.cpp has no /props (HTTP 404); set llamacpp.contextLength", "unknown"),
        ("configured (llamacpp.contextLength), below the 16,384 reported by llama.cpp", "config"),
        ("reported by LM Studio (loaded), below the 8,192 configured", "server"),
    ],
)
def test_the_from_column_follows_the_windows_note(note: str | None, where: str) -> None:
    assert context_from(note) == where


@pytest.mark.parametrize(
    ("count", "shown"),
    [(512, "512 B"), (98_362_432, "98 MB"), (4_900_000_000, "4.9 GB"), (938_000_000, "938 MB")],
)
def test_sizes_are_in_decimal_units(count: int, shown: str) -> None:
    assert human_bytes(count) == shown
