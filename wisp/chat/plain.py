"""The plain line chat: a renderer of the chat loop's protocol lines, and a reader of lines.

It shows what ``wisp chat --json`` would send: the reply streams to stdout; notes, event lines,
folds and the footer (with how full the model's window is, from the last ``context`` line) go to
stderr (muted with Rich on a terminal, plain in a pipe). An approval, question or choice is
asked on the terminal and its answer goes back as the protocol's ``answer`` or ``choose``. A
line is read only when the loop wants one (a prompt, or a dialog), so what the person types
always answers what they see.

With no terminal on stdin (a pipe, a file) nobody sees the dialog, so the next line answers it
only when it is an answer (see :func:`answers`): a number or an option, an approval's y, s, p,
a or n, a question's text that is not a command. Any other line refuses the dialog (a choice
left as it was, an approval refused, a question declined), with a note, and is then read as
the chat line it was written as: ``/quit`` after an approval quits.
"""

from __future__ import annotations

import asyncio
from typing import Any, TextIO

import msgspec
from msgspec import UNSET

from wisp import protocol as p
from wisp.chat.fold import drawable, fold_output, footer
from wisp.chat.headless import never_blocks
from wisp.chat.loop import home_short
from wisp.policy.approvers import ApprovalRefused, parse_answer

FOLDED_KINDS = frozenset({"tool.result", "command.typed", "model.reasoning"})


class LineReader:
    """Lines from stdin without blocking the event loop, so Ctrl-C is always heard."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self._reader: asyncio.StreamReader | None = None
        self.is_terminal = _is_terminal(stream)
        """Someone types the lines, seeing each dialog; otherwise a dialog takes only an
        answer."""

    async def readline(self) -> str | None:
        """The next line without its newline; None at the end of input."""
        if self._reader is None and not _is_regular_file(self.stream):
            loop = asyncio.get_running_loop()
            self._reader = asyncio.StreamReader()
            protocol = asyncio.StreamReaderProtocol(self._reader)
            await loop.connect_read_pipe(lambda: protocol, self.stream)
        if self._reader is None:
            line = _read_file_line(self.stream)  # a regular file never blocks
            return line.rstrip("\n") if line else None
        raw = await self._reader.readline()
        return raw.decode(errors="replace").rstrip("\n") if raw else None


def _read_file_line(stream: TextIO) -> str:
    """A line of a file, read as bytes and decoded as the pipe's are: bytes that are not UTF-8
    become U+FFFD, never lone surrogates, which nothing after this could encode."""
    binary = getattr(stream, "buffer", None)
    if binary is None:
        return stream.readline()
    return binary.readline().decode(errors="replace")


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (OSError, ValueError):
        return False


def _is_regular_file(stream: TextIO) -> bool:
    try:
        return never_blocks(stream.fileno())
    except (OSError, ValueError):
        return True


class Pending(msgspec.Struct, frozen=True):
    """A dialog waiting for the person's next line."""

    kind: str  # "approval", "guidance", "question" or "choice"
    id: str
    options: tuple[str, ...] = ()


REFUSED = {
    "approval": "so it was refused (y, s, p, a or n answers one; --yes approves each command once)",
    "question": "so it was declined (a number, an option or text answers one)",
    "choice": "so it was left as it was (/model NAME changes the model without asking)",
    "guidance": "so the file was left out (y or n answers one)",
}
"""What became of a dialog a line did not answer, with no terminal, and how to answer one."""


def answers(pending: Pending, text: str) -> bool:
    """Whether ``text`` answers the dialog, read from a pipe: nobody saw the dialog, so a line
    written as the next chat line must not be taken for its answer.

    An empty line answers each as on a terminal (no, no answer, left as it was)."""
    value = text.strip()
    if not value or (value.isdigit() and 1 <= int(value) <= len(pending.options)):
        return True
    match pending.kind:
        case "approval":
            try:
                parse_answer(value)
            except ApprovalRefused:
                return False
            return True
        case "guidance":
            return value.lower() in ("y", "yes", "n", "no")
        case "question":
            if value.lower() == "/decline" or value in pending.options:
                return True
            return not pending.options and not value.startswith(("/", "!"))
        case _:
            return value in pending.options


