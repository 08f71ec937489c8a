"""ask: limits, every outcome's result, the two inquiry events, masking and stopping."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from msgspec import UNSET

from wisp.agent.types import ToolContext
from wisp.audit.kinds import InquiryRequested, InquirySettled
from wisp.policy.asking import NobodyAsker
from wisp.policy.types import QuestionAnswer
from wisp.tools.ask import AskTool

GITHUB_TOKEN = "ghp_" + "A1b2C3d4E5" * 4


class ScriptedAsker:
    """The person, as a list of prepared answers; keeps what it was asked."""

    can_ask = True
    via = "terminal"

    def __init__(self, *answers: QuestionAnswer | None) -> None:
        self.ways = ["terminal"]
        self.answers = list(answers)
        self.asked: list[tuple[str, list[str], float | None]] = []

    async def ask(
        self, question: str, options: list[str], timeout: float | None
    ) -> QuestionAnswer | None:
        self.asked.append((question, options, timeout))
        return self.answers.pop(0)


class SilentAsker(ScriptedAsker):
    """A person who never answers: it waits on an event that never fires."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting = asyncio.Event()

    async def ask(
        self, question: str, options: list[str], timeout: float | None
    ) -> QuestionAnswer | None:
        self.asked.append((question, options, timeout))
        self.waiting.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


class BrokenAsker(ScriptedAsker):
    async def ask(
        self, question: str, options: list[str], timeout: float | None
    ) -> QuestionAnswer | None:
        raise OSError("the terminal went away")


def said(text: str) -> QuestionAnswer:
    return QuestionAnswer(text=text)


def requested(recorded: list[Any]) -> InquiryRequested:
    [event] = [e for e in recorded if isinstance(e, InquiryRequested)]
    return event


def settled(recorded: list[Any]) -> InquirySettled:
    [event] = [e for e in recorded if isinstance(e, InquirySettled)]
    return event


AT_MOST_100 = "characters; at most 100"
ENVIRONMENTS = {"question": "Which environment?", "options": ["staging", "production"]}


# -- answers --------------------------------------------------------------------------------


async def test_a_free_text_answer_is_the_result(context: ToolContext) -> None:
    tool = AskTool(ScriptedAsker(said("call it Aurora")))
    result = await tool.run({"question": "What should the release be called?"}, context)
    assert result == "answer: call it Aurora"


async def test_an_option_picked_by_number_gives_its_text_and_number(
    context: ToolContext,
) -> None:
    tool = AskTool(ScriptedAsker(said("2")))
    assert await tool.run(ENVIRONMENTS, context) == "answer: production\noption: 2"


async def test_an_option_picked_by_text_in_any_case_gives_its_number(
    context: ToolContext,
) -> None:
    tool = AskTool(ScriptedAsker(said("  STAGING ")))
    assert await tool.run(ENVIRONMENTS, context) == "answer: staging\noption: 1"


async def test_an_option_that_is_a_number_is_picked_by_its_text(context: ToolContext) -> None:
    tool = AskTool(ScriptedAsker(said("2")))
    result = await tool.run({"question": "How many?", "options": ["3", "2", "1"]}, context)
    assert result == "answer: 2\noption: 2"


async def test_an_answer_that_is_not_an_option_withdraws_the_question(
    context: ToolContext, recorded: list[Any]
) -> None:
    tool = AskTool(ScriptedAsker(said("qa")))
    result = await tool.run(ENVIRONMENTS, context)
    assert result == "error: the question was withdrawn (the answer 'qa' is not one of the options)"
    assert settled(recorded).outcome == "failed"
    assert settled(recorded).reason == "the answer 'qa' is not one of the options"


async def test_an_empty_answer_is_no_answer(context: ToolContext, recorded: list[Any]) -> None:
    tool = AskTool(ScriptedAsker(said("  ")))
    assert await tool.run({"question": "Anything else?"}, context) == "the person gave no answer"
    event = settled(recorded)
    assert event.outcome == "none"
    assert (event.answer, event.redacted, event.delivered) == (UNSET, UNSET, UNSET)


async def test_nothing_back_without_a_deadline_is_no_answer(context: ToolContext) -> None:
    tool = AskTool(ScriptedAsker(None))
    assert await tool.run({"question": "Anything else?"}, context) == "the person gave no answer"


async def test_a_declined_question_is_an_error(context: ToolContext, recorded: list[Any]) -> None:
    tool = AskTool(ScriptedAsker(QuestionAnswer(declined=True)))
    result = await tool.run(ENVIRONMENTS, context)
    assert result == "error: the person declined to answer"
    assert settled(recorded).outcome == "declined"
    assert settled(recorded).via == "terminal"


async def test_an_answer_is_cut_to_4_kib(context: ToolContext) -> None:
    tool = AskTool(ScriptedAsker(said("é" * 3000)))
    result = await tool.run({"question": "Paste the log?"}, context)
    body, note = result.removeprefix("answer: ").rsplit("\n", 1)
    assert body == "é" * 2048
    assert note == "[truncated: 6000 bytes, showing 4096]"


