"""wisp.config: config.json read, changed by dotted path, checked, and written back atomically."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.hang import HANG
from wisp.config import (
    MISSING,
    SETTINGS,
    Config,
    load_config,
    locked_config,
    near_key,
    problem_with,
    save_config,
    set_value,
    unknown_keys_in,
    unset_value,
)
from wisp.errors import ConfigError, ConfigValueError, UsageError


def write_config(tmp_path: Path, raw: bytes) -> Path:
    path = tmp_path / "config.json"
    path.write_bytes(raw)
    return path


def config_of(tmp_path: Path, data: dict[str, Any]) -> Config:
    return Config(tmp_path / "config.json", data)


def error_of(call: Callable[[], object], kind: type[Exception] = ConfigError) -> str:
    """The message of the ``kind`` error that ``call`` raises."""
    with pytest.raises(kind) as caught:
        call()
    return str(caught.value)


def temporary_files(folder: Path) -> list[str]:
    return [name for name in os.listdir(folder) if name.endswith(".tmp")]


# -- load, get and value ----------------------------------------------------------------


def test_missing_file_is_an_empty_config(tmp_path: Path) -> None:
    assert load_config(tmp_path / "config.json").data == {}


def test_blank_file_is_an_empty_config(tmp_path: Path) -> None:
    assert load_config(write_config(tmp_path, b" \n\n")).data == {}


def test_nested_objects_are_read_by_dotted_path(tmp_path: Path) -> None:
    config = load_config(write_config(tmp_path, b'{"audit": {"keepFiles": 3}}'))
    assert config.get("audit.keepFiles") == 3


def test_an_object_is_read_whole_by_its_own_path(tmp_path: Path) -> None:
    config = load_config(write_config(tmp_path, b'{"audit": {"keepFiles": 3}}'))
    assert config.get("audit") == {"keepFiles": 3}


def test_get_of_a_key_not_in_the_file_is_missing(tmp_path: Path) -> None:
    assert config_of(tmp_path, {"audit": {"keepFiles": 3}}).get("audit.enabled") is MISSING


def test_get_through_a_non_object_is_missing(tmp_path: Path) -> None:
    assert config_of(tmp_path, {"audit": 5}).get("audit.keepFiles") is MISSING


def test_value_of_an_unset_known_key_is_its_default(tmp_path: Path) -> None:
    assert config_of(tmp_path, {}).value("audit.keepFiles") == SETTINGS["audit.keepFiles"].default


def test_value_of_a_stored_key_is_the_stored_one(tmp_path: Path) -> None:
    assert config_of(tmp_path, {"audit": {"keepFiles": 3}}).value("audit.keepFiles") == 3


def test_seed_audit_keys_are_known_settings() -> None:
    assert {"audit.enabled", "audit.maxFileBytes", "audit.keepFiles"} <= SETTINGS.keys()


@pytest.mark.parametrize("key", ["", "audit..keepFiles", ".audit", "audit.", 'local."a'])
def test_a_malformed_path_is_a_usage_error_naming_it(tmp_path: Path, key: str) -> None:
    message = error_of(lambda: config_of(tmp_path, {}).get(key), UsageError)
    assert message.startswith(f"{key!r} is not a setting's path: ")


def test_a_top_level_non_object_is_an_error_naming_the_file(tmp_path: Path) -> None:
    path = write_config(tmp_path, b"[1, 2]")
    assert error_of(lambda: load_config(path)).startswith(f"{path}: expected a JSON object")


def test_unknown_keys_are_kept_when_read(tmp_path: Path) -> None:
    path = write_config(tmp_path, b'{"audit": {"keepFiles": 3, "colour": "red"}, "plugin": [1]}')
    assert load_config(path).data == {"audit": {"keepFiles": 3, "colour": "red"}, "plugin": [1]}


def test_unknown_keys_are_listed_by_dotted_path(tmp_path: Path) -> None:
    config = config_of(tmp_path, {"audit": {"keepFiles": 3, "colour": "red"}, "plugin": [1]})
    assert config.unknown_keys() == ["audit.colour", "plugin"]


def test_a_deeply_nested_file_is_an_error_naming_the_file(tmp_path: Path) -> None:
    path = write_config(tmp_path, b'{"a":' * 5000 + b"1" + b"}" * 5000)
    assert error_of(lambda: load_config(path)) == (
        f"{path}: objects nested too deeply to read; fix or remove the file, it was left as it is"
    )


# -- model entries: names with dots ------------------------------------------------------

MODEL = "SmolLM2-135M-Instruct.Q4_1"
ENTRY = {
    "capabilities": ["guidedGeneration"],
    "verified": {"date": "2026-12-01", "passed": ["guidedGeneration"], "failed": ["toolCalling"]},
    "contextLength": 4096,
    "think": False,
}


def test_a_quoted_name_reads_a_model_entry(tmp_path: Path) -> None:
    config = config_of(tmp_path, {"local": {"models": {MODEL: ENTRY}}})
    assert config.get(f'local.models."{MODEL}".contextLength') == 4096


def test_set_of_a_quoted_name_stores_the_name_whole(tmp_path: Path) -> None:
    config = config_of(tmp_path, {})
    set_value(config, f'local.models."{MODEL}".capabilities', ["toolCalling"])
    assert config.data == {"local": {"models": {MODEL: {"capabilities": ["toolCalling"]}}}}


@pytest.mark.parametrize("scheme", ["local", "ollama", "llamacpp", "openai"])
def test_the_fields_of_a_model_entry_are_known_keys(tmp_path: Path, scheme: str) -> None:
    config = config_of(tmp_path, {scheme: {"models": {MODEL: ENTRY}}})
    assert config.unknown_keys() == []


def test_model_keys_are_listed_with_the_name_quoted(tmp_path: Path) -> None:
    config = config_of(tmp_path, {"local": {"models": {MODEL: {"verified": {"date": "x"}}}}})
    assert list(config.leaves()) == [(f'local.models."{MODEL}".verified.date', "x")]


def test_an_unknown_field_of_a_model_entry_is_named_with_the_name_quoted(tmp_path: Path) -> None:
    config = config_of(tmp_path, {"local": {"models": {MODEL: {"colour": "red"}}}})
    assert config.unknown_keys() == [f'local.models."{MODEL}".colour']


def test_lm_studio_has_no_model_entries(tmp_path: Path) -> None:
    config = config_of(tmp_path, {"lmstudio": {"models": {"m": {"capabilities": []}}}})
    assert config.unknown_keys() == ["lmstudio.models.m.capabilities"]


def test_a_bad_model_field_is_refused_naming_its_quoted_path(tmp_path: Path) -> None:
    config = config_of(tmp_path, {})
    message = error_of(
        lambda: set_value(config, f'local.models."{MODEL}".contextLength', 5), ConfigValueError
    )
    assert message == (
        f'local.models."{MODEL}".contextLength: expected an integer from 512 to 4194304 '
        "(tokens), got 5"
    )


def test_a_model_entry_set_whole_has_its_fields_checked(tmp_path: Path) -> None:
    config = config_of(tmp_path, {})
    message = error_of(
        lambda: set_value(config, f'ollama.models."{MODEL}"', {"think": "hard"}), ConfigValueError
    )
    assert message == (
        f'ollama.models."{MODEL}".think: expected true, false, low, medium, high or max, got "hard"'
    )


@pytest.mark.parametrize("key", ["audit", "local.models", f'local.models."{MODEL}"'])
def test_a_non_object_where_settings_nest_is_refused(tmp_path: Path, key: str) -> None:
    config = config_of(tmp_path, {})
    message = error_of(lambda: set_value(config, key, 3), ConfigValueError)
    assert message == f"{key}: expected an object (settings nest in it), got 3"


# -- what is wrong with a stored value ------------------------------------------------------


def test_a_valid_stored_value_has_no_problem() -> None:
    assert problem_with("audit.keepFiles", 3) is None


def test_an_unknown_key_has_no_problem() -> None:
    assert problem_with("plugin.colour", "anything") is None


def test_a_stored_value_of_the_wrong_type_has_its_reason() -> None:
    assert problem_with("audit.keepFiles", "x") == "expected an integer from 0 to 100000"


def test_a_stored_model_field_of_the_wrong_type_has_its_reason() -> None:
    assert problem_with(f'local.models."{MODEL}".capabilities', "toolCalling") == (
        "expected a list of capability names"
    )


def test_a_stored_non_object_where_settings_nest_has_its_reason() -> None:
    assert problem_with("audit", 5) == "expected an object (settings nest in it)"


# -- did you mean ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("audit.keepfiles", "audit.keepFiles"),
        ("AUDIT.KEEPFILES", "audit.keepFiles"),
        ("audit.kepeFiles", "audit.keepFiles"),
        ("audit.keepFile", "audit.keepFiles"),
        ("audit.keepFilesx", "audit.keepFiles"),
        ("audit.keepFilex", "audit.keepFiles"),
        (f"local.models.{MODEL}.capabilities", f'local.models."{MODEL}".capabilities'),
        (f"local.models.{MODEL}.verified.date", f'local.models."{MODEL}".verified.date'),
        (f'local.models."{MODEL}".Capabilities', f'local.models."{MODEL}".capabilities'),
        ("ollama.models.qwen3:latest.contextlength", "ollama.models.qwen3:latest.contextLength"),
    ],
)
def test_a_key_within_one_edit_of_a_known_one_has_it_suggested(typed: str, meant: str) -> None:
    assert near_key(typed) == meant


@pytest.mark.parametrize("typed", ["plugin.colour", "audit.kepFile", "audit.keepFiles"])
def test_a_key_far_from_every_other_known_one_has_no_suggestion(typed: str) -> None:
    assert near_key(typed) is None


# -- malformed JSON -------------------------------------------------------------------

MALFORMED = {
    "first line": (b'{"a": ]}', "1:7"),
    "a later line": (b'{\n  "a": 1,\n  "b": ]\n}', "3:8"),
    "after two-byte characters": ('{"été": x}'.encode(), "1:9"),
    "after CJK on a later line": ('{\n  "naïve": 1,\n  "日本": ?\n}'.encode(), "3:9"),
    "after an emoji": ('{"🙂": !}'.encode(), "1:7"),
    "a trailing comma": (b'{\n  "a": 1,\n}', "3:1"),
    "an unfinished file": (b'{\n  "a": 1\n', "2:9"),
    "invalid UTF-8": (b'{\n  "a": "\xff"\n}', "2:9"),
}


@pytest.mark.parametrize(("raw", "position"), MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_json_names_the_file_line_and_column(
    tmp_path: Path, raw: bytes, position: str
) -> None:
    path = write_config(tmp_path, raw)
    assert error_of(lambda: load_config(path)).startswith(f"{path}:{position}: not valid JSON")


def test_malformed_json_error_is_one_line(tmp_path: Path) -> None:
    path = write_config(tmp_path, b'{\n  "a": 1,\n  "b": ]\n}')
    assert "\n" not in error_of(lambda: load_config(path))


# -- set ------------------------------------------------------------------------------


def test_set_creates_the_nested_objects_of_a_dotted_path(tmp_path: Path) -> None:
    config = config_of(tmp_path, {})
    set_value(config, "audit.keepFiles", 3)
    assert config.data == {"audit": {"keepFiles": 3}}


def test_set_keeps_the_keys_beside_it(tmp_path: Path) -> None:
    config = config_of(tmp_path, {"audit": {"enabled": False}, "model": "local"})
    set_value(config, "audit.keepFiles", 3)
    assert config.data == {"audit": {"enabled": False, "keepFiles": 3}, "model": "local"}


def test_set_reports_the_old_and_new_values(tmp_path: Path) -> None:
    change = set_value(config_of(tmp_path, {"audit": {"keepFiles": 3}}), "audit.keepFiles", 7)
    assert (change.key, change.old, change.new, change.changed) == ("audit.keepFiles", 3, 7, True)


def test_set_of_a_key_not_yet_set_reports_old_missing(tmp_path: Path) -> None:
    change = set_value(config_of(tmp_path, {}), "audit.keepFiles", 3)
    assert change.old is MISSING


def test_set_of_the_stored_value_is_unchanged(tmp_path: Path) -> None:
    change = set_value(config_of(tmp_path, {"plugin": {"list": [1, 2]}}), "plugin.list", [1, 2])
    assert not change.changed


def test_one_and_true_are_different_values(tmp_path: Path) -> None:
    change = set_value(config_of(tmp_path, {"plugin": 1}), "plugin", True)
    assert change.changed


def test_set_of_a_whole_object_replaces_it(tmp_path: Path) -> None:
    config = config_of(tmp_path, {"audit": {"keepFiles": 3}})
    set_value(config, "audit", {"enabled": False})
    assert config.data == {"audit": {"enabled": False}}


def test_set_through_a_non_object_is_an_error_naming_it(tmp_path: Path) -> None:
    config = config_of(tmp_path, {"audit": 5})
    assert error_of(lambda: set_value(config, "audit.keepFiles", 3)) == (
        f"{config.path}: audit is 5, not an object, so it cannot hold audit.keepFiles; "
        "unset audit first"
    )


def test_set_through_a_non_object_leaves_the_config_as_it_was(tmp_path: Path) -> None:
    config = config_of(tmp_path, {"audit": 5})
    with pytest.raises(ConfigError):
        set_value(config, "audit.keepFiles", 3)
    assert config.data == {"audit": 5}


def test_set_beneath_a_known_setting_is_an_error_naming_it(tmp_path: Path) -> None:
    config = config_of(tmp_path, {})
    assert error_of(lambda: set_value(config, "audit.keepFiles.x", 1), ConfigValueError) == (
        "audit.keepFiles.x: audit.keepFiles is a setting (an integer from 0 to 100000), "
        "not an object"
    )


def test_set_beneath_a_known_setting_leaves_the_config_as_it_was(tmp_path: Path) -> None:
    config = config_of(tmp_path, {})
    with pytest.raises(ConfigValueError):
        set_value(config, "audit.keepFiles.x", 1)
    assert config.data == {}


def test_unknown_key_is_stored_as_given(tmp_path: Path) -> None:
    config = config_of(tmp_path, {})
    set_value(config, "plugin.colour", {"fg": "red"})
    assert config.data == {"plugin": {"colour": {"fg": "red"}}}


def test_unknown_keys_in_a_value_are_its_unknown_leaves() -> None:
    value = {"keepFiles": 3, "colour": {"fg": "red"}}
    assert unknown_keys_in("audit", value) == ["audit.colour.fg"]


def test_a_known_key_has_no_unknown_keys_in_it() -> None:
    assert unknown_keys_in("models.disabled", ["ollama:x"]) == []


# -- known keys' types and ranges -----------------------------------------------------


def rejection(key: str, value: Any) -> str:
    """The error setting ``value`` at ``key`` in an empty config raises."""
    config = Config(Path("config.json"), {})
    return error_of(lambda: set_value(config, key, value), ConfigValueError)


def test_bool_is_not_an_integer_setting() -> None:
    assert rejection("audit.keepFiles", True) == (
        "audit.keepFiles: expected an integer from 0 to 100000, got true"
    )


def test_one_is_not_true_for_a_bool_setting() -> None:
    assert rejection("audit.enabled", 1) == "audit.enabled: expected true or false, got 1"


def test_a_numeric_string_is_not_an_integer_setting() -> None:
    assert rejection("audit.keepFiles", "3") == (
        'audit.keepFiles: expected an integer from 0 to 100000, got "3"'
    )


def test_a_whole_float_is_not_an_integer_setting() -> None:
    assert rejection("audit.maxFileBytes", 4096.0) == (
        "audit.maxFileBytes: expected an integer from 1024 to 1099511627776 (bytes), got 4096.0"
    )


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("audit.keepFiles", -1, "an integer from 0 to 100000, got -1"),
        ("audit.keepFiles", 100_001, "an integer from 0 to 100000, got 100001"),
        ("audit.maxFileBytes", 1023, "an integer from 1024 to 1099511627776 (bytes), got 1023"),
        (
            "audit.maxFileBytes",
            (1 << 40) + 1,
            "an integer from 1024 to 1099511627776 (bytes), got 1099511627777",
        ),
    ],
)
def test_a_value_out_of_range_is_an_error_naming_the_key_and_range(
    key: str, value: int, expected: str
) -> None:
    assert rejection(key, value) == f"{key}: expected {expected}"


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("audit.keepFiles", 0),
        ("audit.keepFiles", 100_000),
        ("audit.maxFileBytes", 1024),
        ("audit.maxFileBytes", 1 << 40),
    ],
)
def test_the_ends_of_a_range_are_accepted(tmp_path: Path, key: str, value: int) -> None:
    config = config_of(tmp_path, {})
    set_value(config, key, value)
    assert config.get(key) == value


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("model", "", 'a model selection such as local, ollama:NAME or openai:NAME, got ""'),
        ("models.disabled", "ollama:x", 'a list of model selections, got "ollama:x"'),
        ("models.disabled", [1], "a list of model selections, got [1]"),
        ("ollama.baseURL", "gpu-box:11434", 'an http:// or https:// URL, got "gpu-box:11434"'),
    ],
)
def test_a_value_of_the_wrong_shape_is_an_error_naming_the_key(
    key: str, value: Any, expected: str
) -> None:
    assert rejection(key, value) == f"{key}: expected {expected}"


def test_a_rejected_value_leaves_the_config_as_it_was(tmp_path: Path) -> None:
    config = config_of(tmp_path, {"audit": {"keepFiles": 3}})
    with pytest.raises(ConfigValueError):
        set_value(config, "audit.keepFiles", -1)
    assert config.data == {"audit": {"keepFiles": 3}}


def test_an_object_set_whole_has_its_known_keys_checked() -> None:
    assert rejection("audit", {"keepFiles": True}) == (
        "audit.keepFiles: expected an integer from 0 to 100000, got true"
    )


def test_a_bad_stored_value_is_an_error_naming_the_file_and_key(tmp_path: Path) -> None:
    config = load_config(write_config(tmp_path, b'{"audit": {"enabled": "yes"}}'))
    message = error_of(lambda: config.checked_value("audit.enabled"), ConfigValueError)
    assert message == f'{config.path}: audit.enabled: expected true or false, got "yes"'


# -- unset ----------------------------------------------------------------------------


def test_unset_removes_the_key_and_reports_its_old_value(tmp_path: Path) -> None:
    config = config_of(tmp_path, {"audit": {"keepFiles": 3, "enabled": False}})
    change = unset_value(config, "audit.keepFiles")
    assert (change.old, change.new, config.data) == (3, MISSING, {"audit": {"enabled": False}})


def test_unset_removes_the_objects_it_leaves_empty(tmp_path: Path) -> None:
    config = config_of(tmp_path, {"a": {"b": {"c": 1}}, "model": "local"})
    unset_value(config, "a.b.c")
    assert config.data == {"model": "local"}


def test_unset_keeps_parents_that_still_hold_keys(tmp_path: Path) -> None:
    config = config_of(tmp_path, {"a": {"b": {"c": 1}, "d": 2}})
    unset_value(config, "a.b.c")
    assert config.data == {"a": {"d": 2}}


def test_unset_of_a_key_not_set_changes_nothing(tmp_path: Path) -> None:
    config = config_of(tmp_path, {"audit": {"enabled": False}})
    change = unset_value(config, "audit.keepFiles")
    assert (change.changed, config.data) == (False, {"audit": {"enabled": False}})


def test_unset_through_a_non_object_changes_nothing(tmp_path: Path) -> None:
    config = config_of(tmp_path, {"audit": 5})
    change = unset_value(config, "audit.keepFiles")
    assert (change.changed, config.data) == (False, {"audit": 5})


# -- save -----------------------------------------------------------------------------


def test_a_saved_config_reads_back_the_same(tmp_path: Path) -> None:
    data = {"audit": {"keepFiles": 3}, "plugin": {"names": ["é", "日本"], "on": None}}
    save_config(config_of(tmp_path, data))
    assert load_config(tmp_path / "config.json").data == data


def test_a_saved_file_is_0600_whatever_the_umask(tmp_path: Path) -> None:
    previous = os.umask(0)
    try:
        save_config(config_of(tmp_path, {"model": "local"}))
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "config.json").stat().st_mode) == 0o600


def test_save_makes_a_missing_folder_0700(tmp_path: Path) -> None:
    home = tmp_path / "home"
    previous = os.umask(0)
    try:
        save_config(Config(home / "config.json", {"model": "local"}))
    finally:
        os.umask(previous)
    assert stat.S_IMODE(home.stat().st_mode) == 0o700


def test_save_leaves_no_temporary_file(tmp_path: Path) -> None:
    save_config(config_of(tmp_path, {"model": "local"}))
    assert sorted(os.listdir(tmp_path)) == ["config.json"]


def test_save_renames_a_new_file_over_the_old_one(tmp_path: Path) -> None:
    path = write_config(tmp_path, b'{"model": "old"}')
    with path.open("rb") as old:
        save_config(config_of(tmp_path, {"model": "new"}))
        # A reader that opened the old file still sees all of it: nothing was rewritten in place.
        assert old.read() == b'{"model": "old"}'
    assert load_config(path).data == {"model": "new"}


# The write fails for real: the kernel refuses to let a file grow past RLIMIT_FSIZE (EFBIG;
# Python ignores SIGXFSZ). It runs in a child so the limit does not touch the test process.
FAILING_SAVE = """
import resource, sys
from pathlib import Path
from wisp.config import load_config, save_config, set_value

