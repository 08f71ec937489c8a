"""Copies of output cut from later requests (docs/turn.md): a reply that reproduces a tool
output is carried by later requests with a marker in place of the copy; the stored reply is
unchanged, and each cut is recorded as ``context.cut`` with every field."""

from __future__ import annotations

from tests.agent.test_loop import RecordingBackend
from wisp.agent.cuts import MIN_WORDS, cut_text, find_stretches, marker
from wisp.agent.text import utf8_len
from wisp.store import ReplyCut, transcripts
from wisp.tools.read_file import ReadFileTool

CONFIG_LINES = [
    "[server]",
    "host = example.org",
    "port = 8080",
    "workers = 4",
    "# the log goes to the journal when no file is named here",
    "log_level = info",
    "[database]",
    "url = postgres://db.example.org:5432/app",
    "pool_size = 10",
    "timeout_seconds = 30",
]
CONFIG = "\n".join(CONFIG_LINES) + "\n"
NUMBERED = "\n".join(f"{n}\t{line}" for n, line in enumerate(CONFIG_LINES, 1))
NUMBERED += f"\n[end of file: {len(CONFIG_LINES)} lines]"
COPY = "\n".join(CONFIG_LINES)
REPLY = f"Here is config.ini:\n\n```ini\n{COPY}\n```\n\nThe port is 8080."
READ = {"tool_calls": [{"name": "read_file", "arguments": {"path": "config.ini"}}]}


def test_a_copy_of_a_read_file_output_is_found_with_its_fence():
    (stretch,) = find_stretches(REPLY, NUMBERED, "read_file")
    raw = REPLY.encode()
    assert raw[stretch.start : stretch.end].decode() == f"```ini\n{COPY}\n```"
    assert stretch.words == len(f"```ini\n{COPY}\n```".split()) >= MIN_WORDS


def test_spacing_numbers_and_table_rows_do_not_hide_a_copy():
    output = "name   size\nalpha  10\nbeta   20\n" + "\n".join(f"row{n} {n}" for n in range(12))
    table = "| name | size |\n|---|---|\n| alpha | 10 |\n| beta | 20 |\n" + "\n".join(
        f"| row{n} | {n} |" for n in range(12)
    )
    (stretch,) = find_stretches("Files:\n" + table, output, "run_command")
    assert ("Files:\n" + table).encode()[stretch.start : stretch.end].decode() == table


def test_a_short_quote_or_a_changed_line_is_not_a_copy():
    assert find_stretches("It says:\nport = 8080\nworkers = 4", NUMBERED, "read_file") == []
    changed = REPLY.replace("port = 8080", "port = 9090")
    # The copy is broken where it differs: the lines before are too few to cut, those after
    # are enough, without the fence (only a fence around the whole stretch goes with it).
    (stretch,) = find_stretches(changed, NUMBERED, "read_file")
    assert changed.encode()[stretch.start : stretch.end].decode() == "\n".join(CONFIG_LINES[3:])


def test_the_cut_text_carries_the_marker_in_place_of_the_stretch():
    (stretch,) = find_stretches(REPLY, NUMBERED, "read_file")
    cut = ReplyCut(segment=1, start=stretch.start, end=stretch.end, output=4, tool="read_file")
    carried = cut_text(REPLY, [cut])
    assert carried == (
        "Here is config.ini:\n\n(showed the person the read_file output, entry 4)\n\n"
        "The port is 8080."
    )
    assert marker("read_file", 4) in carried


def first_id(sink, kind: str) -> str:
    return next(e.id for e in sink.events if e.kind == kind)


async def two_turns(make_conversation, write_script, tmp_path):
    (tmp_path / "config.ini").write_text(CONFIG)
    script = write_script(READ, {"text": REPLY}, {"text": "You are welcome."})
    conversation = await make_conversation(script, [ReadFileTool()])
    recording = RecordingBackend(conversation.resolved.backend)
    conversation.resolved.backend = recording
    first = await conversation.run_turn("Show me config.ini")
    await conversation.run_turn("Thanks, that is all.")
    return conversation, recording, first


async def test_the_next_request_carries_the_marker_and_the_store_keeps_the_reply(
    make_conversation, write_script, tmp_path, sink, events
):
    conversation, recording, first = await two_turns(make_conversation, write_script, tmp_path)
    assert first.text == REPLY  # shown whole
    output = next(e for e in conversation.store if e.kind == "toolOutput")
    reply = next(e for e in conversation.store if e.kind == "response")
    assert reply.value == REPLY  # stored whole
    # The turn's own requests never carried the reply; the next one carries it cut.
    assert all(REPLY not in str(m.content) for r in recording.requests[:2] for m in r.messages)
    later = recording.requests[2]
    (assistant,) = [m for m in later.messages if m.role == "assistant" and m.content]
    assert assistant.content == (
        f"Here is config.ini:\n\n(showed the person the read_file output, entry {output.id})"
        "\n\nThe port is 8080."
    )
    assert [(c.segment, c.output, c.tool) for c in reply.cuts] == [(1, output.id, "read_file")]


async def test_each_cut_is_recorded_with_every_field(
    make_conversation, write_script, tmp_path, sink, events
):
    conversation, _, _ = await two_turns(make_conversation, write_script, tmp_path)
    output = next(e for e in conversation.store if e.kind == "toolOutput")
    reply = next(e for e in conversation.store if e.kind == "response")
    kinds = sink.kinds()
    assert kinds[: kinds.index("context.cut") + 1][-2:] == ["response", "context.cut"]
    (event,) = [e for e in sink.events if e.kind == "context.cut"]
    details = event.details
    (cut,) = reply.cuts
    stretch_bytes = cut.end - cut.start
    assert (details.entry, details.output, details.tool) == (reply.id, output.id, "read_file")
    assert details.response == reply.sources[0].event == first_id(sink, "response")
    assert details.result == output.sources[0].event == first_id(sink, "tool.result")
    assert details.bytes == stretch_bytes - utf8_len(marker("read_file", output.id)) > 0
    assert details.tokens == details.bytes // 4
    assert details.words == len(f"```ini\n{COPY}\n```".split())
    assert details.coverage == 1.0
    assert event.turn == 1


async def test_a_reply_that_copies_nothing_is_not_cut(
    make_conversation, write_script, tmp_path, sink, events
):
    (tmp_path / "config.ini").write_text(CONFIG)
    script = write_script(READ, {"text": "The port is 8080."})
    conversation = await make_conversation(script, [ReadFileTool()])
    await conversation.run_turn("Which port?")
    assert "context.cut" not in sink.kinds()
    assert conversation.store.entries[-1].cuts == []


async def test_cuts_are_kept_in_a_saved_transcript(
    make_conversation, write_script, tmp_path, sink, events
):
    conversation, _, _ = await two_turns(make_conversation, write_script, tmp_path)
    transcripts.save(conversation.store, tmp_path / "saved", "t")
    resumed = transcripts.load(tmp_path / "saved", "t").store
    reply = next(e for e in resumed if e.kind == "response")
    assert reply.cuts == next(e for e in conversation.store if e.kind == "response").cuts


async def test_inspect_context_shows_the_reply_as_requests_carry_it(
    make_conversation, write_script, tmp_path, sink, events
):
    from wisp.agent.context_report import next_request

    conversation, _, _ = await two_turns(make_conversation, write_script, tmp_path)
    reply = next(e for e in conversation.store if e.kind == "response")
    (line,) = [line for line in next_request(conversation).lines if line.entry is reply]
    assert "(showed the person the read_file output, entry" in line.text
    assert "pool_size = 10" not in line.text
