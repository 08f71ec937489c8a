"""wisp/protocol.py: every line both ways, what readers default and forgive, docs/protocol.md."""

from __future__ import annotations

import ast
import json
import random
import re
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest
from msgspec import UNSET

from wisp import protocol as p
from wisp.protocol_docs import PROTOCOL_DOC, render_protocol_tables, with_tables

# One line of each type, with every optional field set, so a round trip covers all of them.
OUTBOUND_SAMPLES: dict[str, p.Outbound] = {
    "hello": p.WispHello(version="0.1.0", session="b41f0c2a", model="local", tools=["ask"]),
    "note": p.Note(text="error: ×\nsecond line"),
    "status": p.Status(
        model="ollama:granite4.1:8b",
        directory="~/src/app",
        branch="main",
        dirty=True,
        added=12,
        removed=3,
        approval="approve at moderate",
        context_used=0.15,
        sandbox=False,
        sandbox_note="network could not be turned off",
    ),
    "output": p.Output(text=""),
    "delta": p.Delta(text="Pushed ∴ "),
    "turn": p.Turn(
        phase="end",
        turn=3,
        seconds=3.1,
        outcome="stopped",
        input_tokens=4009,
        output_tokens=79,
        facts=[
            p.TurnFact(
                id="c8",
                scope="thread",
                subject="branch",
                name="",
                value="main",
                source="tool",
                proposed=False,
            )
        ],
        ran="ran: read_file ×2",
        cited="cited but not in this conversation: entries 19–30 (12)",
        killed=True,
    ),
    "activity": p.Activity(
        doing="thinking",
        asking=False,
        turn_seconds=0.4,
        thinking=True,
        stoppable=True,
        stopping=True,
    ),
    "context": p.ContextFill(tokens=1720, window=4096, used=0.42),
    "event": p.Event(
        kind="tool.result",
        call="c7",
        turn=3,
        details={"tool": "read_file", "bytes": 5210, "nested": {"a": [1, None, True]}},
        text="  ↳ 5210 bytes in 0.0 s: 1\t# wisp",
        output=p.EventOutput(
            id="8a7b6c5d4e3f2a1b", text="1\t# wisp", lines=104, bytes=5210, truncated=True
        ),
    ),
    "view": p.View(kind="context", turn=2, turns=4, text="# The context\n…"),
    "approval": p.Approval(
        id="mcp-a1b2c3d4",
        command="release codename = BLUE HERON",
        line="release codename = BLUE HERON",
        pattern="",
        directory="",
        level="safe",
        reasons=["a reason"],
        source="mcp",
        thread=None,
        client="claude-code",
        request="a1b2c3d4",
        kind="fact",
        fact=p.ApprovalFact(
            id="c3", subject="entity", name="release codename", value="BLUE HERON", source="model"
        ),
    ),
    "withdrawn": p.Withdrawn(id="3f9a1c2e"),
    "choice": p.Choice(
        id="9c01be22",
        title="Models",
        options=[
            p.ChoiceOption(value="local", label="local", on=True, cells=["local", "8,192"]),
            p.ChoiceOption(value="ollama:qwen3:8b", label="qwen", detail="d", on=False, cells=[]),
        ],
        current="local",
        accepts_text=True,
        toggles=True,
        columns=[p.ChoiceColumn(heading="MODEL"), p.ChoiceColumn(heading="CONTEXT", drop=7)],
    ),
    "question": p.Question(
        id="7c1e04b9",
        question="Which environment?",
        options=["staging", "production"],
        timeout_seconds=120,
    ),
    "completions": p.Completions(id="k1", from_=0, candidates=["/config", "/context"]),
    "notify": p.Notify(title="Build", subtitle="ci", body="tests pass", sound=True),
    "exit": p.Exit(),
}

INBOUND_SAMPLES: dict[str, p.Inbound] = {
    "hello": p.ClientHello(
        effects=[p.Effect.APPROVE, "approve-mcp", "future-effect"], client="wisp-tui", version="1"
    ),
    "message": p.Message(text="/config set approval.threshold"),
    "answer": p.Answer(id="3f9a1c2e", decision="session", text="staging", declined=True),
    "choose": p.Choose(id="9c01be22", value=None, values=["local"]),
    "complete": p.Complete(id="k1", text="/con", cursor=2),
    "fact": p.StateFact(subject="release train", name="day", value="Tuesday"),
    "interrupt": p.Interrupt(),
}


