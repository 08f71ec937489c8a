"""A stand-in for `wisp chat --json` in wisp-tui tests, for lines no slash command sends yet.

It speaks the real protocol (through `wisp.protocol`): after the front end's `hello` it writes a
`status`, then the `lines` in the JSON file named by its last argument (each a protocol line as
a dict). Every line the front end writes afterwards comes back as a note `heard: <line>`, so a
test reads on the screen what the front end answered. `/quit` or the end of stdin ends it, unless
the file says `"stuck": true`: then it never exits, as a hung wisp would not.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import msgspec

from wisp import protocol as p

STATUS = p.Status(model="fake", directory="~/work", approval="approve at moderate", sandbox=True)


def say(line: p.OutboundLine) -> None:
    sys.stdout.buffer.write(p.encode_line(line))
    sys.stdout.flush()


def main() -> int:
    scripted = msgspec.json.decode(Path(sys.argv[-1]).read_bytes())
    sys.stdin.buffer.readline()  # the front end's hello
    say(STATUS)
    for line in scripted["lines"]:
        say(msgspec.convert(line, p.OutboundLine))
    for raw in sys.stdin.buffer:
        heard = raw.decode().strip()
        say(p.Note(text=f"heard: {heard}"))
        if '"/quit"' in heard:
            break
        say(STATUS)
    if scripted.get("stuck"):
        signal.pause()  # until killed
    say(p.Exit())
    return 0


if __name__ == "__main__":
    sys.exit(main())
