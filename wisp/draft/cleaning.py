"""A model's reply made into the text to use, line by line as it streams, so that what a
terminal shows as it comes is what a pipe gets whole (docs/draft.md, "Cleaning").

Small models wrap what they write: a preamble (``Here is the commit message:``; before a
commit message, any line ending in a colon), a code fence around it, quotes or a label
(``Subject:``) on a commit's first line. Each is dropped, and so are empty lines at either
end. A commit message loses every fence line, and its subject is
held to ``SUBJECT_MOST`` characters: a longer one is cut at a word and ends in ``…``, the rest
opening the body after ``…``, as code hosts show such a subject. A subject is always followed
by an empty line before a body, and a line the same as the one before it (a small model's loop)
is dropped.
"""

from __future__ import annotations

import re

from wisp.draft.tasks import Shape

SUBJECT_MOST = 72

_FENCE = re.compile(r"^\s*(?:```|~~~)[\w+.-]*\s*$")
_COURTESY = r"(?:sure|certainly|of course|okay|ok|alright)\b[\s,!.]*"
_WHAT = (
    r"(?:(?:the|a|an|your|my|this|suggested|proposed|possible|following|git|short|concise)\s+)*"
    r"(?:commit(?:\s+message)?|message|summary|reply|response|answer|draft|text)\b"
)
_PREAMBLE = re.compile(
    rf"^\s*(?:{_COURTESY})?(?:(?:here(?:'s|\s+is|\s+are)\b[^:]*|{_WHAT}[^:]*):)?\s*$", re.I
)
"""A line that only announces what follows: ``Sure!``, ``Here is the summary:``,
``Commit message:``."""


def _label(names: str) -> re.Pattern[str]:
    courtesy = r"(?:sure|certainly|of course|okay|ok|alright)[!,.]+\s*"  # "OK button" stays
    here = rf"here(?:'s|\s+is)\s+{_WHAT}[^:]{{0,60}}:"
    return re.compile(rf"^\s*(?:{courtesy})?(?:{here}|{names}\s*:)?\s*", re.I)


_LABELS = {
    "commit": _label(r"(?:(?:the\s+)?(?:git\s+)?commit\s+message|message|subject|title)"),
    "text": _label(r"(?:summary|reply|response|answer)"),
}
"""A label before the text on its own first line: ``Commit message: Fix …``, ``Subject: …``,
``Summary: …``; never a word a commit subject's scope may be (``draft: …``, ``summary: …``)."""
_HEADING = re.compile(r"^\s*#{1,6}\s+")
_WRAPPERS = ('"', "'", "`", "**", "*", "_")


def is_preamble(line: str) -> bool:
    return bool(line.strip()) and bool(_PREAMBLE.match(line))


class Cleaner:
    """Cleans a reply as it streams: ``feed`` it each piece and show what it gives back (whole
    lines only), then show ``finish``'s."""

    def __init__(self, shape: Shape) -> None:
        self.shape = shape
        self._partial = ""
        self._written = 0
        """Lines of text given back so far."""
        self._blank = False
        """An empty line waits for text after it (none is kept at either end)."""
        self._fenced = False
        """The text opened with a fence, whose closing one is dropped too."""
        self._last = ""

    def feed(self, piece: str) -> str:
        *lines, self._partial = (self._partial + piece).split("\n")
        return "".join(self._line(line) for line in lines)

    def finish(self) -> str:
        rest, self._partial = self._partial, ""
        return self._line(rest)

    def _line(self, line: str) -> str:
        line = line.rstrip()
        if not line.strip():
            self._blank = self._written > 0
            return ""
        if _FENCE.match(line) and self._is_wrapping_fence():
            return ""
        if self._written == 0:
            if is_preamble(line) or (self.shape == "commit" and line.endswith(":")):
                return ""  # a subject never ends in a colon: "The staged changes:"
            line = _LABELS[self.shape].sub("", line, count=1) or line
            if self.shape == "commit":
                return self._subject(line)
        if self.shape == "commit":
            if line == self._last:
                return ""
            if self._written == 1:
                self._blank = True  # a body is set off from its subject
        return self._write(line)

    def _is_wrapping_fence(self) -> bool:
        """Whether a fence line is to go: every one in a commit message; in a text, one that
        opens it or closes the one that did."""
        if self.shape == "commit":
            return True
        if self._written == 0:
            self._fenced = True
            return True
        if self._fenced:
            self._fenced = False
            return True
        return False

    def _subject(self, line: str) -> str:
        subject = _unwrapped(_HEADING.sub("", line).strip())
        if len(subject) <= SUBJECT_MOST:
            return self._write(subject)
        head, rest = _cut_subject(subject)
        written = self._write(head + "…") + self._write("…" + rest, blank=True)
        self._blank = True  # the body, if any, after the subject's end
        return written

    def _write(self, line: str, *, blank: bool = False) -> str:
        before = "\n" if (self._blank or blank) and self._written else ""
        self._blank, self._last = False, line
        self._written += 1
        return f"{before}{line}\n"


def clean(reply: str, shape: Shape) -> str:
    """The whole reply cleaned: what a ``Cleaner`` gives back for it, piece by piece."""
    cleaner = Cleaner(shape)
    return cleaner.feed(reply) + cleaner.finish()


def _unwrapped(subject: str) -> str:
    """A subject without the quotes, backticks or emphasis wrapped around the whole of it."""
    for mark in _WRAPPERS:
        if len(subject) > 2 * len(mark) and subject.startswith(mark) and subject.endswith(mark):
            return subject[len(mark) : -len(mark)].strip()
    return subject


def _cut_subject(subject: str) -> tuple[str, str]:
    """The subject's head, to end in ``…`` within ``SUBJECT_MOST``, and the rest: cut at the
    last space that fits, else within the word."""
    room = SUBJECT_MOST - 1
    space = subject.rfind(" ", 0, room + 1)
    at = space if space > 0 else room
    return subject[:at].rstrip(), subject[at:].lstrip()
