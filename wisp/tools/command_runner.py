"""The path every command takes: split, patterns, the gate, the sandbox, the process, the
refusal check, and the audit (``policy.decision`` once per line, then ``command.outcome``).
Failures come back as text for the model, never as exceptions. See docs/policy.md, "The path a
command takes".
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from wisp.config.secrets import command_environment, model_environment
from wisp.config.sections import NetworkMode
from wisp.policy.classifier.opinion import SecondOpinion
from wisp.policy.gate import STOPPED, ApprovalGate
from wisp.policy.pacing import assess_each
from wisp.policy.patterns import CommandPatterns, in_words
from wisp.policy.rules import assess, assess_whole_line, network_reason
from wisp.policy.split import split_line
from wisp.policy.types import Assessment, SimpleCommand
from wisp.sandbox.cache import cache_environment
from wisp.sandbox.plan import SandboxState, SandboxSupport, confined_argv, unconfined
from wisp.sandbox.process import ProcessResult, run_process
from wisp.sandbox.refusal import Refusal, Verdict, check_refusal
from wisp.sandbox.writable import WritableSet
from wisp.tools.command_events import decision_event
from wisp.tools.command_line import line_refusal

if TYPE_CHECKING:
    from wisp.sandbox.launch import StdioServer

Record = Callable[[Any], Any]
SHELL = "/bin/sh"


class CommandSettings(msgspec.Struct, frozen=True):
    """The operator's settings for commands (docs/policy.md, "Configuration")."""

    timeout_seconds: int = 60
    """``commandTimeoutSeconds``: a model's command's default limit; 0 = none."""
    timeout_source: str = "default"
    """``timeoutSource`` of that default: ``default`` (the config), or ``thread`` (an MCP
    thread's own ``commandTimeoutSeconds``)."""
    max_timeout_seconds: int = 600
    """``commandMaxTimeoutSeconds``: the cap on ``run_command``'s ``timeoutSeconds``."""
    sandbox_enabled: bool = True
    network: NetworkMode = "ask"
    """``commandPolicy.sandbox.network`` for the model's commands (``!`` commands always have
    the network): ``off``, ``ask`` (offline unless the rules mark the program and it is
    approved) or ``on``."""
    unsafe: bool = False
    """``--unsafe``: no deny or allow list, no sandbox (never no audit)."""
    pass_env: tuple[str, ...] = ()
    """``commandPolicy.passEnv``: credential-looking variables the model's commands keep."""


class Ran(msgspec.Struct, frozen=True):
    """A command that ran: how it ended, how it was confined, what the refusal check found."""

    result: ProcessResult
    state: SandboxState
    refusal: Refusal | None


class Refused(msgspec.Struct, frozen=True):
    """A command that did not run, and why (already recorded in ``policy.decision``)."""

    message: str
    """For the model: ``error: command denied by policy: …`` and the like."""
    verdict: str
    reason: str


DENIED_NOTE = (
    ". It was not run and will not be: tell the person it was refused, and do not try it "
    "another way."
)
"""After a policy denial, for the model: small models otherwise report it as needing approval,
or look for a way around it."""


