"""The plain chat's rule for a dialog read from a pipe: the next line answers it only when it is
an answer; otherwise the dialog is refused with a note and the line goes on as a message."""

from __future__ import annotations

import io

import pytest

from wisp import protocol as p
from wisp.chat.plain import Pending, PlainFace, answers

APPROVAL = Pending("approval", "a1")
QUESTION = Pending("question", "q1")
OPTIONS = Pending("question", "q2", ("staging", "production"))
CHOICE = Pending("choice", "c1", ("local", "ollama:qwen3"))


@pytest.mark.parametrize(
    ("pending", "text"),
    [
        (APPROVAL, "y"), (APPROVAL, "No"), (APPROVAL, "session"), (APPROVAL, ""),
        (QUESTION, "the blue one"), (QUESTION, "/decline"), (QUESTION, ""),
        (OPTIONS, "2"), (OPTIONS, "staging"),
        (CHOICE, "1"), (CHOICE, "ollama:qwen3"), (CHOICE, ""),
    ],
)  # fmt: skip
def test_an_answer_answers(pending: Pending, text: str) -> None:
    assert answers(pending, text)


@pytest.mark.parametrize(
    ("pending", "text"),
    [
        (APPROVAL, "/quit"), (APPROVAL, "run the tests"),
        (QUESTION, "/quit"), (QUESTION, "!ls"),
        (OPTIONS, "3"), (OPTIONS, "prod"), (OPTIONS, "/quit"),
        (CHOICE, "/quit"), (CHOICE, "9"), (CHOICE, "hello"),
    ],
)  # fmt: skip
def test_a_chat_line_is_not_an_answer(pending: Pending, text: str) -> None:
    assert not answers(pending, text)


def test_a_line_that_does_not_answer_refuses_the_dialog_and_goes_on_as_a_message() -> None:
    err = io.StringIO()
    face = PlainFace(io.StringIO(), err)
    face.pending = CHOICE
    assert face.route("/quit", typed=False) == [
        p.Choose(id="c1", value=None),
        p.Message(text="/quit"),
    ]
    assert "no terminal: '/quit' does not answer the choice" in err.getvalue()


def test_on_a_terminal_the_next_line_is_the_answer_as_typed() -> None:
    face = PlainFace(io.StringIO(), io.StringIO())
    face.pending = APPROVAL
    assert face.route("/quit", typed=True) == [p.Answer(id="a1", decision="/quit")]


def test_a_guidance_file_is_shown_whole_and_y_answers_it() -> None:
    err = io.StringIO()
    face = PlainFace(io.StringIO(), err)
    text = "# app\nRun make check.\n"
    face.write(
        p.Approval(
            id="g1", command="/srv/app/AGENTS.md", line="/srv/app/AGENTS.md", pattern="",
            directory="/srv/app", level="moderate", reasons=["not accepted yet"],
            kind="guidance",
            guidance=p.ApprovalGuidance(
                path="/srv/app/AGENTS.md", bytes=len(text), sha256="0" * 64, text=text,
                reason="not accepted yet",
            ),
        )
    )  # fmt: skip
    shown = err.getvalue()
    assert "guidance file /srv/app/AGENTS.md (22 bytes, not accepted yet)" in shown
    assert "  │ # app\n  │ Run make check.\n" in shown
    assert shown.endswith("[y]es  [n]o › ")
    assert face.route("y") == [p.Answer(id="g1", decision="y")]
    assert answers(Pending("guidance", "g2"), "n")
    assert not answers(Pending("guidance", "g2"), "/quit")
