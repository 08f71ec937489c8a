"""``/models`` in chat and the front end's picker: the models with their state, turning them on
and off, and the capability check, recorded from chat as the command line records them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import msgspec

from wisp.agent.loop import Conversation
from wisp.agent.recorder import Recorder
from wisp.cli.building.model_choice import ModelChoice
from wisp.cli.context import Context
from wisp.config import Config
from wisp.errors import WispError


class ModelsSession(Protocol):
    """What the models' duties use of the chat session."""

    context: Context
    config: Config
    conversation: Conversation
    recorder: Recorder
    choice: ModelChoice
    """Which model runs, and the HTTP client the servers' models share."""


class PickerRow(msgspec.Struct, frozen=True):
    """One model in chat's picker."""

    selection: str
    runtime: str
    enabled: bool
    context: str
    capabilities: str


class ChatModels:
    """The session's ``/models`` duties; the session's config is reloaded after a change."""

    def __init__(self, session: ModelsSession) -> None:
        self.session = session

    async def rows(self) -> tuple[list[PickerRow], list[str]]:
        """The picker's data: every model with its state, and a note per runtime not reached."""
        from wisp.cli.models.command import picker_rows
        from wisp.cli.models.table import capabilities_cell

        catalog = await picker_rows(
            self.session.config, self.session.context.environ,
            in_use=self.session.conversation.model, client=self.session.choice.http_client,
        )  # fmt: skip
        rows = [
            PickerRow(
                selection=row.selection,
                runtime=row.runtime,
                enabled=row.enabled,
                context=f"{row.context_length:,}" if row.context_length else "?",
                capabilities=capabilities_cell(row),  # as `wisp models` says it
            )
            for row in catalog.models
        ]
        unreachable = [f"{u.runtime} at {u.base_url}: {u.reason}" for u in catalog.unreachable]
        return rows, unreachable

    async def set_off(self, off: set[str], listed: set[str]) -> list[str]:
        """The picker's answer: the listed models left off are disabled, the others enabled;
        models disabled but not listed (a runtime not reached) stay as they were."""
        from wisp.cli.models.command import canonical, disabled_list, set_disabled

        listed_keys = {canonical(selection) for selection in listed}
        kept = {s for s in disabled_list(self.session.context.load_config())
                if canonical(s) not in listed_keys}  # fmt: skip
        try:
            notes = set_disabled(
                self.session.context, off | kept, source="chat", record=self.session.recorder.record
            )
        except WispError as exc:
            return [f"error: {exc}"]
        self.session.config = self.session.context.load_config()
        return notes

    async def toggle(self, verb: str, names: list[str]) -> list[str]:
        """/models enable|disable NAME…: as the command line does, recorded from chat."""
        from wisp.cli.models.command import canonical, disabled_list

        current = set(disabled_list(self.session.context.load_config()))
        if verb == "disable":
            off = current | set(names)
        else:
            named = {canonical(name) for name in names}
            off = {s for s in current if canonical(s) not in named}
        return await self.set_off(off, current | set(names))

    async def check(self, name: str, say: Callable[[str], None]) -> None:
        """/models check NAME: the capability check, its progress said as notes."""
        from wisp.cli.models.check import Uncheckable, check_and_record, outcome_message
        from wisp.cli.models.session import CHAT

        try:
            result = await check_and_record(
                self.session.context, name, trigger="check", origin=CHAT,
                record=self.session.recorder.record, say=say, client=self.session.choice.http(),
            )  # fmt: skip
        except Uncheckable as exc:
            say(f"error: {exc}")
            return
        self.session.config = self.session.context.load_config()
        say(outcome_message(name, result))
