"""One notification as every route sends it: a title and a body, bounded and with no control
characters, whatever asked for it (a model, a person, a watch, a request that waits)."""

from __future__ import annotations

import re

import msgspec

TITLE_CHARS = 64
BODY_CHARS = 256
CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]")
"""C0, DEL and C1: in a terminal's sequence or a desktop's bubble, any of them could end the
text early or start something else."""


class Notice(msgspec.Struct, frozen=True):
    """A notification, ready for any route."""

    title: str
    body: str
    subtitle: str | None = None
    sound: bool = False


def notice(title: str, body: str, *, subtitle: str | None = None, sound: bool = False) -> Notice:
    """A ``Notice`` within the bounds: control characters become spaces, runs of spaces one,
    and a long title or body ends ``…``."""
    return Notice(
        title=bounded(plain(title), TITLE_CHARS),
        body=bounded(plain(body), BODY_CHARS),
        subtitle=None if subtitle is None else bounded(plain(subtitle), TITLE_CHARS),
        sound=sound,
    )


def plain(text: str) -> str:
    """``text`` on one line: every control character a space, the spaces collapsed."""
    return " ".join(CONTROLS.sub(" ", text).split())


def bounded(text: str, limit: int, *, at_word: bool = False) -> str:
    """``text`` in at most ``limit`` characters, ending ``…`` when cut."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if at_word and " " in cut[limit // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip() + "…"
