"""The reply parser's streaming: what shows at once, what is held, and for how long.

The forms themselves are in the corpus (test_text_calls.py); these tests look at the stream.
"""

from __future__ import annotations

import random

from wisp.agent.types import TextDelta, ThinkingDelta, ToolCallRequested, ToolSpec
from wisp.models.reply.stream import ReplyParser
from wisp.models.reply.think import ThinkSplitter

SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
TOOLS = [ToolSpec("read_file", "Reads.", SCHEMA), ToolSpec("run_command", "Runs.", SCHEMA)]


def shown(events: list) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def test_prose_streams_as_it_comes_with_only_trailing_space_held() -> None:
    parser = ReplyParser(TOOLS)
    assert shown(parser.text("The capital ")) == "The capital"
    assert shown(parser.text("of France")) == " of France"
    assert shown(parser.text(" is Paris.")) == " is Paris."
    assert shown(parser.finish()) == ""


def test_each_character_of_prose_shows_by_the_next_one() -> None:
    parser = ReplyParser(TOOLS)
    text = "Sure! The file has 3 lines, and [1] says so; a < b (but {not} always)."
    seen = ""
    for index, char in enumerate(text):
        seen += shown(parser.text(char))
        # At most a few characters wait: a word that may begin a tool's name, a bracket.
        assert len(text[: index + 1]) - len(seen) <= len("read_file")
    assert seen + shown(parser.finish()) == text


def test_text_before_a_call_shows_before_the_call_is_complete() -> None:
    parser = ReplyParser(TOOLS)
    assert shown(parser.text("Let me look.\n")) == "Let me look."
    assert shown(parser.text('<tool_call>{"name": "read_file", ')) == ""
    assert shown(parser.text('"arguments": {"path": "a"}}</tool_call>')) == ""
    assert parser.finish() == [ToolCallRequested("read_file", {"path": "a"})]


def test_a_json_example_is_let_go_at_its_first_key_that_no_call_has() -> None:
    parser = ReplyParser(TOOLS)
    assert shown(parser.text('{"i')) == ""
    assert shown(parser.text('d": 1, "ti')) == '{"id": 1, "ti'


def test_a_name_that_is_no_offered_tool_lets_the_object_go_after_text() -> None:
    parser = ReplyParser(TOOLS)
    assert shown(parser.text('For example:\n{"name": "Al')) == 'For example:\n{"name": "Al'


def test_a_reply_that_is_only_a_call_of_no_offered_tool_is_a_failed_call_never_shown() -> None:
    parser = ReplyParser(TOOLS)
    reply = '{"name": "change_port", "arguments": {"port": "9090"}}'
    assert shown(parser.text(reply[:12])) == ""  # held although no offered tool begins so
    assert shown(parser.text(reply[12:] + "\n")) == ""  # closed: held till the reply's end
    assert parser.finish() == [ToolCallRequested("change_port", {"port": "9090"})]


def test_arguments_that_do_not_parse_make_a_failed_call_with_them_as_written() -> None:
    parser = ReplyParser(TOOLS)
    assert shown(parser.text('{"name": "read_file", "arguments": "a.txt"}')) == ""
    assert parser.finish() == [ToolCallRequested("read_file", {}, unparsed="a.txt")]


def test_a_call_shaped_object_with_words_after_it_is_shown_whole() -> None:
    parser = ReplyParser(TOOLS)
    reply = '{"name": "change_port", "arguments": {"port": "9090"}}'
    assert shown(parser.text(reply)) == ""
    assert shown(parser.text(" is how it looks.")) == reply + " is how it looks."
    assert shown(parser.finish()) == ""


def test_prose_that_contains_json_stays_text() -> None:
    for reply in (
        'Paris. For example {"name": "paris", "country": "France"}',
        '{"name": "paris", "country": "France"}',
        '{"name": "Paris"}',
    ):
        parser = ReplyParser(TOOLS)
        events = parser.text(reply) + parser.finish()
        assert shown(events) == reply
        assert not [e for e in events if isinstance(e, ToolCallRequested)]


def test_a_code_fence_streams_and_what_is_in_it_is_never_a_call() -> None:
    parser = ReplyParser(TOOLS)
    assert shown(parser.text("```bash\n")) == "```bash"
    line = '{"name": "read_file", "arguments": {"path": "a"}}\n'
    assert shown(parser.text(line)) == "\n" + line.rstrip()
    events = parser.text("```\n") + parser.finish()
    assert not [e for e in events if isinstance(e, ToolCallRequested)]


def test_a_call_fence_is_held_until_it_closes() -> None:
    parser = ReplyParser(TOOLS)
    assert shown(parser.text('```json\n{"name": "read_file", "arguments": {}}\n')) == ""
    assert shown(parser.text("```\nDone.")) == "Done."
    assert parser.finish() == [ToolCallRequested("read_file", {"path": ""})]


def test_with_no_tools_offered_everything_is_text_at_once() -> None:
    parser = ReplyParser([])
    text = '{"name": "read_file", "arguments": {}}'
    assert shown(parser.text(text)) == text
    assert parser.finish() == []


