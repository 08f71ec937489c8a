"""wisp.config.model_entry: a model's entry, ``<scheme>.models."NAME"``, typed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from wisp.config import Config, load_config, save_config, store_model_entry
from wisp.config.model_entry import Hub, Malformed, ModelEntries, ModelEntry, Verified
from wisp.errors import ConfigError, ConfigValueError


def config(data: dict[str, Any], path: Path = Path("/home/me/.wisp/config.json")) -> Config:
    return Config(path, data)


def test_each_field_is_read_by_its_name_in_the_file() -> None:
    stored = {
        "capabilities": ["toolCalling"],
        "verified": {"date": "2026-10-04", "passed": ["toolCalling"], "failed": ["reasoning"]},
        "contextLength": 8192,
        "think": False,
        "sha256": "ab" * 32,
        "sha256Path": "/models/m.gguf",
        "sha256Stamp": [1, 2, 3, 4, 5],
        "file": "/cache/m.gguf",
        "hub": {"repository": "acme/m", "file": "m.gguf", "revision": "c0ffee"},
    }
    entry = ModelEntry.read("local", stored)
    assert entry == ModelEntry(
        stored=stored,
        capabilities=["toolCalling"],
        verified=Verified("2026-10-04", ["toolCalling"], ["reasoning"]),
        context_length=8192,
        think=False,
        sha256="ab" * 32,
        sha256_path="/models/m.gguf",
        sha256_stamp=[1, 2, 3, 4, 5],
        file="/cache/m.gguf",
        hub=Hub("acme/m", "m.gguf", "c0ffee"),
    )
    assert entry.failed_checks() == {"reasoning"}


def test_a_field_stored_otherwise_is_kept_malformed_and_the_rest_read() -> None:
    stored = {"contextLength": 100, "think": "yes", "capabilities": None, "verified": 3}
    entry = ModelEntry.read("llamacpp", stored)
    assert entry.context_length == Malformed(100)
    assert entry.think == Malformed("yes")
    assert entry.capabilities == Malformed(None)  # set, though to nothing
    assert entry.verified == Malformed(3)
    assert entry.failed_checks() == set()


def test_each_runtime_reads_its_own_fields() -> None:
    assert ModelEntry.read("ollama", {"think": "high"}).think == "high"
    assert ModelEntry.read("local", {"think": "high"}).think == Malformed("high")
    # A checksum is local's: elsewhere it is an unknown key, kept but not read.
    assert ModelEntry.read("ollama", {"sha256": "ab"}).sha256 is None
    assert ModelEntry.read("ollama", {"sha256": "ab"}).stored == {"sha256": "ab"}


def test_an_entry_that_is_not_an_object_is_empty() -> None:
    assert ModelEntry.read("local", 3) == ModelEntry()
    assert ModelEntry.read("local", None).stored == {}


def test_a_change_keeps_every_other_key_in_its_place() -> None:
    stored = {"x-note": "mine", "capabilities": ["vision"], "contextLength": 4096}
    entry = ModelEntry.read("llamacpp", stored)
    changed = entry.with_fields(
        capabilities=["toolCalling"], verified=Verified("2026-10-04", ["toolCalling"], [])
    )
    assert list(changed.stored.items()) == [
        ("x-note", "mine"),
        ("capabilities", ["toolCalling"]),
        ("contextLength", 4096),
        ("verified", {"date": "2026-10-04", "passed": ["toolCalling"], "failed": []}),
    ]
    assert changed.capabilities == ["toolCalling"]
    assert entry.stored == stored  # the entry read is left as it was


def test_entries_are_found_by_names_that_hold_dots_and_listed_in_file_order() -> None:
    data = {"local": {"models": {"b.Q4": {"file": "/b.gguf"}, "odd": 3, "a": {}}}}
    models = config(data).model_entries("local")
    assert models.entry("b.Q4").file == "/b.gguf"
    assert [name for name, _ in models.items()] == ["b.Q4", "a"]
    assert config({"local": 3}).model_entries("local") == ModelEntries(
        Path("/home/me/.wisp/config.json"), "local", None
    )


def test_an_entry_is_read_and_stored_whatever_else_the_section_holds(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    data = {"local": {"temperature": "hot", "models": {"m.Q4": {"x": 1}}}}
    path.write_text(json.dumps(data))
    stored = load_config(path)
    with pytest.raises(ConfigValueError):
        _ = stored.settings.local  # the section is checked as a whole
    entry = stored.model_entries("local").entry("m.Q4").with_fields(file="/m.gguf")
    store_model_entry(stored, "local", "m.Q4", entry)
    save_config(stored)
    assert json.loads(path.read_text())["local"]["models"] == {"m.Q4": {"x": 1, "file": "/m.gguf"}}


def test_an_entry_is_not_stored_where_no_object_can_hold_it() -> None:
    stored = config({"local": {"models": []}})
    with pytest.raises(ConfigError, match=r"local.models cannot hold m: models is not an object"):
        store_model_entry(stored, "local", "m", ModelEntry())


def test_the_model_choices_are_read_as_stored_passing_over_what_is_malformed() -> None:
    choices = config({"model": 3, "models": {"disabled": ["ollama:a", 4]}}).model_choices()
    assert (choices.model, choices.disabled, choices.trusted_publishers) == (
        None,
        ["ollama:a"],
        None,
    )
    choices = config({"models": {"disabled": "x", "trustedPublishers": ["acme"]}}).model_choices()
    assert (choices.disabled, choices.trusted_publishers) == ([], ["acme"])


def test_audit_enabled_is_read_alone() -> None:
    assert config({"audit": {"enabled": False, "keepFiles": -1}}).audit_enabled() is False
    with pytest.raises(ConfigValueError):
        config({"audit": {"enabled": "no"}}).audit_enabled()