def test_every_line_type_has_a_sample() -> None:
    assert list(OUTBOUND_SAMPLES) == list(p.OUTBOUND_TYPES)
    assert list(INBOUND_SAMPLES) == list(p.INBOUND_TYPES)


def test_the_registries_hold_every_line_class() -> None:
    assert set(p.OUTBOUND_TYPES.values()) == set(p.Outbound.__subclasses__())
    assert set(p.INBOUND_TYPES.values()) == set(p.Inbound.__subclasses__())
    for tag, cls in (*p.OUTBOUND_TYPES.items(), *p.INBOUND_TYPES.items()):
        assert cls.__struct_config__.tag == tag


@pytest.mark.parametrize("tag", list(OUTBOUND_SAMPLES))
def test_outbound_line_round_trips(tag: str) -> None:
    line = OUTBOUND_SAMPLES[tag]
    encoded = p.encode_line(line)
    assert encoded.endswith(b"\n") and encoded.count(b"\n") == 1
    assert encoded.startswith(b'{"type":"' + tag.encode() + b'"')
    assert p.decode_outbound(encoded) == line
    assert type(p.decode_outbound(encoded)) is p.OUTBOUND_TYPES[tag]


@pytest.mark.parametrize("tag", list(INBOUND_SAMPLES))
def test_inbound_line_round_trips(tag: str) -> None:
    line = INBOUND_SAMPLES[tag]
    encoded = p.encode_line(line)
    assert encoded.endswith(b"\n") and encoded.count(b"\n") == 1
    assert p.decode_inbound(encoded) == line
    assert type(p.decode_inbound(encoded)) is p.INBOUND_TYPES[tag]


def test_encoding_is_compact_utf8_with_raw_non_ascii_and_slashes() -> None:
    encoded = p.encode_line(p.Note(text="a/b × ⚙"))
    assert encoded == '{"type":"note","text":"a/b × ⚙"}\n'.encode()


def test_encoding_writes_the_wire_names() -> None:
    wire = json.loads(p.encode_line(OUTBOUND_SAMPLES["status"]))
    assert {"contextUsed", "sandboxNote"} <= wire.keys()
    wire = json.loads(p.encode_line(OUTBOUND_SAMPLES["turn"]))
    assert {"inputTokens", "outputTokens"} <= wire.keys()
    assert "from" in json.loads(p.encode_line(OUTBOUND_SAMPLES["completions"]))
    assert "shownLines" in json.loads(p.encode_line(OUTBOUND_SAMPLES["event"]))["output"]


def test_nullable_fields_are_written_and_unset_optional_fields_are_left_out() -> None:
    wire = json.loads(p.encode_line(p.Event(kind="session.start")))
    assert wire == {
        "type": "event",
        "kind": "session.start",
        "call": None,
        "turn": None,
        "details": {},
        "text": None,
    }
    assert json.loads(p.encode_line(p.Activity(doing=None))) == {"type": "activity", "doing": None}


def test_a_lone_surrogate_is_encoded_as_a_replacement_character() -> None:
    encoded = p.encode_line(
        p.Status(model="local", directory="~/caf\udce9", approval="x", sandbox=True)
    )
    assert p.decode_outbound(encoded).directory == "~/caf\ufffd"


def test_unknown_fields_are_ignored_both_ways() -> None:
    for samples, decode in (
        (OUTBOUND_SAMPLES, p.decode_outbound),
        (INBOUND_SAMPLES, p.decode_inbound),
    ):
        for line in samples.values():
            wire = json.loads(p.encode_line(line))
            wire["someFutureField"] = {"nested": [1, 2]}
            assert decode(json.dumps(wire).encode()) == line


def test_unknown_outbound_type_is_skipped() -> None:
    raw = b'{"type":"sparkle","text":"hi"}\n'
    assert p.decode_outbound(raw) is None
    assert p.read_outbound(raw) == p.Skipped(
        reason="unknown-type",
        type="sparkle",
        detail="unknown type 'sparkle'",
        text='{"type":"sparkle","text":"hi"}',
    )


def test_outbound_text_that_is_not_json_is_kept_to_show_as_a_note() -> None:
    read = p.read_outbound(b"Traceback (most recent call last):\n")
    assert isinstance(read, p.Skipped)
    assert (read.reason, read.text) == ("not-json", "Traceback (most recent call last):")


def test_outbound_line_missing_a_required_field_is_invalid() -> None:
    read = p.read_outbound(b'{"type":"status","directory":"~"}')
    assert isinstance(read, p.Skipped)
    assert (read.reason, read.type) == ("invalid", "status")
    assert "model" in read.detail