async def test_a_failing_asker_withdraws_the_question(
    context: ToolContext, recorded: list[Any]
) -> None:
    result = await AskTool(BrokenAsker()).run(ENVIRONMENTS, context)
    assert result == "error: the question was withdrawn (OSError: the terminal went away)"
    assert settled(recorded).outcome == "failed"


# -- the deadline ---------------------------------------------------------------------------


async def test_no_answer_by_the_deadline_is_unanswered(
    context: ToolContext, recorded: list[Any]
) -> None:
    # second=0.001: the 10 s deadline passes after 10 ms, and is still reported as 10 s.
    tool = AskTool(SilentAsker(), second=0.001)
    result = await tool.run({"question": "Still there?", "timeoutSeconds": 10}, context)
    assert result == "error: no answer within 10 s"
    assert settled(recorded).outcome == "unanswered"
    assert settled(recorded).via is UNSET


@pytest.mark.parametrize(
    ("asked", "applied"), [(1, 10), (0, 10), (-5, 10), (90, 90), (99999, 3600)]
)
async def test_a_deadline_is_clamped_to_10_to_3600_seconds(
    context: ToolContext, recorded: list[Any], asked: int, applied: int
) -> None:
    asker = ScriptedAsker(said("yes"))
    await AskTool(asker).run({"question": "Go on?", "timeoutSeconds": asked}, context)
    assert requested(recorded).timeout_seconds == applied
    assert asker.asked[0][2] == applied


async def test_without_a_deadline_the_question_waits(
    context: ToolContext, recorded: list[Any]
) -> None:
    asker = ScriptedAsker(said("yes"))
    await AskTool(asker).run({"question": "Go on?"}, context)
    assert asker.asked[0][2] is None
    assert requested(recorded).timeout_seconds is UNSET


# -- stopping -------------------------------------------------------------------------------


async def test_a_stopped_turn_settles_the_question_as_stopped_and_goes_on_stopping(
    context: ToolContext, recorded: list[Any]
) -> None:
    asker = SilentAsker()
    task = asyncio.create_task(AskTool(asker).run(ENVIRONMENTS, context))
    await asker.waiting.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert settled(recorded).outcome == "stopped"
    assert settled(recorded).answer is UNSET


# -- who can be asked -----------------------------------------------------------------------


async def test_nobody_to_ask_refuses_the_question(
    context: ToolContext, recorded: list[Any]
) -> None:
    result = await AskTool(NobodyAsker()).run(ENVIRONMENTS, context)
    assert result == "error: no one can be asked here (nobody to ask)"
    assert requested(recorded).ways == []
    assert (settled(recorded).outcome, settled(recorded).reason) == ("refused", "nobody to ask")


async def test_nobody_to_ask_names_the_faces_reason(context: ToolContext) -> None:
    tool = AskTool(NobodyAsker(reason="wisp respond has no person to answer"))
    result = await tool.run(ENVIRONMENTS, context)
    assert result == "error: no one can be asked here (wisp respond has no person to answer)"


# -- limits ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ({"question": "  "}, "the question is empty"),
        ({"question": "x" * 501}, "the question is 501 characters; at most 500"),
        ({"question": "Which?", "options": [str(n) for n in range(9)]}, "9 options; at most 8"),
        ({"question": "Which?", "options": ["a", "b" * 101]}, f"option 2 is 101 {AT_MOST_100}"),
        ({"question": "Which?", "options": ["a", " "]}, "option 2 is empty"),
        ({"question": "Which?", "options": ["Yes", "no", "yes"]}, "options 1 and 3 are the same"),
        (
            {"question": "What is your sudo password?"},
            "it asks for a secret (password); never ask the person for a password, token or key",
        ),
        (
            {"question": "Paste your OpenAI API key"},
            "it asks for a secret (api key); never ask the person for a password, token or key",
        ),
    ],
)  # fmt: skip
async def test_a_question_past_a_limit_is_refused_before_it_is_put(
    context: ToolContext, recorded: list[Any], arguments: dict[str, Any], reason: str
) -> None:
    asker = ScriptedAsker(said("never read"))
    result = await AskTool(asker).run(arguments, context)
    assert result == f"error: question not asked: {reason}"
    assert asker.asked == []
    assert [type(e) for e in recorded] == [InquiryRequested, InquirySettled]
    assert (settled(recorded).outcome, settled(recorded).reason) == ("refused", reason)


async def test_a_question_at_every_limit_is_put(context: ToolContext) -> None:
    options = [f"{n}" + "o" * 99 for n in range(8)]
    asker = ScriptedAsker(said("3"))
    result = await AskTool(asker).run({"question": "q" * 500, "options": options}, context)
    assert result == f"answer: {options[2]}\noption: 3"
    assert asker.asked == [("q" * 500, options, None)]


