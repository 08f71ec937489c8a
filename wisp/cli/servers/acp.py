"""``wisp acp``: wisp as an agent of the Agent Client Protocol (Zed, Toad, any ACP client), on
stdio.

This module builds what the agent in ``wisp.acp`` is handed: each session's conversation (its
model, tools, runner and approver, its own audit session, its working directory and writable
roots from the session's ``cwd``). The ``acp`` SDK is imported only when the command runs, so
``wisp --help`` and every other command never load it (docs/acp.md)."""

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
    from wisp.acp.agent import OpenedSession, SavedSession
    from wisp.acp.asking import ClientWays
    from wisp.agent.recorder import Recorder
    from wisp.agent.types import ResolvedModel
    from wisp.cli.building.out_of_band import OutOfBand
    from wisp.cli.building.session import SessionBuilder
    from wisp.cli.building.transcript import Resumed, SavedTranscript
    from wisp.config import Config
    from wisp.config.mcp_servers import McpServer

SUMMARY = "Run wisp as an Agent Client Protocol agent (Zed, Toad) on stdio."
MODEL_HELP = "the model a session starts on (default: config's model)"
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


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = add_server_parser(commands, "acp", SUMMARY, DESCRIPTION, EPILOG, MODEL_HELP)
    parser.set_defaults(handler=run_acp)


def run_acp(args: argparse.Namespace, context: Context) -> int:
    import asyncio

    sdk = "the Agent Client Protocol SDK"
    if not has_sdk("acp", sdk, "acp", "agent-client-protocol>=0.12,<0.13", context):
        return 1
    if not _streams_fit():
        raise UsageError(NOT_A_PIPE)
    options = AcpOptions(
        model=args.model, yes=args.yes, yes_network=args.yes_network, unsafe=args.unsafe
    )
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
    yes_network: bool = False
    unsafe: bool = False


async def _serve(context: Context, options: AcpOptions) -> int:
    from acp import run_agent

    from wisp.acp.agent import WispAgent
    from wisp.cli.building.session import open_log

    config, log = open_log(context)
    agent = WispAgent(AcpSessions(context, options, config, log))
    try:
        await run_agent(agent)
    finally:
        await agent.close_all()
        log.close()
    return 0


