"""``assessment.enabled`` and ``routing.tasks.assess``: typed, checked, defaulted (README's
settings table; docs/turn.md, "The assessment per request")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from wisp.config import Config
from wisp.config.settings import SETTINGS


def settings(tmp_path: Path, data: dict[str, Any]) -> Any:
    return Config(tmp_path / "config.json", data).settings


def test_the_defaults_are_auto_and_wisp_s_own_choice(tmp_path: Path) -> None:
    read = settings(tmp_path, {})
    assert read.assessment.enabled == "auto"
    assert read.routing.tasks.assess is None


@pytest.mark.parametrize("value", [True, False, "auto"])
def test_assessment_enabled_takes_true_false_or_auto(value: Any) -> None:
    assert SETTINGS["assessment.enabled"].check(value) == value


@pytest.mark.parametrize("value", ["maybe", 1, None, "true"])
def test_assessment_enabled_refuses_anything_else(value: Any) -> None:
    with pytest.raises(ValueError, match="true, false or auto"):
        SETTINGS["assessment.enabled"].check(value)


def test_routing_tasks_assess_names_a_model(tmp_path: Path) -> None:
    read = settings(tmp_path, {"routing": {"tasks": {"assess": "ollama:qwen3"}}})
    assert read.routing.tasks.assess == "ollama:qwen3"
    with pytest.raises(ValueError):
        SETTINGS["routing.tasks.assess"].check("")
