"""The one-shot face: the reply streamed to stdout, everything else to stderr."""

from __future__ import annotations

from typing import TextIO

from wisp.agent.events import AgentEvent, TextFragment, TurnResult, cut_note
from wisp.audit.event import AuditEvent
from wisp.audit.kinds import ModelReasoning
from wisp.chat.event_text import event_text
from wisp.chat.fold import drawable

EXIT_STOPPED = 130


class OneShotFace:
    """Prints one turn: stdout carries only the reply, so it can be piped."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out = out
        self.err = err
        self.ends_with_newline = True
        self.to_terminal = out.isatty()

    def emit(self, event: AgentEvent) -> None:
        match event:
            case TextFragment(text=text):
                # Piped, the reply is data and goes on as written; on a terminal, the model's
                # words go there, never its escape sequences.
                self.out.write(drawable(text) if self.to_terminal else text)
                self.out.flush()
                self.ends_with_newline = text.endswith("\n")
            case AuditEvent(details=ModelReasoning(phase="end") as thought):
                self.note(event_text(thought, None) or "")
            case _:
                pass  # tool lines are for chat; the audit log has every call

    def note(self, text: str) -> None:
        print(drawable(text), file=self.err, flush=True)  # a thought is the model's text too

    def finish(self, result: TurnResult) -> int:
        """The lines under the reply, and the exit status: 0 ok, 1 error, 130 stopped."""
        if not self.ends_with_newline:
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
