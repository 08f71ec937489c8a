"""The ACP agent: ``initialize``, one wisp conversation per session, ``prompt`` streamed as
session updates, ``session/cancel`` as Ctrl-C, the model as a session config option, and the
sessions saved after each turn, listed and loaded again, their history replayed
(docs/acp.md). The CLI builds each session's conversation (``SessionOpener``)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

import msgspec
from acp import PROTOCOL_VERSION, RequestError, update_agent_message_text
from acp.schema import (
    AgentCapabilities,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionInfo,
    SessionListCapabilities,
    SetSessionConfigOptionResponse,
)

from wisp import __version__
from wisp.acp.asking import ClientWays
from wisp.acp.client_servers import client_servers
from wisp.acp.history import history_updates
from wisp.acp.prompt_text import ReadLink, prompt_text
from wisp.acp.sender import UpdateSender
from wisp.acp.updates import TurnUpdates, closing_lines, stop_reason
from wisp.agent.events import AgentEvent, TurnResult
from wisp.agent.loop import Conversation
from wisp.agent.recorder import Recorder
from wisp.config.mcp_servers import McpServer
from wisp.errors import WispError

MODEL_OPTION = "model"


class UnknownSession(WispError):
    """No session is saved under the id a client asked to load."""


class OpenedSession(msgspec.Struct):
    """A session's conversation, as the command line built it."""

    conversation: Conversation
    recorder: Recorder
    end: Callable[[str], Awaitable[None]]
    """Records ``session.end`` with the reason and lets go of what the session holds."""
    id: str
    """The session's id: its audit session's for a new one, the saved one's for a loaded one
    (whose audit session is new, its ``session.start`` naming it in ``resume``)."""
    notes: list[str] = msgspec.field(default_factory=list)
    """Said once, before the first prompt's reply."""
    read_link: ReadLink | None = None
    """Reads a file a prompt links to, under ``read_file``'s rules, in the session's folder."""


class SavedSession(msgspec.Struct, frozen=True):
    """A saved session, as ``session/list`` shows it."""

    id: str
    cwd: str
    title: str | None
    updated: str
    """ISO 8601 UTC: when it was last saved."""


class SessionOpener(Protocol):
    """What the command line does for the agent."""

    async def open(self, cwd: Path, ways: ClientWays, servers: list[McpServer]) -> OpenedSession:
        """A new session in ``cwd``, with the MCP servers the client handed it."""
        ...

    async def load(
        self, cwd: Path, session_id: str, ways: ClientWays, servers: list[McpServer]
    ) -> OpenedSession:
        """The session saved under ``session_id`` opened again in ``cwd``: its store, facts
        and model; ``UnknownSession`` when none is saved under it, a ``WispError`` when it
        cannot be resumed (open in another wisp, unreadable)."""
        ...

    def save(self, opened: OpenedSession) -> None:
        """The session saved under its id, after a turn; ``WispError`` when it cannot be."""
        ...

    def saved(self, cwd: Path | None) -> list[SavedSession]:
        """The sessions saved for ``cwd`` (every folder's when None), most recent first."""
        ...

    async def switch_model(self, opened: OpenedSession, selection: str) -> None:
        """The session's conversation on another model, over the same store (as ``/model``);
        ``WispError`` when it cannot run."""
        ...

    async def models(self, current: str) -> list[str]:
        """The models a session may switch to: the enabled ones, ``current`` first."""
        ...

    async def settle_guidance(self, opened: OpenedSession) -> list[str]:
        """Before the session's first turn, once: the guidance files waiting asked about in
        the client's dialog, the conversation opened again on those accepted; the lines that
        say which were left out (docs/turn.md, "Guidance files")."""
        ...


class Session(msgspec.Struct):
    id: str
    opened: OpenedSession
    updates: TurnUpdates
    lock: asyncio.Lock = msgspec.field(default_factory=asyncio.Lock)
    sender: UpdateSender | None = None
    """The running prompt's updates, while one runs."""
    closed: bool = False

    @property
    def conversation(self) -> Conversation:
        return self.opened.conversation


