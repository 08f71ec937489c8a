"""Building a conversation, the same for every face: chat, one-shot, ``wisp mcp``'s threads and
``wisp acp``'s sessions. A face says what differs (its entry point, who approves and answers,
its folder, its model and command options); the builder makes the runner, the tools, the
store and the ``Conversation`` with the config's settings, and records ``session.start`` and
``model.resolved`` (docs/design.md, "Parts built so far")."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import msgspec

from wisp.agent.context import ContextSettings
from wisp.agent.loop import Conversation
from wisp.agent.prompt import system_prompt
from wisp.agent.recorder import Recorder
from wisp.agent.types import LateTools, ResolvedModel, Tool
from wisp.audit import AuditLog, open_sink
from wisp.audit.kinds import ModelResolved, SessionStart
from wisp.cli.building.model_choice import ModelChoice
from wisp.cli.building.runner import CommandOptions, build_runner
from wisp.cli.context import Context, audit_settings
from wisp.config import Config
from wisp.config.mcp_servers import McpServer, configured_servers
from wisp.config.settings import MCP_SERVERS
from wisp.facts.book import Fact, FactBook
from wisp.facts.shared import SharedFacts
from wisp.guidance import SessionGuidance
from wisp.mcp_client.connection import Launch
from wisp.mcp_client.launch import launcher
from wisp.mcp_client.offered import ServerTools, started_servers
from wisp.mcp_client.pool import Lease, ServerPool
from wisp.models.suggested import TOOL_MODEL_HINT
from wisp.notify.notifier import Notifier, build_notifier
from wisp.notify.routes import Route
from wisp.policy.approvers import NobodyApprover
from wisp.policy.types import Approver, Asker
from wisp.routing.router import Router
from wisp.store import ConversationStore, PendingEntry
from wisp.tools.command_runner import CommandRunner
from wisp.tools.registry import default_tools

if TYPE_CHECKING:
    from wisp.cli.models.tool_actions import ModelsCommands

Record = Callable[[Any], Any]


class NamedModel(msgspec.Struct, frozen=True):
    """What ``ModelChoice`` reads of a face's options when the model is named: a thread's or
    an ACP session's model is never a fallback."""

    model: str
    entry_point: str


