"""`wisp config`, through the real console script with a fresh WISP_HOME."""

from __future__ import annotations

import json
import re
import shlex
import stat
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec
import pytest

from tests.hang import HANG
from wisp import __version__
from wisp.config import SETTINGS

AuditLines = Callable[[], list[dict[str, Any]]]

HEX16 = re.compile(r"^[0-9a-f]{16}$")
ISO_UTC_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
ENVELOPE = ["schema", "id", "time", "version", "pid", "session", "turn", "call", "kind", "details"]
MALFORMED = b'{\n  "model": "local",\n  "audit": ]\n}\n'


def stored(home: Path) -> Any:
    return msgspec.json.decode((home / "config.json").read_bytes())


def write_config(home: Path, raw: bytes) -> Path:
    home.mkdir(mode=0o700, exist_ok=True)
    path = home / "config.json"
    path.write_bytes(raw)
    return path


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# -- set ------------------------------------------------------------------------------


def test_set_writes_nested_objects_to_config_json(wisp_cli, wisp_home: Path) -> None:
    result = wisp_cli("config", "set", "audit.keepFiles", "3")
    assert (result.returncode, result.stdout, result.stderr) == (0, "audit.keepFiles = 3\n", "")
    assert stored(wisp_home) == {"audit": {"keepFiles": 3}}


def test_set_keeps_the_other_keys_in_the_file(wisp_cli, wisp_home: Path) -> None:
    write_config(wisp_home, b'{"audit": {"enabled": true}, "plugin": {"colour": "red"}}')
    wisp_cli("config", "set", "audit.keepFiles", "3")
    assert stored(wisp_home) == {
        "audit": {"enabled": True, "keepFiles": 3},
        "plugin": {"colour": "red"},
    }


def test_set_records_exactly_one_config_change(wisp_cli, audit_lines: AuditLines) -> None:
    wisp_cli("config", "set", "audit.keepFiles", "3")
    assert [line["kind"] for line in audit_lines()] == ["config.change"]


def test_config_change_has_every_envelope_field_in_order(wisp_cli, audit_lines) -> None:
    wisp_cli("config", "set", "audit.keepFiles", "3")
    [line] = audit_lines()
    assert list(line) == ENVELOPE


def test_config_change_envelope_values(wisp_cli, audit_lines: AuditLines) -> None:
    wisp_cli("config", "set", "audit.keepFiles", "3")
    [line] = audit_lines()
    assert line["schema"] == 1
    assert HEX16.match(line["id"]) and HEX16.match(line["session"])
    assert (line["version"], line["turn"], line["call"]) == (__version__, None, None)
    assert isinstance(line["pid"], int) and line["pid"] > 0


def test_config_change_time_is_iso_8601_utc_with_milliseconds(wisp_cli, audit_lines) -> None:
    before = datetime.now(UTC) - timedelta(milliseconds=1)
    wisp_cli("config", "set", "audit.keepFiles", "3")
    after = datetime.now(UTC)
    [line] = audit_lines()
    assert ISO_UTC_MS.match(line["time"]), line["time"]
    assert before <= datetime.fromisoformat(line["time"]) <= after


def test_config_change_details_of_a_new_key(wisp_cli, audit_lines: AuditLines) -> None:
    wisp_cli("config", "set", "audit.keepFiles", "3")
    [line] = audit_lines()
    assert line["details"] == {
        "path": "audit.keepFiles",
        "old": None,
        "new": 3,
        "source": "cli",
        "approval": None,
    }


def test_config_change_details_of_a_changed_key(wisp_cli, audit_lines: AuditLines) -> None:
    wisp_cli("config", "set", "audit.keepFiles", "3")
    result = wisp_cli("config", "set", "audit.keepFiles", "7")
    assert result.stdout == "audit.keepFiles = 7 (was 3)\n"
    assert [(line["details"]["old"], line["details"]["new"]) for line in audit_lines()] == [
        (None, 3),
        (3, 7),
    ]


@pytest.mark.parametrize(
    ("relative", "expected"),
    [
        (".", 0o700),
        ("logs", 0o700),
        ("config.json", 0o600),
        ("logs/audit.jsonl", 0o600),
        (".config.lock", 0o600),
        ("logs/audit.lock", 0o600),
    ],
)
def test_modes_are_private_under_umask_000(
    wisp_cli, wisp_home: Path, relative: str, expected: int
) -> None:
    result = wisp_cli("config", "set", "audit.keepFiles", "3", setup="umask 000")
    assert result.returncode == 0, result.stderr
    assert oct(mode(wisp_home / relative)) == oct(expected)