class WispAgent:
    """The protocol's handlers over the sessions; ``close_all`` ends them (stdin closed)."""

    def __init__(self, opener: SessionOpener) -> None:
        self.opener = opener
        self.sessions: dict[str, Session] = {}
        self.conn: Any = None

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                load_session=True,
                # The client's MCP servers over stdio and streamable HTTP, not SSE.
                mcp_capabilities=McpCapabilities(http=True, sse=False),
                prompt_capabilities=PromptCapabilities(embedded_context=True),
                session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
            ),
            agent_info=Implementation(name="wisp", title="wisp", version=__version__),
            auth_methods=[],
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        return None

    async def new_session(
        self, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> NewSessionResponse:
        holder: dict[str, Session] = {}
        ways = ClientWays(self, lambda: holder["session"])
        try:
            opened = await self.opener.open(Path(cwd), ways, client_servers(mcp_servers))
        except Exception as exc:  # a model that cannot run: the client says why
            raise RequestError.internal_error({"details": str(exc)}) from exc
        session = self._opened(opened, cwd, holder)
        # Nothing is sent for the session here: a client drops updates for a session whose
        # session/new response it has not read. Its notes lead the first prompt's reply.
        return NewSessionResponse(
            session_id=session.id, config_options=await self._options(session)
        )

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> LoadSessionResponse:
        """The session saved under ``session_id`` resumed, its history replayed as updates
        before the answer (the client knows the id it asked for); one open here already is
        replayed as it stands."""
        session = self.sessions.get(session_id)
        if session is None:
            holder: dict[str, Session] = {}
            try:
                opened = await self.opener.load(
                    Path(cwd),
                    session_id,
                    ClientWays(self, lambda: holder["session"]),
                    client_servers(mcp_servers),
                )
            except UnknownSession as exc:
                raise RequestError(
                    -32002,
                    f"no session {session_id} to load",
                    {"sessionId": session_id, "details": str(exc)},
                ) from exc
            except Exception as exc:  # held by another wisp, unreadable, a model that cannot run
                raise RequestError.internal_error(
                    {"sessionId": session_id, "details": str(exc)}
                ) from exc
            session = self._opened(opened, cwd, holder)
        async with session.lock:
            history = history_updates(
                session.conversation.store, session.conversation.working_directory
            )
            for update in history:
                await self.conn.session_update(session_id=session_id, update=update)
        return LoadSessionResponse(config_options=await self._options(session))

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        """Every session saved for ``cwd`` (every folder's without one), most recent first,
        in one page."""
        saved = await asyncio.to_thread(self.opener.saved, Path(cwd) if cwd else None)
        return ListSessionsResponse(
            sessions=[
                SessionInfo(session_id=s.id, cwd=s.cwd, title=s.title, updated_at=s.updated)
                for s in saved
            ]
        )

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        session = self._session(session_id)
        if config_id != MODEL_OPTION or not isinstance(value, str):
            raise RequestError.invalid_params({"details": f"no config option {config_id}"})
        async with session.lock:
            if value != session.conversation.model:
                try:
                    await self.opener.switch_model(session.opened, value)
                except Exception as exc:
                    raise RequestError.invalid_params({"details": str(exc)}) from exc
        return SetSessionConfigOptionResponse(config_options=await self._options(session))

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        session = self._session(session_id)
        async with session.lock:
            if session.closed:
                raise RequestError.invalid_params({"details": f"session {session_id} closed"})
            sender = session.sender = UpdateSender(self.conn, session_id)
            notes, session.opened.notes = session.opened.notes, []
            for note in notes:
                sender.put(update_agent_message_text(f"({note})\n\n"))
            for note in await self.opener.settle_guidance(session.opened):
                sender.put(update_agent_message_text(f"({note})\n\n"))
            text, skipped = await asyncio.to_thread(prompt_text, prompt, session.opened.read_link)
            for note in skipped:
                sender.put(update_agent_message_text(f"({note})\n\n"))
            try:
                result = await self._turn(session, text)
                closing = closing_lines(result) + await self._save(session)
                if closing:
                    sender.put(update_agent_message_text(closing))
            finally:
                await sender.close()
                session.sender = None
            return PromptResponse(stop_reason=stop_reason(result))  # type: ignore[arg-type]

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None:
            session.conversation.stop()

    async def close_session(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.pop(session_id, None)
        if session is not None:
            await _end(session, "closed")

    async def close_all(self) -> None:
        for session_id in list(self.sessions):
            await self.close_session(session_id)

    # -- helpers --------------------------------------------------------------------------------

    def _opened(
        self,
        opened: OpenedSession,
        cwd: str,
        holder: dict[str, Session],
    ) -> Session:
        """A session opened (new or loaded) kept under its id."""
        session = Session(opened.id, opened, TurnUpdates(Path(cwd)))
        holder["session"] = session
        self.sessions[session.id] = session
        return session

    async def _save(self, session: Session) -> str:
        """The session saved after its turn (stopped ones too: as far as they went); the line
        that says why it could not be, else nothing."""
        try:
            await asyncio.to_thread(self.opener.save, session.opened)
        except WispError as exc:
            return f"\n\nwisp: this session was not saved: {exc}"
        return ""

    def _session(self, session_id: str) -> Session:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.invalid_params({"details": f"unknown session {session_id}"})
        return session

    async def _options(self, session: Session) -> list[SessionConfigOptionSelect]:
        current = session.conversation.model
        models = await self.opener.models(current)
        return [
            SessionConfigOptionSelect(
                id=MODEL_OPTION,
                name="Model",
                description="The model this session runs on (as /model in wisp chat)",
                category="model",
                type="select",
                current_value=current,
                options=[SessionConfigSelectOption(value=name, name=name) for name in models],
            )
        ]

    async def _turn(self, session: Session, text: str) -> TurnResult:
        """One turn, every event it makes sent as its updates. A cancelled request stops it as
        Ctrl-C stops chat's; the turn is still stored before the cancellation goes on."""
        conversation = session.conversation

        def emit(event: AgentEvent) -> None:
            if session.sender is not None:
                for update in session.updates.updates(event):
                    session.sender.put(update)

        with conversation.subscribe(emit):
            running = asyncio.ensure_future(conversation.run_turn(text))
            try:
                return await asyncio.shield(running)
            except asyncio.CancelledError:
                conversation.stop()
                await asyncio.wait({running})
                raise


async def _end(session: Session, reason: str) -> None:
    """End a session once its running prompt, if any, is done."""
    session.conversation.stop()
    async with session.lock:
        if session.closed:
            return
        session.closed = True
        with contextlib.suppress(Exception):
            await session.opened.end(reason)
