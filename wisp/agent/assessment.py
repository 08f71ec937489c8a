"""The assessment per request: which tools a user turn's requests offer (docs/turn.md, "The
assessment per request").

On a small window every tool offered costs prompt tokens the model reads each request, and a
small model picks better among few tools than among many. So before a turn's first request the
``Assessor`` chooses the tools it offers: by ``RULES`` first (a file named in the prompt, a date,
a command; arithmetic, none), and only when no rule settles it by one call to a model (routed
as the task ``assess``) asking for the tools as JSON. A reply that calls a tool the turn did not
offer gets the same request again with every tool (``method: retry``). Each choice is recorded
as ``context.assessment``; none of it ever enters the model's context.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from wisp.agent.side_calls import SideCalls, json_answer
from wisp.agent.types import ChatRequest, Message, ResolvedModel, ToolSpec
from wisp.audit.kinds import ContextAssessment, ModelRouted

if TYPE_CHECKING:
    from wisp.agent.recorder import Recorder

TASK = "assess"
"""The routed task's name: ``routing.tasks.assess`` names its model."""

AUTO_WINDOW = 8192
"""``assessment.enabled: auto`` assesses on a window of this many tokens or fewer."""


def assessment_on(setting: bool | str, window: int | None) -> bool:
    """Whether ``assessment.enabled`` (true, false, or auto) assesses on a ``window``-token
    model: auto is on a known window of ``AUTO_WINDOW`` tokens or fewer, where each tool
    offered costs most."""
    if setting == "auto":
        return window is not None and window <= AUTO_WINDOW
    return setting is True


class Rule(msgspec.Struct, frozen=True):
    """A cue in the prompt and the tools it calls for."""

    name: str
    pattern: re.Pattern[str]
    tools: tuple[str, ...]


def _words(words: str) -> re.Pattern[str]:
    """Any of ``words`` (``|`` between them, each a regular expression) as a whole word."""
    return re.compile(r"\b(?:" + words + r")\b", re.IGNORECASE)


FILE_NAMED = re.compile(
    r"(?<![\w@:/.-])(?:[\w.-]*/)*[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,7}(?![\w/-])"
    r"|(?<![\w@:])(?:\.{0,2}/)?[\w.-]+/[\w./-]+"
)
"""A file or a path named in the prompt: ``config.ini``, ``src/app.py``, ``./notes``."""

RULES: tuple[Rule, ...] = (
    Rule("a file named", FILE_NAMED, ("read_file",)),
    Rule(
        "a file to change",
        _words(
            "change|edit|replace|update|set|write|create|make a file|add|rename|fix|"
            "append|insert|delete|remove|save"
        ),
        ("read_file", "edit_file"),
    ),
    Rule(
        "a date or time",
        _words("date|time|today|tomorrow|yesterday|day is it|weekday|year|month|clock|now"),
        ("current_date",),
    ),
    Rule(
        "a command",
        _words(
            "list|count|run|git|ls|find|files?|folders?|director(?:y|ies)|largest|"
            "biggest|smallest|lines|install(?:ed)?|tests?|build|versions?|grep|search|"
            "commits?|branch|diff|python|pip|execute|compile|how many"
        ),
        ("run_command",),
    ),
    Rule(
        "the machine",
        _words(
            "memory|ram|disk|free space|cpu|processes|open ports|listening|battery|"
            "operating system|os|network"
        ),
        ("system_info",),
    ),
    Rule("wisp itself", _words("wisp|audit|approvals?|settings"), ("inspect",)),
    Rule("a model", _words("models?|llms?|gguf|hf|hugging ?face|ollama"), ("models",)),
    Rule(
        "a notification",
        _words("notify|notification|alert me|let me know|ping me|remind me"),
        ("notify",),
    ),
    Rule("an earlier turn", _words("earlier|before|you said|recall"), ("memory",)),
)
"""The rules, in order; a prompt gets every tool of every rule it matches (docs/turn.md, "The
assessment per request", lists them). A rule's tool the conversation lacks is passed over."""


