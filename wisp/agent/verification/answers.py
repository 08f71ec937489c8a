"""The ``answers`` reader: whether a reply that follows the turn's tool results answers at all.

Small models often end a turn that went well with a reply that says nothing: "Thank you!",
"The date and time are correct." after ``current_date``, "I'm sorry, but I can't assist with
that request." right after a read that succeeded. Such a reply is asked once more (docs/turn.md,
"An answer that answers"). Asking again costs a request and may lose a good answer, so the
reader says "no answer" only when three simple signals agree:

- **its shape**: the reply thanks, refuses or offers help; or, when the question asked for
  something (``what``, ``which``, ``list``…: "correct" answers "is it right?", never "what is
  it?"), it only says that something is correct ("The date and time are correct."), describes
  the results without giving them ("The command executed successfully, and the output shows
  the names of the files.") or tells the person how to find the answer themselves ("you can
  use the ``read_file`` function", or only a command in a fence: ```` ```ls -l``` ````); and it
  is short (at most ``MOST_WORDS``). "Done." or "OK"
  after an edit is an answer, and is left alone;
- **no use of the results**: it shares no number with the turn's successful outputs, and no
  word of ``LEAST_LETTERS`` letters or more that the question did not already hold (a model that
  says "today's date" after being asked the date has used nothing) and that is not one of the
  ``COMMON`` words (``that``, ``with``, ``sorry``, ``assist``…);
- **results to use**: at least one of the turn's calls succeeded (a refusal after a failed
  call may be the honest answer), other than ``ask`` and ``notify`` (``NOT_RESULTS``): thanking
  the person for an answer they gave is a fine reply.

A short factual answer ("Paris", "391") has no such shape and is never asked again, whatever it
shares with the results; a reply that thanks and then gives a value from the results ("Thanks!
The port is 8080.") uses them.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from pathlib import Path

from wisp.agent.assessment import FILE_NAMED

NAME = "answers"
"""The reader's name, as ``response.verification`` records it."""
MOST_WORDS = 80
LEAST_LETTERS = 4
NOT_RESULTS = frozenset({"ask", "notify"})
"""Tools whose output is the person's answer or a receipt, not a result to report."""
QUOTED = 200
"""A reply is quoted in the record up to this many characters."""

_APOSTROPHE = r"['’]"
_VERDICT = (
    r"(?:correct|right|accurate|valid|well[- ]formed|(?:correctly|properly) formatted"
    r"|in (?:the |a )?(?:correct|right|proper|expected|valid|standard) format)"
)
"""A word that only judges something ("accurate", "in the correct format"), never gives it."""
SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "it refuses",
        re.compile(
            rf"\b(?:can{_APOSTROPHE}?t|cannot|can not|unable to|not able to|won{_APOSTROPHE}t)"
            r"\s+(?:assist|help|provide|do|comply|answer|fulfil)",
            re.IGNORECASE,
        ),
    ),
    ("it thanks", re.compile(r"^\W*(?:thanks|thank you|many thanks)\b", re.IGNORECASE)),
    (
        "it acknowledges",
        re.compile(
            r"^\W*(?:(?:the|this|that|it|everything|all)\b[^.!?]{0,60}?\s)?"
            rf"(?:is|are|was|were)\s+(?:all\s+)?{_VERDICT}(?:,?\s+(?:and\s+)?{_VERDICT})*\W*$",
            re.IGNORECASE,
        ),
    ),
    (
        "it describes the results",
        re.compile(
            r"\b(?:executed|ran|run|completed|finished|worked)\s+successfully\b"
            r"|\b(?:correctly|properly|successfully)\s+(?:formatted|displayed|shown|listed|"
            r"retrieved|read|printed|returned|executed|ran|completed|finished|worked)\b"
            r"|\b(?:output|result|results|response)\s+(?:shows?|lists?|contains?|displays?|"
            r"includes?|gives?|provides?)\b"
            r"|\b(?:returned|returns|shows|showed|displayed|printed|gave|lists|listed)\s+the\s+"
            r"(?:total\s+)?(?:number|count|names?|list|sizes?|contents?)\s+of\b",
            re.IGNORECASE,
        ),
    ),
    (
        "it tells how",
        re.compile(
            r"\byou (?:can|could|may|should) (?:use|run|call|try|check|open)\b"
            rf"|\bhere{_APOSTROPHE}?s how\b|\bhere is how\b",
            re.IGNORECASE,
        ),
    ),
    (
        "it only shows a command",
        re.compile(r"^\s*(?:```[\w+-]*\n[^\n`]+\n```|`[^`\n]+`)\s*$"),
    ),
    (
        "it offers help",
        re.compile(
            r"\blet me know\b|\bhow (?:can|may) i (?:help|assist)\b|\banything else\b",
            re.IGNORECASE,
        ),
    ),
)
"""What a reply that answers nothing says, each with the reason the record gives."""
ASKING_SHAPES = frozenset(
    {"it acknowledges", "it describes the results", "it tells how", "it only shows a command"}
)
"""Shapes that answer nothing only when the question asked for something: "The command
executed successfully." is the answer to "Run the tests"."""
ASKS_FOR_SOMETHING = re.compile(
    r"\b(?:what|which|when|where|who|whose|how|why|list|show|tell|count|give|find)\b"
    r"|\bwhat['’]s\b",
    re.IGNORECASE,
)
"""A question that asks for a value, a list or a reason, not for a yes or a no."""

