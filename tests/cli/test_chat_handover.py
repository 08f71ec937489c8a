"""The hand-off (docs/tui.md, "Process and start-up"): `wisp chat` on a terminal runs the
full-screen front end in its place.

Each test runs the installed `wisp` on a pseudo-terminal of its own, as a person's shell would.
The front end is a small script that records the words it was given and the WISP_BIN it was
handed, then exits 3, so a status of 3 shows it really ran in wisp's place.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.hang import HANG

WISP = Path(sys.executable).parent / "wisp"

# CSI and OSC sequences, and the short ESC ones: what remains is the text a person would read.
ESCAPES = re.compile(
    rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]"
)

FAKE_FRONT_END = """\
#!/bin/sh
# A stand-in for wisp-tui: what it was given, and whether it has the terminal.
[ -t 0 ] && [ -t 1 ] && terminal='on a terminal'
{ for word in "$@"; do echo "arg $word"; done
  echo "WISP_BIN $WISP_BIN"; echo "$terminal"; } > "$RECORD"
exit 3
"""


class PtyRun:
    """A program on a pseudo-terminal of its own (80×24), read as it writes."""

    def __init__(self, main_fd: int, process: asyncio.subprocess.Process) -> None:
        self._main_fd = main_fd
        self.process = process
        self.raw = b""
        self._changed = asyncio.Event()
        self._ended = asyncio.Event()
        asyncio.get_running_loop().add_reader(main_fd, self._readable)

    @classmethod
    async def start(
        cls,
        argv: Sequence[str],
        env: dict[str, str],
        *,
        cwd: Path | None = None,
        stdin_is_tty: bool = True,
    ) -> PtyRun:
        main_fd, sub_fd = pty.openpty()
        fcntl.ioctl(sub_fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        try:
            process = await asyncio.create_subprocess_exec(
                *argv, env=env, cwd=cwd,
                stdin=sub_fd if stdin_is_tty else subprocess.DEVNULL,
                stdout=sub_fd, stderr=sub_fd,
                start_new_session=True,
            )  # fmt: skip
        finally:
            os.close(sub_fd)  # the child holds it now: its end is our end of output
        return cls(main_fd, process)

    @property
    def text(self) -> str:
        """What was written, without escape sequences."""
        return ESCAPES.sub(b"", self.raw).decode("utf-8", errors="replace")

    def type(self, keys: bytes) -> None:
        os.write(self._main_fd, keys)

    async def wait_for(self, text: str, timeout: float = HANG) -> None:
        """Until `text` has been written; fails with what was written after `timeout` s."""
        try:
            async with asyncio.timeout(timeout):
                while text not in self.text:
                    self._changed.clear()
                    await self._changed.wait()
        except TimeoutError:
            raise AssertionError(f"{text!r} never came; the terminal had:\n{self.text}") from None

    async def finish(self, timeout: float = HANG) -> int:
        """Read to the end of output and return the exit status; kill it if it hangs."""
        try:
            async with asyncio.timeout(timeout):
                await self._ended.wait()
                return await self.process.wait()
        except TimeoutError:
            raise AssertionError(f"it did not end; the terminal had:\n{self.text}") from None
        finally:
            self.close()

    def close(self) -> None:
        if self.process.returncode is None:
            self.process.kill()
        loop = asyncio.get_running_loop()
        if loop.remove_reader(self._main_fd):
            os.close(self._main_fd)

    def _readable(self) -> None:
        try:
            data = os.read(self._main_fd, 65536)
        except OSError:  # EIO: every copy of the other end is closed
            data = b""
        if data:
            self.raw += data
        else:
            asyncio.get_running_loop().remove_reader(self._main_fd)
            os.close(self._main_fd)
            self._ended.set()
        self._changed.set()


@pytest.fixture
def script_model(tmp_path: Path) -> str:
    """A `script:` model that is never asked: the chats here end before a turn."""
    path = tmp_path / "script.json"
    path.write_text('{"responses": [{"text": "unused"}]}')
    return f"script:{path}"


@pytest.fixture
def front_end(tmp_path: Path) -> Path:
    path = tmp_path / "front-end"
    path.write_text(FAKE_FRONT_END)
    path.chmod(0o755)
    return path


@pytest.fixture
def record(tmp_path: Path) -> Path:
    return tmp_path / "record"


@pytest.fixture
def env(bare_env: dict[str, str], front_end: Path, record: Path) -> dict[str, str]:
    return {**bare_env, "TERM": "xterm-256color", "WISP_TUI": str(front_end), "RECORD": str(record)}


async def test_on_a_terminal_chat_runs_the_front_end_with_its_words_and_wisp_bin(
    env: dict[str, str], record: Path
) -> None:
    run = await PtyRun.start(
        [str(WISP), "chat", "-m", "script:chat", "--save", "two words", "-y"], env
    )
    assert await run.finish() == 3
    assert record.read_text().splitlines() == [
        "arg -m", "arg script:chat", "arg --save", "arg two words", "arg -y",
        f"WISP_BIN {WISP}",
        "on a terminal",
    ]  # fmt: skip


async def test_options_before_chat_are_handed_on_too(env: dict[str, str], record: Path) -> None:
    run = await PtyRun.start([str(WISP), "-m", "script:chat", "--save", "chat", "chat", "-y"], env)
    assert await run.finish() == 3
    assert record.read_text().splitlines()[:5] == [
        "arg -m", "arg script:chat", "arg --save", "arg chat", "arg -y",
    ]  # fmt: skip


async def test_wisp_tui_is_found_beside_the_wisp_script(
    env: dict[str, str], record: Path, front_end: Path, tmp_path: Path
) -> None:
    # A bin folder of its own: `wisp` (a link to the real script) and a `wisp-tui` beside it.
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    (bin_folder / "wisp").symlink_to(WISP)
    (bin_folder / "wisp-tui").symlink_to(front_end)
    del env["WISP_TUI"]
    run = await PtyRun.start([str(bin_folder / "wisp"), "chat"], env)
    assert await run.finish() == 3
    assert record.read_text().splitlines() == [f"WISP_BIN {bin_folder / 'wisp'}", "on a terminal"]


async def test_the_installed_wisp_tui_takes_over_and_leaves_with_status_0(
    bare_env: dict[str, str], script_model: str, tmp_path: Path
) -> None:
    env = {**bare_env, "TERM": "xterm-256color"}  # no WISP_TUI: the wisp-tui beside wisp
    run = await PtyRun.start([str(WISP), "chat", "-m", script_model], env, cwd=tmp_path)
    try:
        await run.wait_for("Ask wisp to do anything")  # the full-screen input's placeholder
        run.type(b"\x03")  # Ctrl-C at idle quits
        assert await run.finish() == 0
    finally:
        run.close()


async def test_plain_keeps_the_line_chat(
    env: dict[str, str], record: Path, script_model: str
) -> None:
    run = await PtyRun.start([str(WISP), "chat", "--plain", "-m", script_model], env)
    run.type(b"/quit\n")
    assert await run.finish() == 0, run.text
    assert not record.exists()
    assert "/help for commands, /quit or Ctrl-D to exit." in run.text  # the line chat's greeting
    assert "Traceback" not in run.text


async def test_json_keeps_the_protocol_on_a_terminal(
    env: dict[str, str], record: Path, script_model: str
) -> None:
    run = await PtyRun.start([str(WISP), "chat", "--json", "-m", script_model], env)
    await run.wait_for('"type":"status"')
    run.type(b"\x04")  # EOF at the start of a line
    assert await run.finish() == 0, run.text
    assert not record.exists()


async def test_input_that_is_not_a_terminal_keeps_the_line_chat(
    env: dict[str, str], record: Path, script_model: str
) -> None:
    run = await PtyRun.start([str(WISP), "chat", "-m", script_model], env, stdin_is_tty=False)
    assert await run.finish() == 0, run.text
    assert not record.exists()
    assert "/help for commands" in run.text


async def test_a_front_end_that_is_not_there_leaves_the_line_chat_with_a_warning(
    env: dict[str, str], record: Path, script_model: str, tmp_path: Path
) -> None:
    env["WISP_TUI"] = str(tmp_path / "no-such-front-end")
    run = await PtyRun.start([str(WISP), "chat", "-m", script_model], env)
    run.type(b"/quit\n")
    assert await run.finish() == 0, run.text
    assert "which is not a program" in run.text
    assert "/help for commands" in run.text
    assert not record.exists()


def test_help_names_plain() -> None:
    result = subprocess.run(
        [str(WISP), "chat", "--help"], capture_output=True, text=True, timeout=HANG, check=True
    )
    assert "--plain" in result.stdout
    assert "instead of handing over to wisp-tui" in " ".join(result.stdout.split())


async def test_a_front_end_named_by_wisp_tui_is_never_found_in_a_writable_root(
    env: dict[str, str], record: Path, script_model: str, tmp_path: Path
) -> None:
    # WISP_TUI names a program, and the project's activated .venv/bin (a folder commands may write
    # to) comes first on PATH with one of that name: it is not run.
    work = tmp_path / "work"
    planted = work / ".venv" / "bin"
    planted.mkdir(parents=True)
    (planted / "front-end").write_text(FAKE_FRONT_END)
    (planted / "front-end").chmod(0o755)
    env["WISP_TUI"] = "front-end"
    env["PATH"] = f"{planted}{os.pathsep}{env['PATH']}"
    run = await PtyRun.start([str(WISP), "chat", "-m", script_model], env, cwd=work)
    run.type(b"/quit\n")
    assert await run.finish() == 0, run.text
    assert not record.exists()
    said = " ".join(run.text.split())  # the terminal may wrap the line
    assert "WISP_TUI names front-end, which is not a program on PATH outside the folders" in said
