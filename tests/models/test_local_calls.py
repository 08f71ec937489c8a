"""An embedded model's calls held to their form (docs/models.md, "The embedded model's tools").

``Watch`` is fed scripted replies, whole and in pieces of every size; the forms' grammars are
checked by llama.cpp itself, with the shipped SmolLM2-135M's vocabulary: its grammar sampler,
fed a text token by token, says whether each token may come next, and whether the end of the
reply may come after it.
"""

from __future__ import annotations

import ctypes
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from wisp.agent.types import ToolSpec
from wisp.config import Config
from wisp.models import local
from wisp.models.local_calls import FORMS, MAX_CALLS, CallForm, Watch, form_grammar, forms_for
from wisp.tools.registry import default_tools

TOOLS = [
    ToolSpec(tool.name, tool.description, tool.parameters)
    for tool in default_tools(Config(Path("/nonexistent/config.json"), {}), runner=object())  # type: ignore[arg-type]
]
QWEN_LIKE = "{% for tool in tools %}{{ tool | tojson }}{% endfor %}<tool_call>...</tool_call>"
FORM = {form.name: form for form in FORMS}
EVERY_FORM = FORMS


# -- the table ----------------------------------------------------------------------------------


def test_a_template_that_writes_calls_its_way_is_watched_for_its_form_and_call_objects() -> None:
    assert [form.name for form in forms_for(QWEN_LIKE)] == ["tool_call", "fenced", "bare_line"]
    every = forms_for(QWEN_LIKE + "<|python_tag|>[TOOL_CALLS]<|tool_call|>")
    assert every == tuple(form for form in FORMS if form.name != "bare")


def test_tools_wisp_wrote_into_the_prompt_are_called_as_it_asked_a_json_object() -> None:
    assert [form.name for form in forms_for(None)] == ["fenced", "bare", "bare_line"]


def test_a_reply_in_json_from_a_model_with_its_own_template_is_held_only_at_a_name() -> None:
    qwen = forms_for(QWEN_LIKE)
    assert opened('{"date": "2026-12-03"}', forms=qwen) is None
    assert opened('{"name": "current_date"', forms=qwen) == ("", "bare_line")
    assert opened('{"date": "2026-12-03"}', forms=forms_for(None)) == ("", "bare")


# -- the watch ----------------------------------------------------------------------------------


def watched(pieces: list[str], forms: tuple[CallForm, ...] = EVERY_FORM, **kw: Any) -> Watch:
    """A watch fed ``pieces``; what it passed on is checked to be the text before the call."""
    watch = Watch(forms, **kw)
    passed = "".join(watch.feed(piece) for piece in pieces) + watch.finish()
    assert passed == watch.before
    return watch


def in_pieces(text: str) -> Iterator[list[str]]:
    """``text`` whole, then cut in pieces of every size from 1 to 7."""
    yield [text]
    for size in range(1, 8):
        yield [text[at : at + size] for at in range(0, len(text), size)]


def opened(text: str, **kw: Any) -> tuple[str, str] | None:
    """(the text before the call, its form's name), the same for every cut; None: no call."""
    seen = set()
    for pieces in in_pieces(text):
        watch = watched(pieces, **kw)
        seen.add((watch.before, watch.opened.form.name) if watch.opened else None)
    [outcome] = seen
    return outcome


@pytest.mark.parametrize(
    ("text", "before", "form"),
    [
        ('<tool_call>\n{"name": "x"', "", "tool_call"),
        ('Let me look.\n<tool_call>\n{"name"', "Let me look.\n", "tool_call"),
        ("I will check it now. <tool_call>", "I will check it now. ", "tool_call"),
        ('<|python_tag|>{"name": "x"', "", "python_tag"),
        ('[TOOL_CALLS][{"name": "x"', "", "tool_calls_list"),
        ('<|tool_call|>[{"name"', "", "granite"),
        ("{", "", "bare"),
        ('  \n{"arguments": {}', "  \n", "bare"),  # a reply that is a JSON object: a call
        ('Checking.\n{"name": "current_date"', "Checking.\n", "bare_line"),
        ('Checking.\n  { "name" :', "Checking.\n  ", "bare_line"),
        ('Here:\n```json\n{"name": "read_file"', "Here:\n", "fenced"),
        ('```\n{"name":', "", "fenced"),
        ('```tool_call\n{"name":', "", "fenced"),
    ],
)
def test_a_call_opens_where_its_opener_begins_and_all_before_it_was_passed_on(
    text: str, before: str, form: str
) -> None:
    assert opened(text) == (before, form)