_COMMON_WORDS = (
    "that this with have from your what there their which would could should about will been "
    "were they them then than when where here into just also some more only very does done "
    "sorry please thank thanks request help assist correct right fine good okay sure great "
    "know anything else able provide answer question information file files output result "
    "results command tool total number names sizes size list listed lines current directory "
    "folder contents successfully executed returned shows"
)
COMMON = frozenset(_COMMON_WORDS.split())
"""Words too common, or too much a part of the shapes above, to show a result was used: "the
total number of files" shares ``total`` with ``ls -l``'s first line and gives nothing."""

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_WORD = re.compile(r"[^\W\d_]+")


def unanswered(reply: str, question: str, outputs: Sequence[str]) -> str | None:
    """Why ``reply`` answers nothing (``it thanks and uses none of the results``), or None
    when it may be an answer. ``outputs`` are the texts of the turn's successful calls."""
    text = reply.strip()
    if not outputs or not text or len(text.split()) > MOST_WORDS:
        return None
    shape = next((why for why, pattern in SHAPES if pattern.search(text)), None)
    if shape in ASKING_SHAPES and not ASKS_FOR_SOMETHING.search(question):
        shape = None
    if shape is None or uses_results(text, question, outputs):
        return None
    return f"{shape} and uses none of the results"


ANNOUNCES = re.compile(
    rf"\b(?:I need to|I will|I{_APOSTROPHE}ll|I am going to|I{_APOSTROPHE}m going to|let me|"
    r"I should|I must|I have to|first,? I)\s+(?:first\s+)?(?:read|open|check|run|look at|"
    r"list|count|search|call|use|execute|inspect|examine)\b",
    re.IGNORECASE,
)
ANNOUNCING_WORDS = 40


def announces(reply: str) -> bool:
    """Whether ``reply`` only says what the model will do next ("To answer your question, I
    need to read the file utils.py."): short, asking the person nothing, and saying it will
    read, run, check or use something."""
    text = reply.strip()
    if not text or "?" in text or len(text.split()) > ANNOUNCING_WORDS:
        return False
    return ANNOUNCES.search(text) is not None


THIS_COMPUTER = re.compile(
    r"\b(?:(?:this|the current|my) (?:folder|directory|repo|repository|project|machine|computer)"
    r"|run (?:a|the) command|search the files)\b",
    re.IGNORECASE,
)
"""A question about this computer, in so many words, that only a tool can answer: "Which file
in this folder contains…", "Run a command to list the files"."""


def about_this_computer(question: str) -> bool:
    """Whether the question asks about this computer in so many words (``THIS_COMPUTER``)."""
    return THIS_COMPUTER.search(question) is not None


def unread_file(question: str, folder: Path) -> str | None:
    """A file the question names that is there in ``folder`` to read (``app.log`` in "Look at
    app.log and explain the error"), or None."""
    for match in FILE_NAMED.finditer(question):
        name = match.group().strip("`'\".,:;")
        with contextlib.suppress(OSError, ValueError):
            if (folder / name).is_file():
                return name
    return None


def uses_results(reply: str, question: str, outputs: Sequence[str]) -> bool:
    """The reply holds a number of the outputs, or a word of them the question did not."""
    results = "\n".join(outputs)
    if set(_NUMBER.findall(reply)) & set(_NUMBER.findall(results)):
        return True
    asked = _words(question)
    own = {word for word in _words(reply) if len(word) >= LEAST_LETTERS} - asked - COMMON
    return bool(own & _words(results))


def quoted(reply: str) -> str:
    """The reply as the record quotes it: one line, at most ``QUOTED`` characters."""
    line = " ".join(reply.split())
    return line if len(line) <= QUOTED else line[: QUOTED - 1] + "…"


def _words(text: str) -> set[str]:
    return {word.casefold() for word in _WORD.findall(text)}