def test_missing_nullable_fields_read_as_null() -> None:
    line = p.decode_outbound(
        b'{"type":"status","model":"m","directory":"~","approval":"a","sandbox":true}'
    )
    assert line == p.Status(model="m", directory="~", approval="a", sandbox=True)
    assert line.branch is None and line.context_used is None


def test_null_optional_fields_read_as_absent() -> None:
    line = p.decode_outbound(
        b'{"type":"turn","phase":"end","turn":1,"seconds":2,"outcome":"ok",'
        b'"ran":null,"killed":null,"facts":null}'
    )
    assert line == p.Turn(phase="end", turn=1, seconds=2.0, outcome="ok")


def test_a_field_of_the_wrong_type_reads_as_missing() -> None:
    line = p.decode_outbound(
        b'{"type":"approval","id":"x","command":"c","line":"c","pattern":"",'
        b'"directory":"","level":"safe","reasons":"oops"}'
    )
    assert isinstance(line, p.Approval) and line.reasons == []


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b'{"type":"activity"}', p.Activity(doing=None)),
        (b'{"type":"event","kind":"k"}', p.Event(kind="k", details={}, text=None)),
        (b'{"type":"choice","id":"c","title":"t"}', p.Choice(id="c", title="t")),
        (
            b'{"type":"question","id":"q","question":"?"}',
            p.Question(id="q", question="?", options=[], free_text=True, timeout_seconds=None),
        ),
        (
            b'{"type":"question","id":"q","question":"?","options":["a"]}',
            p.Question(id="q", question="?", options=["a"], free_text=False),
        ),
    ],
)
def test_outbound_reader_defaults(raw: bytes, expected: p.Outbound) -> None:
    assert p.decode_outbound(raw) == expected


def test_activity_flags_left_out_read_as_false() -> None:
    line = p.decode_outbound(b'{"type":"activity","doing":"d","asking":false,"turnSeconds":0}')
    assert isinstance(line, p.Activity)
    assert not line.thinking and not line.stoppable and not line.stopping


def test_event_output_shown_lines_defaults_to_20() -> None:
    line = p.decode_outbound(
        b'{"type":"event","kind":"tool.result","output":{"text":"",'
        b'"lines":0,"bytes":0,"truncated":false}}'
    )
    assert isinstance(line, p.Event) and isinstance(line.output, p.EventOutput)
    assert line.output.shown_lines == 20 and line.output.id is None


@pytest.mark.parametrize(
    "raw",
    [
        b"What is the date in Tokyo?",
        b'{"text":"hi"}',
        b'{"type":5,"text":"hi"}',
        b'{"type":null}',
        b'["message","hi"]',
        b'"just a string"',
        b"42",
        b"null",
        b'{"type":"message","text":"unterminated',
        b"",
        b"/quit",
        b"!git status",
    ],
)
def test_inbound_line_without_a_string_type_is_chat_text_verbatim(raw: bytes) -> None:
    assert p.decode_inbound(raw + b"\n") == p.ChatText(text=raw.decode())


def test_inbound_chat_text_drops_only_its_line_ending() -> None:
    assert p.decode_inbound(b"  two spaces  \r\n") == p.ChatText(text="  two spaces  ")


def test_inbound_invalid_utf8_is_chat_text_with_replacement_characters() -> None:
    assert p.decode_inbound(b"caf\xe9 \xff\n") == p.ChatText(text="caf\ufffd \ufffd")


def test_inbound_unknown_type_is_ignored_and_names_its_type() -> None:
    assert p.decode_inbound(b'{"type":"sparkle","text":"hi"}') is None
    read = p.read_inbound(b'{"type":"sparkle","text":"hi"}')
    assert isinstance(read, p.Skipped) and (read.reason, read.type) == ("unknown-type", "sparkle")


def test_inbound_object_nested_too_deep_is_ignored_not_sent_to_the_model() -> None:
    read = p.read_inbound(b'{"type":"message","text":' + b"[" * 5000 + b"]" * 5000 + b"}")
    assert isinstance(read, p.Skipped) and read.reason == "too-deep"


