"""Which shell lines wisp will hand to ``/bin/sh -c`` at all, checked before the policy reads
them (docs/sandbox.md, "Command lines"): a line the kernel could never run is refused at once,
whatever its words.

- A NUL cannot cross ``execve``: every argument ends at its first NUL byte.
- The kernel takes at most 128 KiB (``MAX_ARG_STRLEN``, the terminating NUL included) as one
  argument, and the line is one argument of ``sh -c``. wisp stops well below that, at
  ``MAX_LINE_BYTES``: the policy parses and rates every part of a line on the chat's one event
  loop, so a longer line would hold up the chat (an interrupt included) for seconds. A longer
  script belongs in a file (``edit_file``) that the command runs.
"""

from __future__ import annotations

MAX_LINE_BYTES = 32 * 1024
"""The longest command line wisp runs, in UTF-8 bytes (docs/sandbox.md, "Command lines")."""
NUL_REFUSAL = "the line holds a NUL character (\\0), which no command line can carry"


def line_refusal(line: str) -> str | None:
    """Why ``line`` cannot run, or None: a NUL, or more than ``MAX_LINE_BYTES`` bytes."""
    if "\0" in line:
        return NUL_REFUSAL
    size = len(line.encode(errors="surrogatepass"))
    if size > MAX_LINE_BYTES:
        limit = f"{MAX_LINE_BYTES:,}"
        return f"the line is {size:,} bytes long; wisp runs lines of at most {limit} bytes"
    return None