def test_set_that_changes_nothing_says_unchanged(wisp_cli) -> None:
    wisp_cli("config", "set", "audit.keepFiles", "3")
    result = wisp_cli("config", "set", "audit.keepFiles", "3")
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        "unchanged: audit.keepFiles is 3\n",
        "",
    )


def test_set_that_changes_nothing_records_nothing(wisp_cli, audit_lines: AuditLines) -> None:
    wisp_cli("config", "set", "audit.keepFiles", "3")
    wisp_cli("config", "set", "audit.keepFiles", "3")
    assert len(audit_lines()) == 1


def test_set_that_changes_nothing_leaves_the_file_alone(wisp_cli, wisp_home: Path) -> None:
    wisp_cli("config", "set", "audit.keepFiles", "3")
    before = (wisp_home / "config.json").stat()
    wisp_cli("config", "set", "audit.keepFiles", "3")
    after = (wisp_home / "config.json").stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


# -- VALUE ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("3", 3),
        ("true", True),
        ("[1,2]", [1, 2]),
        ("hello", "hello"),
        ('"3"', "3"),
        ("3.5", 3.5),
        ("null", None),
        ('{"a": [1]}', {"a": [1]}),
        ("hello world", "hello world"),
        ("[1,", "[1,"),
    ],
)
def test_value_is_json_when_it_parses_else_a_string(
    wisp_cli, wisp_home: Path, text: str, value: Any
) -> None:
    wisp_cli("config", "set", "plugin.value", text)
    got = stored(wisp_home)["plugin"]["value"]
    assert (type(got), got) == (type(value), value)


def test_value_is_recorded_as_parsed(wisp_cli, audit_lines: AuditLines) -> None:
    wisp_cli("config", "set", "plugin.value", "[1,2]")
    [line] = audit_lines()
    assert line["details"]["new"] == [1, 2]


def test_quoted_json_sets_a_string_a_known_key_needs(wisp_cli, wisp_home: Path) -> None:
    result = wisp_cli("config", "set", "ollama.baseURL", '"http://gpu-box:11434"')
    assert result.returncode == 0, result.stderr
    assert stored(wisp_home) == {"ollama": {"baseURL": "http://gpu-box:11434"}}


# -- known keys are checked ------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "text", "message"),
    [
        ("audit.keepFiles", "true", "expected an integer from 0 to 100000, got true"),
        ("audit.keepFiles", '"3"', 'expected an integer from 0 to 100000, got "3"'),
        ("audit.keepFiles", "-1", "expected an integer from 0 to 100000, got -1"),
        ("audit.enabled", "1", "expected true or false, got 1"),
        ("audit.maxFileBytes", "10", "expected an integer from 1024 to 1099511627776 (bytes)"),
        ("ollama.baseURL", "gpu-box", 'expected an http:// or https:// URL, got "gpu-box"'),
    ],
)
def test_a_bad_value_for_a_known_key_fails_naming_the_key(
    wisp_cli, key: str, text: str, message: str
) -> None:
    result = wisp_cli("config", "set", key, text)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.startswith(f"wisp: {key}: {message}")
    assert result.stderr.count("\n") == 1


def test_a_bad_value_for_a_known_key_writes_nothing(wisp_cli, wisp_home: Path) -> None:
    wisp_cli("config", "set", "audit.keepFiles", "3")
    before = (wisp_home / "config.json").read_bytes()
    wisp_cli("config", "set", "audit.keepFiles", "true")
    assert (wisp_home / "config.json").read_bytes() == before


def test_a_bad_value_for_a_known_key_records_nothing(wisp_cli, audit_lines) -> None:
    wisp_cli("config", "set", "audit.keepFiles", "3")
    wisp_cli("config", "set", "audit.keepFiles", "true")
    assert len(audit_lines()) == 1


def test_a_key_beneath_a_known_setting_fails_without_a_warning(wisp_cli, wisp_home) -> None:
    result = wisp_cli("config", "set", "audit.keepFiles.x", "1")
    assert (result.returncode, result.stderr) == (
        1,
        "wisp: audit.keepFiles.x: audit.keepFiles is a setting (an integer from 0 to 100000), "
        "not an object\n",
    )
    assert not (wisp_home / "config.json").exists()


def test_a_bad_stored_audit_setting_can_be_repaired_with_set(
    wisp_cli, wisp_home: Path, audit_lines: AuditLines
) -> None:
    write_config(wisp_home, b'{"audit": {"keepFiles": "x"}}')
    result = wisp_cli("config", "set", "audit.keepFiles", "3")
    assert result.returncode == 0, result.stderr
    assert [line["details"]["old"] for line in audit_lines()] == ["x"]