class CommandRunner:
    """Runs the model's commands and the person's typed ones, each checked and recorded."""

    def __init__(
        self,
        *,
        patterns: CommandPatterns,
        gate: ApprovalGate | None,
        writable: WritableSet,
        support: SandboxSupport,
        settings: CommandSettings,
        environ: Mapping[str, str],
        opinion: SecondOpinion | None = None,
    ) -> None:
        self.patterns = patterns
        self.gate = gate
        self.opinion = opinion
        """The classifier's second opinion on commands the rules do not know; None: the rules
        alone (``commandPolicy.classifier``, docs/policy.md, "The classifier")."""
        self.writable = writable
        """The writable set of one conversation's working directory: a runner serves the
        conversations of one folder (``build_runner``)."""
        self.support = support
        self.settings = settings
        self.environ = command_environment(environ)
        """What the person's ``!`` commands run with: wisp's environment less its API keys,
        which are for the model's server, never for the model (docs/sandbox.md,
        "Environment")."""
        self.model_environ, self.withheld = model_environment(environ, settings.pass_env)
        """What the model's commands run with: that, less every variable that looks like a
        credential (``OPENAI_API_KEY``, ``HF_TOKEN``) unless ``commandPolicy.passEnv`` names it,
        with the caches pointed at the folder's own (``writable.cache``); and the names
        withheld, said once at start."""
        if writable.cache:
            self.model_environ.update(cache_environment(writable.cache))
        self.person_writable = writable.for_person()
        """What ``!`` commands may write: the model's set and the person's whole cache."""

    # -- the state of the sandbox, for inspect and the status line ---------------------------

    def sandbox_state(self) -> SandboxState:
        """How a model's command would run now (the mechanism never changes within a process):
        under ``ask``, offline, as every command the rules do not mark."""
        state = self._confine(["true"], network=self.settings.network == "on")[1]
        if state.sandbox and self.settings.network == "ask":
            mechanism = f"{state.mechanism}; network ask: a program that needs it, once approved"
            return msgspec.structs.replace(state, mechanism=mechanism)
        return state

    # -- the model's commands -----------------------------------------------------------------

    async def run_for_model(
        self,
        line: str,
        directory: Path,
        *,
        timeout: float | None,
        turn: int,
        record: Record,
        stop: asyncio.Event | None = None,
        kill_now: asyncio.Event | None = None,
        running: Callable[[], contextlib.AbstractContextManager[None]] | None = None,
        side_calls: Any = None,
    ) -> Ran | Refused:
        """Policy, gate, sandbox, run. ``record`` writes under the call's id. ``running`` is
        held while the process runs, from once the gate has cleared the line: a stopped turn
        waits for a running command to end (SIGTERM, then SIGKILL), never for an approval
        still awaited, which the stop withdraws at once. ``side_calls`` are the conversation's,
        for a classifier that asks a model."""
        # Before the policy parses it: a line that can never run must not hold up the chat.
        refusal = line_refusal(line)
        if refusal:
            return self._refuse(record, line, directory, "denied", refusal, "refused")
        refused = self._check_directory(line, directory, record)
        if refused:
            return refused
        parts = split_line(line)
        denial = None if self.settings.unsafe else self.patterns.denial(line, parts)
        if denial:
            refused = self._refuse(record, line, directory, "denied", denial, "denied by policy")
            told = f"error: command denied by policy: {in_words(denial, parts, self.patterns)}"
            return msgspec.structs.replace(refused, message=told + DENIED_NOTE)
        marks = self._network_marks(parts)
        if self.gate is not None:
            # Both yield to the event loop as they go, so an interrupt stops a long line.
            assessments = await assess_each(parts, assess, stop=stop)
            if assessments is None:
                return self._refuse(record, line, directory, "disapproved", STOPPED, "not approved")
            seconds = None
            if self.opinion is not None:
                reviewed = await self.opinion.review(
                    parts, assessments, directory, side_calls=side_calls
                )
                assessments, seconds = reviewed.assessments, reviewed.seconds
            decision = await self.gate.authorize(
                line,
                parts,
                [_marked(a, reason) for a, reason in zip(assessments, marks, strict=True)],
                directory,
                turn=turn,
                line_assessment=assess_whole_line(line),
                seconds=seconds,
                stop=stop,
                network=[reason is not None for reason in marks],
            )
            if not decision.approved:
                return self._refuse(
                    record, line, directory, "disapproved", decision.reason, "not approved"
                )
        # Under ask, the gate has cleared every marked part for the network; without a gate
        # nobody could, and the line runs offline.
        network = self.settings.network == "on" or (
            self.gate is not None and any(reason is not None for reason in marks)
        )
        with running() if running is not None else contextlib.nullcontext():
            return await self._run(
                line,
                directory,
                record,
                timeout=timeout,
                stop=stop,
                kill_now=kill_now,
                origin=None,
                network=network,
            )

    def _network_marks(self, parts: list[SimpleCommand]) -> list[str | None]:
        """Under ``ask``, why each part needs the network (the rules' mark), else None. Where
        nothing can be cut (``--unsafe``, no sandbox, no Landlock) there is nothing to ask."""
        if self.settings.network != "ask" or not self._can_cut_network():
            return [None] * len(parts)
        return [network_reason(part) for part in parts]

    # -- the person's commands ----------------------------------------------------------------

    async def run_typed(
        self,
        line: str,
        directory: Path,
        *,
        record: Record,
        stop: asyncio.Event | None = None,
        kill_now: asyncio.Event | None = None,
        timeout: float | None = None,
    ) -> Ran | Refused:
        """A ``!`` command: the lists and the sandbox, no classifier and no approval (typing it
        is the approval), no time limit unless the caller sets one (``wisp watch --timeout``)."""
        refusal = line_refusal(line)
        if refusal:
            return self._refuse(
                record, line, directory, "denied", refusal, "refused", origin="person"
            )
        refused = self._check_directory(line, directory, record, origin="person")
        if refused:
            return refused
        denial = None if self.settings.unsafe else self.patterns.denial(line, split_line(line))
        if denial:
            return self._refuse(
                record, line, directory, "denied", denial, "denied by policy", origin="person"
            )
        return await self._run(
            line,
            directory,
            record,
            timeout=timeout,
            stop=stop,
            kill_now=kill_now,
            origin="person",
            network=True,  # typed by the person: theirs, whatever the model's commands get
        )

    # -- long-lived servers -------------------------------------------------------------------

    def launch_server(
        self,
        argv: Sequence[str],
        *,
        cwd: str | os.PathLike[str],
        env: Mapping[str, str] | None = None,
        network: bool = False,
        unconfined_because: str | None = None,
    ) -> contextlib.AbstractAsyncContextManager[StdioServer]:
        """A long-lived server (an MCP server over stdio), confined as the model's commands
        are: this folder's writable set, ``WISP_HOME`` hidden, namespaces of its own, the
        network only with ``network``; unconfined where a command would be (``--unsafe``,
        ``commandPolicy.sandbox.enabled: false``, no Landlock) or where ``unconfined_because``
        says why (the server's own ``sandbox: false``). Its environment is the model's
        commands' plus ``env``. No time limit, no policy, no gate: what it is given to run is
        the person's configuration (docs/sandbox.md, "Long-lived servers")."""
        from wisp.sandbox.launch import launch_stdio  # anyio and the SDK: when a server starts

        if unconfined_because is not None:
            planned, state = list(argv), unconfined(unconfined_because)
        else:
            planned, state = self._confine(list(argv), network=network)
        environ = {**self.model_environ, **(env or {})}
        return launch_stdio(planned, state=state, cwd=cwd, env=environ)

    # -- the run ----------------------------------------------------------------------------------

    async def _run(
        self,
        line: str,
        directory: Path,
        record: Record,
        *,
        timeout: float | None,
        stop: asyncio.Event | None,
        kill_now: asyncio.Event | None,
        origin: str | None,
        network: bool,
    ) -> Ran | Refused:
        writable = self.person_writable if origin == "person" else self.writable
        argv, state = self._confine([SHELL, "-c", line], writable, network=network)
        decision = decision_event(line, directory, "allowed", "", state)
        if origin:
            decision.origin = origin
        record(decision)
        try:
            result = await run_process(
                argv,
                cwd=directory,
                timeout=timeout,
                stop=stop,
                kill_now=kill_now,
                env=self.environ if origin == "person" else self.model_environ,
            )
        except OSError as exc:
            return Refused(f"error: could not launch {SHELL}: {exc.strerror}", "failed", str(exc))
        refusal = None
        if state.sandbox:
            refusal = check_refusal(
                result.stderr,
                exit_status=result.exit_status,
                working_directory=directory,
                writable=writable,
                network_off=state.network_cut is not None,
                narrowed_roots=state.narrowed_roots,
            )
            if state.network_cut is not None:
                refusal = _with_network_line(refusal, result, self.settings.network)
        return Ran(result, state, refusal)

    def _confine(
        self, argv: list[str], writable: WritableSet | None = None, *, network: bool
    ) -> tuple[list[str], SandboxState]:
        if self.settings.unsafe:
            return argv, unconfined("--unsafe")
        if not self.settings.sandbox_enabled:
            return argv, unconfined("commandPolicy.sandbox.enabled is false")
        return confined_argv(
            argv,
            writable or self.writable,
            network_off=not network,
            support=self.support,
        )

    def _can_cut_network(self) -> bool:
        return self._confine(["true"], network=False)[1].network_cut is not None

    def _check_directory(
        self, line: str, directory: Path, record: Record, *, origin: str | None = None
    ) -> Refused | None:
        if directory.is_dir():
            return None
        reason = f"working directory does not exist: {directory}"
        refused = Refused(f"error: {reason}", "denied", reason)
        self._decision(record, line, directory, "denied", reason, origin)
        return refused

    def _refuse(
        self,
        record: Record,
        line: str,
        directory: Path,
        verdict: str,
        reason: str,
        words: str,
        *,
        origin: str | None = None,
    ) -> Refused:
        self._decision(record, line, directory, verdict, reason, origin)
        return Refused(f"error: command {words}: {reason}", verdict, reason)

    def _decision(
        self,
        record: Record,
        line: str,
        directory: Path,
        verdict: str,
        reason: str,
        origin: str | None,
    ) -> None:
        decision = decision_event(line, directory, verdict, reason, self.sandbox_state())
        if origin:
            decision.origin = origin
        record(decision)