async def test_a_fourth_question_in_a_turn_is_refused(
    context: ToolContext, conversation: Any
) -> None:
    asker = ScriptedAsker(*[said("yes")] * 4)
    tool = AskTool(asker)
    results = [await tool.run({"question": f"Step {n}?"}, context) for n in range(4)]
    assert results[:3] == ["answer: yes"] * 3
    assert results[3] == "error: question not asked: this turn has asked 3 questions; at most 3"
    conversation.turn += 1
    assert await tool.run({"question": "Next turn?"}, context) == "answer: yes"


async def test_refused_questions_do_not_count_toward_the_turns_three(
    context: ToolContext,
) -> None:
    tool = AskTool(ScriptedAsker(*[said("yes")] * 3))
    for _ in range(3):
        await tool.run({"question": ""}, context)
    results = [await tool.run({"question": f"Step {n}?"}, context) for n in range(3)]
    assert results == ["answer: yes"] * 3


async def test_options_are_trimmed_before_they_are_put(context: ToolContext) -> None:
    asker = ScriptedAsker(said("1"))
    await AskTool(asker).run({"question": " Which? ", "options": [" a ", "b"]}, context)
    assert asker.asked == [("Which?", ["a", "b"], None)]


async def test_bad_arguments_are_an_error_and_ask_nothing(
    context: ToolContext, recorded: list[Any]
) -> None:
    result = await AskTool(ScriptedAsker()).run({"options": ["a"]}, context)
    assert result.startswith("error: bad arguments for ask: Object missing required field")
    assert recorded == []


# -- the events -----------------------------------------------------------------------------


async def test_a_question_records_requested_then_settled_with_the_seeds_fields(
    context: ToolContext, conversation: Any, recorded: list[Any]
) -> None:
    ticks = iter([100.0, 102.5])
    tool = AskTool(ScriptedAsker(said("production")), clock=lambda: next(ticks))
    await tool.run({**ENVIRONMENTS, "timeoutSeconds": 120}, context)
    first, second = recorded
    assert first == InquiryRequested(
        inquiry=first.inquiry,
        question="Which environment?",
        options=["staging", "production"],
        ways=["terminal"],
        timeout_seconds=120,
        call=context.call_id,
        thread=conversation.session,
    )
    assert re.fullmatch(r"[0-9a-f]{8}", first.inquiry)
    assert second == InquirySettled(
        inquiry=first.inquiry,
        question="Which environment?",
        thread=conversation.session,
        outcome="answered",
        via="terminal",
        delivered="tool",
        answer="production",
        redacted=[],
        seconds=2.5,
    )


async def test_ways_and_via_given_to_the_tool_win_over_the_askers(
    context: ToolContext, recorded: list[Any]
) -> None:
    tool = AskTool(ScriptedAsker(said("ok")), ways=["json"], via="json")
    await tool.run({"question": "Ready?"}, context)
    assert requested(recorded).ways == ["json"]
    assert settled(recorded).via == "json"


async def test_each_question_gets_its_own_inquiry_id(
    context: ToolContext, recorded: list[Any]
) -> None:
    ids = iter(["0000000a", "0000000b"])
    tool = AskTool(ScriptedAsker(said("a"), said("b")), new_id=lambda: next(ids))
    await tool.run({"question": "One?"}, context)
    await tool.run({"question": "Two?"}, context)
    assert [e.inquiry for e in recorded] == ["0000000a"] * 2 + ["0000000b"] * 2


# -- masking --------------------------------------------------------------------------------


async def test_a_credential_in_an_answer_is_masked_for_the_model_and_the_log(
    context: ToolContext, recorded: list[Any]
) -> None:
    tool = AskTool(ScriptedAsker(said(f"use {GITHUB_TOKEN} for the push")))
    result = await tool.run({"question": "Which account should push?"}, context)
    assert result == "answer: use [REDACTED:github-token] for the push"
    assert GITHUB_TOKEN not in repr(recorded)
    assert settled(recorded).answer == "use [REDACTED:github-token] for the push"
    assert settled(recorded).redacted == ["github-token"]


# -- the schema -----------------------------------------------------------------------------


def test_the_schema_is_question_options_and_timeout() -> None:
    schema = AskTool(NobodyAsker()).parameters
    assert schema["required"] == ["question"]
    assert schema["properties"]["question"]["type"] == "string"
    assert schema["properties"]["options"]["items"] == {"type": "string"}
    assert schema["properties"]["timeoutSeconds"]["type"] == "integer"


async def test_a_credential_in_an_answer_that_is_not_an_option_is_masked_in_the_reason(
    context: ToolContext, recorded: list[Any]
) -> None:
    tool = AskTool(ScriptedAsker(said(GITHUB_TOKEN)))
    result = await tool.run(ENVIRONMENTS, context)
    assert GITHUB_TOKEN not in result
    assert GITHUB_TOKEN not in repr(recorded)
    assert "[REDACTED:github-token]" in settled(recorded).reason