class PlainFace:
    """Renders protocol lines on a terminal (or a pipe) and turns typed lines into inbound
    lines: answers while a dialog waits, messages otherwise."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out = out
        self.err = err
        self.is_terminal = out.isatty()
        self.wanted = asyncio.Event()
        """Set when the loop wants a line: its prompt (``status``) or a dialog."""
        self.pending: Pending | None = None
        self._console = _console(err) if err.isatty() else None
        self._reply_open = False
        self._fill: p.ContextFill | None = None
        """The last `context` line: the turn's footer says how full the window is."""

    # -- out ----------------------------------------------------------------------------------

    def write(self, line: p.Outbound) -> None:
        match line:
            case p.Delta(text=text):
                # The model's words, never its escape sequences, reach the terminal.
                self.out.write(drawable(text))
                self.out.flush()
                self._reply_open = not text.endswith("\n")
            case p.Output(text=text):
                self._end_reply()
                if text:
                    self.out.write(text.rstrip("\n") + "\n")
                    self.out.flush()
            case p.Note(text=text):
                self._end_reply()
                self.muted(text)
            case p.Event():
                self._event(line)
            case p.ContextFill():
                self._fill = line
            case p.Turn(phase="end"):
                self._turn_end(line)
            case p.Status():
                self._prompt()
            case p.Approval(guidance=p.ApprovalGuidance() as guidance):
                self._guidance(line.id, guidance)
            case p.Approval():
                self._approval(line)
            case p.Question():
                self._question(line)
            case p.Choice():
                self._choice(line)
            case p.View(text=text):
                self.out.write(text.rstrip("\n") + "\n")
                self.out.flush()
            case p.Withdrawn(id=key):
                if self.pending is not None and self.pending.id == key:
                    self.pending = None
                    self.muted("  (no longer waiting)")
            case _:
                pass  # hello, activity, completions, notify, exit: nothing to draw

    def _end_reply(self) -> None:
        if self._reply_open:
            self.out.write("\n")
            self.out.flush()
            self._reply_open = False

    def _event(self, line: p.Event) -> None:
        output = line.output if isinstance(line.output, p.EventOutput) else None
        # What a typed command printed is shown even when its own line says nothing more.
        printed = line.kind == "command.typed" and output is not None
        if line.text is None and not printed:
            return
        self._end_reply()
        if line.text is not None:
            self.muted(line.text)
        # Under the line, the output it stands for, folded.
        if output is not None and line.kind in FOLDED_KINDS:
            lines = fold_output(output)
            if lines:
                self.muted("\n".join(lines))

    def _turn_end(self, line: p.Turn) -> None:
        self._end_reply()
        outcome = line.outcome if isinstance(line.outcome, str) else "ok"
        seconds = line.seconds if isinstance(line.seconds, float | int) else 0.0
        lines = footer(
            _given(line.ran), _given(line.cited), float(seconds), outcome,
            _given(line.input_tokens), _given(line.output_tokens),
        )  # fmt: skip
        if isinstance(line.verification, str) and line.verification:
            lines.insert(-1, f"  {line.verification}")  # under ran and cited, above the time
        if (fill := fill_text(self._fill)) is not None:
            lines[-1] += f" · {fill}"
        for text in lines:
            self.muted(text)

    def _prompt(self) -> None:
        self.pending = None
        if self.is_terminal:
            self.out.write("› ")
            self.out.flush()
        self.wanted.set()

    def _approval(self, line: p.Approval) -> None:
        """The plain chat's approval prompt, on stderr."""
        self._end_reply()
        rows = ["", f"⚠ approve [{line.level}] {line.command}"]
        if line.line != line.command:
            rows.append(f"  part of: {line.line}")
        rows.append(f"  in {home_short(line.directory)}")
        rows += [f"  - {_cut(reason, 110)}" for reason in line.reasons]
        rows.append(f"  remembered as: {line.pattern}")
        self.say_err("\n".join(rows))
        self.err.write("  [y]once  [s]ession  [p]roject 30d  [a]lways 30d  [n]o › ")
        self.err.flush()
        self.pending = Pending("approval", line.id)
        self.wanted.set()

    def _guidance(self, key: str, guidance: p.ApprovalGuidance) -> None:
        """A guidance file, shown whole, then asked about (docs/turn.md, "Guidance files")."""
        self._end_reply()
        rows = ["", f"⚠ guidance file {guidance.path} ({guidance.bytes:,} bytes, "
                f"{guidance.reason}), whole:", ""]  # fmt: skip
        rows += [f"  │ {row}" for row in drawable(guidance.text).splitlines()]
        rows += ["", "  use it in this and later sessions, as long as it stays as it is?"]
        self.say_err("\n".join(rows))
        self.err.write("  [y]es  [n]o › ")
        self.err.flush()
        self.pending = Pending("guidance", key)
        self.wanted.set()

    def _question(self, line: p.Question) -> None:
        self._end_reply()
        rows = ["", f"? {line.question}"]
        rows += [f"  {number}. {option}" for number, option in enumerate(line.options, 1)]
        hint = "a number or an option" if line.options else "your answer"
        rows.append(f"  ({hint}; an empty line gives no answer, /decline declines)")
        self.say_err("\n".join(rows))
        self.pending = Pending("question", line.id, tuple(line.options))
        self.wanted.set()

    def _choice(self, line: p.Choice) -> None:
        self._end_reply()
        rows = [line.title]
        for number, option in enumerate(line.options, 1):
            mark = "*" if option.value == line.current else " "
            rows.append(f"{mark} {number}  {option.label}  {option.detail}".rstrip())
        rows.append("type a number, or press Enter to leave it")
        self.say_err("\n".join(rows))
        self.pending = Pending("choice", line.id, tuple(o.value for o in line.options))
        self.wanted.set()

    # -- in -----------------------------------------------------------------------------------

    def route(self, text: str | None, *, typed: bool = True) -> list[p.Inbound]:
        """The person's line as inbound lines; None (the end of input) answers a waiting
        dialog: an approval is denied, a question declined.

        ``typed`` is False when no terminal is on stdin: a line that does not answer the
        waiting dialog refuses it, with a note, and is then sent as a message."""
        pending, self.pending = self.pending, None
        if pending is None:
            return [] if text is None else [p.Message(text=text)]
        if text is None or typed or answers(pending, text):
            return [_answer(pending, text)]
        self.muted(f"  · no terminal: {text.strip()!r} does not answer the {pending.kind}, "
                   f"{REFUSED[pending.kind]}")  # fmt: skip
        return [_answer(pending, None), p.Message(text=text)]

    # -- output helpers -----------------------------------------------------------------------

    def muted(self, text: str) -> None:
        text = drawable(text)  # a tool line may quote the model's arguments, escapes and all
        if self._console is not None:
            self._console.print(text, style="dim", markup=False, highlight=False)
        else:
            print(text, file=self.err, flush=True)

    def say_err(self, text: str) -> None:
        print(text, file=self.err, flush=True)


