"""The person's own ``wisp draft`` tasks, ``draft.tasks.<name>`` in config.json, typed: the
instructions, and the inputs to gather, each a command to run confined or a file to read
(docs/draft.md, "Tasks of your own").

Each task is read on its own: a field of the wrong type, or an entry with no ``instructions``,
leaves that task with a ``problem`` naming the key, and the others untouched.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from wisp.config.paths import join_path
from wisp.config.settings import DRAFT_TASK_FIELDS, DRAFT_TASKS
from wisp.config.store import MISSING, Config


class DraftInput(msgspec.Struct, frozen=True):
    """One thing a task gathers: a command's output or a file's text."""

    kind: Literal["command", "file"]
    value: str
    """The command line, run in the working folder; or the file's path, from it."""


class ConfiguredDraft(msgspec.Struct, frozen=True, kw_only=True):
    """One configured task; ``problem`` says why it cannot run, naming the key at fault."""

    name: str
    instructions: str = ""
    inputs: list[DraftInput] = msgspec.field(default_factory=list)
    problem: str | None = None


def configured_drafts(config: Config) -> dict[str, ConfiguredDraft]:
    """The tasks ``draft.tasks`` holds, by name, in file order."""
    stored = config.get(DRAFT_TASKS)
    return {} if stored is MISSING else drafts_in(stored, str(config.path))


def drafts_in(stored: Any, where: str) -> dict[str, ConfiguredDraft]:
    """The tasks ``stored`` holds (``draft.tasks`` as the file at ``where`` has it), by name."""
    key = join_path(DRAFT_TASKS)
    if not isinstance(stored, dict):
        return {
            "?": ConfiguredDraft(name="?", problem=f"{where}: {key} must be an object of tasks")
        }
    return {name: _task(name, entry, where) for name, entry in stored.items()}


def _task(name: str, entry: Any, where: str) -> ConfiguredDraft:
    key = join_path((*DRAFT_TASKS, name))
    if not isinstance(entry, dict):
        return ConfiguredDraft(name=name, problem=f"{where}: {key} must be an object")
    values: dict[str, Any] = {}
    for field, setting in DRAFT_TASK_FIELDS.items():
        if field not in entry:
            continue
        try:
            values[field] = setting.check(entry[field])
        except ValueError as exc:
            return ConfiguredDraft(name=name, problem=f"{where}: {key}.{field}: {exc}")
    if "instructions" not in values:
        problem = f"{where}: {key}.instructions: a task says what to write; set it"
        return ConfiguredDraft(name=name, problem=problem)
    inputs = [
        DraftInput(kind, value) for item in values.get("inputs", []) for kind, value in item.items()
    ]
    return ConfiguredDraft(name=name, instructions=values["instructions"], inputs=inputs)