@pytest.mark.parametrize(
    "text",
    [
        "Paris is the capital of France.",
        "Use <b>bold</b> and <tool> tags; [TOOL] too.",
        'A JSON example: {"name": "Ann", "age": 3} in a sentence.',
        'Some text.\n{"age": 3}\nmore.',  # an object on its own line, but no call's
        "Code:\n```python\nx = 1\n```\nDone.",
        'Code:\n```python\n{"name": "x"}\n```\n',  # a call's opener inside code is code
        'Config:\n```json\n{"port": 9090}\n```',  # a fenced object that is no call
        "Ends with a lone <",
        "Ends inside a fence\n``",
    ],
)
def test_text_that_opens_no_call_passes_whole(text: str) -> None:
    assert opened(text) is None


def test_after_a_code_fence_closes_a_call_may_open_again() -> None:
    text = 'Code:\n```bash\nls\n```\n{"name": "run_command"'
    assert opened(text) == ("Code:\n```bash\nls\n```\n", "bare_line")


def test_a_form_the_template_does_not_write_is_text() -> None:
    assert opened("Sure. <tool_call>", forms=forms_for(None)) is None
    assert opened("Sure.\n[TOOL_CALLS][", forms=forms_for(QWEN_LIKE)) is None


def test_text_passes_as_it_comes_and_only_a_possible_opener_is_held() -> None:
    watch = Watch(EVERY_FORM)
    assert watch.feed("Let me look") == "Let me look"
    assert watch.feed(" at it <") == " at it "  # "<" may begin <tool_call>
    assert watch.feed("b") == "<b"  # it cannot any more
    assert watch.feed(">.\n{") == ">.\n"  # a { at a line's start may begin a call object
    assert watch.feed('"na') == ""
    assert watch.feed('me": "x"') == ""
    assert watch.opened is not None and watch.opened.form.name == "bare_line"
    assert watch.before == "Let me look at it <b>.\n"
    assert watch.feed("more") == "" and watch.finish() == ""


def test_nothing_in_a_thought_opens_a_call() -> None:
    thought = '<think>I could write <tool_call> or\n{"name": here.</think>'
    assert opened(thought + "\nSure.\n<tool_call>") == (thought + "\nSure.\n", "tool_call")
    assert opened(thought + "{") == (thought, "bare")  # the answer's start, after the thought
    assert opened("<thinking>{</thinking>Done.") is None
    # The template opened the thought: the reply begins inside it.
    assert opened('x <tool_call> y</think>\n{"name"', thinking=True) == (
        "x <tool_call> y</think>\n",
        "bare",
    )
    assert opened("still thinking <tool_call>", thinking=True) is None


def test_a_thought_streams_as_it_comes() -> None:
    watch = Watch(EVERY_FORM, thinking=True)
    assert watch.feed("I think <tool_call") == "I think <tool_call"
    watch = Watch(EVERY_FORM)
    assert watch.feed("  <thin") == ""  # a thought's tag, or a call's opener: not yet known
    assert watch.feed("king>so") == "  <thinking>so"


def test_a_long_reply_is_watched_in_time_linear_in_its_length() -> None:
    # Each piece is scanned from where the last scan stopped: no quadratic rescans.
    watch = Watch(EVERY_FORM)
    line = "Some words, a { brace, a [ bracket, a <tag> and `ticks`.\n"
    for _ in range(5_000):
        assert watch.feed(line) == line
    assert watch.opened is None


# -- the grammars, as llama.cpp reads them ------------------------------------------------------


@pytest.fixture(scope="module")
def vocab() -> Iterator[Any]:
    llama_cpp = pytest.importorskip("llama_cpp", reason="needs the local extra")
    llm = llama_cpp.Llama(str(local.default_model_path()), n_ctx=256, verbose=False)
    yield llm
    llm.close()


def allowed(llm: Any, grammar: str, text: str) -> bool:
    """Whether llama.cpp's grammar sampler lets the model write ``text`` and then end."""
    import llama_cpp

    sampler = llama_cpp.llama_sampler_init_grammar(llm._model.vocab, grammar.encode(), b"root")
    assert sampler, "llama.cpp could not parse the grammar"
    try:
        tokens = llm.tokenize(text.encode(), add_bos=False, special=False)
        for token in [*tokens, llm.token_eos()]:
            if not _may_come(sampler, token):
                return False
            if token != llm.token_eos():
                llama_cpp.llama_sampler_accept(sampler, token)
        return True
    finally:
        llama_cpp.llama_sampler_free(sampler)


def _may_come(sampler: Any, token: int) -> bool:
    import llama_cpp

    data = (llama_cpp.llama_token_data * 1)(llama_cpp.llama_token_data(token, 0.0, 0.0))
    candidates = llama_cpp.llama_token_data_array(data, 1, -1, False)
    llama_cpp.llama_sampler_apply(sampler, ctypes.byref(candidates))
    return bool(data[0].logit > float("-inf"))


