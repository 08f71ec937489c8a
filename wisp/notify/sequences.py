"""Desktop notifications through the terminal: which escape sequence this terminal takes, and
the exact bytes of one notice (docs/tui.md, "Notifications"; docs/watch.md, "Routes").

Two hosts write them: wisp's own ``terminal`` route, and wisp-tui, which declares ``notify`` in
its ``hello`` only when the terminal has a sequence, and writes a notice only while the terminal
is not focused.

Standard library only: wisp-tui imports it at start-up, and start-up is measured.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

OSC9 = "osc9"
"""`ESC ] 9 ; text BEL`: ghostty and WezTerm."""
OSC99 = "osc99"
"""kitty's desktop notifications (`ESC ] 99 ; metadata ; payload ESC \\`), title and body."""
OSC777 = "osc777"
"""`ESC ] 777 ; notify ; title ; body BEL`: foot, and rxvt-unicode with its notify extension."""
OFF = "off"

BY_TERM_PROGRAM: Mapping[str, str] = {"ghostty": OSC9, "WezTerm": OSC9, "kitty": OSC99}
"""`TERM_PROGRAM` decides when it is set; any other value (iTerm.app, which shows OSC 9 only
once a setting is turned on, Apple_Terminal, tmux, which would swallow it) means none."""
BY_TERM: Mapping[str, str] = {
    "xterm-ghostty": OSC9,
    "wezterm": OSC9,
    "xterm-kitty": OSC99,
    "foot": OSC777,
    "foot-extra": OSC777,
}

CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]")
"""C0, DEL and C1: any of them could end the sequence early or start another one."""


def sequence_for(env: Mapping[str, str] | None = None) -> str | None:
    """The notification sequence this terminal takes (`OSC9`, `OSC99`), or None.

    `WISP_NOTIFY` (`osc9`, `osc99`, `osc777`, `off`) overrides the guess, so it can be tested
    anywhere."""
    env = os.environ if env is None else env
    chosen = env.get("WISP_NOTIFY", "").strip().lower()
    if chosen in (OSC9, OSC99, OSC777):
        return chosen
    if chosen == OFF:
        return None
    program = env.get("TERM_PROGRAM")
    if program:
        return BY_TERM_PROGRAM.get(program)
    return BY_TERM.get(env.get("TERM", ""))


def clean(text: str) -> str:
    """`text` safe inside the sequence: controls become spaces, `;` becomes `,` (a `;` would
    end a field, and OSC 9 reads `4;…` as a progress report)."""
    return CONTROLS.sub(" ", text).replace(";", ",")


def osc9(title: str, subtitle: str | None, body: str) -> str:
    """One OSC 9 notice: `title — subtitle: body`."""
    heading = f"{title} — {subtitle}" if subtitle else title
    return f"\x1b]9;{clean(heading)}: {clean(body)}\a"


def osc777(title: str, subtitle: str | None, body: str) -> str:
    """One OSC 777 notice: its title and body are fields of their own."""
    heading = f"{title} — {subtitle}" if subtitle else title
    return f"\x1b]777;notify;{clean(heading)};{clean(body)}\a"


def osc99(notice_id: str, title: str, subtitle: str | None, body: str) -> str:
    """One kitty notice: the title chunk (`d=0`: more follows), then the body chunk that ends
    it, both under `notice_id` (letters, digits and `-` only)."""
    heading = f"{title} — {subtitle}" if subtitle else title
    return (
        f"\x1b]99;i={notice_id}:d=0:p=title;{clean(heading)}\x1b\\"
        f"\x1b]99;i={notice_id}:d=1:p=body;{clean(body)}\x1b\\"
    )


class TerminalNotices:
    """Turns `notify` lines into the terminal's sequence, each notice once, with its own id."""

    def __init__(self, sequence: str | None, pid: int | None = None) -> None:
        self.sequence = sequence
        self._prefix = f"wisp{os.getpid() if pid is None else pid}"
        self._count = 0

    def text(self, title: str, subtitle: str | None, body: str) -> str | None:
        """The bytes to write for one notice, or None when this terminal has no sequence."""
        if self.sequence == OSC9:
            return osc9(title, subtitle, body)
        if self.sequence == OSC777:
            return osc777(title, subtitle, body)
        if self.sequence == OSC99:
            self._count += 1
            return osc99(f"{self._prefix}-{self._count}", title, subtitle, body)
        return None
