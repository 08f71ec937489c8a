"""Every tool call goes through here: ``tool.call``, the tool, ``tool.result``.

A new tool is audited without doing anything. An output larger than the budget B is kept
whole in the conversation's output store (``output.kept``) and the model is given its head and
tail with a marker (docs/turn.md, "Output budget"); the log records what the model saw, never
more. A tool that fits its own output (run_command) keeps what it holds back through
``ToolContext.keep_output``, the same keeping, so each marker's output id names a kept output.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections import Counter
from pathlib import Path

import msgspec

from wisp.agent.recorder import Recorder
from wisp.agent.text import COMMAND_HINT, READ_FILE_HINT, hold_back, utf8_len
from wisp.agent.types import ConversationView, Tool, ToolCall, ToolContext
from wisp.audit.kinds import Error, OutputKept, ToolResult
from wisp.audit.kinds import ToolCall as ToolCallEvent

OUTPUT_CEILING = 16 * 1024 * 1024
HINTS = {"read_file": READ_FILE_HINT, "run_command": COMMAND_HINT}
DEFAULT_HINT = "call it with narrower arguments to see part of it"


REPEAT_NOTE = (
    "note: you already made this exact call in this turn; the result is below again. Do not "
    "call it a third time: use the results you have.\n"
)
"""Put before the result of the second identical call of a turn (what the model and the log
get alike)."""
SAME_NOTE = (
    "note: you already made this exact call in this turn, and its result is the same as "
    "before (above). Do not call it a third time: use the results you have."
)
"""The whole result of the second identical call of a turn when it gave what the first did:
the model has it already, and a small window pays for every copy (a 37-line file read twice
costs about 330 tokens more to read on)."""

NO_SUCH_TOOL = "error: there is no tool named {}"
UNPARSED = "error: the call to {} was not run: its arguments must be a JSON object, and were {}"
OFFERED = ". The tools you have: {}. Call one of them, or answer in plain text."
OFFERED_BEFORE = " (the tools you have are named in an earlier result)."
"""A failed call's result (docs/turn.md, "Failed calls"): the tools offered are named in the
first of a turn, and only pointed to after, so a model that keeps missing is not sent the list
again and again."""


class CallRecord(msgspec.Struct, frozen=True):
    """What one audited call produced: the output the model got and the events' ids."""

    output: str
    seconds: float
    call_event: str
    result_event: str | None
    repeat: int = 1
    """How many times the turn has made this call, this one included (same tool, same
    arguments)."""


