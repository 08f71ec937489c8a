"""Copying text out: to the system clipboard where there is one, else by OSC 52 (the terminal)."""

from __future__ import annotations

import asyncio
import base64
import os
import sys
from collections.abc import Callable, Mapping, Sequence

from wisp_tui.programs import find_program, writable_folders

SYSTEM_SECONDS = 2.0
"""How long a clipboard program may take before OSC 52 is used instead."""

SYSTEM = "the system clipboard"
TERMINAL = "the terminal's clipboard (OSC 52)"


def osc52(text: str) -> str:
    """The sequence that asks the terminal to put `text` on the clipboard."""
    return f"\x1b]52;c;{base64.b64encode(text.encode()).decode('ascii')}\a"


def clipboard_command(
    env: Mapping[str, str], platform: str = sys.platform, avoid: Sequence[str] | None = None
) -> list[str] | None:
    """The program that writes stdin to the system clipboard here, or None when there is none.

    Never one in ``avoid`` (by default the sandbox's writable roots, see ``programs``)."""
    candidates: list[list[str]] = []
    if platform == "darwin":
        candidates.append(["pbcopy"])
    if env.get("WAYLAND_DISPLAY"):
        candidates.append(["wl-copy"])
    if env.get("DISPLAY"):
        candidates += [["xclip", "-selection", "clipboard"], ["xsel", "--clipboard", "--input"]]
    if avoid is None:
        avoid = writable_folders(env, os.getcwd())
    for command in candidates:
        if (program := find_program(command[0], env, avoid)) is not None:
            return [program, *command[1:]]
    return None


async def copy_with(command: list[str], text: str, env: Mapping[str, str]) -> bool:
    """Run `command` with `text` on stdin; True when it exited 0 in time."""
    try:
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.PIPE,
            # No pipes out: xclip and wl-copy leave a child serving the selection, which would
            # hold a pipe open and make us wait for it.
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            env=dict(env),
            start_new_session=True,
        )
    except OSError:
        return False
    try:
        await asyncio.wait_for(process.communicate(text.encode()), SYSTEM_SECONDS)
    except (TimeoutError, OSError):
        if process.returncode is None:
            process.kill()
            await process.wait()
        return False
    return process.returncode == 0


class Clipboard:
    """Copies through the system clipboard program when one runs here, else through OSC 52."""

    def __init__(
        self,
        env: Mapping[str, str] | None = None,
        platform: str = sys.platform,
        avoid: Sequence[str] | None = None,
    ) -> None:
        self.env: Mapping[str, str] = os.environ if env is None else env
        self.platform = platform
        self.avoid = avoid
        """Folders whose programs are never run; None: the sandbox's writable roots."""

    async def copy(self, text: str, write_osc52: Callable[[str], None]) -> str:
        """Copy `text`; returns where it went. `write_osc52` is the app's `copy_to_clipboard`."""
        command = clipboard_command(self.env, self.platform, self.avoid)
        if command is not None and await copy_with(command, text, self.env):
            return SYSTEM
        write_osc52(text)
        return TERMINAL
