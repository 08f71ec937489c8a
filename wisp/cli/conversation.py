"""Opening a conversation: the model resolved, tools chosen, the store begun or resumed, and
``session.start`` and ``model.resolved`` recorded. Shared by one-shot prompts and chat, for
which it is also the ``ChatHost`` (``/model``, ``/new``, ``/save``)."""

from __future__ import annotations

import contextlib
import os
import shlex
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

import msgspec

from wisp import protocol as p
from wisp.agent.context import ContextSettings
from wisp.agent.loop import Conversation
from wisp.agent.prompt import instructions_for
from wisp.agent.recorder import Recorder
from wisp.agent.types import ResolvedModel, Tool, ToolContext
from wisp.audit import AuditLog, open_sink
from wisp.audit.kinds import HostHello, ModelResolved, SessionStart
from wisp.chat.bridge import NO_APPROVE_EFFECT, ProtocolApprover, ProtocolAsker, Waiters
from wisp.chat.relay import PendingRelay
from wisp.cli.chat_models import ChatModels
from wisp.cli.commands import (
    CommandOptions,
    approval_mode,
    build_runner,
)
from wisp.cli.context import Context, audit_settings
from wisp.cli.faces import Face, askers_for
from wisp.cli.model_choice import ModelChoice
from wisp.cli.own_programs import own_argv
from wisp.cli.typed import TypedCommand, run_typed_command
from wisp.config import Config
from wisp.models.suggested import TOOL_MODEL_HINT
from wisp.store import ConversationStore, PendingEntry, transcripts
from wisp.tools.inspect import InspectTool
from wisp.tools.registry import default_tools


class ConversationOptions(msgspec.Struct, frozen=True):
    """What the command line (or a client's session) asked for."""

    entry_point: str
    model: str | None = None
    no_tools: bool = False
    resume: str | None = None
    save: str | None = None
    commands: CommandOptions = msgspec.field(default_factory=CommandOptions)
    working_directory: Path = msgspec.field(default_factory=Path.cwd)
    """The conversation's working directory (absolute): where its commands run (the model's
    ``run_command``, ``!`` commands, the status line's git), what relative paths in its tools
    mean, and the root of its sandbox's writable set (with ``/tmp`` and the configured
    ``writableRoots``). The process's own directory by default; ``wisp acp`` passes each
    session's ``cwd``, so sessions in two folders are each confined to their own."""