class AcpSessions(msgspec.Struct):
    """Builds each session's conversation with the ``SessionBuilder`` chat uses, in the
    session's folder, with an approver that asks in the client's permission dialog and out of
    band at once."""

    context: Context
    options: AcpOptions
    config: Config
    log: Any
    """The process's audit log; each session writes its own session on its sink."""
    opened: dict[int, _Opened] = msgspec.field(default_factory=dict)
    """What each open session's next conversation (``switch_model``) is built with."""
    notifier: Any = None
    """The process's notifier, built with its first session."""

    async def open(self, cwd: Path, ways: ClientWays, servers: list[McpServer]) -> OpenedSession:
        """A new session in ``cwd``, on the command line's model, with the MCP servers the
        client handed it; its id is its audit session's, and it is saved under it after each
        turn."""
        return await self._open(cwd, ways, servers, None, None)

    async def load(
        self, cwd: Path, session_id: str, ways: ClientWays, servers: list[McpServer]
    ) -> OpenedSession:
        """The session saved under ``session_id``, held from now on (a second wisp loading
        it is refused) and resumed in ``cwd``: its store, facts, running summary and model."""
        from wisp.acp.agent import UnknownSession

        transcript = self._transcript()
        if not transcript.exists(session_id):
            raise UnknownSession(f"no session is saved under {session_id!r}")
        try:
            transcript.hold(session_id)
            resumed = transcript.load(session_id)
            return await self._open(cwd, ways, servers, session_id, resumed, transcript)
        except BaseException:
            transcript.release()
            raise

    def save(self, opened: OpenedSession) -> None:
        parts = self.opened[id(opened)]
        parts.transcript.save(opened.conversation, opened.id)

    def saved(self, cwd: Path | None) -> list[SavedSession]:
        """The sessions (and chat's named conversations) saved with a folder: ``cwd``'s, or
        every one's."""
        from wisp.acp.agent import SavedSession

        folder = str(cwd) if cwd is not None else None
        return [
            SavedSession(id=s.name, cwd=s.working_directory, title=s.title, updated=s.updated)
            for s in self._transcript().listed()
            if s.working_directory is not None and folder in (None, s.working_directory)
        ]

    async def _open(
        self,
        cwd: Path,
        ways: ClientWays,
        servers: list[McpServer],
        session_id: str | None,
        resumed: Resumed | None,
        transcript: SavedTranscript | None = None,
    ) -> OpenedSession:
        """A session's conversation: new (``resumed`` None), or the one saved under
        ``session_id`` on its own model (on the command line's, said, when that one cannot
        run here)."""
        from wisp.acp.agent import OpenedSession
        from wisp.agent.recorder import Recorder
        from wisp.audit.kinds import SessionEnd
        from wisp.audit.log import new_session_id

        recorder = Recorder(self.log.for_session(new_session_id()))
        builder = self._builder(cwd)
        builder.client_servers = servers  # the client's own, confined to the session's folder
        builder.start_servers()  # beside the model's resolution
        default = self.options.model or self.config.settings.model
        choice = builder.named(default, recorder.record)
        notes: list[str] = []
        runner = builder.runner(recorder.record, self._approver(recorder, ways), notes.append)
        try:
            model = await self._first_model(choice, resumed, recorder, notes)
        except BaseException:
            await choice.aclose()
            await builder.aclose()
            raise
        parts = _Opened(
            builder, choice, runner, ways, transcript or self._transcript(), resumed is not None
        )
        builder.read_guidance(asks=True)  # asked about before the first turn
        tools = self._tools(parts, model, recorder, notes)
        start = builder.start(model.selection, [tool.name for tool in tools])
        if resumed is not None:
            start.resume = session_id
            start.carried_from = resumed.carried_from()
        recorder.record(start)
        late = builder.server_tools(runner, recorder.record, notes.append) if tools else None
        conversation = builder.conversation(
            recorder, model, tools, runner,
            store=resumed.store if resumed else None, facts=resumed.facts if resumed else None,
            late_tools=late,
        )  # fmt: skip
        if resumed is not None:
            conversation.summary.restore(resumed.summaries)

        async def end(reason: str) -> None:
            recorder.record(SessionEnd(reason=reason))
            await opened.conversation.resolved.backend.aclose()
            await choice.aclose()
            await builder.aclose()
            parts.transcript.release()

        opened = OpenedSession(
            conversation=conversation,
            recorder=recorder,
            end=end,
            id=session_id or recorder.session,
            notes=notes,
            read_link=lambda path: _read_link(opened.conversation, path),
        )
        self.opened[id(opened)] = parts
        return opened

    async def _first_model(
        self, choice: Any, resumed: Resumed | None, recorder: Recorder, notes: list[str]
    ) -> ResolvedModel:
        """The saved session's model, else the command line's: a saved model that cannot run
        here is recorded as ``model.fallback`` and said before the first reply."""
        from wisp.audit.kinds import ModelFallback

        default = self.options.model or self.config.settings.model
        saved = resumed.model if resumed is not None else None
        if saved is None or saved == default:
            return await choice.resolve(default)
        try:
            return await choice.resolve(saved)
        except WispError as exc:
            recorder.record(ModelFallback(model=saved, reason=str(exc), fallback=default))
            notes.append(
                f"this session was on {saved}, which cannot run here ({exc}); "
                f"it goes on on {default}"
            )
            return await choice.resolve(default)

    async def switch_model(self, opened: OpenedSession, selection: str) -> None:
        """As ``/model``: the new model over the same store, the turn count going on."""
        parts = self.opened[id(opened)]
        model = await parts.choice.resolve(selection)
        old = opened.conversation
        await old.resolved.backend.aclose()
        tools = self._tools(parts, model, opened.recorder, opened.notes)
        late = None
        if tools:
            late = parts.builder.server_tools(
                parts.runner, opened.recorder.record, opened.notes.append
            )
        opened.conversation = parts.builder.conversation(
            opened.recorder, model, tools, parts.runner,
            store=old.store, facts=old.facts.book, turn=old.turn, late_tools=late,
        )  # fmt: skip
        opened.conversation.summary.restore(old.summary.versions, old.summary.waiting)

    async def settle_guidance(self, opened: OpenedSession) -> list[str]:
        """The files waiting asked about in the client's dialog, once a session."""
        parts = self.opened[id(opened)]
        guidance = parts.builder.guidance
        if guidance is None or parts.guidance_settled:
            return []
        parts.guidance_settled = True
        ways = parts.ways

        async def ask(file: Any, reason: str) -> bool | None:
            return await ways.accept_guidance(file.path, file.size, reason, file.text)

        if await guidance.settle(ask):
            opened.conversation = parts.builder.reopened(
                opened.recorder, opened.conversation, parts.runner, fresh=not parts.resumed
            )
        return guidance.left_out_lines()

    async def models(self, current: str) -> list[str]:
        """``current``, the config's model and every enabled model a runtime lists."""
        from wisp.cli.models.command import picker_rows

        names = [current, self.options.model or self.config.settings.model]
        try:
            catalog = await picker_rows(self.config, self.context.environ, in_use=current)
            names += [row.selection for row in catalog.models if row.enabled]
        except Exception:  # a runtime not reached lists nothing; the session still opens
            pass
        return _distinct(names)

    # -- building ---------------------------------------------------------------------------

    def _builder(self, cwd: Path) -> SessionBuilder:
        """The session's folder is its conversations' working directory and sandbox root."""
        from wisp.cli.building.runner import CommandOptions
        from wisp.cli.building.session import SessionBuilder

        return SessionBuilder(
            self.context,
            self.config,
            entry_point="acp",
            working_directory=cwd,
            commands=CommandOptions(
                yes=self.options.yes,
                yes_network=self.options.yes_network,
                unsafe=self.options.unsafe,
            ),
        )

    def _tools(
        self, parts: _Opened, model: ResolvedModel, recorder: Recorder, notes: list[str]
    ) -> list[Any]:
        from wisp.cli.building.session import text_only_note

        if not model.can_call_tools:
            notes.append(text_only_note(model, "session"))
            return []
        asker = self._asker(recorder, parts.ways)
        return parts.builder.tools(parts.runner, asker, self._notifier(recorder))

    def _transcript(self) -> SavedTranscript:
        """Where sessions are saved: beside chat's named conversations, one file each."""
        from wisp.cli.building.transcript import SavedTranscript

        return SavedTranscript(self.context.home.root / "transcripts")

    def _out_of_band(self, recorder: Recorder) -> OutOfBand:
        from wisp.cli.building.out_of_band import OutOfBand

        approval = self.config.settings.approval
        notify = functools.partial(self._notifier(recorder).post, record=recorder.record)
        return OutOfBand(
            self.context.home.root, recorder.record, recorder.session, "acp", approval, notify
        )

    def _notifier(self, recorder: Recorder) -> Any:
        """The process's one notifier (its rate is the process's): stdout is the protocol's, so
        a terminal sequence may go only to stderr, and only when that is a terminal."""
        if self.notifier is None:
            from wisp.notify.notifier import build_notifier

            self.notifier = build_notifier(
                lambda: self.config.settings.notify, recorder.record,
                env=self.context.environ, terminal=sys.stderr,
            )  # fmt: skip
        return self.notifier

    def _approver(self, recorder: Recorder, ways: ClientWays) -> Any:
        """The client's permission dialog and the person out of band, at once."""
        return self._out_of_band(recorder).approver(ways.approve)

    def _asker(self, recorder: Recorder, ways: ClientWays) -> Any:
        """A question with options goes to the client's dialog and out of band at once; one
        without, out of band only. A prompt may wait as long as the person takes, so a
        question is never parked: approval.timeoutSeconds bounds it."""
        out_of_band = self._out_of_band(recorder)
        return out_of_band.asker(ways.ask, hold=out_of_band.wait_limit or NEVER_PARKED)


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


class _Opened(msgspec.Struct):
    """What an open session's conversations are built with: its builder (its folder), its
    model choice, its runner (one gate, its session approvals kept over ``/model``) and the
    client's ways to ask."""

    builder: SessionBuilder
    choice: Any
    runner: Any
    ways: ClientWays
    transcript: SavedTranscript
    """Where the session is saved, under its id, held once first saved (or loaded)."""
    resumed: bool
    """Loaded from a saved session: its store is kept when guidance files are accepted."""
    guidance_settled: bool = False
    """The session's guidance files were asked about (before its first turn)."""
