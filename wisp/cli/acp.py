"""``wisp acp``: wisp as an agent of the Agent Client Protocol (Zed, Toad, any ACP client), on
stdio.

This module builds what the agent in ``wisp.acp`` is handed: each session's conversation (its
model, tools, runner and approver, its own audit session, its working directory and writable
roots from the session's ``cwd``). The ``acp`` SDK is imported only when the command runs, so
``wisp --help`` and every other command never load it (docs/acp.md)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from wisp.cli.context import Context
from wisp.cli.serving import add_serving_options
from wisp.errors import UsageError

if TYPE_CHECKING:
    from wisp.acp.agent import OpenedSession
    from wisp.acp.asking import ClientWays
    from wisp.agent.loop import Conversation
    from wisp.agent.recorder import Recorder
    from wisp.agent.types import ResolvedModel
    from wisp.config import Config

DESCRIPTION = """\
Run wisp as an agent of the Agent Client Protocol on stdin and stdout, until stdin closes: an
editor or front end (Zed, Toad, any ACP client) opens sessions, each a wisp conversation in the
session's folder, and sends prompts; wisp's model reads, runs commands and answers under wisp's
policy, sandbox and audit. Each command it asks to run waits for the person's approval: in the
client's permission dialog, or with wisp approvals or wisp-tui. Diagnostics go to stderr."""

EPILOG = """\
examples:
  wisp acp                           the config's model, every tool
  wisp acp -m ollama:qwen3           another model (the client may switch it per session)
  toad acp "wisp acp"                wisp in Toad

see docs/acp.md for the updates, approvals and what is not done yet, and README.md for adding
wisp to Zed (agent_servers in settings.json) and Toad."""

NOT_A_PIPE = (
    "wisp acp speaks the protocol on stdin and stdout, which must be pipes (or a terminal): "
    "let an ACP client start it (see wisp acp --help)"
)
MISSING_SDK = (
    "wisp acp needs the Agent Client Protocol SDK, an optional extra: pip install 'wisp[acp]' "
    "(or pip install 'agent-client-protocol>=0.12,<0.13')"
)


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "acp",
        help="Run wisp as an Agent Client Protocol agent (Zed, Toad) on stdio.",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_serving_options(
        parser, model_help="the model a session starts on (default: config's model)"
    )
    parser.set_defaults(handler=run_acp)


def run_acp(args: argparse.Namespace, context: Context) -> int:
    import asyncio

    try:
        import acp  # noqa: F401  (only to say what is missing, before anything starts)
    except ImportError:
        context.warn(MISSING_SDK)
        return 1
    if not _streams_fit():
        raise UsageError(NOT_A_PIPE)
    options = AcpOptions(model=args.model, yes=args.yes, unsafe=args.unsafe)
    return asyncio.run(_serve(context, options))


def _streams_fit() -> bool:
    """Whether stdin and stdout are pipes, sockets or terminals: the SDK's stdio reads and
    writes only those (a client always starts wisp acp on pipes)."""
    import os
    import stat
    import sys

    try:
        modes = [os.fstat(stream.fileno()).st_mode for stream in (sys.stdin, sys.stdout)]
    except (OSError, ValueError):
        return False
    return all(stat.S_ISFIFO(m) or stat.S_ISSOCK(m) or stat.S_ISCHR(m) for m in modes)


class AcpOptions(msgspec.Struct, frozen=True):
    """The command line's choices."""

    model: str | None = None
    yes: bool = False
    unsafe: bool = False


async def _serve(context: Context, options: AcpOptions) -> int:
    from acp import run_agent

    from wisp.acp.agent import WispAgent
    from wisp.audit import AuditLog, open_sink
    from wisp.cli.context import audit_settings

    config = context.load_config()
    context.home.ensure()
    log = AuditLog(open_sink(audit_settings(config), context.home.audit_file))
    agent = WispAgent(SessionBuilder(context, options, config, log))
    try:
        await run_agent(agent)
    finally:
        await agent.close_all()
        log.close()
    return 0