config = load_config(Path(sys.argv[1]))
set_value(config, "padding", "x" * 65536)
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
try:
    save_config(config)
except Exception as exc:
    print(f"{type(exc).__name__}: {exc}")
"""


def save_too_big(path: Path) -> str:
    result = subprocess.run(
        [sys.executable, "-c", FAILING_SAVE, str(path)],
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_a_write_that_fails_leaves_the_old_file_intact(tmp_path: Path) -> None:
    path = write_config(tmp_path, b'{\n  "model": "local"\n}\n')
    save_too_big(path)
    assert path.read_bytes() == b'{\n  "model": "local"\n}\n'


def test_a_write_that_fails_leaves_no_temporary_file(tmp_path: Path) -> None:
    save_too_big(write_config(tmp_path, b'{"model": "local"}'))
    assert temporary_files(tmp_path) == []


def test_a_write_that_fails_is_an_error_naming_the_file(tmp_path: Path) -> None:
    path = write_config(tmp_path, b'{"model": "local"}')
    assert save_too_big(path) == (
        f"ConfigError: {path}: cannot write: File too large; the file was left as it was"
    )


def open_locked(path: Path) -> None:
    with locked_config(path):
        pass


def test_a_home_that_cannot_be_made_is_an_error_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    path = tmp_path / "a-file" / "home" / "config.json"
    assert error_of(lambda: open_locked(path)) == (
        f"{path}: cannot write: Not a directory; the file was left as it was"
    )


# -- the lock -------------------------------------------------------------------------

# Each worker waits for a line on stdin, so all of them start their read-modify-writes together.
LOCKED_WORKER = """
import sys
from pathlib import Path
from wisp.config import locked_config, save_config, set_value

path, worker = Path(sys.argv[1]), sys.argv[2]
sys.stdin.readline()
for index in range(25):
    with locked_config(path) as config:
        set_value(config, f"workers.w{worker}.k{index}", index)
        save_config(config)
"""


def test_the_lock_serialises_concurrent_read_modify_writes(tmp_path: Path) -> None:
    path = tmp_path / "home" / "config.json"
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", LOCKED_WORKER, str(path), str(worker)],
            stdin=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for worker in range(4)
    ]
    for worker in workers:
        assert worker.stdin is not None
        worker.stdin.write("go\n")
        worker.stdin.flush()
    errors = [worker.communicate(timeout=HANG)[1] for worker in workers]
    assert [worker.returncode for worker in workers] == [0, 0, 0, 0], errors
    stored = dict(load_config(path).leaves())
    expected = {f"workers.w{w}.k{i}": i for w in range(4) for i in range(25)}
    assert stored == expected