def test_a_bad_stored_audit_setting_can_be_unset(wisp_cli, wisp_home: Path) -> None:
    write_config(wisp_home, b'{"audit": {"keepFiles": "x"}, "model": "local"}')
    result = wisp_cli("config", "unset", "audit.keepFiles")
    assert result.returncode == 0, result.stderr
    assert stored(wisp_home) == {"model": "local"}


def test_a_bad_stored_audit_setting_blocks_other_changes_naming_it(
    wisp_cli, wisp_home: Path
) -> None:
    path = write_config(wisp_home, b'{"audit": {"keepFiles": "x"}}')
    result = wisp_cli("config", "set", "model", "ollama:qwen3")
    assert (result.returncode, result.stderr) == (
        1,
        f'wisp: {path}: audit.keepFiles: expected an integer from 0 to 100000, got "x"\n',
    )
    assert path.read_bytes() == b'{"audit": {"keepFiles": "x"}}'


# -- unknown keys ---------------------------------------------------------------------


def test_an_unknown_key_is_kept(wisp_cli, wisp_home: Path) -> None:
    result = wisp_cli("config", "set", "plugin.colour", "red")
    assert result.returncode == 0
    assert stored(wisp_home) == {"plugin": {"colour": "red"}}


def test_an_unknown_key_is_warned_about_on_stderr(wisp_cli) -> None:
    result = wisp_cli("config", "set", "plugin.colour", "red")
    assert (
        result.stderr
        == "wisp: warning: plugin.colour is not a setting this wisp knows; kept as given\n"
    )
    assert result.stdout == "plugin.colour = red\n"


def test_an_object_of_known_keys_is_not_warned_about(wisp_cli) -> None:
    result = wisp_cli("config", "set", "audit", '{"keepFiles": 3, "enabled": true}')
    assert (result.returncode, result.stderr) == (0, "")


def test_an_unknown_key_inside_an_object_is_the_one_named(wisp_cli) -> None:
    result = wisp_cli("config", "set", "audit", '{"keepFiles": 3, "colour": "red"}')
    assert (
        result.stderr
        == "wisp: warning: audit.colour is not a setting this wisp knows; kept as given\n"
    )


# -- unset ----------------------------------------------------------------------------


def test_unset_removes_the_key_and_the_objects_it_empties(wisp_cli, wisp_home: Path) -> None:
    wisp_cli("config", "set", "audit.keepFiles", "3")
    result = wisp_cli("config", "unset", "audit.keepFiles")
    assert (result.returncode, result.stdout) == (0, "unset audit.keepFiles (was 3)\n")
    assert stored(wisp_home) == {}


def test_unset_records_new_null(wisp_cli, audit_lines: AuditLines) -> None:
    wisp_cli("config", "set", "audit.keepFiles", "3")
    wisp_cli("config", "unset", "audit.keepFiles")
    assert audit_lines()[-1]["details"] == {
        "path": "audit.keepFiles",
        "old": 3,
        "new": None,
        "source": "cli",
        "approval": None,
    }


def test_unset_of_a_key_not_set_says_unchanged(wisp_cli) -> None:
    result = wisp_cli("config", "unset", "audit.keepFiles")
    assert (result.returncode, result.stdout) == (0, "unchanged: audit.keepFiles is not set\n")


def test_unset_of_a_key_not_set_records_nothing(wisp_cli, audit_lines: AuditLines) -> None:
    wisp_cli("config", "set", "model", "ollama:qwen3")
    wisp_cli("config", "unset", "audit.keepFiles")
    assert len(audit_lines()) == 1


# -- audit.enabled --------------------------------------------------------------------


def test_turning_the_audit_log_off_is_itself_recorded(wisp_cli, audit_lines) -> None:
    wisp_cli("config", "set", "audit.enabled", "false")
    [line] = audit_lines()
    assert line["details"] == {
        "path": "audit.enabled",
        "old": None,
        "new": False,
        "source": "cli",
        "approval": None,
    }


def test_changes_made_while_the_log_is_off_are_not_recorded(wisp_cli, audit_lines) -> None:
    wisp_cli("config", "set", "audit.enabled", "false")
    result = wisp_cli("config", "set", "audit.keepFiles", "3")
    assert result.returncode == 0
    assert [line["details"]["path"] for line in audit_lines()] == ["audit.enabled"]


def test_turning_the_audit_log_back_on_is_recorded(wisp_cli, audit_lines) -> None:
    wisp_cli("config", "set", "audit.enabled", "false")
    wisp_cli("config", "set", "audit.keepFiles", "3")
    wisp_cli("config", "unset", "audit.enabled")
    assert [(line["details"]["old"], line["details"]["new"]) for line in audit_lines()] == [
        (None, False),
        (False, None),
    ]


# -- get and list ---------------------------------------------------------------------