async def feed_lines(face: PlainFace, reader: LineReader, receive: Any, end: Any) -> None:
    """Read a line whenever the loop wants one, and hand it over."""
    while True:
        await face.wanted.wait()
        face.wanted.clear()
        text = await reader.readline()
        for line in face.route(text, typed=reader.is_terminal):
            receive(line)
        if text is None:
            end()
            return


def _answer(pending: Pending, text: str | None) -> p.Inbound:
    """The answer ``text`` gives the dialog; None is the end of input, or a refusal."""
    if pending.kind in ("approval", "guidance"):
        return p.Answer(id=pending.id, decision=text if text is not None else "no")
    if pending.kind == "question":
        if text is None or text.strip() == "/decline":
            return p.Answer(id=pending.id, declined=True)
        answer = text.strip()
        if answer.isdigit() and 1 <= int(answer) <= len(pending.options):
            answer = pending.options[int(answer) - 1]
        return p.Answer(id=pending.id, text=answer)
    value = (text or "").strip()
    if value.isdigit() and 1 <= int(value) <= len(pending.options):
        value = pending.options[int(value) - 1]
    return p.Choose(id=pending.id, value=value or None)


def fill_text(fill: p.ContextFill | None) -> str | None:
    """`42% of 4,096 tokens`: how full the model's window is; None when the window is unknown."""
    if fill is None or fill.window is None or fill.used is None:
        return None
    return f"{round(fill.used * 100)}% of {fill.window:,} tokens"


def _given(value: Any) -> Any:
    return None if value is UNSET or value is None else value


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _console(stream: TextIO):  # type: ignore[no-untyped-def]
    from rich.console import Console

    return Console(file=stream, soft_wrap=True)
