"""Objects that must not carry their state into a forked child.

A child inherits its parent's random-byte block (ids would repeat) and its open file
descriptions (``flock`` would be shared with the parent, locking nothing). Objects that hold
such state register here and are told, in the child, to start afresh. This replaces a
``getpid()`` check on every audit write.
"""

from __future__ import annotations

import os
import weakref
from typing import Protocol


class ForkAware(Protocol):
    def after_fork(self) -> None: ...


_registered: weakref.WeakSet[ForkAware] = weakref.WeakSet()


def reset_after_fork(obj: ForkAware) -> None:
    """Call ``obj.after_fork()`` in every child forked while ``obj`` lives."""
    _registered.add(obj)


def _after_fork_in_child() -> None:
    for obj in list(_registered):
        obj.after_fork()


os.register_at_fork(after_in_child=_after_fork_in_child)