def test_a_reply_without_calls_keeps_its_trailing_space() -> None:
    parser = ReplyParser(TOOLS)
    assert shown(parser.text("Paris.\n") + parser.finish()) == "Paris.\n"


def test_thinking_the_server_sent_apart_passes_through() -> None:
    parser = ReplyParser(TOOLS)
    assert parser.thinking("hmm") == [ThinkingDelta("hmm")]
    assert parser.thinking("") == []


def test_a_broken_off_reply_gives_no_call_before_finish() -> None:
    parser = ReplyParser(TOOLS)
    events = parser.text('[TOOL_CALLS]read_file[ARGS]{"path": "a"}')
    assert not [e for e in events if isinstance(e, ToolCallRequested)]


# -- thinking -----------------------------------------------------------------------------


def split(pieces: list[str], *, thinking: bool = False) -> tuple[str, str]:
    splitter = ThinkSplitter(thinking=thinking)
    events = [event for piece in pieces for event in splitter.feed(piece)] + splitter.finish()
    thought = "".join(e.text for e in events if isinstance(e, ThinkingDelta))
    return thought, "".join(e.text for e in events if isinstance(e, TextDelta))


def test_a_leading_think_block_is_thinking() -> None:
    assert split(["<thi", "nk>\nhm", "m</th", "ink>\n\nParis"]) == ("hmm", "Paris")


def test_thinking_streams_as_it_comes() -> None:
    splitter = ThinkSplitter()
    assert splitter.feed("<think>one ") == [ThinkingDelta("one ")]
    assert splitter.feed("two</") == [ThinkingDelta("two")]


def test_think_tags_after_the_start_are_text() -> None:
    assert split(["Paris", " <think>no</think>"]) == ("", "Paris <think>no</think>")


def test_a_template_that_opened_think_starts_in_thinking() -> None:
    assert split(["so", "...</think>Paris"], thinking=True) == ("so...", "Paris")


def test_a_template_opened_thought_the_model_opens_again_is_one_thought() -> None:
    assert split(["<think>so</think>", "Paris"], thinking=True) == ("so", "Paris")


def test_an_unclosed_thought_stays_thinking() -> None:
    assert split(["<think>still going"]) == ("still going", "")


def test_a_reply_opening_with_the_closing_tag_had_an_empty_thought() -> None:
    assert split(["</thi", "nk>\n\n", "Four."]) == ("", "Four.")


def test_thinking_and_reasoning_tags_are_thinking_too() -> None:
    assert split(["<thinking>a</thinking>b"]) == ("a", "b")
    assert split(["<reasoning>a</reasoning>b"]) == ("a", "b")


def test_a_long_held_call_is_not_read_again_on_every_piece(monkeypatch) -> None:
    """Reading a held span again on each piece is quadratic: a call writing a whole file
    would stall the stream. It is read again once it has grown by an eighth."""
    import wisp.models.reply.stream as stream

    reads = 0
    real_read_at = stream.read_at

    def counted(*args, **kwargs):
        nonlocal reads
        reads += 1
        return real_read_at(*args, **kwargs)

    monkeypatch.setattr(stream, "read_at", counted)
    content = "x = 1; " * 4000
    raw = '{"name": "read_file", "arguments": {"path": "' + content + '"}}'
    parser = ReplyParser(TOOLS)
    for at in range(0, len(raw), 4):
        assert shown(parser.text(raw[at : at + 4])) == ""
    assert parser.finish() == [ToolCallRequested("read_file", {"path": content})]
    assert reads < 200  # pieces: 7,000


FRAGMENTS = [
    "Sure. ", "\n", "```", "```json\n", "```bash\n", "{", "}", "[", "]", '"name": ', '"read_file"',
    '"arguments": {}', ", ", "<tool_call>", "</tool_call>", "[TOOL_CALLS]", "read_file",
    "[ARGS]", "(", ")", 'path="a"', "<think>", "</think>", "functools[", "<|python_tag|>",
    "<function=read_file>", "</function>", "é", "_x", "<", "f", "`",
]  # fmt: skip


def test_any_mix_of_markers_and_text_parses_the_same_whole_or_in_pieces() -> None:
    """Seeded mixes of every form's pieces: never an error, and the same events however the
    reply is cut, with nothing shown that the whole reply does not show."""
    rng = random.Random(14)
    for _ in range(300):
        raw = "".join(rng.choices(FRAGMENTS, k=rng.randint(1, 14)))
        whole = ReplyParser(TOOLS)
        expected = whole.text(raw) + whole.finish()
        for size in (1, 3):
            parser = ReplyParser(TOOLS)
            events = [
                e for at in range(0, len(raw), size) for e in parser.text(raw[at : at + size])
            ]
            events += parser.finish()
            assert joined(events) == joined(expected), raw


def joined(events: list) -> tuple[str, str, list]:
    thought = "".join(e.text for e in events if isinstance(e, ThinkingDelta))
    calls = [e for e in events if isinstance(e, ToolCallRequested)]
    return shown(events), thought, calls
