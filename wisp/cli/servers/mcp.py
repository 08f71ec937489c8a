"""``wisp mcp``: serve wisp to another agent over the Model Context Protocol, on stdio.

This module builds what the server in ``wisp.mcp`` is handed: each thread's conversation (its
model, tools, runner and approver, its own audit session) and the settings and status it
shows. The ``mcp`` SDK is imported only when the command runs, so ``wisp --help`` and every
other command never load it (docs/mcp.md)."""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from wisp.cli.context import Context
from wisp.cli.servers.options import add_server_parser, has_sdk
from wisp.errors import UsageError, WispError

if TYPE_CHECKING:
    from wisp.agent.recorder import Recorder
    from wisp.agent.types import ResolvedModel
    from wisp.cli.building.out_of_band import OutOfBand
    from wisp.config import Config
    from wisp.mcp.threads import OpenedThread, Thread, ThreadSpec

SUMMARY = "Serve wisp to other agents over the Model Context Protocol (stdio)."
MODEL_HELP = "the model a thread runs on unless respond names one (default: config's model)"
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


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = add_server_parser(commands, "mcp", SUMMARY, DESCRIPTION, EPILOG, MODEL_HELP)
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

    if not has_sdk("mcp", "the MCP SDK", "mcp", "mcp>=2.3,<3", context):
        return 1
    options = McpOptions(
        model=args.model,
        instructions=args.instructions,
        tools=args.tool,
        no_tools=args.no_tools,
        yes=args.yes,
        yes_network=args.yes_network,
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
    yes_network: bool = False
    unsafe: bool = False


async def _serve(context: Context, options: McpOptions) -> int:
    from wisp.agent.recorder import Recorder
    from wisp.audit.kinds import SessionEnd
    from wisp.cli.building.session import open_log
    from wisp.mcp.server import ServerParts, WispServer

    config, log = open_log(context)
    recorder = Recorder(log)
    try:
        builder = ThreadBuilder(context, options, config, recorder)
        builder.builder.start_servers()
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
            scan_calls=builder.scan_calls(),
        )
        server = WispServer(parts)
        try:
            await server.serve_stdio()
        finally:
            await builder.shared.aclose()
            await builder.builder.aclose()
            recorder.record(SessionEnd(reason="closed"))
    finally:
        log.close()
    return 0


