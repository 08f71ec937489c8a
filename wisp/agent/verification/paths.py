"""Whether a path a reply names is the path a call acted on.

Both are read against the conversation's working directory, so ``config.ini``,
``./config.ini`` and ``/work/project/config.ini`` are one file. A bare name with no folder
(``config.ini``) also matches the file of that name in any folder, as a reply names a file it
edited under ``src/``; a relative path with folders matches a call's path that ends with it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path


def absolute(path: str, working_directory: Path) -> str:
    """``path`` with ``~`` expanded, joined to the working directory, ``..`` folded."""
    expanded = os.path.expanduser(path.strip().strip("`'\""))
    return os.path.normpath(os.path.join(working_directory, expanded))


def same_file(claimed: str, called: str, working_directory: Path) -> bool:
    """Whether the claimed path names the file the call acted on."""
    claimed_abs = absolute(claimed, working_directory)
    called_abs = absolute(called, working_directory)
    if claimed_abs == called_abs:
        return True
    written = os.path.normpath(os.path.expanduser(claimed.strip().strip("`'\"")))
    if os.path.isabs(written):
        return False
    return called_abs.endswith(os.sep + written)


def mentions(command: str, claimed: str) -> bool:
    """Whether a command line names the claimed file (its last part, as a word of the line)."""
    name = os.path.basename(os.path.normpath(claimed.strip().strip("`'\"")))
    if not name:
        return False
    return re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-]|\.\w)", command) is not None
