"""Chat's and the one-shot's session: the model chosen, the conversation built by the
``SessionBuilder`` every face shares (the store begun or resumed, ``session.start`` and
``model.resolved`` recorded), the face subscribed once (``ChatSession.subscribe``). For chat it
is also the ``ChatHost`` (``/model``, ``/new``, ``/save``)."""

from __future__ import annotations

import contextlib
import os
import shlex
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path

import msgspec

from wisp import protocol as p
from wisp.agent.distilling import SummaryVersion
from wisp.agent.events import Emit
from wisp.agent.loop import Conversation
from wisp.agent.recorder import Recorder
from wisp.agent.types import ResolvedModel, Tool, ToolContext
from wisp.audit import AuditLog
from wisp.audit.kinds import HostHello, SessionStart
from wisp.chat.bridge import NO_APPROVE_EFFECT, ProtocolApprover, ProtocolAsker, Waiters
from wisp.chat.host import Write
from wisp.chat.notices import protocol_host
from wisp.chat.relay import PendingRelay, relayed_kinds
from wisp.cli.building.own_programs import own_argv
from wisp.cli.building.runner import CommandOptions, approval_mode
from wisp.cli.building.session import (
    SessionBuilder,
    new_store,
    open_log,
    rebuilt,
    text_only_note,
)
from wisp.cli.building.transcript import SavedTranscript
from wisp.cli.chat.faces import Face, askers_for
from wisp.cli.chat.guidance import ChatGuidance
from wisp.cli.chat.models import ChatModels
from wisp.cli.chat.typed import TypedCommand, run_typed_command
from wisp.cli.context import Context
from wisp.config import Config
from wisp.facts.book import FactBook
from wisp.store import ConversationStore, transcripts
from wisp.tools.inspect import InspectTool


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


def _nowhere(line: p.Outbound) -> None:
    """The session's lines before a face subscribes: shown nowhere."""


