"""``wisp mcp``: serve wisp to another agent over the Model Context Protocol, on stdio.

This module builds what the server in ``wisp.mcp`` is handed: each thread's conversation (its
model, tools, runner and approver, its own audit session) and the settings and status it
shows. The ``mcp`` SDK is imported only when the command runs, so ``wisp --help`` and every
other command never load it (docs/mcp.md)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from wisp.cli.context import Context
from wisp.cli.serving import add_serving_options
from wisp.errors import UsageError, WispError

if TYPE_CHECKING:
    from wisp.agent.recorder import Recorder
    from wisp.agent.types import ResolvedModel
    from wisp.config import Config
    from wisp.mcp.threads import OpenedThread, Thread, ThreadSpec

DESCRIPTION = """\
Serve wisp over the Model Context Protocol on stdin and stdout, until stdin closes: another
agent (Claude Code, Codex, any MCP client) hands wisp a task with the respond tool, and wisp's
model reads, runs commands and answers under wisp's policy, sandbox and audit. Each command it
asks to run waits for the person's approval: in the client's own dialog (elicitation), or with
wisp approvals or wisp-tui. Diagnostics go to stderr; stdout carries only the protocol."""

EPILOG = """\
examples:
  wisp mcp                           serve with the config's model and every tool
  wisp mcp -m ollama:qwen3 --tool run_command --tool read_file
  wisp mcp --no-tools -i "Answer in one paragraph."

see docs/mcp.md for the tools, results, resources and approvals, and README.md for adding
wisp to Claude Code (.mcp.json) and Codex (config.toml)."""

NO_ONE_TO_ASK = (
    "approval.outOfBand is off and this MCP client has no form (elicitation); turn "
    "approval.outOfBand on (wisp config set approval.outOfBand true) to answer with wisp questions"
)

MISSING_SDK = (
    "wisp mcp needs the MCP SDK, an optional extra: pip install 'wisp[mcp]' "
    "(or pip install 'mcp>=2.3,<3')"
)


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "mcp",
        help="Serve wisp to other agents over the Model Context Protocol (stdio).",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_serving_options(
        parser,
        model_help="the model a thread runs on unless respond names one (default: config's model)",
    )
    parser.add_argument(
        "-i", "--instructions", metavar="TEXT", default=None,
        help="instructions for every thread that gives none of its own",
    )  # fmt: skip
    parser.add_argument(
        "--tool", action="append", metavar="NAME", dest="tool", default=None,
        help="offer only this tool (repeat for more); a thread never gets more",
    )  # fmt: skip
    parser.add_argument(
        "--no-tools", action="store_true", default=argparse.SUPPRESS,
        help="offer threads no tools: text only",
    )  # fmt: skip
    parser.set_defaults(handler=run_mcp)


def run_mcp(args: argparse.Namespace, context: Context) -> int:
    import asyncio

    try:
        import mcp  # noqa: F401  (only to say what is missing, before anything starts)
    except ImportError:
        context.warn(MISSING_SDK)
        return 1
    options = McpOptions(
        model=args.model,
        instructions=args.instructions,
        tools=args.tool,
        no_tools=args.no_tools,
        yes=args.yes,
        unsafe=args.unsafe,
    )
    return asyncio.run(_serve(context, options))


class McpOptions(msgspec.Struct, frozen=True):
    """The command line's choices."""

    model: str | None = None
    instructions: str | None = None
    tools: list[str] | None = None
    no_tools: bool = False
    yes: bool = False
    unsafe: bool = False


async def _serve(context: Context, options: McpOptions) -> int:
    from wisp.agent.recorder import Recorder
    from wisp.audit import AuditLog, open_sink
    from wisp.audit.kinds import SessionEnd
    from wisp.cli.context import audit_settings
    from wisp.mcp.server import ServerParts, WispServer

    config = context.load_config()
    context.home.ensure()
    log = AuditLog(open_sink(audit_settings(config), context.home.audit_file))
    recorder = Recorder(log)
    try:
        builder = ThreadBuilder(context, options, config, recorder)
        offered = builder.offered()
        builder.record_start(offered)
        for note in builder.notes:
            context.warn(note)
        parts = ServerParts(
            opener=builder.open,
            offered=offered,
            recorder=recorder,
            output_dir=context.home.root / "output",
            config=lambda: config_rows(context),
            status=builder.status,
        )
        server = WispServer(parts)
        try:
            await server.serve_stdio()
        finally:
            await builder.shared.aclose()
            recorder.record(SessionEnd(reason="closed"))
    finally:
        log.close()
    return 0


