"""Wiring the command machinery for a session: patterns, the gate with its approver, the
sandbox, and the runner that ``run_command`` and ``!`` commands share."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from wisp.config import Config
from wisp.config.sections import Classifier
from wisp.policy.approval_cache import SessionApprovals
from wisp.policy.approvals import ApprovalStore
from wisp.policy.approvers import NobodyApprover, TerminalApprover, YesApprover
from wisp.policy.classifier.opinion import SecondOpinion
from wisp.policy.classifier.trained_judge import TrainedJudge, model_path
from wisp.policy.gate import ApprovalGate
from wisp.policy.patterns import CommandPatterns
from wisp.policy.types import Approver
from wisp.sandbox.cache import prepare, sweep_in_background
from wisp.sandbox.plan import probe
from wisp.sandbox.writable import WritableSet
from wisp.tools.command_runner import CommandRunner, CommandSettings

if TYPE_CHECKING:
    from wisp.cli.context import Context

ReadLine = Callable[[], Awaitable[str | None]]


class CommandOptions(msgspec.Struct, frozen=True):
    """The command line's switches for commands."""

    yes: bool = False
    """``--yes``: every approval granted once; the lists and the sandbox stay. It never opens
    the network to a command (``commandPolicy.sandbox.network: ask``)."""
    yes_network: bool = False
    """``--yes-network``: as ``--yes``, and a command the rules mark as needing the network is
    approved too, and runs with it."""
    unsafe: bool = False
    """``--unsafe``: no lists and no sandbox; classification, approval and audit stay."""


def build_runner(
    *,
    config: Config,
    home: Path,
    environ: Any,
    working_directory: Path,
    record: Callable[[Any], Any],
    options: CommandOptions,
    approver: Approver,
    warn: Callable[[str], None],
) -> CommandRunner:
    """The session's runner: one gate (session approvals shared by its conversations)."""
    settings = config.settings
    timeout = settings.approval.timeout_seconds
    if isinstance(approver, TerminalApprover):
        timeout = 0  # a person at the keyboard is not timed out
    if options.yes or options.yes_network:
        # --yes answers for the person, but a command wisp cannot read still goes to them, as
        # does one that needs the network unless --yes-network was given.
        approver = YesApprover(approver, network=options.yes_network)
    gate = ApprovalGate(
        settings.approval.threshold,
        approver,
        ApprovalStore(home / "approvals.json", persist_days=settings.approval.persist_days),
        timeout_seconds=timeout,
        record=record,
        session=SessionApprovals(),
    )
    writable = WritableSet.build(
        working_directory=working_directory,
        home=home,
        environ=environ,
        extra_roots=settings.command_policy.sandbox.writable_roots,
        sockets=settings.command_policy.sandbox.allow_sockets,
        allow_home=settings.command_policy.sandbox.allow_home,
    )
    network = settings.command_policy.sandbox.network_in_force()
    _open_cache(writable, environ, settings.context.output_days, warn)
    runner = CommandRunner(
        patterns=CommandPatterns.from_settings(settings.command_policy),
        gate=gate,
        writable=writable,
        support=probe(),
        settings=CommandSettings(
            timeout_seconds=settings.command_timeout_seconds,
            max_timeout_seconds=settings.command_max_timeout_seconds,
            sandbox_enabled=settings.command_policy.sandbox.enabled,
            network=network.mode,
            unsafe=options.unsafe,
            pass_env=tuple(settings.command_policy.pass_env),
        ),
        environ=environ,
        opinion=second_opinion(settings.command_policy.classifier, home),
    )
    if network.note:
        warn(network.note)
    _warn_once(runner, options, warn, working_directory)
    return runner


def second_opinion(section: Classifier, home: Path) -> SecondOpinion | None:
    """The classifier ``commandPolicy.classifier.mode`` names, if any: the trained one only when
    ``wisp classifier train`` has written its model (docs/policy.md, "The classifier")."""
    match section.mode:
        case "trained":
            path = model_path(home)
            if not path.exists():
                return None
            return SecondOpinion(TrainedJudge(path), may_lower=section.may_lower)
        case "model":
            from wisp.policy.classifier.model_judge import ModelJudge

            return SecondOpinion(ModelJudge(), may_lower=section.may_lower)
    return None


def typed_runner(
    context: Context, working_directory: Path, record: Callable[[Any], Any]
) -> CommandRunner:
    """A runner for the commands a person names on a command line outside a conversation
    (``wisp scan -- COMMAND``, ``wisp draft``'s inputs, ``wisp watch``'s command): each runs
    through ``run_typed`` as a typed ``!`` command does, through the lists and the sandbox;
    typing it was the approval, so nobody is asked."""
    return build_runner(
        config=context.load_config(),
        home=context.home.root,
        environ=context.environ,
        working_directory=working_directory,
        record=record,
        options=CommandOptions(),
        approver=NobodyApprover(),
        warn=context.warn,
    )


def _open_cache(
    writable: WritableSet, environ: Any, days: int, warn: Callable[[str], None]
) -> None:
    """The folder's own cache for the model's commands made (and marked used), and the caches
    unused for ``context.outputDays`` swept off the start's path (docs/sandbox.md, "The
    cache")."""
    try:
        prepare(writable.cache)
    except OSError as exc:
        # A missing root only takes rights away: the commands run, without a cache to write.
        warn(f"sandbox: cannot make the commands' cache {writable.cache}: {exc}")
    sweep_in_background(environ, days)


def terminal_approver(readline: ReadLine | None, is_terminal: bool) -> Approver:
    """The one-shot's approver: the terminal when stdin is one, else nobody.

    See docs/policy.md, "Approvers and --yes".
    """
    if readline is not None and is_terminal:
        return TerminalApprover(readline, sys.stderr)
    return NobodyApprover()


def approval_mode(config: Config, options: CommandOptions) -> str:
    """``status.approval`` in words (docs/protocol.md, "`status`")."""
    if options.yes_network:
        return "--yes-network"
    if options.yes:
        return "--yes"
    threshold = config.settings.approval.threshold
    return "never asks" if threshold == "never" else f"approve at {threshold}"


def _warn_once(
    runner: CommandRunner,
    options: CommandOptions,
    warn: Callable[[str], None],
    working_directory: Path,
) -> None:
    """The switches, and a sandbox that is not all it could be, said once (never claim a
    sandbox that is not there)."""
    if options.yes_network:
        warn(
            "--yes-network: every command the model asks to run is approved once, without "
            "asking, those that need the network with it, except one whose program is named "
            "only when it runs"
        )
    elif options.yes:
        warn(
            "--yes: every command the model asks to run is approved once, without asking, "
            "except one whose program is named only when it runs; --yes never opens the "
            "network (--yes-network does)"
        )
    if options.unsafe:
        warn("--unsafe: commands run without the sandbox and without the deny and allow lists")
    note = runner.sandbox_state().note
    if note and not options.unsafe:
        warn(note)
    writable = runner.writable
    if not writable.working_writable:
        warn(
            f"sandbox: the working folder {working_directory} is your home folder or / (or "
            "holds your home folder), so commands and edit_file cannot write in it; they may "
            f"write only in {', '.join(writable.roots)} (to let them: wisp config set "
            "commandPolicy.sandbox.allowHome true)"
        )
    if runner.withheld:
        names = ", ".join(runner.withheld)
        warn(
            f"the model's commands run without {names}: their names look like credentials "
            "(to pass one: wisp config set commandPolicy.passEnv '[\"NAME\"]'; ! commands "
            "keep them)"
        )