class ChatSession:
    """One session: its audit log, HTTP client and current conversation.

    Its working directory is ``options.working_directory``, fixed for the session: every
    conversation it opens (``/new``, ``/model``) and its command runner use it, whatever the
    process's own directory. Several sessions may live in one process, each in its own folder:
    ``ChatSession.open(context, ConversationOptions(..., working_directory=folder), face)``.
    Its conversations are built by the ``SessionBuilder`` every face shares, its model chosen
    by ``ModelChoice`` and its transcript kept by ``SavedTranscript``."""

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
        self.log = log
        self.face = face
        self.recorder = Recorder(log)
        self.builder = SessionBuilder(
            context,
            config,
            entry_point=options.entry_point,
            working_directory=options.working_directory,
            commands=options.commands,
        )
        self.choice = self.builder.choice(self.recorder.record, options)
        """Which model runs, and the HTTP client of the servers that serve it."""
        self.notes: list[str] = []
        self.save_name = options.save or options.resume
        self.transcript = SavedTranscript(context.home.root / "transcripts")
        self.waiters = Waiters()
        self._lines: Write = _nowhere
        """Where the session's own protocol lines go (``subscribe`` sets it)."""
        approver, self.asker = askers_for(face, self.waiters, lambda line: self._lines(line))
        self.runner = self.builder.runner(self.recorder.record, approver, self.notes.append)
        self.hello_effects: list[str] = []
        """What the front end's ``hello`` declared: ``notify`` makes it the host of the
        notifications."""
        # Under --json the front end owns the terminal: it hosts notifications once its hello
        # declares notify, and wisp never writes a sequence there itself.
        over_json = face.protocol and face.asks_via == "json"
        self.notifier = self.builder.notifier(
            self.recorder.record,
            host=protocol_host(lambda line: self._lines(line), lambda: self.hello_effects)
            if over_json
            else None,
            terminal=None if over_json else context.stderr,
        )
        """The chat's one notifier: the model's ``notify`` tool and the loop's notices."""
        self._approver = approver
        self._relay: PendingRelay | None = None
        """Relays the requests ``wisp mcp`` servers file, once a hello declares ``approve-mcp``."""
        self._start_notes = list(self.notes)
        self.conversation: Conversation
        self.models = ChatModels(self)
        """``/models`` and the picker."""
        self.guidance = ChatGuidance(self, self.waiters, lambda line: self._lines(line))
        """The guidance files, settled by the chat loop before the first turn."""

    @property
    def config(self) -> Config:
        """The settings in force: reloaded when models are turned on or off."""
        return self.builder.config

    @config.setter
    def config(self, config: Config) -> None:
        self.builder.config = config

    @contextlib.contextmanager
    def subscribe(self, emit: Emit, lines: Write = _nowhere) -> Iterator[None]:
        """The face's one wire, for the session's whole life (``/model`` and ``/new``
        included): the agent's events go to ``emit`` and the lines the session writes itself
        (approvals, questions, relayed requests) to ``lines``."""
        previous, self._lines = self._lines, lines
        try:
            with self.recorder.subscribe(emit):
                yield
        finally:
            self._lines = previous

    def on_hello(self, hello: p.ClientHello) -> None:
        """A front end's hello: recorded, and its effects decide who may be asked."""
        details = HostHello(effects=list(hello.effects))
        if isinstance(hello.client, str):
            details.client = hello.client
        if isinstance(hello.version, str):
            details.version = hello.version
        self.recorder.record(details)
        self.hello_effects = list(hello.effects)
        if isinstance(self._approver, ProtocolApprover):
            has_approve = "approve" in hello.effects
            self._approver.refusal = None if has_approve else NO_APPROVE_EFFECT
        if isinstance(self.asker, ProtocolAsker):
            self.asker.can_ask = "ask" in hello.effects
        kinds = relayed_kinds(hello.effects)
        if self.face.protocol and kinds and self._relay is None:
            self._relay = PendingRelay(
                self.context.home.root,
                self.waiters,
                emit=lambda line: self._lines(line),
                record=self.recorder.record,
            )
            for kind in kinds:
                self._relay.relay(kind)
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
        """The status line's git: found outside the writable roots, confined (docs/sandbox.md,
        "Threat model")."""
        search_path = self.context.environ.get("PATH", os.defpath)
        return own_argv(self.runner, "git", args, search_path)

    @classmethod
    @contextlib.asynccontextmanager
    async def open(
        cls, context: Context, options: ConversationOptions, face: Face | None = None
    ) -> AsyncIterator[ChatSession]:
        """A session with its conversation open; everything is closed on the way out."""
        config, log = open_log(context)
        session = cls(context, options, config, log, face or Face())
        try:
            if session.save_name:
                # Before the transcript is read: a second wisp on the name is refused.
                session.transcript.hold(session.save_name)
            # Read once, now; a chat asks about the files waiting from its loop.
            for line in session.builder.read_guidance(asks=session.face.protocol):
                context.warn(line)
            session.builder.start_servers()  # beside the model's resolution
            model = await session._first_model()
            store, facts, summaries = session._first_store(model)
            session.conversation = session._converse(model, store, facts)
            session.conversation.summary.restore(summaries)
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
        await self.builder.aclose()
        self.transcript.release()
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
        self.conversation = self._converse(model, old.store, old.facts.book, turn=old.turn)
        self.conversation.summary.restore(old.summary.versions, old.summary.waiting)
        return self.notes

    def new_conversation(self) -> None:
        """/new: a store holding only the instructions; the turn count goes on."""
        old = self.conversation
        store = new_store(old.instructions)
        self.recorder.record(SessionStart(reason="new", tools=old.tool_names, model=old.model))
        self.conversation = rebuilt(old, store)

    def save(self, name: str) -> Path:
        """Save the conversation as ``name``, holding that name from now on (``/save`` may
        name a new one); ``TranscriptError`` when it is held elsewhere or cannot be written."""
        return self.transcript.save(self.conversation, name)

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

    async def _first_model(self) -> ResolvedModel:
        model, fell_back = await self.choice.first()
        if fell_back is not None:
            self.notes.append(fell_back)
            self._start_notes.append(fell_back)
        return model

    def _tools(self, model: ResolvedModel) -> list[Tool]:
        if self.options.no_tools:
            return []
        tools = self.builder.tools(self.runner, self.asker, self.notifier)
        if tools and not model.can_call_tools:
            self.notes.append(text_only_note(model, "conversation"))
            return []
        return tools

    def _first_store(
        self, model: ResolvedModel
    ) -> tuple[ConversationStore, FactBook, list[SummaryVersion]]:
        tools = self._tools(model)
        self.notes = list(self._start_notes)  # the tools' note is said when it opens
        if self.options.resume:
            resumed = self.transcript.load(self.options.resume)
            return resumed.store, resumed.facts, resumed.summaries
        return new_store(self.builder.instructions(tools)), FactBook(), []

    def _converse(
        self, model: ResolvedModel, store: ConversationStore, facts: FactBook, turn: int = 0
    ) -> Conversation:
        tools = self._tools(model)
        if turn == 0:
            # A chat's session.start has never carried --yes and --unsafe (docs/logging.md).
            start = self.builder.start(
                model.selection, [tool.name for tool in tools], switches=CommandOptions()
            )
            start.resume = self.options.resume
            if self.options.resume:
                start.carried_from = transcripts.carried_from(store)
            self.recorder.record(start)
        late = self.builder.server_tools(self.runner, self.recorder.record, self.context.warn)
        return self.builder.conversation(
            self.recorder, model, tools, self.runner,
            store=store, facts=facts, turn=turn, late_tools=late if tools else None,
        )  # fmt: skip


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