NETWORK_FAILURES = (
    "Network is unreachable",
    "Temporary failure in name resolution",
    "Could not resolve host",
    "Name or service not known",
    "unable to resolve host address",
    "No address associated with hostname",
    "Couldn't connect to server",
)
"""What a failure says when the network it needed was off: ``ENETUNREACH`` in the sandbox's
network namespace (whose loopback is down too), every resolver's words for a name it could not
look up there, and curl's for a connection it could not make. "Connection refused" is left out:
a local server that is not running says it, never the cut network."""


def _marked(assessment: Assessment, reason: str | None) -> Assessment:
    """The verdict as the person sees it when the part needs the network: that reason first."""
    if reason is None:
        return assessment
    return msgspec.structs.replace(assessment, reasons=[f"network: {reason}", *assessment.reasons])


def _with_network_line(
    refusal: Refusal | None, result: ProcessResult, mode: NetworkMode
) -> Refusal | None:
    """``refusal``, with how to allow the network when the command failed for the want of it
    (docs/sandbox.md, "Network"): said outright when the output names a network failure, and as
    the likely cause beside the check's guess (Landlock refuses a TCP connection with a bare
    ``Permission denied``)."""
    if result.exit_status == 0:
        return refusal
    output = result.stderr + result.stdout
    if any(failure in output for failure in NETWORK_FAILURES):
        line = f"sandbox: {network_line(mode)}"
        if refusal is None or refusal.verdict is Verdict.GUESS:
            return Refusal(Verdict.GUESS, [], line)
        return msgspec.structs.replace(refusal, line=f"{refusal.line}; {line}")
    if refusal is not None and refusal.verdict is Verdict.GUESS:
        line = f"{refusal.line}; if it was a network connection: {network_line(mode)}"
        return msgspec.structs.replace(refusal, line=line)
    return refusal


def network_line(mode: NetworkMode) -> str:
    """How to allow the network to a model's command that ran without it."""
    if mode == "off":
        return (
            "the network is off for the model's commands (commandPolicy.sandbox.network is "
            "off); to allow it: wisp config set commandPolicy.sandbox.network ask (then a program "
            "that needs the network, such as curl, pip install or git fetch, is asked about) or "
            "on, or run it yourself as a ! command"
        )
    return (
        "this command ran offline: under commandPolicy.sandbox.network ask only a program the "
        "rules mark as needing the network (curl, wget, pip install, git fetch …) is asked "
        "about and, approved, runs with it; to allow it: wisp config set "
        "commandPolicy.sandbox.network on, or run it yourself as a ! command"
    )