class SessionBuilder(msgspec.Struct):
    """Builds each session's conversation the way chat builds its own, with an approver that
    asks in the client's permission dialog and out of band at once."""

    context: Context
    options: AcpOptions
    config: Config
    log: Any
    """The process's audit log; each session writes its own session on its sink."""
    choices: dict[int, Any] = msgspec.field(default_factory=dict)

    async def open(self, cwd: Path, ways: ClientWays) -> OpenedSession:
        from wisp.acp.agent import OpenedSession
        from wisp.agent.recorder import Recorder
        from wisp.audit.kinds import SessionEnd
        from wisp.audit.log import new_session_id
        from wisp.cli.model_choice import ModelChoice

        recorder = Recorder(self.log.for_session(new_session_id()))
        selection = self.options.model or self.config.settings.model
        choice = ModelChoice(
            self.context, _SessionModel(selection), lambda: self.config, recorder.record
        )
        notes: list[str] = []
        runner = self._runner(cwd, recorder, ways, notes)
        try:
            model = await choice.resolve(selection)
        except BaseException:
            await choice.aclose()
            raise
        conversation = self._conversation(cwd, model, runner, recorder, ways, notes)

        async def end(reason: str) -> None:
            recorder.record(SessionEnd(reason=reason))
            await opened.conversation.resolved.backend.aclose()
            await choice.aclose()

        opened = OpenedSession(
            conversation=conversation,
            recorder=recorder,
            end=end,
            notes=notes,
            read_link=lambda path: _read_link(opened.conversation, path),
        )
        self.choices[id(opened)] = (choice, runner, ways)
        return opened

    async def switch_model(self, opened: OpenedSession, selection: str) -> None:
        """As ``/model``: the new model over the same store, the turn count going on."""
        choice, runner, ways = self.choices[id(opened)]
        model = await choice.resolve(selection)
        old = opened.conversation
        await old.resolved.backend.aclose()
        tools = self._tools(model, runner, opened.recorder, ways, opened.notes)
        conversation = self._converse(
            old.working_directory, model, runner, opened.recorder, tools, old.store
        )
        conversation.turn = old.turn
        opened.conversation = conversation

    async def models(self, current: str) -> list[str]:
        """``current``, the config's model and every enabled model a runtime lists."""
        from wisp.cli.models import picker_rows

        names = [current, self.options.model or self.config.settings.model]
        try:
            catalog = await picker_rows(self.config, self.context.environ, in_use=current)
            names += [row.selection for row in catalog.models if row.enabled]
        except Exception:  # a runtime not reached lists nothing; the session still opens
            pass
        return _distinct(names)

    # -- building ---------------------------------------------------------------------------

    def _conversation(
        self,
        cwd: Path,
        model: ResolvedModel,
        runner: Any,
        recorder: Recorder,
        ways: ClientWays,
        notes: list[str],
    ) -> Conversation:
        from wisp.audit.kinds import SessionStart

        tools = self._tools(model, runner, recorder, ways, notes)
        recorder.record(
            SessionStart(
                entry_point="acp",
                system_prompt_extension=self._extension(),
                instructions=None,
                tools=[tool.name for tool in tools],
                model=model.selection,
                unsafe=self.options.unsafe,
                auto_approve=self.options.yes,
            )
        )
        return self._converse(cwd, model, runner, recorder, tools, None)

    def _converse(
        self,
        cwd: Path,
        model: ResolvedModel,
        runner: Any,
        recorder: Recorder,
        tools: list[Any],
        store: Any,
    ) -> Conversation:
        from wisp.agent.context import ContextSettings
        from wisp.agent.loop import Conversation
        from wisp.agent.prompt import instructions_for
        from wisp.cli.conversation import resolved_event
        from wisp.store import ConversationStore, PendingEntry

        names = [tool.name for tool in tools]
        recorder.record(resolved_event(model, names))
        instructions = instructions_for(tools, self._extension())
        if store is None:
            store = ConversationStore()
            store.add(
                PendingEntry("instructions", instructions), turn=None, origin="carried", time=None
            )
        settings = self.config.settings
        conversation = Conversation(
            model=model,
            tools=tools,
            store=store,
            recorder=recorder,
            instructions=instructions,
            home=self.context.home.root,
            config=self.config,
            working_directory=cwd,
            audit_file=self.context.home.audit_file if settings.audit.enabled else None,
            max_steps=settings.agent.max_steps,
            max_reply_tokens=settings.agent.max_reply_tokens,
            memory="memory" in names,
            context=ContextSettings(
                settings.context.budget, settings.context.target, settings.context.headroom_turns
            ),
        )
        conversation.sandbox_mechanism = runner.sandbox_state().mechanism
        return conversation

    def _tools(
        self, model: ResolvedModel, runner: Any, recorder: Recorder, ways: Any, notes: list[str]
    ) -> list[Any]:
        from wisp.models.suggested import TOOL_MODEL_HINT
        from wisp.tools.registry import default_tools

        if not model.can_call_tools:
            notes.append(
                f"{model.selection} is text only (no tool calling recorded for it): this "
                f"session has no tools; {TOOL_MODEL_HINT}"
            )
            return []
        return default_tools(self.config, runner=runner, asker=self._asker(recorder, ways))

    def _runner(self, cwd: Path, recorder: Recorder, ways: ClientWays, notes: list[str]) -> Any:
        from wisp.cli.commands import CommandOptions, build_runner
        from wisp.desk.approval import OutOfBandApprover

        approval = self.config.settings.approval
        approver = OutOfBandApprover(
            self.context.home.root,
            record=recorder.record,
            thread=recorder.session,
            client="acp",
            out_of_band=approval.out_of_band,
            alongside=ways.approve,
            banner_delay=float(approval.banner_delay_seconds),
        )
        return build_runner(
            config=self.config,
            home=self.context.home.root,
            environ=self.context.environ,
            working_directory=cwd,
            record=recorder.record,
            options=CommandOptions(yes=self.options.yes, unsafe=self.options.unsafe),
            approver=approver,
            warn=notes.append,
        )

    def _asker(self, recorder: Recorder, ways: ClientWays) -> Any:
        """A question with options goes to the client's dialog and out of band at once; one
        without, out of band only. A prompt may wait as long as the person takes, so a
        question is never parked: approval.timeoutSeconds bounds it."""
        from wisp.desk.question import OutOfBandAsker

        approval = self.config.settings.approval
        limit = float(approval.timeout_seconds) or None
        return OutOfBandAsker(
            self.context.home.root,
            record=recorder.record,
            thread=recorder.session,
            client="acp",
            out_of_band=approval.out_of_band,
            alongside=ways.ask,
            wait_limit=limit,
            banner_delay=float(approval.banner_delay_seconds),
            hold=limit or NEVER_PARKED,
        )

    def _extension(self) -> str | None:
        value = self.config.settings.system_prompt_extension
        return value if value.strip() else None