class SessionBuilder:
    """Builds a face's conversations: one config, one WISP_HOME, one folder, one set of
    command switches. Who approves commands and who answers the model's questions are passed
    to ``runner`` and ``tools``: they are what each face does its own way."""

    def __init__(
        self,
        context: Context,
        config: Config,
        *,
        entry_point: str,
        working_directory: Path,
        commands: CommandOptions,
    ) -> None:
        self.context = context
        self.config = config
        self.entry_point = entry_point
        self.working_directory = working_directory
        """Where the conversations' commands run and the root of their sandbox's writable set
        (with ``/tmp`` and the configured ``writableRoots``)."""
        self.commands = commands
        self.client_servers: list[McpServer] = []
        """MCP servers the face's client handed the session (ACP's ``session/new``)."""
        self.pool = ServerPool()
        """The MCP servers running for the session's conversations."""
        self._servers: asyncio.Task[Lease] | None = None
        self._servers_taken = False
        self.guidance: SessionGuidance | None = None
        """The guidance files read at the session's start (``read_guidance``), and which of
        them the conversations use."""
        self._models: ModelsCommands | None = None
        """What the ``models`` tool runs, and the pulls it started (``models_commands``)."""

    @property
    def extension(self) -> str | None:
        """``systemPromptExtension``, None when it is blank."""
        value = self.config.settings.system_prompt_extension
        return value if value.strip() else None

    @property
    def recorded_extension(self) -> str | None:
        """What ``session.start`` records as ``systemPromptExtension``: the operator's layer,
        then each guidance file used, with its SHA-256."""
        if self.guidance is None:
            return self.extension
        return self.guidance.recorded(self.extension)

    def read_guidance(self, *, asks: bool) -> list[str]:
        """The working folder's guidance files, read now, once (docs/turn.md, "Guidance
        files"), unless ``guidance.enabled`` is off. A face that never ``asks`` uses only the
        files accepted already: the lines that say which were left out, and why, for stderr."""
        if not self.config.settings.guidance.enabled:
            return []
        self.guidance = SessionGuidance.read(self.working_directory, self.context.home.root)
        return [] if asks else self.guidance.unasked()

    def choice(self, record: Record, options: Any) -> ModelChoice:
        """The face's model choice, reading ``options.model`` and ``options.entry_point`` (a
        chat's command line falls back to ``local``); the settings are the builder's, as they
        are reloaded."""
        return ModelChoice(self.context, options, lambda: self.config, record)

    def named(self, selection: str, record: Record) -> ModelChoice:
        """A choice for one named model, never falling back."""
        return self.choice(record, NamedModel(selection, self.entry_point))

    def runner(
        self, record: Record, approver: Approver, warn: Callable[[str], None]
    ) -> CommandRunner:
        """The conversation's command runner: one gate, asking ``approver``."""
        return build_runner(
            config=self.config,
            home=self.context.home.root,
            environ=self.context.environ,
            working_directory=self.working_directory,
            record=record,
            options=self.commands,
            approver=approver,
            warn=warn,
        )

    @property
    def mcp_servers(self) -> list[McpServer]:
        """The MCP servers configured (``mcpServers``), then those a client handed the session
        (an ACP client's, which win over a configured one of the same name); each well-formed
        or with its problem."""
        configured = configured_servers(self.config.data.get(MCP_SERVERS), str(self.config.path))
        given = {server.name for server in self.client_servers}
        return [s for s in configured if s.name not in given] + self.client_servers

    def start_servers(self) -> None:
        """Start the configured MCP servers for the folder, once a session: a face calls it
        before it resolves its model, so that the two happen at once (docs/mcp.md, "MCP
        servers as tools")."""
        if self._servers is not None or not self.mcp_servers:
            return
        self._servers = self._lease()

    def _lease(self) -> asyncio.Task[Lease]:
        return asyncio.create_task(
            self.pool.lease(self.mcp_servers, self.working_directory, self.server_launch())
        )

    def server_launch(self) -> Launch:
        """How the session reaches its servers: a stdio server through a runner of its own,
        confined as the model's commands are, with the environment they get."""
        runner = self.runner(lambda event: None, NobodyApprover(), lambda note: None)
        return launcher(runner, self.working_directory)

    def server_tools(
        self, runner: CommandRunner, record: Record, warn: Callable[[str], None]
    ) -> ServerTools | None:
        """A conversation's share of the servers: their tools, cleared by ``runner``'s gate,
        join it at its first turn; None when no server is configured."""
        self.start_servers()
        if self._servers is None:
            return None
        # The lease started with the session is the first conversation's; each later one takes
        # its own, so a server stops when the last conversation using it lets go.
        lease, self._servers_taken = (
            (self._lease(), True) if self._servers_taken else (self._servers, True)
        )
        problems = [s.problem for s in self.mcp_servers if s.enabled and s.problem is not None]
        return ServerTools(lease, runner.gate, record, warn, problems=problems)

    async def aclose(self) -> None:
        """Stops the servers the session started, and the pulls the models tool started (each
        recorded as cancelled)."""
        if self._models is not None:
            await self._models.aclose()
        await self.pool.aclose()

    def tools(
        self, runner: CommandRunner | None, asker: Asker, notifier: Notifier | None = None
    ) -> list[Tool]:
        """The tools the config gives, their questions put to ``asker``, their notifications
        to ``notifier`` (without one, no ``notify``), the ``models`` tool's changes asked
        through ``runner``'s gate."""
        return default_tools(
            self.config, runner=runner, asker=asker, notifier=notifier,
            models=self.models_commands(),
        )  # fmt: skip

    def models_commands(self) -> ModelsCommands | None:
        """The models commands the ``models`` tool runs, one for the session's conversations;
        None while ``models.tool`` is off (they are imported only when it is on)."""
        if not self.config.settings.models.tool:
            return None
        if self._models is None:
            from wisp.cli.models.tool_actions import ModelsCommands

            self._models = ModelsCommands(self.context)
        return self._models

    def notifier(
        self, record: Record, *, host: Route | None = None, terminal: TextIO | None = None
    ) -> Notifier:
        """The face's one notifier (docs/watch.md, "Routes"): its host when it has one, the
        terminal it may write to (never a protocol's stream), the desktop's service; ``notify``
        in the config, read at each request."""
        return build_notifier(
            lambda: self.config.settings.notify, record, env=self.context.environ,
            host=host, terminal=terminal,
        )  # fmt: skip

    def instructions(self, tools: list[Tool], given: str | None = None) -> str:
        """The instructions a conversation offering ``tools`` starts with, ``given`` (a
        caller's own) as their last layer."""
        names = {tool.name for tool in tools}
        return system_prompt(
            has_tools=bool(tools),
            has_memory="memory" in names,
            extension=self.extension,
            instructions=given,
            guidance=self.guidance.layer() if self.guidance is not None else None,
        )

    def start(
        self,
        model: str,
        tools: list[str],
        *,
        entry_point: str | None = None,
        instructions: str | None = None,
        switches: CommandOptions | None = None,
    ) -> SessionStart:
        """``session.start`` for a conversation (not recorded yet: a face adds its own
        fields). ``switches`` are the ``--yes`` and ``--unsafe`` it records, the builder's by
        default."""
        switches = self.commands if switches is None else switches
        start = SessionStart(
            entry_point=entry_point or self.entry_point,
            system_prompt_extension=self.recorded_extension,
            instructions=instructions,
            tools=tools,
            model=model,
            unsafe=switches.unsafe,
            auto_approve=switches.yes or switches.yes_network,
        )
        if servers := started_servers(self.mcp_servers):
            start.mcp_servers = servers
        return start

    def conversation(
        self,
        recorder: Recorder,
        model: ResolvedModel,
        tools: list[Tool],
        runner: CommandRunner,
        *,
        store: ConversationStore | None = None,
        facts: FactBook | None = None,
        instructions: str | None = None,
        turn: int = 0,
        late_tools: LateTools | None = None,
    ) -> Conversation:
        """A conversation on ``model`` with ``tools`` over ``store`` (a new one holding only
        its instructions when None) knowing ``facts`` (none when None); ``model.resolved``
        recorded."""
        names = [tool.name for tool in tools]
        recorder.record(resolved_event(model, names))
        if instructions is None:
            instructions = self.instructions(tools)
        if store is None:
            store = new_store(instructions)
        settings = self.config.settings
        section = settings.context
        shared = SharedFacts(self.context.home.root)
        conversation = Conversation(
            model=model,
            tools=tools,
            store=store,
            recorder=recorder,
            instructions=instructions,
            home=self.context.home.root,
            config=self.config,
            working_directory=self.working_directory,
            audit_file=self.context.home.audit_file if settings.audit.enabled else None,
            max_steps=settings.agent.max_steps,
            max_reply_tokens=settings.agent.max_reply_tokens,
            memory="memory" in names,
            context=ContextSettings(
                section.budget, section.target, section.headroom_turns, section.summary_batch
            ),
            assessment=settings.assessment.enabled,
            router=Router(lambda: self.config, self.named("local", recorder.record).resolve),
            facts=opening_facts(shared, facts),
            facts_enabled=settings.facts.enabled,
            shared_facts=shared,
            late_tools=late_tools,
        )
        conversation.turn = turn
        conversation.sandbox_mechanism = runner.sandbox_state().mechanism
        return conversation

    def reopened(
        self, recorder: Recorder, old: Conversation, runner: CommandRunner, *, fresh: bool
    ) -> Conversation:
        """``old`` opened again on the instructions with the guidance files the person has
        just accepted, before any turn (docs/turn.md, "Guidance files"): ``session.start``
        with ``reason: "guidance"`` records the layer. A ``fresh`` conversation's store is
        begun again; a resumed one keeps its own."""
        recorder.record(
            SessionStart(
                reason="guidance",
                system_prompt_extension=self.recorded_extension,
                tools=old.tool_names,
                model=old.model,
            )
        )
        store = new_store(self.instructions(old.tools)) if fresh else old.store
        return self.conversation(
            recorder, old.resolved, old.tools, runner,
            store=store, facts=old.facts.book, turn=old.turn, late_tools=old.late_tools,
        )  # fmt: skip


