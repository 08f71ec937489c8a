"""Whether a path a command writes is a block device, by its real path (docs/policy.md, "What
the deny list stops").

``/./dev/sda``, ``/dev/../dev/sda`` and ``//dev/sda`` are ``/dev/sda``; a link under
``/dev/disk/by-id`` is the disk it points to. A path is a block device when its real path is
one on this machine (``stat``), or is named like one (``/dev/sd*``, ``/dev/nvme*``, … : a
machine without that disk, or a sandbox that shows its own ``/dev``).
"""

from __future__ import annotations

import os
import posixpath
import re
import stat

__all__ = ["is_block_device"]

_DEVICE_NAMES = re.compile(
    r"/dev/(?:(?:sd|hd|vd|xvd)[a-z]+\d*|nvme\d+(?:n\d+(?:p\d+)?)?|mmcblk\d+(?:p\d+|boot\d+)?"
    r"|dm-\d+|loop\d+(?:p\d+)?|md\d+(?:p\d+)?|sr\d+|nbd\d+(?:p\d+)?|zram\d+|ram\d+|rbd\d+"
    r"|bcache\d+|mtdblock\d+|mtd\d+|ubi\S*|fd\d+|root|mem|kmem|port"
    r"|(?:mapper|disk|md|block|bcache|zvol)/.+)"
)


def is_block_device(path: str, directory: str | None = None) -> bool:
    """Whether writing ``path`` (relative to ``directory``, when known) writes a disk."""
    if not path.startswith("/"):
        if directory is None:
            return False
        path = f"{directory}/{path}"
    lexical = "/" + posixpath.normpath(path).lstrip("/")
    real = os.path.realpath(lexical)
    if _DEVICE_NAMES.fullmatch(lexical) or _DEVICE_NAMES.fullmatch(real):
        return True
    try:
        return stat.S_ISBLK(os.stat(real).st_mode)
    except (OSError, ValueError):
        return False
