"""A real pseudo-terminal standing for the person's, for the sandbox's tests of it
(docs/sandbox.md, "The person's terminal"): what a command writes to its ``/dev/pts/N``
comes out of its master, where the test looks."""

from __future__ import annotations

import contextlib
import os
import select
from collections.abc import Iterator

import msgspec

from tests.hang import HANG

MARKER = b"wisp-marker"
SENTINEL = b"wisp-sentinel"
WRITE_EVERY_TERMINAL = (
    "for f in /dev/pts/[0-9]* /dev/tty /dev/console; do "
    f'printf {MARKER.decode()} 2>/dev/null > "$f" && echo "wrote $f"; '
    "done; ls /dev/pts"
)
"""A shell line that writes the marker to every terminal it can see, says which it could, and
lists the ``/dev/pts`` it sees."""


class Terminal(msgspec.Struct, frozen=True):
    master: int
    slave: int
    name: str
    """The slave's path, ``/dev/pts/N``."""


@contextlib.contextmanager
def person_terminal() -> Iterator[Terminal]:
    master, slave = os.openpty()
    try:
        yield Terminal(master, slave, os.ttyname(slave))
    finally:
        os.close(master)
        os.close(slave)


def what_arrived(terminal: Terminal) -> bytes:
    """Everything written to the terminal so far. A pty hands data on to its master through a
    queue of the kernel's, so a sentinel is written once the command has exited, and read up
    to: whatever the command wrote came out before it."""
    os.write(terminal.slave, SENTINEL)
    arrived = b""
    while not arrived.endswith(SENTINEL):
        ready, _, _ = select.select([terminal.master], [], [], HANG)
        assert ready, "the sentinel never came out of the terminal"
        arrived += os.read(terminal.master, 4096)
    return arrived[: -len(SENTINEL)]