class AuditedTools:
    """Runs the conversation's tools, each call recorded."""

    def __init__(
        self, tools: list[Tool], recorder: Recorder, output_dir: Path, *, memory: bool = False
    ) -> None:
        self.tools = {tool.name: tool for tool in tools}
        self.memory = memory
        self.recorder = recorder
        self.output_dir = output_dir
        self._repeats: Counter[tuple[str, bytes]] = Counter()
        self._first_outputs: dict[tuple[str, bytes], str] = {}
        """Each call's first output this turn, to tell whether its repeat gave the same."""
        self._offered_named = False
        """A failed call's result named the tools offered in this turn already."""

    def adopt(self, tools: list[Tool]) -> None:
        """Tools that joined the conversation after it opened (``Conversation.late_tools``)."""
        self.tools.update((tool.name, tool) for tool in tools)

    def new_turn(self) -> None:
        self._repeats.clear()  # ``repeat`` counts within a turn
        self._first_outputs.clear()
        self._offered_named = False

    async def run(
        self,
        call: ToolCall,
        *,
        conversation: ConversationView,
        working_directory: Path,
        budget: int,
        unparsed: str | None = None,
    ) -> CallRecord:
        """Run ``call`` (``unparsed``: arguments written as text that did not parse, so it is
        not run) and record it."""
        record = self.recorder.record
        call_event = record(ToolCallEvent(tool=call.name, arguments=call.arguments), call=call.id)
        key = (call.name, msgspec.json.encode(call.arguments, order="sorted"))
        self._repeats[key] += 1
        started = time.monotonic()
        tool = self.tools.get(call.name)
        keeper = _Keeper(self, call)
        notes: list[str] = []
        if tool is None or unparsed is not None:
            output = self._failed(call.name if tool is None else None, call.name, unparsed)
        else:
            context = ToolContext(
                working_directory=working_directory,
                call_id=call.id,
                output_budget=budget,
                record=lambda details: record(details, call=call.id),
                conversation=conversation,
                keep_output=keeper,
                notes=notes,
            )
            try:
                output = await tool.run(dict(call.arguments), context)
            except Exception as exc:  # a tool's bug: recorded, and the model told
                message = f"{type(exc).__name__}: {exc}"
                record(Error(message=message, context=f"tool {call.name}"), call=call.id)
                seconds = time.monotonic() - started
                return CallRecord(
                    f"error: {message}", seconds, call_event, None, self._repeats[key]
                )
        output = self._within_budget(call, output, budget, keeper)
        if notes:  # arguments the tool ignored, one line at the end
            output = "\n".join([output.rstrip("\n"), *notes])
        seconds = time.monotonic() - started
        repeat = self._repeats[key]
        if repeat == 1:
            self._first_outputs[key] = output
        elif repeat == 2:  # small models loop; the third time ends the tools
            same = self._first_outputs.pop(key, None) == output
            output = SAME_NOTE if same else REPEAT_NOTE + output
        result = ToolResult(
            tool=call.name, output=output, bytes=utf8_len(output), seconds=round(seconds, 6)
        )
        if repeat > 1:
            result.repeat = repeat
        result_event = record(result, call=call.id)
        return CallRecord(output, seconds, call_event, result_event, repeat)

    def _failed(self, unknown: str | None, name: str, unparsed: str | None) -> str:
        """A call that cannot run: no such tool, or arguments that did not parse."""
        if unknown is not None:
            output = NO_SUCH_TOOL.format(unknown)
        else:
            output = UNPARSED.format(name, _clipped(unparsed or ""))
        if self._offered_named:
            return output + OFFERED_BEFORE
        self._offered_named = True
        return output + OFFERED.format(", ".join(self.tools) or "none")

    def _within_budget(self, call: ToolCall, output: str, budget: int, keeper: _Keeper) -> str:
        if utf8_len(output) <= budget:
            return output
        output_id = call.id if keeper(output) else None
        hint = HINTS.get(call.name, DEFAULT_HINT)
        return hold_back(output, budget, output_id=output_id, hint=hint, memory=self.memory)

    def keep(self, call: ToolCall, output: str, *, cut: bool = False) -> bool:
        """The whole output in output/<session>/<call> (0600), up to 16 MiB; ``output.kept``.

        The one place outputs are kept: what the audited layer cuts, and what a tool that fits
        its own output (run_command) holds back. False, with an ``error``, when it cannot be
        written: the command has run, and its result must still reach the model and the log.
        """
        data = output.encode()
        kept = data[:OUTPUT_CEILING]
        try:
            self._write(call.id, kept)
        except OSError as exc:
            self.recorder.record(
                Error(message=f"{type(exc).__name__}: {exc}", context="keeping an output"),
                call=call.id,
            )
            return False
        self.recorder.record(
            OutputKept(
                tool=call.name,
                bytes=len(kept),
                lines=kept.count(b"\n") + 1,
                sha256=hashlib.sha256(kept).hexdigest(),
                cut=cut or len(data) > OUTPUT_CEILING,
                total_bytes=len(data),
            ),
            call=call.id,
        )
        return True

    def _write(self, call_id: str, data: bytes) -> None:
        folder = self.output_dir / self.recorder.session
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(folder, 0o700)
        fd = os.open(folder / call_id, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.fchmod(fd, 0o600)
            os.write(fd, data)
        finally:
            os.close(fd)


class _Keeper:
    """A call's ``keep_output``: keeps its output once, whether the tool or the audited layer
    asks first; a later ask keeps nothing more and answers as the first did."""

    def __init__(self, tools: AuditedTools, call: ToolCall) -> None:
        self.tools = tools
        self.call = call
        self.kept: bool | None = None

    def __call__(self, text: str, *, cut: bool = False) -> bool:
        if self.kept is None:
            self.kept = self.tools.keep(self.call, text, cut=cut)
        return self.kept


def _clipped(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def new_call_id(used: set[str]) -> str:
    """8 lowercase hex characters, unique within the session."""
    while (candidate := os.urandom(4).hex()) in used:
        pass
    used.add(candidate)
    return candidate