class ThreadBuilder:
    """Builds each thread's conversation the way chat builds its own, with an approver that
    asks the person out of band and, where the client can, in its dialog."""

    def __init__(
        self,
        context: Context,
        options: McpOptions,
        config: Config,
        recorder: Recorder,
        working_directory: Path | None = None,
    ) -> None:
        from wisp.mcp.shared_model import SharedModels

        self.context = context
        self.options = options
        self.config = config
        self.recorder = recorder
        """The server's session (``entryPoint`` ``mcp``)."""
        self.working_directory = Path.cwd() if working_directory is None else working_directory
        """The server's working directory, every thread's: where its commands run and the root
        of its sandbox's writable set, as ``ConversationOptions.working_directory`` is a chat's."""
        self.notes: list[str] = []
        self.shared = SharedModels()
        # A runner for the server's own questions (its tools, its sandbox), never run.
        self._probe = self._runner(self.recorder, _nobody(), self.notes)

    # -- the server -----------------------------------------------------------------------------

    def offered(self) -> list[str]:
        """The tools a thread may have: every tool the config gives, narrowed by ``--tool``
        (an unknown name is a usage error) or none with ``--no-tools``."""
        if self.options.no_tools:
            return []
        names = [tool.name for tool in self._tools(self._probe)]
        if self.options.tools is None:
            return names
        unknown = [name for name in self.options.tools if name not in names]
        if unknown:
            raise UsageError(
                f"--tool {', '.join(unknown)}: not a tool this wisp offers "
                f"({', '.join(names) or 'none'})"
            )
        return [name for name in names if name in self.options.tools]

    def record_start(self, offered: list[str]) -> None:
        from wisp.audit.kinds import SessionStart

        self.recorder.record(
            SessionStart(
                entry_point="mcp",
                system_prompt_extension=self._extension(),
                instructions=self.options.instructions,
                tools=offered,
                model=self._default_model(),
                unsafe=self.options.unsafe,
                auto_approve=self.options.yes,
            )
        )

    def status(self) -> dict[str, Any]:
        from wisp import __version__

        state = self._probe.sandbox_state()
        return {
            "version": __version__,
            "model": self._default_model(),
            "sandbox": {"enabled": state.sandbox, "mechanism": state.mechanism},
            "session": self.recorder.session,
        }

    # -- a thread -------------------------------------------------------------------------------

    async def open(self, thread: Thread, spec: ThreadSpec) -> OpenedThread:
        """The thread's conversation; ``ThreadError`` naming the model when it cannot run."""
        from wisp.agent.recorder import Recorder
        from wisp.audit.log import new_session_id
        from wisp.cli.model_choice import ModelChoice
        from wisp.mcp.threads import OpenedThread, ThreadError

        log = self.recorder.audit.for_session(new_session_id())  # type: ignore[attr-defined]
        recorder = Recorder(log)
        selection = spec.model or self._default_model()
        choice = ModelChoice(
            self.context, _ThreadModel(selection), lambda: self.config, recorder.record
        )
        try:
            model = await self._model(choice, selection)
        except WispError as exc:
            await choice.aclose()
            raise ThreadError(f"model {selection}: {exc}") from exc
        runner = self._runner(recorder, self._approver(thread, recorder), [])
        if spec.command_timeout_seconds is not None:
            runner.settings = msgspec.structs.replace(
                runner.settings,
                timeout_seconds=spec.command_timeout_seconds,
                timeout_source="thread",
            )
        conversation = self._conversation(thread, spec, model, runner, recorder)

        async def end(reason: str) -> None:
            from wisp.audit.kinds import SessionEnd

            recorder.record(SessionEnd(reason=reason))
            await conversation.resolved.backend.aclose()
            await choice.aclose()

        return OpenedThread(conversation=conversation, recorder=recorder, end=end)

    async def _model(self, choice: Any, selection: str) -> ResolvedModel:
        """A loaded ``local`` model is shared (its requests queue); anything else resolves."""
        shared = self.shared.get(selection)
        if shared is not None:
            return shared
        return self.shared.add(await choice.resolve(selection))

    def _conversation(
        self,
        thread: Thread,
        spec: ThreadSpec,
        model: ResolvedModel,
        runner: Any,
        recorder: Recorder,
    ) -> Any:
        from wisp.agent.context import ContextSettings
        from wisp.agent.loop import Conversation
        from wisp.agent.prompt import system_prompt
        from wisp.audit.kinds import SessionStart
        from wisp.cli.conversation import resolved_event
        from wisp.store import ConversationStore, PendingEntry

        tools = self._thread_tools(runner, spec, model, self._asker(thread, recorder))
        names = [tool.name for tool in tools]
        given = spec.instructions if spec.instructions is not None else self.options.instructions
        instructions = system_prompt(
            has_tools=bool(tools),
            has_memory="memory" in names,
            extension=self._extension(),
            instructions=given,
        )
        start = SessionStart(
            entry_point="mcp-thread",
            system_prompt_extension=self._extension(),
            instructions=given,
            tools=names,
            model=model.selection,
            unsafe=self.options.unsafe,
            auto_approve=self.options.yes,
            parent=self.recorder.session,
        )
        if spec.command_timeout_seconds is not None:
            start.command_timeout_seconds = spec.command_timeout_seconds
        recorder.record(start)
        recorder.record(resolved_event(model, names))
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
            working_directory=self.working_directory,
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

    def _thread_tools(
        self, runner: Any, spec: ThreadSpec, model: ResolvedModel, asker: Any
    ) -> list[Any]:
        """``tools`` omitted: every tool offered but memory; never wider than the server's.
        A model that cannot call tools gets none."""
        offered = self.offered()
        wanted = (
            [name for name in offered if name != "memory"] if spec.tools is None else spec.tools
        )
        if not model.can_call_tools:
            return []
        return [
            tool
            for tool in self._tools(runner, asker)
            if tool.name in wanted and tool.name in offered
        ]

    def _approver(self, thread: Thread, recorder: Recorder) -> Any:
        """The person answers out of band (``WISP_HOME/pending``) and, when this client can be
        asked mid-call and approval.elicitation is on, in the client's own dialog too."""
        from wisp.desk.approval import OutOfBandApprover
        from wisp.mcp.elicitation import can_elicit, elicitor

        approval = self.config.settings.approval
        alongside = None
        if approval.elicitation and thread.request is not None and can_elicit(thread.request):
            alongside = elicitor(lambda: thread.request)
        approver = OutOfBandApprover(
            self.context.home.root,
            record=recorder.record,
            thread=thread.id,
            client=_client_name(thread.request),
            out_of_band=approval.out_of_band,
            alongside=alongside,
            banner_delay=float(approval.banner_delay_seconds),
        )
        return approver

    def _asker(self, thread: Thread, recorder: Recorder) -> Any:
        """The model's questions go the same two ways as approvals: filed out of band and, when
        this client can be asked mid-call, in its own form. A question unanswered when the
        call's hold lapses is parked: its answer reaches the thread's next turn, for as long as
        approval.timeoutSeconds allows (docs/mcp.md)."""
        from wisp.desk.question import OutOfBandAsker
        from wisp.mcp.elicitation import can_elicit, question_elicitor
        from wisp.policy.asking import NobodyAsker

        approval = self.config.settings.approval
        alongside = None
        if approval.elicitation and thread.request is not None and can_elicit(thread.request):
            alongside = question_elicitor(lambda: thread.request)
        if alongside is None and not approval.out_of_band:
            return NobodyAsker(NO_ONE_TO_ASK)
        return OutOfBandAsker(
            self.context.home.root,
            record=recorder.record,
            thread=thread.id,
            client=_client_name(thread.request),
            out_of_band=approval.out_of_band,
            alongside=alongside,
            wait_limit=float(approval.timeout_seconds) or None,
            banner_delay=float(approval.banner_delay_seconds),
        )

    # -- shared ---------------------------------------------------------------------------------

    def _runner(self, recorder: Any, approver: Any, notes: list[str]) -> Any:
        from wisp.cli.commands import CommandOptions, build_runner

        return build_runner(
            config=self.config,
            home=self.context.home.root,
            environ=self.context.environ,
            working_directory=self.working_directory,
            record=recorder.record,
            options=CommandOptions(yes=self.options.yes, unsafe=self.options.unsafe),
            approver=approver,
            warn=notes.append,
        )

    def _tools(self, runner: Any, asker: Any = None) -> list[Any]:
        """The tools the config gives; ``asker`` puts a thread's questions (none: the server's
        own list, which never asks)."""
        from wisp.policy.asking import NobodyAsker
        from wisp.tools.registry import default_tools

        return default_tools(self.config, runner=runner, asker=asker or NobodyAsker())

    def _default_model(self) -> str:
        return self.options.model or self.config.settings.model

    def _extension(self) -> str | None:
        value = self.config.settings.system_prompt_extension
        return value if value.strip() else None


class _ThreadModel(msgspec.Struct, frozen=True):
    """What ``ModelChoice`` reads of the options: a thread's model is named, never a fallback."""

    model: str
    entry_point: str = "mcp-thread"


def _nobody() -> Any:
    from wisp.policy.approvers import NobodyApprover

    return NobodyApprover()


def _client_name(request: Any) -> str:
    """The client's name as it introduced itself, or ``unknown``."""
    params = getattr(getattr(request, "session", None), "client_params", None)
    info = getattr(params, "client_info", None)
    return getattr(info, "name", None) or "unknown"


def config_rows(context: Context) -> list[Any]:
    """``wisp://config``: what ``wisp config list --json`` writes (a secret only as where it
    is set)."""
    from wisp.cli import config as config_command

    return msgspec.to_builtins(config_command.listed_rows(context))
