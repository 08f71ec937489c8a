"""The one-shot face: the reply streamed to stdout, everything else to stderr."""

from __future__ import annotations

from typing import TextIO

from wisp.agent.events import AgentEvent, TextFragment, TurnResult, cut_note
from wisp.audit.event import AuditEvent
from wisp.audit.kinds import ModelReasoning, ToolCall
from wisp.chat.event_text import event_text
from wisp.chat.fold import drawable

EXIT_STOPPED = 130


class OneShotFace:
    """Prints one turn: stdout carries only the reply, so it can be piped."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out = out
        self.err = err
        self.to_terminal = out.isatty()
        self.wrote = False
        self.newlines_at_end = 1
        """Line breaks the output ends with (nothing written counts as one: no line to end)."""
        self.called_since = False
        """A tool was called since the reply's last text: what follows is another reply."""

    def emit(self, event: AgentEvent) -> None:
        match event:
            case TextFragment(text=text):
                if self.called_since and self.wrote and text.strip():
                    # Text before a call and the answer after it are two replies: a blank line
                    # between, as between any two (never "{}The output…").
                    self.out.write("\n" * (2 - min(2, self.newlines_at_end)))
                # Piped, the reply is data and goes on as written; on a terminal, the model's
                # words go there, never its escape sequences.
                self.out.write(drawable(text) if self.to_terminal else text)
                self.out.flush()
                if text.strip():
                    self.wrote, self.called_since = True, False
                stripped = text.rstrip("\n")
                ended = len(text) - len(stripped)
                self.newlines_at_end = ended if stripped else self.newlines_at_end + ended
            case AuditEvent(details=ToolCall()):
                self.called_since = True
            case AuditEvent(details=ModelReasoning(phase="end") as thought):
                self.note(event_text(thought, None) or "")
            case _:
                pass  # tool lines are for chat; the audit log has every call

    def note(self, text: str) -> None:
        print(drawable(text), file=self.err, flush=True)  # a thought is the model's text too

    def finish(self, result: TurnResult) -> int:
        """The lines under the reply, and the exit status: 0 ok, 1 error, 130 stopped."""
        if self.newlines_at_end == 0:
            self.out.write("\n")
            self.out.flush()
        if result.cut is not None:
            self.note(cut_note(result.cut))
        for line in (result.ran, result.cited, result.verification):
            if line:
                self.note(line)
        if result.outcome == "error":
            self.note(f"wisp: {result.error or 'the turn failed'}")
            return 1
        if result.outcome == "stopped":
            self.note("(stopped)")
            return EXIT_STOPPED
        return 0