def test_get_of_an_unset_known_key_prints_its_default(wisp_cli) -> None:
    result = wisp_cli("config", "get", "audit.maxFileBytes")
    assert (result.returncode, result.stdout, result.stderr) == (0, "10485760\n", "")


def test_get_prints_a_stored_string_bare(wisp_cli) -> None:
    wisp_cli("config", "set", "model", "ollama:qwen3")
    assert wisp_cli("config", "get", "model").stdout == "ollama:qwen3\n"


def test_get_prints_other_values_as_json(wisp_cli) -> None:
    wisp_cli("config", "set", "models.disabled", '["local", "ollama:x"]')
    assert wisp_cli("config", "get", "models.disabled").stdout == '["local","ollama:x"]\n'


def test_get_of_a_stored_unknown_key_prints_it(wisp_cli) -> None:
    wisp_cli("config", "set", "plugin.colour", "red")
    result = wisp_cli("config", "get", "plugin.colour")
    assert (result.returncode, result.stdout) == (0, "red\n")


def test_get_of_an_unknown_missing_key_fails(wisp_cli, wisp_home: Path) -> None:
    result = wisp_cli("config", "get", "plugin.colour")
    assert (result.returncode, result.stdout, result.stderr) == (
        1,
        "",
        f"wisp: plugin.colour is not set in {wisp_home / 'config.json'}, "
        "and is not a known setting\n",
    )


def test_list_shows_every_known_setting_with_its_default(wisp_cli) -> None:
    result = wisp_cli("config", "list")
    rows = [line.split() for line in result.stdout.splitlines()]
    assert rows == [
        [key, "-", "(not", "set)"]
        if setting.default is None
        else [key, _shown(setting.default), "(default)"]
        for key, setting in SETTINGS.items()
    ]


def test_list_shows_a_stored_value_without_the_default_note(wisp_cli) -> None:
    wisp_cli("config", "set", "audit.keepFiles", "3")
    rows = [line.split() for line in wisp_cli("config", "list").stdout.splitlines()]
    assert ["audit.keepFiles", "3"] in rows


def test_list_json_is_the_list_as_data_with_secrets_hidden(wisp_cli) -> None:
    wisp_cli("config", "set", "audit.keepFiles", "3")
    wisp_cli("config", "set", "openai.apiKey", "sk-not-to-be-shown")
    result = wisp_cli("config", "list", "--json")
    assert "sk-not-to-be-shown" not in result.stdout
    rows = {row["key"]: row for row in json.loads(result.stdout)}
    assert list(rows)[: len(SETTINGS)] == list(SETTINGS)
    assert rows["audit.keepFiles"] == {"key": "audit.keepFiles", "value": "3", "note": ""}
    assert rows["openai.apiKey"]["value"] == "set (config.json)"
    assert rows["approval.threshold"]["note"] == "(default)"


def test_list_shows_unknown_keys_as_kept(wisp_cli) -> None:
    wisp_cli("config", "set", "plugin.colour", "red")
    last = wisp_cli("config", "list").stdout.splitlines()[-1]
    assert last.split(maxsplit=2) == [
        "plugin.colour",
        "red",
        "(not a setting this wisp knows; kept)",
    ]


def _shown(value: Any) -> str:
    if value == "":
        return '""'
    return value if isinstance(value, str) else msgspec.json.encode(value).decode()


def test_list_marks_a_hand_edited_bad_value_invalid_with_its_reason(wisp_cli, wisp_home) -> None:
    write_config(wisp_home, b'{"audit": {"keepFiles": "x"}}')
    result = wisp_cli("config", "list")
    assert result.returncode == 0, result.stderr
    row = next(line for line in result.stdout.splitlines() if line.startswith("audit.keepFiles"))
    assert row.split(maxsplit=2) == [
        "audit.keepFiles",
        "x",
        "(invalid: expected an integer from 0 to 100000)",
    ]


def test_list_shows_every_other_setting_beside_a_bad_value(wisp_cli, wisp_home: Path) -> None:
    write_config(wisp_home, b'{"audit": {"keepFiles": "x"}, "model": "ollama:qwen3"}')
    rows = [line.split() for line in wisp_cli("config", "list").stdout.splitlines()]
    assert [row[0] for row in rows][: len(SETTINGS)] == list(SETTINGS)
    assert ["model", "ollama:qwen3"] in rows


def test_list_marks_a_value_where_settings_nest_invalid(wisp_cli, wisp_home: Path) -> None:
    write_config(wisp_home, b'{"audit": 5}')
    last = wisp_cli("config", "list").stdout.splitlines()[-1]
    assert last.split(maxsplit=2) == [
        "audit",
        "5",
        "(invalid: expected an object (settings nest in it))",
    ]


# -- model names in paths ---------------------------------------------------------------