def _read_link(conversation: Any, path: str) -> str:
    """A linked file's first page, as ``read_file`` reads one for this conversation: relative
    to its folder, never inside WISP_HOME, within its output budget."""
    from wisp.agent.loop import output_budget
    from wisp.tools.read_file import DEFAULT_LINES, read_page

    where = Path(path) if Path(path).is_absolute() else conversation.working_directory / path
    budget = output_budget(conversation.resolved.context_size)
    return read_page(where, 1, DEFAULT_LINES, budget, conversation.home)


def _distinct(names: list[str]) -> list[str]:
    """Each model once, by any spelling (``ollama:qwen3`` is ``ollama:qwen3:latest``), in its
    first spelling."""
    from wisp.agent.types import ModelUnavailable
    from wisp.models.selection import canonical_selection

    seen: set[str] = set()
    kept: list[str] = []
    for name in names:
        try:
            key = canonical_selection(name)
        except ModelUnavailable:
            key = name
        if key not in seen:
            seen.add(key)
            kept.append(name)
    return kept


NEVER_PARKED = 365 * 24 * 3600.0
"""A question's hold when nothing bounds its wait: a prompt holds it for as long as it takes."""


class _SessionModel(msgspec.Struct, frozen=True):
    """What ``ModelChoice`` reads of the options: a session's model is named, never a
    fallback."""

    model: str
    entry_point: str = "acp"