def test_inbound_array_nested_too_deep_is_chat_text() -> None:
    raw = b"[" * 5000
    assert p.decode_inbound(raw) == p.ChatText(text=raw.decode())


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b'{"type":"message"}', p.Message(text="")),
        (b'{"type":"answer"}', p.Answer(id="")),
        (b'{"type":"choose","id":"c"}', p.Choose(id="c", value=None)),
        (b'{"type":"complete","text":"/con"}', p.Complete(id="", text="/con", cursor=4)),
        (b'{"type":"hello"}', p.ClientHello(effects=[])),
        (b'{"type":"interrupt"}', p.Interrupt()),
        (b'{"type":"message","text":5}', p.Message(text="")),
    ],
)
def test_inbound_reader_defaults(raw: bytes, expected: p.Inbound) -> None:
    assert p.decode_inbound(raw) == expected


def test_inbound_answer_left_without_decision_text_or_declined_says_so() -> None:
    line = p.decode_inbound(b'{"type":"answer","id":"x"}')
    assert isinstance(line, p.Answer)
    assert line.decision is UNSET and line.text is UNSET and not line.declined


def test_complete_cursor_defaults_to_the_end_in_code_points() -> None:
    line = p.decode_inbound('{"type":"complete","id":"k2","text":"/fact cafe\u0301 👩‍💻"}'.encode())
    assert isinstance(line, p.Complete) and line.cursor == len("/fact cafe\u0301 👩‍💻") == 15


@pytest.mark.parametrize(
    "word",
    [
        "once",
        "session",
        "project",
        "always",
        "no",
        "y",
        "yes",
        "s",
        "p",
        "a",
        "n",
        "",
        "keep",
        "drop",
        " Y ",
    ],
)
def test_approval_answer_words_decode_as_sent(word: str) -> None:
    raw = json.dumps({"type": "answer", "id": "3f9a1c2e", "decision": word}).encode()
    assert p.decode_inbound(raw) == p.Answer(id="3f9a1c2e", decision=word)


def test_question_answers_decode() -> None:
    assert p.decode_inbound(b'{"type":"answer","id":"q","text":"staging"}') == p.Answer(
        id="q", text="staging"
    )
    assert p.decode_inbound(b'{"type":"answer","id":"q","declined":true}') == p.Answer(
        id="q", declined=True
    )


def test_effects_name_the_hello_words() -> None:
    assert {e.value for e in p.Effect} == {
        "approve", "ask", "notify", "approve-mcp", "keep-facts", "guidance"
    }  # fmt: skip
    hello = p.decode_inbound(b'{"type":"hello","effects":["approve","teleport"]}')
    assert isinstance(hello, p.ClientHello) and p.Effect.APPROVE in hello.effects


# Hostile input: whatever arrives, the readers return a value and never raise.