SMOLLM2 = "SmolLM2-135M-Instruct.Q4_1"
CHECKED = {
    "local": {
        "models": {
            SMOLLM2: {
                "capabilities": ["guidedGeneration"],
                "verified": {
                    "date": "2026-12-01",
                    "passed": ["guidedGeneration"],
                    "failed": ["toolCalling"],
                },
            }
        }
    }
}
CAPABILITIES_KEY = f'local.models."{SMOLLM2}".capabilities'


def test_list_shows_a_checked_model_with_its_name_quoted(wisp_cli, wisp_home: Path) -> None:
    write_config(wisp_home, msgspec.json.encode(CHECKED))
    result = wisp_cli("config", "list")
    assert (result.returncode, result.stderr) == (0, "")
    rows = [re.split(r"\s{2,}", line) for line in result.stdout.splitlines()[len(SETTINGS) :]]
    entry = f'local.models."{SMOLLM2}"'
    assert rows == [
        [f"'{entry}.capabilities'", '["guidedGeneration"]'],
        [f"'{entry}.verified.date'", "2026-12-01"],
        [f"'{entry}.verified.passed'", '["guidedGeneration"]'],
        [f"'{entry}.verified.failed'", '["toolCalling"]'],
    ]


def test_a_key_copied_from_list_can_be_pasted_into_set(
    wisp_cli, wisp_home: Path, bare_env: dict[str, str]
) -> None:
    write_config(wisp_home, msgspec.json.encode(CHECKED))
    listed = wisp_cli("config", "list").stdout.splitlines()[len(SETTINGS)]
    key = listed.split("  ")[0]
    script = str(Path(sys.executable).parent / "wisp")
    line = f"{shlex.quote(script)} config set {key} '[\"toolCalling\"]'"
    result = subprocess.run(
        ["sh", "-c", line], env=bare_env, capture_output=True, encoding="utf-8", timeout=HANG
    )
    assert (result.returncode, result.stderr) == (0, "")
    assert stored(wisp_home)["local"]["models"][SMOLLM2]["capabilities"] == ["toolCalling"]


def test_set_of_a_quoted_model_name_stores_the_name_whole(wisp_cli, wisp_home: Path) -> None:
    result = wisp_cli("config", "set", CAPABILITIES_KEY, '["toolCalling"]')
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        f'{CAPABILITIES_KEY} = ["toolCalling"]\n',
        "",
    )
    assert stored(wisp_home) == {"local": {"models": {SMOLLM2: {"capabilities": ["toolCalling"]}}}}


def test_set_of_a_quoted_model_name_records_the_quoted_path(wisp_cli, audit_lines) -> None:
    wisp_cli("config", "set", CAPABILITIES_KEY, '["toolCalling"]')
    assert [line["details"]["path"] for line in audit_lines()] == [CAPABILITIES_KEY]


def test_a_bad_model_field_is_refused_naming_its_quoted_path(wisp_cli, wisp_home: Path) -> None:
    result = wisp_cli("config", "set", CAPABILITIES_KEY, "toolCalling")
    assert (result.returncode, result.stderr) == (
        1,
        f'wisp: {CAPABILITIES_KEY}: expected a list of capability names, got "toolCalling"\n',
    )
    assert not (wisp_home / "config.json").exists()


def test_get_of_a_quoted_model_name_prints_its_value(wisp_cli, wisp_home: Path) -> None:
    write_config(wisp_home, msgspec.json.encode(CHECKED))
    result = wisp_cli("config", "get", f'local.models."{SMOLLM2}".verified.failed')
    assert (result.returncode, result.stdout, result.stderr) == (0, '["toolCalling"]\n', "")


def test_unset_of_a_quoted_model_name_removes_that_field(wisp_cli, wisp_home: Path) -> None:
    write_config(wisp_home, msgspec.json.encode(CHECKED))
    result = wisp_cli("config", "unset", f'local.models."{SMOLLM2}".verified')
    assert result.returncode == 0, result.stderr
    assert stored(wisp_home) == {
        "local": {"models": {SMOLLM2: {"capabilities": ["guidedGeneration"]}}}
    }


def test_a_model_name_left_unquoted_is_refused_with_the_quoted_path(
    wisp_cli, wisp_home: Path
) -> None:
    result = wisp_cli("config", "set", f"local.models.{SMOLLM2}.capabilities", '["toolCalling"]')
    assert (result.returncode, result.stdout, result.stderr) == (
        1,
        "",
        f"wisp: local.models.SmolLM2-135M-Instruct.Q4_1.capabilities is not a setting this wisp "
        f"knows; did you mean '{CAPABILITIES_KEY}'? (nothing was saved; --force keeps it as "
        "given)\n",
    )
    assert not (wisp_home / "config.json").exists()


