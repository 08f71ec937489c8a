"""``run_command``: runs a shell line on this machine, checked, confined and recorded
(docs/policy.md, "The path a command takes"; docs/sandbox.md, "Running a command")."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import msgspec
from msgspec import UNSET, UnsetType

from wisp.agent.text import COMMAND_HINT, count_lines, hold_back, utf8_len
from wisp.agent.types import ToolContext
from wisp.sandbox.process import ProcessResult
from wisp.tools.arguments import nul_path_refusal, parse_arguments, resolve_path, schema_of
from wisp.tools.command_events import TimeLimit, decision_event, outcome_event
from wisp.tools.command_runner import CommandRunner, Ran, Refused

OUTSIDE_REFUSED = (
    "running outside the sandbox is not allowed (commandPolicy.sandbox.allowOutsideSandbox)"
)
HEADER_ROOM = 256  # the result's own lines (exit status, stream names, the sandbox line)


class RunCommandArgs(msgspec.Struct, kw_only=True, rename="camel"):
    command: str
    working_directory: Annotated[
        str | UnsetType,
        msgspec.Meta(description="Folder to run in, from wisp's working directory (the default)"),
    ] = UNSET
    timeout_seconds: Annotated[
        int | UnsetType,
        msgspec.Meta(description="Kill the command after this many seconds (capped)"),
    ] = UNSET
    outside_sandbox: Annotated[
        bool | UnsetType,
        msgspec.Meta(description="Ask to run without wisp's sandbox; usually refused"),
    ] = UNSET


class RunCommandTool:
    """Runs a shell command and returns its exit status and output."""

    name = "run_command"
    description = (
        "Run a shell command and get its output, such as `ls -lt` (newest first), `ls -lS` "
        "(largest first), `wc -l FILE` (lines), `wc -w FILE` (words), `grep -rn TEXT .` "
        "(search), `git status` (in a repository). Risky commands need approval."
    )
    parameters = schema_of(RunCommandArgs)
    extra_parameters = ("workingDirectory", "timeoutSeconds", "outsideSandbox")
    read_only = False

    def __init__(self, runner: CommandRunner) -> None:
        self.runner = runner

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> str:
        args = parse_arguments(self.name, arguments, RunCommandArgs, context.notes)
        if isinstance(args, str):
            return args
        directory = context.working_directory
        if args.working_directory is not UNSET:
            refusal = nul_path_refusal("workingDirectory", args.working_directory)
            if refusal:
                return refusal
            # Relative to the conversation's folder, as read_file's path is (small models
            # send "."); the policy and the sandbox then decide on the resolved folder.
            directory = resolve_path(args.working_directory, directory)
        if args.outside_sandbox is True:
            return self._refuse_outside(args.command, directory, context)
        timeout = self._timeout(args.timeout_seconds)
        conversation = context.conversation
        outcome = await self.runner.run_for_model(
            args.command,
            directory,
            timeout=timeout.seconds,
            turn=conversation.turn,
            record=context.record,
            stop=conversation.stop_requested,
            kill_now=conversation.kill_requested,
            running=conversation.running_command,  # not while its approval is awaited
            side_calls=conversation.side_calls,  # for commandPolicy.classifier.mode model
        )
        if isinstance(outcome, Refused):
            return outcome.message
        return self._result(args.command, outcome, timeout, context)

    def _timeout(self, asked: int | UnsetType) -> TimeLimit:
        """The call's own ``timeoutSeconds`` (at least 1, cut to the maximum), else the
        default (0: none): the config's, or an MCP thread's own."""
        settings = self.runner.settings
        if asked is not UNSET:
            seconds = min(max(asked, 1), settings.max_timeout_seconds)
            return TimeLimit("call", float(seconds), clamped=seconds != asked)
        if settings.timeout_seconds == 0:
            return TimeLimit(settings.timeout_source, None)
        return TimeLimit(settings.timeout_source, float(settings.timeout_seconds))

    def _result(
        self,
        line: str,
        ran: Ran,
        timeout: TimeLimit,
        context: ToolContext,
    ) -> str:
        result = ran.result
        room = max(context.output_budget - HEADER_ROOM, 512)
        both = bool(result.stdout) and bool(result.stderr)
        share = room // 2 if both else room
        output_id = self._keep_held_back(result, share, context)
        stdout = hold_back(result.stdout, share, output_id=output_id, hint=COMMAND_HINT)
        stderr = hold_back(
            result.stderr,
            share,
            output_id=output_id,
            hint=COMMAND_HINT,
            line_offset=count_lines(result.stdout) if output_id else 0,
        )
        truncated = (
            stdout != result.stdout
            or stderr != result.stderr
            or result.stdout_cut
            or result.stderr_cut
        )
        lines = [f"exit status: {result.exit_status}"]
        if result.timed_out:
            lines.append("timed out: the command was killed")
        if result.stopped:
            lines.append("stopped: the person stopped the command")
        if result.stdout_cut or result.stderr_cut:
            lines.append("output truncated: past the 16 MiB ceiling, the rest was dropped")
        if stdout:
            lines += ["stdout:", stdout.rstrip("\n")]
        if stderr:
            lines += ["stderr:", stderr.rstrip("\n")]
        if ran.refusal is not None:
            lines.append(ran.refusal.line)
        context.record(
            outcome_event(
                line, ran, stdout=stdout, stderr=stderr, truncated=truncated, timeout=timeout
            )
        )
        return "\n".join(lines)

    @staticmethod
    def _keep_held_back(result: ProcessResult, share: int, context: ToolContext) -> str | None:
        """The id a held-back marker names: the call's, once the whole output is kept under it
        (stdout, then stderr, so stdout's line numbers are the kept file's); None when nothing
        is held back, or it could not be kept."""
        if utf8_len(result.stdout) <= share and utf8_len(result.stderr) <= share:
            return None  # both fit: hold_back returns them whole, and nothing is kept
        stdout = result.stdout
        if stdout and result.stderr and not stdout.endswith("\n"):
            stdout += "\n"  # stderr's first line starts a line of its own
        cut = result.stdout_cut or result.stderr_cut
        return context.call_id if context.keep_output(stdout + result.stderr, cut=cut) else None

    def _refuse_outside(self, line: str, directory: Path, context: ToolContext) -> str:
        state = self.runner.sandbox_state()
        decision = decision_event(line, directory, "denied", OUTSIDE_REFUSED, state)
        decision.outside_sandbox = True
        context.record(decision)
        return f"error: command denied by policy: {OUTSIDE_REFUSED}"