def hostile_lines(rng: random.Random, count: int) -> list[bytes]:
    valid = [
        p.encode_line(line) for line in (*OUTBOUND_SAMPLES.values(), *INBOUND_SAMPLES.values())
    ]
    junk_values: list[Any] = [None, True, 0, -1, 1.5, 10**30, "", "x", [], {}, [None], {"a": 1}]
    tags = [*p.OUTBOUND_TYPES, *p.INBOUND_TYPES, "", "HELLO", "ü"]

    def random_bytes() -> bytes:
        return rng.randbytes(rng.randint(0, 200))

    def truncated() -> bytes:
        line = rng.choice(valid)
        return line[: rng.randint(0, len(line))]

    def mutated() -> bytes:
        line = bytearray(rng.choice(valid))
        for _ in range(rng.randint(1, 5)):
            line[rng.randrange(len(line))] = rng.randrange(256)
        return bytes(line)

    def wrong_types() -> bytes:
        wire = json.loads(rng.choice(valid))
        for key in list(wire):
            if rng.random() < 0.5:
                wire[key] = rng.choice(junk_values)
        if rng.random() < 0.3:
            wire["type"] = rng.choice([*tags, 7, None, ["note"]])
        return json.dumps(wire).encode()

    def nested() -> bytes:
        depth = rng.choice([10, 500, 999, 1001, 3000, 20000])
        opener, closer = rng.choice([(b"[", b"]"), (b'{"a":', b"}")])
        inner = opener * depth + b"1" + closer * depth * rng.randint(0, 1)
        return b'{"type":"' + rng.choice(tags).encode() + b'","details":' + inner + b"}"

    def huge() -> bytes:
        size = rng.choice([10_000, 100_000, 2_000_000])
        text = "".join(rng.choice('aß∴\\"\n') for _ in range(100)) * (size // 100)
        return json.dumps({"type": rng.choice(tags), "text": text}).encode()

    def controls() -> bytes:
        return rng.choice([b"\x00", b"\r", b"\t", b"\xef\xbb\xbf", b"\x1b[31m"]) + rng.choice(valid)

    makers = [random_bytes, truncated, mutated, wrong_types, nested, controls]
    lines = [rng.choice(makers)() for _ in range(count - 20)]
    return lines + [huge() for _ in range(20)]


def test_readers_never_raise_on_hostile_lines() -> None:
    rng = random.Random(20240605)
    outbound_kinds = (*p.OUTBOUND_TYPES.values(), p.Skipped)
    inbound_kinds = (*p.INBOUND_TYPES.values(), p.ChatText, p.Skipped)
    for raw in hostile_lines(rng, 10_000):
        out = p.read_outbound(raw)
        assert isinstance(out, outbound_kinds), raw[:80]
        if not isinstance(out, p.Skipped):
            assert p.decode_outbound(p.encode_line(out)) == out, raw[:80]
        got = p.read_inbound(raw)
        assert isinstance(got, inbound_kinds), raw[:80]
        if isinstance(got, p.ChatText | p.Skipped):
            expected = raw.decode("utf-8", errors="replace").removesuffix("\n").removesuffix("\r")
            assert got.text == expected
        else:
            assert p.decode_inbound(p.encode_line(got)) == got, raw[:80]
        assert p.decode_inbound(raw) == (None if isinstance(got, p.Skipped) else got)


def test_str_lines_read_like_bytes() -> None:
    assert p.decode_outbound('{"type":"note","text":"é"}') == p.Note(text="é")
    assert p.decode_inbound("hello there") == p.ChatText(text="hello there")


# The module's boundary, and the doc.


# Parsed while the tests are collected (see IMPORTS in test_layers.py for why).
PROTOCOL_TREE = ast.parse(Path(p.__file__).read_text(encoding="utf-8"))


def test_protocol_imports_only_the_standard_library_and_msgspec() -> None:
    tree = PROTOCOL_TREE
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0 and node.module is not None
            imported.add(node.module.split(".")[0])
    assert imported - {"__future__"} <= set(sys.stdlib_module_names) | {"msgspec"}


def test_doc_tables_match_the_module() -> None:
    text = PROTOCOL_DOC.read_text(encoding="utf-8")
    # Fails when a line changed without `python -m wisp.protocol_docs` being run.
    assert with_tables(text) == text


def test_every_line_type_has_a_table() -> None:
    keys = set(render_protocol_tables())
    assert {f"out:{tag}" for tag in p.OUTBOUND_TYPES} <= keys
    assert {f"in:{tag}" for tag in p.INBOUND_TYPES} <= keys


def doc_examples() -> list[tuple[str, str, str]]:
    """Each JSON example under a line's heading: (direction, type, line)."""
    examples: list[tuple[str, str, str]] = []
    direction = tag = None
    in_json = False
    for line in PROTOCOL_DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            direction = "out" if "Lines out" in line else "in" if "Lines in" in line else None
            tag = None
        elif match := re.fullmatch(r"### `([a-z]+)`", line):
            tag = match[1]
        elif line == "```json":
            in_json = True
        elif line == "```":
            in_json = False
        elif in_json and line.strip():
            assert direction and tag, (
                f"docs/protocol.md: an example outside a line's section: {line}"
            )
            examples.append((direction, tag, line))
    return examples


def test_every_line_type_has_an_example_in_the_doc() -> None:
    shown = {(direction, tag) for direction, tag, _ in doc_examples()}
    expected = {("out", tag) for tag in p.OUTBOUND_TYPES} | {("in", tag) for tag in p.INBOUND_TYPES}
    assert shown == expected


@pytest.mark.parametrize(("direction", "tag", "example"), doc_examples())
def test_doc_example_decodes_to_its_type_and_round_trips(
    direction: str, tag: str, example: str
) -> None:
    types = p.OUTBOUND_TYPES if direction == "out" else p.INBOUND_TYPES
    decode = p.decode_outbound if direction == "out" else p.decode_inbound
    line = decode(example.encode())
    assert type(line) is types[tag]
    encoded = p.encode_line(line)
    assert decode(encoded) == line
    # The examples are in the form wisp writes: nothing left out, nothing extra.
    assert json.loads(encoded) == json.loads(example)


def test_skipped_and_chat_text_are_not_lines() -> None:
    assert msgspec.structs.fields(p.ChatText)[0].name == "text"
    assert p.Skipped not in p.OUTBOUND_TYPES.values()