WELL_FORMED = {
    "current_date": [{}, {"timeZone": "Europe/London"}],
    "run_command": [{"command": "ls -la"}, {"command": "pytest -q", "timeoutSeconds": 60}],
    "read_file": [{"path": "README.md"}, {"path": "a.txt", "offset": 3, "limit": 10}],
    "edit_file": [{"path": "a.txt", "mode": "append", "content": "x\ny\n"}],
    "inspect": [{"what": "status"}],
    "system_info": [{"topic": "memory", "process": ""}],
}
CALLS = [
    {"name": name, "arguments": arguments}
    for name, examples in WELL_FORMED.items()
    for arguments in examples
]
WRITTEN = {
    "tool_call": "<tool_call>\n{call}\n</tool_call>",
    "python_tag": "<|python_tag|>{call}",
    "tool_calls_list": "[TOOL_CALLS][{call}]",
    "granite": "<|tool_call|>[{call}]",
    "fenced": "```json\n{call}\n```",
    "bare": "{call}",
    "bare_line": "{call}",
}
"""Each form's call as its family writes it."""


def test_every_offered_tool_and_every_form_have_well_formed_calls_in_the_test() -> None:
    assert sorted(WELL_FORMED) == sorted(tool.name for tool in TOOLS)
    assert sorted(WRITTEN) == sorted(FORM)


@pytest.mark.parametrize("form", list(WRITTEN))
@pytest.mark.parametrize("call", CALLS, ids=lambda call: call["name"])
def test_each_forms_grammar_takes_each_offered_tools_well_formed_call(
    vocab: Any, form: str, call: dict[str, Any]
) -> None:
    text = WRITTEN[form].format(call=json.dumps(call))
    assert allowed(vocab, form_grammar(FORM[form], TOOLS), text)


def test_the_arguments_may_come_as_parameters_as_llama_writes_them(vocab: Any) -> None:
    call = '{"name": "read_file", "parameters": {"path": "a.txt"}}'
    assert allowed(vocab, form_grammar(FORM["python_tag"], TOOLS), f"<|python_tag|>{call}")


@pytest.mark.parametrize("form", list(WRITTEN))
def test_a_line_break_after_the_calls_may_end_the_reply_without_another_call(
    vocab: Any, form: str
) -> None:
    text = WRITTEN[form].format(call='{"name": "current_date", "arguments": {}}')
    assert allowed(vocab, form_grammar(FORM[form], TOOLS), text + "\n")


def test_calls_in_a_row_up_to_the_limit_in_a_familys_form_and_one_object_alone(
    vocab: Any,
) -> None:
    call = '<tool_call>\n{"name": "current_date", "arguments": {}}\n</tool_call>'
    grammar = form_grammar(FORM["tool_call"], TOOLS)
    assert allowed(vocab, grammar, "\n".join([call] * MAX_CALLS))
    assert not allowed(vocab, grammar, "\n".join([call] * (MAX_CALLS + 1)))
    bare = '{"name": "current_date", "arguments": {}}'
    assert not allowed(vocab, form_grammar(FORM["bare_line"], TOOLS), f"{bare}\n{bare}")
    listed = '[TOOL_CALLS][{"name": "inspect", "arguments": {"what": "a"}}, '
    listed += '{"name": "current_date", "arguments": {}}]'
    assert allowed(vocab, form_grammar(FORM["tool_calls_list"], TOOLS), listed)


@pytest.mark.parametrize(
    "text",
    [
        '<tool_call>\n{"name": "change_port", "arguments": {"port": "9090"}}\n</tool_call>',
        '<tool_call>\n{"name": "read_file", "arguments": {}}\n</tool_call>',  # path missing
        '<tool_call>\n{"name": "read_file", "arguments": {"path": 7}}\n</tool_call>',
        '<tool_call>\n{"name": "system_info", "arguments": {"topic": "weather", "process": ""}}'
        "\n</tool_call>",  # not in its enum
        '<tool_call>\n{"name": "current_date", "arguments": {}}',  # never closed
        '<tool_call>\n{"name": "current_date", "arguments": {}}\n</tool_call> and then words',
        '<tool_call>\n{"name": "edit_file", "arguments": {"path": "a", "mode": "write", '
        '"content": "raw\nnewline"}}\n</tool_call>',  # a string JSON does not allow
        '<tool_call>\n{"answer": 42}\n</tool_call>',  # JSON that is no call
        '<tool_call>\n{"name": "current_date"}\n</tool_call>',  # no arguments
    ],
)
def test_a_forms_grammar_refuses_what_is_not_a_well_formed_offered_call(
    vocab: Any, text: str
) -> None:
    assert not allowed(vocab, form_grammar(FORM["tool_call"], TOOLS), text)


def test_only_the_offered_tools_are_callable(vocab: Any) -> None:
    grammar = form_grammar(FORM["bare"], TOOLS[:1])
    assert allowed(vocab, grammar, '{"name": "current_date", "arguments": {}}')
    assert not allowed(vocab, grammar, '{"name": "run_command", "arguments": {"command": "ls"}}')
