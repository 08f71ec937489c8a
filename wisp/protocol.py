"""Every line of ``wisp chat --json``, both directions, as msgspec Structs (docs/protocol.md).

wisp writes ``Outbound`` lines on stdout; the front end writes ``Inbound`` lines on wisp's stdin.
Each direction is one tagged union on ``type``: a line is a subclass whose ``tag`` is its ``type``.
Keys are camelCase on the wire (``rename="camel"``). A field written ``T | None`` is nullable and
always written; one written ``T | UnsetType = UNSET`` is optional and left out when it does not
apply. Every field a reader may miss has a default (docs/protocol.md, "8. Compatibility and
reader defaults").

Reading never raises. Unknown fields are skipped; a field of the wrong type, or an optional field
sent as null, reads as missing (its default). An outbound line that cannot be read is a
``Skipped`` value, which says why; ``decode_outbound`` turns it into None. An inbound line that is
not a JSON object with a string ``type`` is ``ChatText``, the whole raw line; an unknown type is
``Skipped``.

This module is the contract between wisp and its front ends: ``wisp_tui`` imports it and nothing
else of wisp, so it imports only the standard library and msgspec. Each field's docstring is its
meaning in docs/protocol.md, whose field tables ``wisp.protocol_docs`` renders from this module.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar, Literal, TypeAlias, get_args

import msgspec
from msgspec import UNSET, UnsetType

__all__ = [
    "INBOUND_TYPES",
    "OUTBOUND_TYPES",
    "Activity",
    "Answer",
    "Approval",
    "ApprovalFact",
    "ApprovalGuidance",
    "ChatText",
    "Choice",
    "ChoiceColumn",
    "ChoiceOption",
    "Choose",
    "ClientHello",
    "Complete",
    "Completions",
    "ContextFill",
    "Delta",
    "Effect",
    "Event",
    "EventOutput",
    "Exit",
    "Inbound",
    "InboundLine",
    "Interrupt",
    "Message",
    "Note",
    "Notify",
    "Outbound",
    "OutboundLine",
    "Output",
    "Question",
    "Shape",
    "SkipReason",
    "Skipped",
    "StateFact",
    "Status",
    "Turn",
    "TurnFact",
    "TurnOutcome",
    "View",
    "WispHello",
    "Withdrawn",
    "decode_inbound",
    "decode_outbound",
    "encode_line",
    "read_inbound",
    "read_outbound",
]


class Outbound(msgspec.Struct, tag_field="type", kw_only=True, rename="camel"):
    """A line wisp writes to the front end (stdout)."""

    computed_defaults: ClassVar[Mapping[str, str]] = MappingProxyType({})
    """Fields whose default is worked out from the others in ``__post_init__``, described."""


class Inbound(msgspec.Struct, tag_field="type", kw_only=True, rename="camel"):
    """A line the front end writes to wisp (wisp's stdin)."""

    computed_defaults: ClassVar[Mapping[str, str]] = MappingProxyType({})
    """Fields whose default is worked out from the others in ``__post_init__``, described."""


class Shape(msgspec.Struct, kw_only=True, rename="camel"):
    """An object nested in a line."""


# Nested shapes.


class EventOutput(Shape, kw_only=True):
    """The output an ``event`` carries: a tool's result, a typed command's, or thinking."""

    id: str | None = None
    """The audit event's own id (16 hex characters); `/show` takes 4 or more of its characters."""
    text: str
    """The output's first page, at most 16 KiB."""
    lines: int
    """Lines in the whole output (a trailing newline adds no line)."""
    bytes: int
    """UTF-8 bytes of the whole output."""
    truncated: bool
    """`text` is shorter than the whole output."""
    shown_lines: int = 20
    """Lines the plain chat shows before folding (config `shownOutputLines`; 0 shows none)."""


class TurnFact(Shape, kw_only=True):
    """A fact a turn recorded or changed."""

    id: str
    """The fact's id, e.g. `c8`."""
    scope: str
    """`permanent`, `thread` or `session`."""
    subject: str
    """The subject kind, e.g. `branch` or `entity`."""
    name: str
    """The fact's name; may be empty."""
    value: str
    """The fact's value."""
    source: str
    """Who stated it: `person`, `caller`, `tool` or `model`."""
    proposed: bool
    """It awaits the person to make it permanent."""


class ApprovalFact(Shape, kw_only=True):
    """A fact an MCP caller asked to keep as permanent (an `approval` with `kind: "fact"`)."""

    id: str
    """The fact's id."""
    subject: str
    """The subject kind."""
    name: str
    """The fact's name; may be empty."""
    value: str
    """The fact's value."""
    source: str
    """Who stated it: `person`, `caller`, `tool` or `model`."""


class ApprovalGuidance(Shape, kw_only=True):
    """A guidance file waiting for the person's yes or no (an `approval` with
    `kind: "guidance"`): shown whole, as the model would get it."""

    path: str
    """The file's real path."""
    bytes: int
    """Its size in bytes (at most 32 KiB)."""
    sha256: str
    """The SHA-256 of its bytes: the answer is kept for these bytes only."""
    text: str
    """The whole file, as the model would get it."""
    reason: str
    """`not accepted yet`, or `changed since accepted`."""


class ChoiceOption(Shape, kw_only=True):
    """One option of a `choice`."""

    value: str
    """What `choose` sends back for it."""
    label: str
    """What to show; often equal to `value`."""
    detail: str = ""
    """A muted note beside the label; may be empty."""
    on: bool | UnsetType = UNSET
    """Toggles only: the option is enabled."""
    cells: list[str] | UnsetType = UNSET
    """Toggles only: one string per column."""


class ChoiceColumn(Shape, kw_only=True):
    """A column of a choice with toggles."""

    heading: str
    """The column's heading."""
    drop: int = 0
    """0: never dropped; otherwise the rank in which a narrow screen drops it, 1 first."""


# Lines out: wisp -> front end (docs/protocol.md, "4. Lines out (wisp → front end)").


class WispHello(Outbound, tag="hello", kw_only=True):
    """wisp's first line, once the session has started; again after `/new`."""

    version: str
    """The wisp version."""
    session: str
    """The audit session id this chat writes under."""
    model: str
    """The model selection as `--model` spells it (same as `status.model`)."""
    tools: list[str]
    """The tools the model can call, in the order offered; empty when tools are off."""


class Note(Outbound, tag="note", kw_only=True):
    """A line of wisp's own words: banner, notices, confirmations, errors (`error: …`)."""

    text: str
    """The note, unstyled; may hold `\\n`. A front end shows one starting `error` as an error."""


class Status(Outbound, tag="status", kw_only=True):
    """The previous message is finished and input is wanted, with the state for a status line."""

    model: str
    """The model selection as `--model` spells it."""
    directory: str
    """The working directory, with home shortened to `~`."""
    branch: str | None = None
    """The git branch, or the first 8 characters of a detached HEAD; null outside a repository."""
    dirty: bool | None = None
    """Tracked files differ from HEAD; null when unknown."""
    added: int | None = None
    """Lines added in tracked files since the last commit, staged or not."""
    removed: int | None = None
    """Lines removed in tracked files since the last commit, staged or not."""
    approval: str
    """The approval mode in words: `approve at moderate`, `approve at dangerous`, `never asks`,
    `--yes`, or `--yes-network`."""
    context_used: float | None = None
    """The share (0..1) of the model's context window the conversation uses."""
    sandbox: bool
    """Commands run confined (docs/sandbox.md); false when they run unconfined."""
    sandbox_note: str | None = None
    """A short caveat when the confinement is partial, worded for the status line."""


class Output(Outbound, tag="output", kw_only=True):
    """Text a slash command prints; an empty one ends a reply."""

    text: str
    """The text; may hold newlines (split on them). `""` marks the end of a reply."""


class Delta(Outbound, tag="delta", kw_only=True):
    """A fragment of the streamed reply; concatenate until the empty `output`."""

    text: str
    """The fragment, as streamed; no newline is added, but it may contain some."""


TurnOutcome: TypeAlias = Literal["ok", "error", "stopped"]


class Turn(Outbound, tag="turn", kw_only=True):
    """A chat turn starts or ends."""

    phase: Literal["start", "end"]
    """`start` or `end`."""
    turn: int
    """The turn's number, as its events carry in `event.turn`."""
    seconds: float | UnsetType = UNSET
    """End only: the turn's wall time, approvals, questions and commands included."""
    outcome: TurnOutcome | UnsetType = UNSET
    """End only: `ok`, `error` (a `note` said why) or `stopped` (docs/turn.md, "Stopping a
    turn")."""
    input_tokens: int | UnsetType = UNSET
    """End only, when the model reported usage: prompt tokens, summed over the turn's requests."""
    output_tokens: int | UnsetType = UNSET
    """End only, when the model reported usage: tokens written."""
    facts: list[TurnFact] | UnsetType = UNSET
    """End only, when the turn recorded or changed facts (also sent as a `note`)."""
    ran: str | UnsetType = UNSET
    """End only: the "what the turn ran" line, e.g. `ran: read_file ×2 · run_command (1 failed)`."""
    cited: str | UnsetType = UNSET
    """End only: the line naming entries the reply cites that the conversation does not hold."""
    verification: str | UnsetType = UNSET
    """End only, when the reply claims an action the turn's calls do not show: e.g.
    `claimed but not done: ran the tests (no command ran)` (docs/turn.md, "Lines under a reply")."""
    killed: bool | UnsetType = UNSET
    """End only: a second interrupt killed the stopped turn's work at once; always true if sent."""


class Activity(Outbound, tag="activity", kw_only=True):
    """What the running turn or typed command is doing; sent only when it changes."""

    doing: str | None = None
    """What it does now, e.g. `waiting for the model`; null when it has ended."""
    asking: bool | UnsetType = UNSET
    """The person is being asked (an approval or a question). Absent at the end; read as false."""
    turn_seconds: float | UnsetType = UNSET
    """Seconds from the start of the turn or typed command to when this activity began (not a
    clock). Absent at the end; read as 0."""
    thinking: bool | UnsetType = UNSET
    """Sent only when true: the model is thinking."""
    stoppable: bool | UnsetType = UNSET
    """Sent only when true: an `interrupt` stops it."""
    stopping: bool | UnsetType = UNSET
    """Sent only when true: an `interrupt` arrived; a second one kills at once."""


class ContextFill(Outbound, tag="context", kw_only=True):
    """How full the model's window is: sent after every model request, and after the context is
    condensed, so a status line's meter moves while a turn runs."""

    tokens: int
    """The context's tokens: the last request's prompt as the runtime counted it (or as wisp
    estimated it, at four bytes a token, when the runtime reports none); after a condensation,
    what the next request will carry."""
    window: int | None = None
    """The model's window in tokens; null when unknown."""
    used: float | None = None
    """`tokens` ÷ `window`, 0..1, rounded to three places; null when the window is unknown."""


class Event(Outbound, tag="event", kw_only=True):
    """One audit event of the conversation, raw, with the line the plain chat shows for it."""

    kind: str
    """The audit kind, e.g. `tool.call`; a reader accepts any kind."""
    call: str | None = None
    """Pairs a `tool.call` with its `tool.result`; null when the event belongs to no call."""
    turn: int | None = None
    """The turn number; null outside a turn."""
    details: dict[str, Any] = {}
    """The kind's details, raw, field for field as the audit log writes them (docs/logging.md)."""
    text: str | None = None
    """The unstyled line the plain chat shows for it; null when it shows nothing."""
    output: EventOutput | UnsetType = UNSET
    """On every `tool.result`, a `command.typed` that printed, and a `model.reasoning` end."""


class View(Outbound, tag="view", kw_only=True):
    """A whole document a slash command shows, meant for a panel."""

    kind: str
    """`context`, `turns`, `facts`, `summary` or `thinking`."""
    turn: int | None = None
    """The turn of a `context N` or `thinking N` view; null otherwise."""
    turns: int
    """How many turns the conversation has had."""
    text: str
    """The document, as Markdown."""


class Approval(Outbound, tag="approval", kw_only=True):
    """A command (or, from MCP, a fact) waiting for the person; answered by `answer` with `id`."""

    id: str
    """Answer with this. Relayed MCP requests use `mcp-<request>`."""
    command: str
    """The simple command being judged; for a fact, the fact as one line."""
    line: str
    """The whole command line it belongs to (equal to `command` when simple)."""
    pattern: str
    """The key the answer is remembered under, e.g. `git push *`; empty for a fact."""
    directory: str
    """Where it would run (absolute); empty for a fact."""
    level: str
    """`safe`, `moderate` or `dangerous`."""
    reasons: list[str] = []
    """Why it needs approval."""
    source: str | UnsetType = UNSET
    """`mcp` for a request waiting in a `wisp mcp` server; absent for this chat's own."""
    thread: str | UnsetType | None = UNSET
    """MCP only: the MCP thread it came from (may be null)."""
    client: str | UnsetType | None = UNSET
    """MCP only: the MCP client that asked (may be null)."""
    request: str | UnsetType = UNSET
    """MCP only: the pending request's id."""
    kind: str | UnsetType = UNSET
    """`fact` for a fact to keep, `guidance` for a guidance file to use; absent for a
    command."""
    fact: ApprovalFact | UnsetType = UNSET
    """With `kind: "fact"`: the fact; answered `keep` or `drop`."""
    guidance: ApprovalGuidance | UnsetType = UNSET
    """With `kind: "guidance"`: the file; answered `yes` or `no`."""


class Withdrawn(Outbound, tag="withdrawn", kw_only=True):
    """An approval, choice or question no longer waits: close its dialog."""

    id: str
    """The id of the approval, choice or question; unknown or closed ids are ignored."""


class Choice(Outbound, tag="choice", kw_only=True):
    """A slash command asks the person to pick; answered by `choose` with `id`."""

    id: str
    """Answer with this."""
    title: str
    """The question."""
    options: list[ChoiceOption] = []
    """The options; may be empty when only typed text will do."""
    current: str | None = None
    """The value in force, to mark."""
    accepts_text: bool = False
    """Typed free text is accepted as well as, or instead of, an option."""
    toggles: bool | UnsetType = UNSET
    """Sent only when true (`/models`): each option is on or off; answered with `values`."""
    columns: list[ChoiceColumn] | UnsetType = UNSET
    """With `toggles`: the table's columns."""


class Question(Outbound, tag="question", kw_only=True):
    """The model's `ask` tool asks the person; answered by `answer`, `text` or `declined`."""

    computed_defaults: ClassVar[Mapping[str, str]] = MappingProxyType(
        {"free_text": "`true` exactly when `options` is empty"}
    )

    id: str
    """Answer with this."""
    question: str
    """The question as the model wrote it."""
    options: list[str] = []
    """The answers to choose from; empty for a free-text question."""
    free_text: bool | UnsetType = UNSET
    """Typed text is the answer; true exactly when `options` is empty."""
    timeout_seconds: float | None = None
    """How long wisp waits; null: until answered, declined or the turn is stopped."""

    def __post_init__(self) -> None:
        if self.free_text is UNSET:
            self.free_text = not self.options  # the reader's default


class Completions(Outbound, tag="completions", kw_only=True):
    """The answer to a `complete` with the same id."""

    id: str
    """The request's id."""
    from_: int = msgspec.field(name="from")
    """Where the word being completed starts, in code points (Python `str` indices)."""
    candidates: list[str]
    """Sorted, without duplicates; each replaces `text[from:cursor]`. Empty when nothing fits."""


class Notify(Outbound, tag="notify", kw_only=True):
    """A notification for the front end to post (only after a `hello` declaring `notify`)."""

    title: str
    """The title."""
    subtitle: str | None = None
    """The subtitle; null when there is none."""
    body: str
    """The body."""
    sound: bool
    """Play a sound with it."""


class Exit(Outbound, tag="exit", kw_only=True):
    """The loop has ended (after the exit save); wisp exits right after."""


OutboundLine: TypeAlias = (
    WispHello
    | Note
    | Status
    | Output
    | Delta
    | Turn
    | Activity
    | ContextFill
    | Event
    | View
    | Approval
    | Withdrawn
    | Choice
    | Question
    | Completions
    | Notify
    | Exit
)
"""Any line wisp writes, in docs/protocol.md's order."""


# Lines in: front end -> wisp (docs/protocol.md, "5. Lines in (front end → wisp)").


class Effect(enum.StrEnum):
    """The host effects a front end's `hello` may declare; others are ignored."""

    APPROVE = "approve"
    ASK = "ask"
    NOTIFY = "notify"
    APPROVE_MCP = "approve-mcp"
    KEEP_FACTS = "keep-facts"
    GUIDANCE = "guidance"


class ClientHello(Inbound, tag="hello", kw_only=True):
    """The front end's first line: the effects it carries out (recorded as `host.hello`)."""

    effects: list[str] = []
    """`approve`, `ask`, `notify`, `approve-mcp`, `keep-facts`, `guidance` (`Effect`); others
    are ignored."""
    client: str | UnsetType = UNSET
    """The front end's name, e.g. `wisp-tui`."""
    version: str | UnsetType = UNSET
    """The front end's version."""


class Message(Inbound, tag="message", kw_only=True):
    """One chat input line as typed: chat text, a `/command`, or a `!command`."""

    text: str = ""
    """The line; wisp trims it. Empty after trimming: ignored."""


class Answer(Inbound, tag="answer", kw_only=True):
    """The answer to an `approval` (`decision`) or to a `question` (`text` or `declined`)."""

    id: str = ""
    """The approval's or question's id."""
    decision: str | UnsetType = UNSET
    """Approvals: `once` (`y`, `yes`), `session` (`s`), `project` (`p`), `always` (`a`) or
    `no` (`n`), read leniently; absent reads as `no`. MCP approvals need the exact words; MCP
    facts take `keep` or `drop`; guidance files `yes` (`y`) or `no`."""
    text: str | UnsetType = UNSET
    """Questions: the answer, an option exactly or free text; empty means no answer."""
    declined: bool | UnsetType = UNSET
    """Questions: true when the person declined to answer."""


class Choose(Inbound, tag="choose", kw_only=True):
    """The answer to a `choice`."""

    id: str = ""
    """The choice's id."""
    value: str | None = None
    """The value picked; null or `""` is no answer. With `values` (the model picker): the
    model to use from now on, or null to keep the one in use."""
    values: list[str] | UnsetType = UNSET
    """Choices with toggles: the option values left on, in order; absent changes nothing."""


class Complete(Inbound, tag="complete", kw_only=True):
    """Asks for completions of an input line; answered by `completions` at any time."""

    computed_defaults: ClassVar[Mapping[str, str]] = MappingProxyType(
        {"cursor": "the end of `text`"}
    )

    id: str = ""
    """Chosen by the front end (`k1`, `k2`, …); the answer carries it."""
    text: str = ""
    """The whole input line."""
    cursor: int | UnsetType = UNSET
    """The cursor, in code points (Python `str` indices)."""

    def __post_init__(self) -> None:
        if self.cursor is UNSET:
            self.cursor = len(self.text)  # the end of the text


class StateFact(Inbound, tag="fact", kw_only=True):
    """The person states a fact, as `/fact SUBJECT NAME = VALUE` does (the subject may have
    several words here); answered by a `note`, queued behind the messages before it."""

    subject: str = ""
    """What the fact is about, such as `deploy`."""
    name: str = ""
    """Which of its values, such as `branch`."""
    value: str = ""
    """The value, such as `release`; masked when it looks like a credential."""


class Interrupt(Inbound, tag="interrupt", kw_only=True):
    """Stops the running turn or typed command; a second one while stopping kills at once."""


InboundLine: TypeAlias = (
    ClientHello | Message | Answer | Choose | Complete | StateFact | Interrupt
)  # fmt: skip
"""Any line the front end writes, in docs/protocol.md's order."""


def _registry(union: Any) -> Mapping[str, type[Any]]:
    return MappingProxyType({cls.__struct_config__.tag: cls for cls in get_args(union)})


OUTBOUND_TYPES: Mapping[str, type[Outbound]] = _registry(OutboundLine)
"""Each outbound `type` and its Struct, in docs/protocol.md's order."""

INBOUND_TYPES: Mapping[str, type[Inbound]] = _registry(InboundLine)
"""Each inbound `type` and its Struct, in docs/protocol.md's order."""


# What a reader returns for a line that is not a known line.


class ChatText(msgspec.Struct, frozen=True):
    """An inbound line that is not a JSON object with a string `type`: chat text, verbatim."""

    text: str
    """The whole raw line, without its line ending; undecodable bytes become U+FFFD."""


SkipReason: TypeAlias = Literal["not-json", "untyped", "too-deep", "unknown-type", "invalid"]


class Skipped(msgspec.Struct, frozen=True):
    """A line a reader set aside, and why. Readers return it; they never raise."""

    reason: SkipReason
    """`not-json` (malformed, binary), `untyped` (JSON, but not an object with a string `type`),
    `too-deep` (nested past what can be read), `unknown-type`, or `invalid` (a known type whose
    required fields are missing or of the wrong type)."""
    type: str | None
    """The line's `type` when it had one."""
    detail: str
    """What was wrong, with the path msgspec gives (``- at `$.text` ``)."""
    text: str
    """The raw line, as for ``ChatText``: what a front end shows as a note."""


# Encoding and decoding. Encoders and Decoders hold no state between calls, so one of each is
# built once and shared (msgspec's perf tips); no other state is kept at module level. The two
# typed decoders are built at their first use: building one resolves every line type's
# annotations (about 3 ms), which a front end's first frame need not wait for.

_ENCODER = msgspec.json.Encoder()
_ANY_DECODER = msgspec.json.Decoder()


@functools.cache
def _outbound_decoder() -> msgspec.json.Decoder[OutboundLine]:
    return msgspec.json.Decoder(OutboundLine)


@functools.cache
def _inbound_decoder() -> msgspec.json.Decoder[InboundLine]:
    return msgspec.json.Decoder(InboundLine)


def encode_line(line: Outbound | Inbound) -> bytes:
    """One protocol line: compact UTF-8 JSON, `type` first, ended by ``\\n``."""
    try:
        return _ENCODER.encode(line) + b"\n"
    except UnicodeEncodeError:
        # A lone surrogate (a path or output decoded with surrogateescape) has no UTF-8 form;
        # it becomes U+FFFD rather than ending the chat.
        return _ENCODER.encode(_scrub(msgspec.to_builtins(line))) + b"\n"


def read_outbound(line: bytes | str) -> OutboundLine | Skipped:
    """A line wisp wrote, or ``Skipped`` saying why it is not one; never raises."""
    try:
        return _outbound_decoder().decode(line)
    except (msgspec.MsgspecError, RecursionError) as exc:
        return _read_slowly(line, OUTBOUND_TYPES, exc)


def decode_outbound(line: bytes | str) -> OutboundLine | None:
    """A line wisp wrote, or None for any line that is not one (skip it); never raises."""
    read = read_outbound(line)
    return None if isinstance(read, Skipped) else read


def read_inbound(line: bytes | str) -> InboundLine | ChatText | Skipped:
    """A line the front end wrote: a known line, chat text, or ``Skipped`` (an unknown
    type, a known one it cannot read, or too deep to read); never raises."""
    try:
        return _inbound_decoder().decode(line)
    except (msgspec.MsgspecError, RecursionError) as exc:
        read = _read_slowly(line, INBOUND_TYPES, exc)
    if isinstance(read, Skipped) and read.reason in ("not-json", "untyped"):
        return ChatText(text=read.text)
    return read


def decode_inbound(line: bytes | str) -> InboundLine | ChatText | None:
    """A line the front end wrote, chat text, or None for a line to ignore; never raises."""
    read = read_inbound(line)
    return None if isinstance(read, Skipped) else read


def _read_slowly(line: bytes | str, types: Mapping[str, type[Any]], exc: Exception) -> Any:
    """The typed decoder refused ``line``: find out why, and rescue a known line whose only
    faults are fields a reader may take as missing."""
    try:
        obj = _ANY_DECODER.decode(line)
    except msgspec.MsgspecError as error:
        return _skip(line, "not-json", None, str(error))
    except RecursionError:
        # Only an object can be a line; an array nested too deep is text like any other.
        reason = "too-deep" if _raw_text(line).lstrip().startswith("{") else "untyped"
        return _skip(line, reason, None, "nested too deeply to read")
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        return _skip(line, "untyped", None, "not a JSON object with a string `type`")
    type_ = obj["type"]
    cls = types.get(type_)
    if cls is None:
        return _skip(line, "unknown-type", type_, f"unknown type {type_!r}")
    try:
        return msgspec.convert(_readable_fields(obj, cls), cls)
    except (msgspec.MsgspecError, RecursionError) as error:
        # The typed decoder's error names the line's first fault; the second, when it differs,
        # what still stands in the way once the forgivable faults are forgiven.
        faults = dict.fromkeys((str(exc), str(error)))
        return _skip(line, "invalid", type_, f"{type_}: " + "; ".join(faults))


def _readable_fields(obj: dict[str, Any], cls: type[Any]) -> dict[str, Any]:
    """``obj``'s known fields that hold a value of their type; the rest read as missing."""
    kept: dict[str, Any] = {"type": obj["type"]}
    for info in msgspec.structs.fields(cls):
        if info.encode_name not in obj:
            continue
        value = obj[info.encode_name]
        try:
            msgspec.convert(value, info.type)
        except (msgspec.MsgspecError, RecursionError):
            continue
        kept[info.encode_name] = value
    return kept


def _skip(line: bytes | str, reason: SkipReason, type_: str | None, detail: str) -> Skipped:
    return Skipped(reason=reason, type=type_, detail=detail, text=_raw_text(line))


def _raw_text(line: bytes | str) -> str:
    text = line if isinstance(line, str) else bytes(line).decode("utf-8", errors="replace")
    text = text.removesuffix("\n")
    return text.removesuffix("\r")


def _scrub(value: Any) -> Any:
    """``value`` (builtins) with every string made encodable as UTF-8."""
    match value:
        case str():
            return _scrub_text(value)
        case dict():
            return {_scrub(key): _scrub(item) for key, item in value.items()}
        case list():
            return [_scrub(item) for item in value]
    return value


def _scrub_text(text: str) -> str:
    try:
        # Bytes that surrogateescape smuggled in come back as bytes, then as U+FFFD if invalid.
        return text.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="replace")
    except UnicodeEncodeError:
        # Any other lone surrogate; a pair split into two code points joins up again.
        return text.encode("utf-16", errors="surrogatepass").decode("utf-16", errors="replace")