def test_an_unclosed_quote_is_a_usage_error_naming_its_position(wisp_cli) -> None:
    result = wisp_cli("config", "set", 'local.models."SmolLM2.capabilities', "[]")
    assert (result.returncode, result.stderr) == (
        2,
        "wisp: 'local.models.\"SmolLM2.capabilities' is not a setting's path: "
        "the quote at position 14 is never closed\n",
    )


# -- did you mean -----------------------------------------------------------------------


def test_a_key_one_edit_from_a_known_one_is_refused_with_it(wisp_cli, wisp_home: Path) -> None:
    result = wisp_cli("config", "set", "audit.keepfiles", "3")
    assert (result.returncode, result.stdout, result.stderr) == (
        1,
        "",
        "wisp: audit.keepfiles is not a setting this wisp knows; did you mean audit.keepFiles? "
        "(nothing was saved; --force keeps it as given)\n",
    )
    assert not (wisp_home / "config.json").exists()


def test_a_transposed_key_is_refused_with_the_known_one(wisp_cli) -> None:
    result = wisp_cli("config", "set", "audit.kepeFiles", "3")
    assert "did you mean audit.keepFiles?" in result.stderr


def test_force_keeps_a_key_one_edit_from_a_known_one_with_a_warning(
    wisp_cli, wisp_home: Path
) -> None:
    result = wisp_cli("config", "set", "--force", "audit.keepfiles", "3")
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        "audit.keepfiles = 3\n",
        "wisp: warning: audit.keepfiles is not a setting this wisp knows; kept as given "
        "(did you mean audit.keepFiles?)\n",
    )
    assert stored(wisp_home) == {"audit": {"keepfiles": 3}}


def test_an_unknown_key_inside_an_object_is_refused_with_the_known_one(wisp_cli) -> None:
    result = wisp_cli("config", "set", "audit", '{"keepfiles": 3}')
    assert result.returncode == 1
    assert "audit.keepfiles is not a setting this wisp knows; did you mean audit.keepFiles?" in (
        result.stderr
    )


def test_get_of_a_missing_key_one_edit_from_a_known_one_suggests_it(wisp_cli) -> None:
    result = wisp_cli("config", "get", "audit.keepfiles")
    assert result.returncode == 1
    assert result.stderr.endswith("did you mean audit.keepFiles?\n")


def test_unset_of_a_missing_key_one_edit_from_a_known_one_suggests_it(wisp_cli) -> None:
    result = wisp_cli("config", "unset", "audit.keepfiles")
    assert (result.returncode, result.stdout) == (
        0,
        "unchanged: audit.keepfiles is not set; did you mean audit.keepFiles?\n",
    )


# -- whatever the file holds ------------------------------------------------------------

NESTS = "(invalid: expected an object (settings nest in it))"
UNKNOWN = "(not a setting this wisp knows; kept)"
ODD_FILES = {
    "a model entry that is not an object": (
        {"local": {"models": {SMOLLM2: 3}}},
        [f"'local.models.\"{SMOLLM2}\"'", "3", NESTS],
    ),
    "a models section that is a list": (
        {"ollama": {"models": ["qwen3"]}},
        ["ollama.models", '["qwen3"]', NESTS],
    ),
    "verified that is a string": (
        {"llamacpp": {"models": {"q.8b": {"verified": "yes"}}}},
        ["'llamacpp.models.\"q.8b\".verified'", "yes", NESTS],
    ),
    "a model field of the wrong type": (
        {"openai": {"models": {"m": {"capabilities": {"a": 1}}}}},
        [
            "openai.models.m.capabilities",
            '{"a":1}',
            "(invalid: expected a list of capability names)",
        ],
    ),
    "keys with quotes, backslashes and dots": (
        {"plugin": {'a"b\\c.d': {"": 1}}},
        ['\'plugin."a\\"b\\\\c.d".""\'', "1", UNKNOWN],
    ),
    "an empty key at the top": ({"": {"x": None}}, ["'\"\".x'", "null", UNKNOWN]),
    "an empty section": ({"local": {"models": {}}}, ["local.models", "{}"]),
    "a huge number": (
        {"audit": {"keepFiles": 10**30}},
        ["audit.keepFiles", str(10**30), "(invalid: expected an integer from 0 to 100000)"],
    ),
}


@pytest.mark.parametrize(("data", "row"), ODD_FILES.values(), ids=ODD_FILES.keys())
def test_list_lists_whatever_the_file_holds(
    wisp_cli, wisp_home: Path, data: Any, row: list[str]
) -> None:
    write_config(wisp_home, msgspec.json.encode(data))
    result = wisp_cli("config", "list")
    assert (result.returncode, result.stderr) == (0, "")
    assert row in [re.split(r"\s{2,}", line) for line in result.stdout.splitlines()]


