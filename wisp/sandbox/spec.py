"""What the helper is told to enforce: one JSON argument, shared by the planner that writes it
and the helper that reads it."""

from __future__ import annotations

import msgspec

from wisp.sandbox.spec_reader import EXIT_CANNOT_CONFINE, MESSAGE_PREFIX

__all__ = ["EXIT_CANNOT_CONFINE", "MESSAGE_PREFIX", "HelperSpec"]


class HelperSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The confinement to apply before exec. A spec from another wisp version fails to decode,
    and the helper then refuses to run the command."""

    abi: int
    """The Landlock ABI probed by the parent; a kernel without it refuses the ruleset."""
    roots: list[str]
    """Every handled right beneath each (file rights when one turns out to be a file)."""
    files: list[str]
    """File rights on each: device files."""
    network_off: bool
    """Handle TCP bind and connect with no port rules (ABI 4+)."""
    protected: str | None = None
    """``WISP_HOME`` when a root holds it and neither the mount namespace nor bubblewrap covers
    it: the helper narrows such roots at launch, so the rules see the directories as they are
    then."""
    namespace: bool = False
    """Make a private mount namespace (and a user namespace when not root) before Landlock:
    everything read-only but the roots, ``read_only`` bound read-only, ``hidden`` emptied."""
    read_only: list[str] = []
    """wisp's installation: the interpreter's prefix, its site-packages and scripts, the
    package's own folders. Never writable, even inside a root."""
    hidden: list[str] = []
    """``WISP_HOME``: an empty read-only tmpfs over it."""
    sockets: list[str] = []
    """The UNIX sockets with a path that commands may reach; every other one is hidden."""
    private_pts: bool = False
    """``/dev/pts`` is a devpts instance of the command's own (the ``/dev`` the namespace makes,
    bubblewrap's ``--dev``): Landlock gives it write rights, for the command's own
    pseudo-terminals. Never set where ``/dev/pts`` holds the person's terminals."""