def open_log(context: Context) -> tuple[Config, AuditLog]:
    """The settings in force and the process's audit log, WISP_HOME made first: what a face
    opens before its first conversation (``wisp mcp`` and ``wisp acp`` give each thread or
    session its own audit session on this log)."""
    config = context.load_config()
    context.home.ensure()
    return config, AuditLog(open_sink(audit_settings(config), context.home.audit_file))


def text_only_note(model: ResolvedModel, noun: str) -> str:
    """Said once when a text-only model runs with tools off (docs/models.md, "Capabilities");
    ``noun`` names the face's conversation."""
    return (
        f"{model.selection} is text only (no tool calling recorded for it): "
        f"this {noun} has no tools; {TOOL_MODEL_HINT}"
    )


def rebuilt(old: Conversation, store: ConversationStore) -> Conversation:
    """``old``'s conversation over another store (``/new``): its model, tools and settings,
    its turn count going on."""
    conversation = Conversation(
        model=old.resolved,
        tools=old.tools,
        store=store,
        recorder=old.recorder,
        instructions=old.instructions,
        home=old.home,
        config=old.config,
        working_directory=old.working_directory,
        audit_file=old.audit_file,
        max_steps=old.max_steps,
        max_reply_tokens=old.max_reply_tokens,
        memory=old.memory,
        context=old.meter.settings,
        assessment=old.assessment,
        router=old.assessor.router,
        facts=opening_facts(old.facts.shared, None, session=list(old.facts.book)),
        facts_enabled=old.facts.enabled,
        shared_facts=old.facts.shared,
        late_tools=old.late_tools,
    )
    conversation.turn = old.turn
    conversation.sandbox_mechanism = old.sandbox_mechanism
    return conversation


def opening_facts(
    shared: SharedFacts | None, saved: FactBook | None, *, session: Iterable[Fact] = ()
) -> FactBook:
    """A conversation's facts as it opens: the permanent ones kept under ``WISP_HOME`` (read
    now, so one kept by another conversation since is there), then this session's (``s…``, of
    the conversation ``/new`` replaces), then its own, resumed. A permanent fact's copy saved
    with a transcript gives way to the store's, and a session's fact saved with one belonged
    to another session: a resumed conversation leaves it out."""
    permanent = shared.read() if shared is not None else []
    carried = [fact for fact in session if fact.scope == "session"]
    own = [fact for fact in saved or () if fact.scope == "thread"]
    return FactBook([*permanent, *carried, *own])


def new_store(instructions: str) -> ConversationStore:
    """A store holding only the instructions."""
    store = ConversationStore()
    store.add(PendingEntry("instructions", instructions), turn=None, origin="carried", time=None)
    return store


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