class ThreadBuilder:
    """Builds each thread's conversation with the ``SessionBuilder`` chat uses, with an
    approver that asks the person out of band and, where the client can, in its dialog."""

    def __init__(
        self,
        context: Context,
        options: McpOptions,
        config: Config,
        recorder: Recorder,
        working_directory: Path | None = None,
    ) -> None:
        from wisp.cli.building.runner import CommandOptions
        from wisp.cli.building.session import SessionBuilder
        from wisp.mcp.shared_model import SharedModels

        self.context = context
        self.options = options
        self.config = config
        self.recorder = recorder
        """The server's session (``entryPoint`` ``mcp``)."""
        self.builder = SessionBuilder(
            context,
            config,
            entry_point="mcp-thread",
            working_directory=Path.cwd() if working_directory is None else working_directory,
            commands=CommandOptions(
                yes=options.yes, yes_network=options.yes_network, unsafe=options.unsafe
            ),
        )
        """Every thread's conversation is built in the server's working directory: where its
        commands run and the root of its sandbox's writable set."""
        self.notes: list[str] = []
        # Read once, when the server starts; nobody can be asked here: only files accepted.
        self.notes += self.builder.read_guidance(asks=False)
        self.shared = SharedModels()
        # A runner for the server's own questions (its tools, its sandbox), never run.
        self._probe = self.builder.runner(self.recorder.record, _nobody(), self.notes.append)
        # One for the server: its rate is the process's. stdout is the protocol's, so a terminal
        # sequence may go only to stderr, and only when that is a terminal.
        self.notifier = self.builder.notifier(self.recorder.record, terminal=sys.stderr)

    # -- the server -----------------------------------------------------------------------------

    def offered(self) -> list[str]:
        """The tools a thread may have: every tool the config gives, narrowed by ``--tool``
        (an unknown name is a usage error) or none with ``--no-tools``."""
        from wisp.policy.asking import NobodyAsker

        if self.options.no_tools:
            return []
        names = [tool.name for tool in self.builder.tools(self._probe, NobodyAsker())]
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
        start = self.builder.start(
            self._default_model(),
            offered,
            entry_point="mcp",
            instructions=self.options.instructions,
        )
        self.recorder.record(start)

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
        from wisp.mcp.threads import OpenedThread, ThreadError

        log = self.recorder.audit.for_session(new_session_id())  # type: ignore[attr-defined]
        recorder = Recorder(log)
        selection = spec.model or self._default_model()
        choice = self.builder.named(selection, recorder.record)
        try:
            model = await self._model(choice, selection)
        except WispError as exc:
            await choice.aclose()
            raise ThreadError(f"model {selection}: {exc}") from exc
        unsaid: list[str] = []  # a thread's runner has no one to tell its notes to
        runner = self.builder.runner(
            recorder.record, self._approver(thread, recorder), unsaid.append
        )
        if spec.command_timeout_seconds is not None:
            runner.settings = msgspec.structs.replace(
                runner.settings,
                timeout_seconds=spec.command_timeout_seconds,
                timeout_source="thread",
            )
        conversation = self._conversation(thread, spec, model, runner, recorder)
        servers = conversation.late_tools  # the thread's share of the MCP servers, if any
        facts = conversation.facts
        keeper = self._out_of_band(thread, recorder).keeper(
            lambda fact_id, decision: facts.answer_proposal(fact_id, decision, filed=True)
        )
        facts.keeper = keeper.propose

        async def end(reason: str) -> None:
            from wisp.audit.kinds import SessionEnd

            await keeper.aclose()  # what still waits stays filed, for the person to answer
            recorder.record(SessionEnd(reason=reason))
            await conversation.resolved.backend.aclose()
            await choice.aclose()
            from wisp.mcp_client.offered import ServerTools

            if isinstance(servers, ServerTools):
                await servers.release()  # a server no other thread uses stops

        return OpenedThread(conversation=conversation, end=end)

    def scan_calls(self) -> Any:
        """Side calls for the thorough pass of a ``scan`` or ``redact`` on no thread: routed
        as the task says, recorded on the server's session, a ``local`` model shared with the
        threads."""
        from wisp.agent.side_calls import SideCalls
        from wisp.routing.router import Router

        async def resolve(selection: str) -> ResolvedModel:
            return await self._model(self.builder.named(selection, self.recorder.record), selection)

        return SideCalls(self.recorder, Router(lambda: self.config, resolve), lambda: None)

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
        tools = self._thread_tools(runner, spec, model, self._asker(thread, recorder))
        given = spec.instructions if spec.instructions is not None else self.options.instructions
        start = self.builder.start(
            model.selection, [tool.name for tool in tools], instructions=given
        )
        start.parent = self.recorder.session
        if spec.command_timeout_seconds is not None:
            start.command_timeout_seconds = spec.command_timeout_seconds
        recorder.record(start)
        instructions = self.builder.instructions(tools, given)
        # A thread naming its tools gets those; one taking the server's gets the MCP servers' too.
        late = None
        if tools and spec.tools is None:
            late = self.builder.server_tools(runner, recorder.record, lambda note: None)
        return self.builder.conversation(
            recorder, model, tools, runner, instructions=instructions, late_tools=late
        )

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
            for tool in self.builder.tools(runner, asker, self.notifier)
            if tool.name in wanted and tool.name in offered
        ]

    def _out_of_band(self, thread: Thread, recorder: Recorder) -> OutOfBand:
        from wisp.cli.building.out_of_band import OutOfBand

        client = _client_name(thread.request)
        approval = self.config.settings.approval
        notify = functools.partial(self.notifier.post, record=recorder.record)
        return OutOfBand(
            self.context.home.root, recorder.record, thread.id, client, approval, notify
        )

    def _elicits(self, thread: Thread) -> bool:
        """Whether this thread's client can be asked mid-call, and approval.elicitation lets
        it."""
        from wisp.mcp.elicitation import can_elicit

        request = thread.request
        if not self.config.settings.approval.elicitation or request is None:
            return False
        return can_elicit(request)

    def _approver(self, thread: Thread, recorder: Recorder) -> Any:
        """The person answers out of band (``WISP_HOME/pending``) and, when this client can be
        asked mid-call and approval.elicitation is on, in the client's own dialog too."""
        from wisp.mcp.elicitation import elicitor

        alongside = elicitor(lambda: thread.request) if self._elicits(thread) else None
        return self._out_of_band(thread, recorder).approver(alongside)

    def _asker(self, thread: Thread, recorder: Recorder) -> Any:
        """The model's questions go the same two ways as approvals: filed out of band and, when
        this client can be asked mid-call, in its own form. A question unanswered when the
        call's hold lapses is parked: its answer reaches the thread's next turn, for as long as
        approval.timeoutSeconds allows (docs/mcp.md)."""
        from wisp.mcp.elicitation import question_elicitor
        from wisp.policy.asking import NobodyAsker

        alongside = question_elicitor(lambda: thread.request) if self._elicits(thread) else None
        if alongside is None and not self.config.settings.approval.out_of_band:
            return NobodyAsker(NO_ONE_TO_ASK)
        return self._out_of_band(thread, recorder).asker(alongside)

    def _default_model(self) -> str:
        return self.options.model or self.config.settings.model


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