_NUMBER = r"\d+(?:[.,]\d+)*"
_UNITS = (
    r"(?:milli|micro|nano)?seconds?|minutes?|hours?|days?|weeks?|months?|years?|decades?|"
    r"centuries|century|(?:milli|centi|kilo)?met(?:er|re)s?|inch(?:es)?|feet|foot|yards?|"
    r"miles?|(?:milli|kilo)?grams?|pounds?|ounces?|(?:milli)?lit(?:er|re)s?|gallons?|"
    r"(?:kilo|mega|giga|tera)?bytes?|bits?|dozens?"
)
ARITHMETIC = re.compile(
    rf"(?<![\w.-]){_NUMBER}\s*(?:[+*×÷^]|\s[-/]\s|x(?=\s*\d)|plus|minus|times|multiplied by|"
    rf"divided by|to the power of|mod(?:ulo)?)\s*{_NUMBER}(?![\w-])"
    rf"|{_NUMBER}\s*(?:%|percent|per cent)\s+of\s+{_NUMBER}"
    rf"|\b(?:square|cube) root of\s+{_NUMBER}|{_NUMBER}\s+(?:squared|cubed)\b"
    rf"|\bhow many\s+(?:{_UNITS})\s+(?:are\s+)?(?:there\s+)?in\s+(?:a|an|one|{_NUMBER})\s+"
    rf"(?:{_UNITS})\b",
    re.IGNORECASE,
)
"""A sum, a product, a share or a conversion between units (``17 times 23``, ``15% of 80``,
``how many minutes in 3 hours``): what a model answers from what it knows. A prompt that is
one and matches no rule offers no tools, with no model call: a small model offered
``run_command`` for it echoes the expression (``echo 17 * 23``) or miscounts, and without
tools answers it."""


def answered_from_knowledge(prompt: str) -> bool:
    """Whether ``prompt`` is arithmetic the model answers without a tool: it holds a sum or a
    conversion (``ARITHMETIC``), and nothing outside it matches a rule (``How many TODOs in
    main.py`` names a file; ``Run `expr 2 + 3``` a command)."""
    if ARITHMETIC.search(prompt) is None:
        return False
    rest = ARITHMETIC.sub(" ", prompt)
    return not any(rule.pattern.search(rest) for rule in RULES)


def rule_tools(prompt: str, registered: Sequence[str]) -> list[str]:
    """The tools the rules give ``prompt``, in the conversation's order; none when no rule
    matched (the rules settle nothing)."""
    wanted = {tool for rule in RULES if rule.pattern.search(prompt) for tool in rule.tools}
    return [name for name in registered if name in wanted]


class RoutedModel(msgspec.Struct):
    """The model a routed task runs on, and the ``model.routed`` it is recorded with."""

    model: ResolvedModel
    routed: ModelRouted


class Router(Protocol):
    """Chooses the model for a task wisp asks of a model of its own accord (filled by
    ``wisp.routing.Router``; the CLI hands it in)."""

    async def model_for(
        self, task: str, *, structured: bool, input_bytes: int, conversation: ResolvedModel | None
    ) -> RoutedModel: ...


class Choice(msgspec.Struct):
    """The tools a turn offers now, and what is withheld (still read as calls, then retried)."""

    offered: list[ToolSpec]
    withheld: list[ToolSpec]
    retried: bool = False


class Answer(msgspec.Struct):
    tools: list[str]
    intent: str = ""


ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "tools": {"type": "array", "items": {"type": "string"}},
        "intent": {"type": "string"},
    },
    "required": ["tools", "intent"],
}
"""What the model's answer must match; sent to a model that can be held to a schema."""

ASK = (
    "Choose the tools an assistant needs to answer the request below. Tools:\n{tools}\n\n"
    'Answer with JSON only: {{"tools": [the names needed, or none], "intent": "the request '
    'in one line"}}.'
)
REPLY_TOKENS = 96
"""The answer is a short JSON object; a model that runs on is cut here and its answer fails."""