# -- malformed config.json ------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("list",),
        ("get", "model"),
        ("set", "model", "ollama:qwen3"),
        ("unset", "model"),
    ],
    ids=["list", "get", "set", "unset"],
)
def test_a_malformed_file_fails_naming_file_line_and_column(wisp_cli, wisp_home, args) -> None:
    path = write_config(wisp_home, MALFORMED)
    result = wisp_cli("config", *args)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        f"wisp: {path}:3:12: not valid JSON (invalid character); "
        "fix or remove the file, it was left as it is\n"
    )


@pytest.mark.parametrize(
    "args",
    [("set", "model", "ollama:qwen3"), ("unset", "model"), ("set", "audit.enabled", "false")],
    ids=["set", "unset", "set-audit-off"],
)
def test_a_malformed_file_is_left_byte_for_byte(wisp_cli, wisp_home: Path, args) -> None:
    path = write_config(wisp_home, MALFORMED)
    wisp_cli("config", *args)
    assert path.read_bytes() == MALFORMED


def test_a_malformed_file_records_nothing(wisp_cli, wisp_home: Path, audit_lines) -> None:
    write_config(wisp_home, MALFORMED)
    wisp_cli("config", "set", "model", "ollama:qwen3")
    assert audit_lines() == []


# -- files that cannot be written ------------------------------------------------------


def test_a_home_that_cannot_be_made_is_one_line_on_stderr(
    wisp_cli, bare_env: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "a-file").write_text("")
    bare_env["WISP_HOME"] = str(tmp_path / "a-file" / "home")
    result = wisp_cli("config", "set", "model", "ollama:qwen3")
    assert (result.returncode, result.stderr) == (
        1,
        f"wisp: {tmp_path}/a-file/home/config.json: cannot write: Not a directory; "
        "the file was left as it was\n",
    )


def test_a_config_too_big_to_write_fails_and_leaves_the_old_file(wisp_cli, wisp_home: Path) -> None:
    path = write_config(wisp_home, b'{"model": "local"}\n')
    # The kernel refuses to grow a file past `ulimit -f` (2 blocks: 1 KiB in sh, 2 in bash).
    result = wisp_cli("config", "set", "plugin.padding", "x" * 4096, setup="ulimit -f 2")
    assert (result.returncode, result.stderr) == (
        1,
        f"wisp: {path}: cannot write: File too large; the file was left as it was\n",
    )
    assert path.read_bytes() == b'{"model": "local"}\n'


def test_a_config_too_big_to_write_leaves_no_temporary_file(wisp_cli, wisp_home: Path) -> None:
    write_config(wisp_home, b'{"model": "local"}\n')
    wisp_cli("config", "set", "plugin.padding", "x" * 4096, setup="ulimit -f 2")
    assert sorted(p.name for p in wisp_home.iterdir()) == [".config.lock", "config.json"]


# -- usage and help -------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [("config",), ("config", "set", "model"), ("config", "frobnicate")],
    ids=["no-action", "set-without-value", "unknown-action"],
)
def test_a_wrong_command_line_is_a_usage_error(wisp_cli, args) -> None:
    result = wisp_cli(*args)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith("usage: wisp config")


def test_a_path_with_an_empty_part_is_a_usage_error(wisp_cli) -> None:
    result = wisp_cli("config", "get", "audit..keepFiles")
    assert (result.returncode, result.stderr) == (
        2,
        "wisp: 'audit..keepFiles' is not a setting's path: no name at position 7; use dotted "
        'names like audit.keepFiles, and "quotes" around a name that holds a dot\n',
    )


@pytest.mark.parametrize(
    "args",
    [("config",), ("config", "list"), ("config", "get"), ("config", "set"), ("config", "unset")],
    ids=["config", "list", "get", "set", "unset"],
)
def test_help_works_for_every_config_command(wisp_cli, args) -> None:
    result = wisp_cli(*args, "--help")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.startswith(f"usage: wisp {' '.join(args)}")


def test_config_help_has_examples(wisp_cli) -> None:
    result = wisp_cli("config", "--help")
    assert "examples:" in result.stdout and "wisp config set audit.keepFiles 3" in result.stdout


# -- secrets: API keys are shown as set, recorded as [redacted] ----------------------------------

SECRET = "sk-test-secret-7f3a9c"


def every_byte_wisp_wrote(results: list[subprocess.CompletedProcess[str]], home: Path) -> str:
    """stdout and stderr of every run, and every audit file, as one text to search."""
    logs = sorted((home / "logs").glob("*.jsonl")) if (home / "logs").is_dir() else []
    runs = [result.stdout + result.stderr for result in results]
    return "\n".join(runs + [path.read_text() for path in logs])


