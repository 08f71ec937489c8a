"""What the chat loop drives and where it writes: the session (``ChatHost``, the CLI's
``ChatSession``) and the face's line writer. Apart from the loop, so that the slash commands
can name them without importing the loop that runs them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from wisp import protocol as p
from wisp.agent.loop import Conversation
from wisp.chat.bridge import Waiters

Write = Callable[[p.Outbound], None]


class ModelsDuties(Protocol):
    """``/models`` and the picker, as the session does them."""

    async def rows(self) -> tuple[list[Any], list[str]]: ...

    async def set_off(self, off: set[str], listed: set[str]) -> list[str]: ...

    async def toggle(self, verb: str, names: list[str]) -> list[str]: ...

    async def check(self, name: str, say: Callable[[str], None]) -> None: ...


class GuidanceDuties(Protocol):
    """The session's guidance files, settled once before its first turn (docs/turn.md,
    "Guidance files")."""

    async def settle(self, can_ask: bool) -> None:
        """Ask about the files waiting (``can_ask``), or leave them out and say so."""
        ...


class ChatHost(Protocol):
    """The session the loop drives (the CLI's ``ChatSession``)."""

    conversation: Conversation
    notes: list[str]
    waiters: Waiters
    save_name: str | None
    models: ModelsDuties
    guidance: GuidanceDuties

    async def switch_model(self, name: str) -> list[str]: ...

    def new_conversation(self) -> None: ...

    def save(self, name: str) -> Path: ...

    async def run_typed(self, line: str) -> Any: ...

    def on_hello(self, hello: p.ClientHello) -> None: ...

    def approval_mode(self) -> str: ...

    def sandbox_state(self) -> tuple[bool, str | None]: ...

    def git_argv(self, args: Sequence[str]) -> list[str] | None: ...

    async def inspect(self, view: str) -> str: ...


class SlashLoop(Protocol):
    """What the slash commands use of the chat loop that runs them."""

    host: ChatHost
    has_picker: bool

    def write(self, line: p.Outbound) -> None: ...

    def hello(self) -> None: ...