class Assessor:
    """Chooses, per user turn, the tools a conversation's requests offer, and records it."""

    def __init__(self, recorder: Recorder, router: Router | None) -> None:
        self.recorder = recorder
        self.router = router

    async def choose(
        self,
        prompt: str,
        specs: list[ToolSpec],
        conversation: ResolvedModel,
        *,
        enabled: bool | str,
        facts: list[str] | None = None,
    ) -> Choice:
        """The tools of ``specs`` the turn of ``prompt`` offers: every one when the assessment
        is off (``enabled``, as ``assessment_on`` reads it) or there are none; else chosen, and
        ``context.assessment`` recorded with ``facts``, the ids of the facts in force that the
        turn's requests carry."""
        if not specs or not assessment_on(enabled, conversation.context_size):
            return Choice(specs, [])
        started = time.monotonic()
        registered = [spec.name for spec in specs]
        arithmetic = answered_from_knowledge(prompt)
        ruled = [] if arithmetic else rule_tools(prompt, registered)
        details = _assessment("rules", ruled, ruled, registered)
        details.facts = list(facts or [])
        if not ruled and not arithmetic:
            await self._ask(details, prompt, specs, conversation)
        details.seconds = round(time.monotonic() - started, 3)
        self.recorder.record(details)
        return _split(specs, details.tools)

    def retry(self, choice: Choice, specs: list[ToolSpec]) -> Choice:
        """The reply called a tool the turn did not offer: the request again, with every tool
        (once a turn), recorded as ``method: retry``."""
        missed = [spec.name for spec in choice.offered]
        every = [spec.name for spec in specs]
        self.recorder.record(_assessment("retry", every, missed, every))
        return Choice(list(specs), [], retried=True)

    async def _ask(
        self,
        details: ContextAssessment,
        prompt: str,
        specs: list[ToolSpec],
        conversation: ResolvedModel,
    ) -> None:
        """One call to the routed model; on any failure every tool is offered (``fallback``)."""
        side = SideCalls(self.recorder, self.router, lambda: conversation)
        answer = await side.ask(TASK, ask_request(prompt, specs), schema=ANSWER_SCHEMA)
        details.bytes = answer.bytes
        if answer.model:
            details.model = answer.model
        if answer.think is not None:
            details.think = answer.think
        try:
            if answer.failure is not None:
                raise ValueError(answer.failure)
            chosen = _answer(answer.text)
        except ValueError as exc:
            details.method, details.tools = "fallback", details.registered
            details.failure = str(exc)
            return
        details.method = "model"
        details.tools = [name for name in details.registered if name in chosen.tools]
        if chosen.intent.strip():
            details.intent = chosen.intent.strip()


def _assessment(
    method: str, tools: list[str], ruled: list[str], registered: list[str]
) -> ContextAssessment:
    """A ``context.assessment`` with no model call yet and no facts; the task never changes
    (no assessment infers one yet)."""
    return ContextAssessment(
        method=method,
        tools=tools,
        rule_tools=ruled,
        registered=registered,
        task_changed=False,
        facts=[],
        seconds=0.0,
        bytes=0,
    )


def _split(specs: list[ToolSpec], chosen: list[str]) -> Choice:
    offered = [spec for spec in specs if spec.name in chosen]
    return Choice(offered, [spec for spec in specs if spec.name not in chosen])


def ask_request(prompt: str, specs: list[ToolSpec]) -> ChatRequest:
    """The one model call's request: the tools by name and first sentence, the prompt, and
    the answer's form."""
    tools = "\n".join(f"- {spec.name}: {_first_sentence(spec.description)}" for spec in specs)
    system = Message(role="system", content=ASK.format(tools=tools))
    return ChatRequest(
        [system, Message(role="user", content=prompt)],
        temperature=0.0,
        max_tokens=REPLY_TOKENS,
        task=TASK,
    )


def _first_sentence(text: str) -> str:
    head, dot, _ = text.partition(". ")
    return head + ("." if dot else "")


_DECODER = msgspec.json.Decoder(Answer)


def _answer(reply: str) -> Answer:
    """The JSON object in the reply (fenced or not); ``ValueError`` saying why there is none."""
    return json_answer(reply, _DECODER)