@pytest.mark.parametrize("scheme", ["openai", "llamacpp", "lmstudio"])
def test_an_api_key_is_a_known_setting_shown_only_as_set(
    wisp_cli, wisp_home: Path, scheme: str
) -> None:
    key = f"{scheme}.apiKey"
    runs = [
        wisp_cli("config", "set", key, SECRET),
        wisp_cli("config", "get", key),
        wisp_cli("config", "list"),
        wisp_cli("config", "set", key, SECRET),  # unchanged: says what it is
        wisp_cli("logs"),
        wisp_cli("logs", "--json"),
    ]
    assert stored(wisp_home) == {scheme: {"apiKey": SECRET}}  # the file holds it, 0600
    assert SECRET not in every_byte_wisp_wrote(runs, wisp_home)
    set_, get, listing, again = runs[:4]
    assert (set_.returncode, set_.stdout, set_.stderr) == (0, f"{key} = set (config.json)\n", "")
    assert get.stdout == "set (config.json)\n"
    assert re.search(rf"^{re.escape(key)} +set \(config\.json\)$", listing.stdout, re.M)
    assert again.stdout == f"unchanged: {key} is set (config.json)\n"


def test_config_change_records_an_api_key_as_redacted(wisp_cli, audit_lines: AuditLines) -> None:
    wisp_cli("config", "set", "openai.apiKey", SECRET)
    wisp_cli("config", "set", "openai.apiKey", SECRET + "-new")
    unset = wisp_cli("config", "unset", "openai.apiKey")
    assert unset.stdout == "unset openai.apiKey (was set (config.json))\n"
    changes = [(line["details"]["old"], line["details"]["new"]) for line in audit_lines()]
    assert changes == [(None, "[redacted]"), ("[redacted]", "[redacted]"), ("[redacted]", None)]


def test_an_api_key_set_inside_an_object_is_redacted_there(
    wisp_cli, wisp_home: Path, audit_lines: AuditLines
) -> None:
    value = json.dumps({"apiKey": SECRET, "timeoutSeconds": 30})
    runs = [wisp_cli("config", "set", "openai", value), wisp_cli("config", "get", "openai")]
    runs.append(wisp_cli("config", "unset", "openai"))
    assert SECRET not in every_byte_wisp_wrote(runs, wisp_home)
    assert runs[0].stdout == 'openai = {"apiKey":"[redacted]","timeoutSeconds":30}\n'
    assert [line["details"]["new"] for line in audit_lines()] == [
        {"apiKey": "[redacted]", "timeoutSeconds": 30},
        None,
    ]


def test_a_key_that_is_not_a_string_is_refused_without_showing_it(wisp_cli, wisp_home) -> None:
    write_config(wisp_home, b'{"openai": {"apiKey": 918273645546372}}')
    runs = [wisp_cli("config", "get", "openai.apiKey"), wisp_cli("config", "list")]
    assert "918273645546372" not in every_byte_wisp_wrote(runs, wisp_home)
    assert "openai.apiKey  set (config.json)  (invalid: expected a non-empty string)" in re.sub(
        r" {2,}", "  ", runs[1].stdout
    )


def test_a_key_that_parses_as_json_is_kept_as_the_text_typed(wisp_cli, wisp_home) -> None:
    result = wisp_cli("config", "set", "openai.apiKey", "12345678")
    assert (result.returncode, result.stderr) == (0, "")
    assert stored(wisp_home) == {"openai": {"apiKey": "12345678"}}


def test_a_key_in_the_environment_is_listed_by_its_variable(wisp_cli, bare_env) -> None:
    bare_env["WISP_LMSTUDIO_API_KEY"] = SECRET
    listing = wisp_cli("config", "list").stdout
    assert SECRET not in listing
    assert re.search(r"^lmstudio\.apiKey +set \(WISP_LMSTUDIO_API_KEY\)$", listing, re.M)
    assert wisp_cli("config", "get", "lmstudio.apiKey").stdout == "set (WISP_LMSTUDIO_API_KEY)\n"


def test_a_key_set_one_level_too_high_is_refused_without_showing_it(wisp_cli, wisp_home) -> None:
    result = wisp_cli("config", "set", "openai", SECRET)
    assert result.returncode == 1 and SECRET not in result.stdout + result.stderr
    assert result.stderr == (
        'wisp: openai: expected an object (settings nest in it), got "[redacted]"\n'
    )
    write_config(wisp_home, json.dumps({"llamacpp": SECRET}).encode())
    runs = [wisp_cli("config", "list"), wisp_cli("config", "get", "llamacpp")]
    assert SECRET not in every_byte_wisp_wrote(runs, wisp_home)