class ChatSession:
    """One session: its audit log, HTTP client and current conversation.

    Its working directory is ``options.working_directory``, fixed for the session: every
    conversation it opens (``/new``, ``/model``) and its command runner use it, whatever the
    process's own directory. Several sessions may live in one process, each in its own folder:
    ``ChatSession.open(context, ConversationOptions(..., working_directory=folder), face)``."""

    def __init__(
        self,
        context: Context,
        options: ConversationOptions,
        config: Config,
        log: AuditLog,
        face: Face,
    ) -> None:
        self.context = context
        self.options = options
        self.config = config
        self.log = log
        self.face = face
        self.recorder = Recorder(log)
        self.choice = ModelChoice(context, options, lambda: self.config, self.recorder.record)
        """Which model runs, and the HTTP client of the servers that serve it."""
        self.notes: list[str] = []
        self.save_name = options.save or options.resume
        self._hold: transcripts.TranscriptLock | None = None
        """The lock on the conversation ``save_name`` names, held while the session is open."""
        self.waiters = Waiters()
        self.emit: Callable[[Any], None] = lambda line: None
        """Where protocol lines go (the chat loop sets it)."""
        approver, self.asker = askers_for(face, self.waiters, lambda line: self.emit(line))
        self.runner = build_runner(
            config=config,
            home=context.home.root,
            environ=context.environ,
            working_directory=self.working_directory,
            record=self.recorder.record,
            options=options.commands,
            approver=approver,
            warn=self.notes.append,
        )
        self._approver = approver
        self._relay: PendingRelay | None = None
        """Relays the requests ``wisp mcp`` servers file, once a hello declares ``approve-mcp``."""
        self._start_notes = list(self.notes)
        self.conversation: Conversation
        self.models = ChatModels(self)
        """``/models`` and the picker."""

    def on_hello(self, hello: p.ClientHello) -> None:
        """A front end's hello: recorded, and its effects decide who may be asked."""
        details = HostHello(effects=list(hello.effects))
        if isinstance(hello.client, str):
            details.client = hello.client
        if isinstance(hello.version, str):
            details.version = hello.version
        self.recorder.record(details)
        if isinstance(self._approver, ProtocolApprover):
            has_approve = "approve" in hello.effects
            self._approver.refusal = None if has_approve else NO_APPROVE_EFFECT
        if isinstance(self.asker, ProtocolAsker):
            self.asker.can_ask = "ask" in hello.effects
        if self.face.protocol and p.Effect.APPROVE_MCP in hello.effects and self._relay is None:
            self._relay = PendingRelay(
                self.context.home.root,
                self.waiters,
                emit=lambda line: self.emit(line),
                record=self.recorder.record,
            )
            self._relay.start()

    async def inspect(self, view: str) -> str:
        """/inspect VIEW: the same view the model's inspect tool gives."""
        conversation = self.conversation
        context = ToolContext(
            working_directory=conversation.working_directory,
            call_id="inspect",
            output_budget=64 * 1024,
            record=lambda details: None,  # the person's look is not the model's tool call
            conversation=conversation,
        )
        return await InspectTool().run({"what": view}, context)

    def approval_mode(self) -> str:
        return approval_mode(self.config, self.options.commands)

    def sandbox_state(self) -> tuple[bool, str | None]:
        state = self.runner.sandbox_state()
        return state.sandbox, state.note

    def git_argv(self, args: Sequence[str]) -> list[str] | None:
        """The status line's git: found outside the writable roots, confined (issue 12)."""
        search_path = self.context.environ.get("PATH", os.defpath)
        return own_argv(self.runner, "git", args, search_path)

    @classmethod
    @contextlib.asynccontextmanager
    async def open(
        cls, context: Context, options: ConversationOptions, face: Face | None = None
    ) -> AsyncIterator[ChatSession]:
        """A session with its conversation open; everything is closed on the way out."""
        config = context.load_config()
        context.home.ensure()
        log = AuditLog(open_sink(audit_settings(config), context.home.audit_file))
        session = cls(context, options, config, log, face or Face())
        try:
            if session.save_name:
                # Before the transcript is read: a second wisp on the name is refused (issue 12).
                session._hold = transcripts.hold(session._transcripts, session.save_name)
            model = await session._first_model()
            store = session._first_store(model, options.no_tools)
            session.conversation = session._converse(model, store, options.no_tools)
            yield session
        finally:
            await session.aclose()

    async def aclose(self) -> None:
        if self._relay is not None:
            await self._relay.stop()
        conversation = getattr(self, "conversation", None)
        if conversation is not None:
            await conversation.resolved.backend.aclose()
        await self.choice.aclose()
        if self._hold is not None:
            self._hold.release()
        self.log.close()

    @property
    def working_directory(self) -> Path:
        """Where this session's commands run and what its sandbox lets them write."""
        return self.options.working_directory

    # -- ChatHost -----------------------------------------------------------------------

    async def switch_model(self, name: str) -> list[str]:
        """/model NAME: the new model over the same store."""
        model = await self.choice.resolve(name)
        old = self.conversation
        await old.resolved.backend.aclose()
        self.notes = []
        self.conversation = self._converse(model, old.store, self.options.no_tools, turn=old.turn)
        return self.notes

    def new_conversation(self) -> None:
        """/new: a store holding only the instructions; the turn count goes on."""
        old = self.conversation
        store = self._new_store(old.instructions)
        self.recorder.record(SessionStart(reason="new", tools=old.tool_names, model=old.model))
        self.conversation = self._rebuild(old, store)

    def save(self, name: str) -> Path:
        """Save the conversation as ``name``, holding that name from now on (``/save`` may
        name a new one); ``TranscriptError`` when it is held elsewhere or cannot be written."""
        if self._hold is None or self._hold.name != name:
            hold = transcripts.hold(self._transcripts, name)
            if self._hold is not None:
                self._hold.release()
            self._hold = hold
        return transcripts.save(self.conversation.store, self._transcripts, name)

    async def run_typed(self, line: str) -> TypedCommand:
        """``!cmd``: the person's own command, through the lists and the sandbox; recorded as
        ``command.typed`` and told to the model on its next request."""
        conversation = self.conversation
        return await run_typed_command(
            self.runner,
            line,
            conversation,
            record=self.recorder.record,
            stored_dir=self.context.home.root / "output" / self.recorder.session,
        )

    # -- building ---------------------------------------------------------------------------

    @property
    def _transcripts(self) -> Path:
        return self.context.home.root / "transcripts"

    async def _first_model(self) -> ResolvedModel:
        model, fell_back = await self.choice.first()
        if fell_back is not None:
            self.notes.append(fell_back)
            self._start_notes.append(fell_back)
        return model

    @property
    def http_client(self) -> Any:
        """The session's HTTP client if one was made, else None."""
        return self.choice.http_client

    def http(self) -> Any:
        """The session's HTTP client, made on first use."""
        return self.choice.http()

    def _tools(self, model: ResolvedModel, no_tools: bool) -> list[Tool]:
        tools: list[Tool] = []
        if not no_tools:
            tools = default_tools(self.config, runner=self.runner, asker=self.asker)
        if tools and not model.can_call_tools:
            # A text-only model runs with tools off, said once (docs/models.md, "Capabilities").
            self.notes.append(
                f"{model.selection} is text only (no tool calling recorded for it): "
                f"this conversation has no tools; {TOOL_MODEL_HINT}"
            )
            return []
        return tools

    def _instructions(self, tools: list[Tool]) -> str:
        return instructions_for(tools, self._extension())

    def _extension(self) -> str | None:
        value = self.config.settings.system_prompt_extension
        return value if value.strip() else None

    def _first_store(self, model: ResolvedModel, no_tools: bool) -> ConversationStore:
        tools = self._tools(model, no_tools)
        self.notes = list(self._start_notes)  # the tools' note is said when it opens
        if self.options.resume:
            return transcripts.load(self._transcripts, self.options.resume)
        return self._new_store(self._instructions(tools))

    def _new_store(self, instructions: str) -> ConversationStore:
        store = ConversationStore()
        store.add(
            PendingEntry("instructions", instructions), turn=None, origin="carried", time=None
        )
        return store

    def _converse(
        self, model: ResolvedModel, store: ConversationStore, no_tools: bool, turn: int = 0
    ) -> Conversation:
        tools = self._tools(model, no_tools)
        names = [tool.name for tool in tools]
        if turn == 0:
            self._record_start(model, names, store)
        self.recorder.record(resolved_event(model, names))
        conversation = Conversation(
            model=model,
            tools=tools,
            store=store,
            recorder=self.recorder,
            instructions=self._instructions(tools),
            home=self.context.home.root,
            config=self.config,
            working_directory=self.working_directory,
            audit_file=self.context.home.audit_file if self.log_enabled else None,
            max_steps=self.config.settings.agent.max_steps,
            max_reply_tokens=self.config.settings.agent.max_reply_tokens,
            memory="memory" in names,
            context=self._context_settings(),
        )
        conversation.turn = turn
        conversation.sandbox_mechanism = self.runner.sandbox_state().mechanism
        return conversation

    def _rebuild(self, old: Conversation, store: ConversationStore) -> Conversation:
        conversation = Conversation(
            model=old.resolved,
            tools=old.tools,
            store=store,
            recorder=self.recorder,
            instructions=old.instructions,
            home=old.home,
            config=old.config,
            working_directory=old.working_directory,
            audit_file=old.audit_file,
            max_steps=old.max_steps,
            max_reply_tokens=old.max_reply_tokens,
            memory=old.memory,
            context=old.meter.settings,
        )
        conversation.turn = old.turn
        conversation.sandbox_mechanism = old.sandbox_mechanism
        return conversation

    def _context_settings(self) -> ContextSettings:
        section = self.config.settings.context
        return ContextSettings(section.budget, section.target, section.headroom_turns)

    @property
    def log_enabled(self) -> bool:
        return audit_settings(self.config).enabled

    def _record_start(
        self, model: ResolvedModel, names: list[str], store: ConversationStore
    ) -> None:
        start = SessionStart(
            entry_point=self.options.entry_point,
            system_prompt_extension=self._extension(),
            instructions=None,
            tools=names,
            model=model.selection,
            unsafe=False,
            auto_approve=False,
            resume=self.options.resume,
        )
        if self.options.resume:
            start.carried_from = transcripts.carried_from(store)
        self.recorder.record(start)


def resolved_event(model: ResolvedModel, tools: list[str]) -> ModelResolved:
    """``model.resolved`` for a conversation's model and the tools it offers."""
    resolved = ModelResolved(
        model=model.selection,
        backend=model.backend_name,
        asset=model.asset,
        capabilities=list(model.capabilities),
        capability_source=model.capability_source,
        tools=tools,
        context_size=model.context_size,
    )
    if model.context_note:
        resolved.context_note = model.context_note
    return resolved


def save_if_asked(session: ChatSession) -> str | None:
    """The save a one-shot run asked for (``--save``, or ``--resume`` saves back); the line
    that says where it went and how to go on, or None when none was asked for.
    ``TranscriptError`` when it cannot be saved."""
    name = session.options.save or session.options.resume
    if not name:
        return None
    path = session.save(name)
    quoted = shlex.quote(name)
    return (
        f'saved to {path}; continue with: wisp --resume {quoted} "…" '
        f"(or wisp chat --resume {quoted})"
    )
