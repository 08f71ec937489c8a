"""wisp.config.sections: the typed view of config.json, a frozen Struct per section."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from wisp.config import SETTINGS, Config, load_config, save_config, set_value, unset_value
from wisp.config.model_entry import ModelEntry
from wisp.config.sections import (
    SECTIONS,
    TOP_LEVEL,
    SettingKey,
    Settings,
    SettingSection,
    section_keys,
)
from wisp.errors import ConfigValueError


def config(data: dict[str, Any]) -> Config:
    return Config(Path("/home/me/.wisp/config.json"), data)


def every_key() -> list[str]:
    keys = [key for name, kind in SECTIONS.items() for key in section_keys(kind, name)]
    return [*keys, *TOP_LEVEL]


def test_the_view_has_one_field_for_each_known_setting_and_no_other() -> None:
    keys = every_key()
    assert sorted(keys) == sorted(SETTINGS)


def test_each_section_and_top_level_key_is_a_member_of_settings() -> None:
    members = vars(Settings).items()
    names = {name for name, member in members if isinstance(member, SettingKey | SettingSection)}
    camel = {"".join([name.split("_")[0], *map(str.title, name.split("_")[1:])]) for name in names}
    assert camel == {*SECTIONS, *TOP_LEVEL}


def test_each_top_level_property_reads_its_own_key() -> None:
    data = {"model": "ollama:qwen3", "systemPromptExtension": "be brief"}
    data |= {"commandTimeoutSeconds": 7, "commandMaxTimeoutSeconds": 8}
    settings = config(data).settings
    read = [settings.model, settings.system_prompt_extension]
    read += [settings.command_timeout_seconds, settings.command_max_timeout_seconds]
    assert read == [data[key] for key in TOP_LEVEL]


def test_unset_settings_are_the_registrys_defaults() -> None:
    settings = config({}).settings
    assert settings.ollama.base_url == SETTINGS["ollama.baseURL"].default
    assert settings.command_policy.sandbox.writable_roots == (
        SETTINGS["commandPolicy.sandbox.writableRoots"].default
    )
    assert settings.command_policy.deny is None
    assert settings.approval.threshold == "moderate"
    assert settings.model == "local"
    assert settings.local.threads is None


def test_stored_settings_are_read_by_their_names_in_the_file() -> None:
    settings = config(
        {
            "ollama": {"baseURL": "http://gpu:11434", "think": "high"},
            "commandPolicy": {"sandbox": {"network": "off"}},
            "tools": {"editFile": {"writableRoots": ["/srv"]}},
            "commandMaxTimeoutSeconds": 30,
        }
    ).settings
    assert settings.ollama.base_url == "http://gpu:11434"
    assert settings.ollama.think == "high"
    assert settings.command_policy.sandbox.network == "off"
    assert settings.tools.edit_file.writable_roots == ["/srv"]
    assert settings.command_max_timeout_seconds == 30


def test_a_bad_value_is_an_error_naming_file_and_key_when_its_section_is_read() -> None:
    settings = config({"ollama": {"timeoutSeconds": 0}, "audit": {"keepFiles": 3}}).settings
    assert settings.audit.keep_files == 3  # another section is not held back by it
    with pytest.raises(ConfigValueError, match=r"config\.json: ollama\.timeoutSeconds: expected"):
        _ = settings.ollama


def test_the_days_a_folder_s_cache_is_kept_unused_are_a_setting() -> None:
    assert config({}).settings.context.output_days == 30
    assert config({"context": {"outputDays": 7}}).settings.context.output_days == 7
    for bad in (0, 3651, "30"):
        with pytest.raises(ConfigValueError, match=r"context\.outputDays: expected"):
            _ = config({"context": {"outputDays": bad}}).settings.context


def test_sections_are_frozen_and_built_once() -> None:
    loaded = config({})
    assert loaded.settings is loaded.settings
    assert loaded.settings.audit is loaded.settings.audit
    with pytest.raises(AttributeError):
        loaded.settings.audit.enabled = False  # type: ignore[misc]


def test_set_and_unset_rebuild_the_view(tmp_path: Path) -> None:
    loaded = load_config(tmp_path / "config.json")
    assert loaded.settings.audit.enabled is True
    set_value(loaded, "audit.enabled", False)
    assert loaded.settings.audit.enabled is False
    save_config(loaded)
    assert load_config(loaded.path).settings.audit.enabled is False
    unset_value(loaded, "audit.enabled")
    assert loaded.settings.audit.enabled is True


def test_an_api_key_never_shows_itself() -> None:
    settings = config({"openai": {"apiKey": "sk-very-secret"}}).settings
    key = settings.openai.api_key
    assert key is not None and key.reveal() == "sk-very-secret"
    for shown in (repr(settings.openai), str(settings.openai), f"{key}"):
        assert "sk-very-secret" not in shown
    assert config({}).settings.llamacpp.api_key is None


def test_a_bad_api_key_is_reported_redacted() -> None:
    with pytest.raises(ConfigValueError) as caught:
        _ = config({"openai": {"apiKey": ["sk-very-secret"]}}).settings.openai
    assert "sk-very-secret" not in str(caught.value)
    assert "[redacted]" in str(caught.value)


def test_model_entries_are_found_by_a_name_that_holds_dots() -> None:
    entry = {"contextLength": 4096, "think": True}
    data = {"local": {"models": {"SmolLM2.Q4_1": entry, "odd": 3}}}
    models = config(data).settings.local.models
    assert models.entry("SmolLM2.Q4_1").stored == entry
    assert models.entry("odd") == ModelEntry() and models.entry("none") == ModelEntry()
    data["local"]["models"]["SmolLM2.Q4_1"]["think"] = False  # the view is a copy
    assert models.entry("SmolLM2.Q4_1").think is True
    assert models.entry("SmolLM2.Q4_1").context_length == 4096


def test_the_sections_encode_as_the_file_spells_them() -> None:
    section = config({"approval": {"persistDays": 7}}).settings.approval
    assert msgspec.to_builtins(section) == {
        "threshold": "moderate",
        "timeoutSeconds": 600,
        "persistDays": 7,
        "outOfBand": True,
        "elicitation": True,
        "bannerDelaySeconds": 0,
    }


def network(sandbox: dict[str, Any]) -> tuple[str, str | None]:
    found = config({"commandPolicy": {"sandbox": sandbox}}).settings.command_policy.sandbox
    in_force = found.network_in_force()
    return in_force.mode, in_force.note


def test_the_network_is_asked_about_by_default() -> None:
    assert network({}) == ("ask", None)


@pytest.mark.parametrize(("old", "mode"), [(False, "off"), (True, "on")])
def test_allow_network_is_read_for_one_release_with_a_note(old: bool, mode: str) -> None:
    found, note = network({"allowNetwork": old})
    assert found == mode
    assert note is not None
    assert f"read as commandPolicy.sandbox.network {mode}" in note
    assert "wisp config unset commandPolicy.sandbox.allowNetwork" in note


def test_network_set_wins_over_allow_network_and_says_so() -> None:
    found, note = network({"network": "off", "allowNetwork": True})
    assert found == "off"
    assert note is not None and "allowNetwork is ignored" in note


def test_a_network_that_is_neither_off_ask_nor_on_is_refused() -> None:
    with pytest.raises(ConfigValueError, match="off, ask or on"):
        network({"network": "yes"})
