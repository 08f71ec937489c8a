"""``draft.tasks.<name>``: the person's own ``wisp draft`` tasks, typed, each read on its own,
an error naming the key at fault (docs/draft.md, "Tasks of your own")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from wisp.config import Config, setting_for
from wisp.config.draft_tasks import ConfiguredDraft, DraftInput, configured_drafts


def drafts(tmp_path: Path, tasks: Any) -> dict[str, ConfiguredDraft]:
    return configured_drafts(Config(tmp_path / "config.json", {"draft": {"tasks": tasks}}))


def test_a_task_is_its_instructions_and_the_inputs_it_gathers(tmp_path: Path) -> None:
    inputs = [{"command": "git log -n 3 --format=%s"}, {"file": "todo.txt"}]
    read = drafts(tmp_path, {"standup": {"instructions": "Write it.", "inputs": inputs}})
    assert read == {
        "standup": ConfiguredDraft(
            name="standup",
            instructions="Write it.",
            inputs=[
                DraftInput("command", "git log -n 3 --format=%s"),
                DraftInput("file", "todo.txt"),
            ],
        )
    }


def test_none_configured_is_none(tmp_path: Path) -> None:
    assert configured_drafts(Config(tmp_path / "config.json", {})) == {}


def test_a_bad_field_names_its_key_and_leaves_the_others(tmp_path: Path) -> None:
    read = drafts(tmp_path, {
        "bad": {"instructions": "Write it.", "inputs": [{"command": "ls", "file": "x"}]},
        "good": {"instructions": "Write it."},
        "bare": {"inputs": []},
    })  # fmt: skip
    where = tmp_path / "config.json"
    assert read["bad"].problem == (
        f'{where}: draft.tasks.bad.inputs: expected a list of objects, each {{"command": LINE}} '
        'or {"file": PATH}'
    )
    assert read["good"].problem is None
    assert read["bare"].problem == (
        f"{where}: draft.tasks.bare.instructions: a task says what to write; set it"
    )


def test_the_fields_are_settings_and_the_entries_hold_them(tmp_path: Path) -> None:
    assert setting_for("draft.tasks.standup.instructions") is not None
    assert setting_for("draft.tasks.standup.inputs") is not None
    config = Config(tmp_path / "config.json", {"draft": {"tasks": {"x": {"colour": "red"}}}})
    assert config.unknown_keys() == ["draft.tasks.x.colour"]


def test_wisp_config_sets_a_task_and_refuses_a_bad_input(run_wisp, wisp_home: Path) -> None:
    done = run_wisp("config", "set", "draft.tasks.standup.instructions", "Write my note.")
    assert (done.returncode, done.stderr) == (0, "")
    inputs = json.dumps([{"command": "git log -n 3"}])
    assert run_wisp("config", "set", "draft.tasks.standup.inputs", inputs).returncode == 0
    refused = run_wisp("config", "set", "draft.tasks.standup.inputs", '[{"url": "x"}]')
    assert refused.returncode != 0 and "draft.tasks.standup.inputs" in refused.stderr
    stored = json.loads((wisp_home / "config.json").read_text())
    assert stored == {
        "draft": {
            "tasks": {
                "standup": {
                    "instructions": "Write my note.",
                    "inputs": [{"command": "git log -n 3"}],
                }
            }
        }
    }
