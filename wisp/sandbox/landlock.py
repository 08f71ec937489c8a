"""Landlock through ``ctypes``: the ABI probe, the rights wisp handles, and the
calls the helper makes before it execs a command.

Syscalls 444, 445 and 446 are ``landlock_create_ruleset``, ``landlock_add_rule`` and
``landlock_restrict_self`` on every architecture (they were added after the tables were
unified). Only the standard library: the helper imports this on every command.
"""

from __future__ import annotations

import ctypes
import os
import stat
from collections.abc import Iterable

SYS_CREATE_RULESET = 444
SYS_ADD_RULE = 445
SYS_RESTRICT_SELF = 446

CREATE_RULESET_VERSION = 1 << 0
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38
PR_CAPBSET_DROP = 24

KEPT_CAPABILITIES = frozenset({0, 1, 2, 3, 4, 10})
"""What a command run as root keeps: CHOWN, DAC_OVERRIDE, DAC_READ_SEARCH, FOWNER, FSETID (its
files in the roots may belong to others) and NET_BIND_SERVICE. Gone: SYS_ADMIN, SYS_PTRACE,
KILL, SETUID, SETGID, LINUX_IMMUTABLE (``chattr +i``), NET_ADMIN, MKNOD, SYS_MODULE, and the
rest."""

# Filesystem rights (include/uapi/linux/landlock.h).
ACCESS_FS_EXECUTE = 1 << 0
ACCESS_FS_WRITE_FILE = 1 << 1
ACCESS_FS_READ_FILE = 1 << 2
ACCESS_FS_READ_DIR = 1 << 3
ACCESS_FS_REMOVE_DIR = 1 << 4
ACCESS_FS_REMOVE_FILE = 1 << 5
ACCESS_FS_MAKE_CHAR = 1 << 6
ACCESS_FS_MAKE_DIR = 1 << 7
ACCESS_FS_MAKE_REG = 1 << 8
ACCESS_FS_MAKE_SOCK = 1 << 9
ACCESS_FS_MAKE_FIFO = 1 << 10
ACCESS_FS_MAKE_BLOCK = 1 << 11
ACCESS_FS_MAKE_SYM = 1 << 12
ACCESS_FS_REFER = 1 << 13  # ABI 2
ACCESS_FS_TRUNCATE = 1 << 14  # ABI 3
ACCESS_FS_IOCTL_DEV = 1 << 15  # ABI 5

# Scopes (ABI 6): what a sandboxed process may not reach outside its domain.
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
SCOPE_SIGNAL = 1 << 1

# Network rights (ABI 4).
ACCESS_NET_BIND_TCP = 1 << 0
ACCESS_NET_CONNECT_TCP = 1 << 1

# READ_FILE, READ_DIR and EXECUTE stay unhandled, so reading and running stay open.
_WRITE_RIGHTS_ABI_1 = (
    ACCESS_FS_WRITE_FILE
    | ACCESS_FS_REMOVE_DIR
    | ACCESS_FS_REMOVE_FILE
    | ACCESS_FS_MAKE_CHAR
    | ACCESS_FS_MAKE_DIR
    | ACCESS_FS_MAKE_REG
    | ACCESS_FS_MAKE_SOCK
    | ACCESS_FS_MAKE_FIFO
    | ACCESS_FS_MAKE_BLOCK
    | ACCESS_FS_MAKE_SYM
)
# The rights a rule on a file (not a directory) may carry; the kernel refuses others.
_FILE_RIGHTS = (
    ACCESS_FS_EXECUTE
    | ACCESS_FS_WRITE_FILE
    | ACCESS_FS_READ_FILE
    | ACCESS_FS_TRUNCATE
    | ACCESS_FS_IOCTL_DEV
)


class LandlockError(OSError):
    """A Landlock call failed; the message names the call and the kernel's reason."""


class RulesetAttr(ctypes.Structure):
    """``struct landlock_ruleset_attr``; only the prefix the ABI knows is passed (see
    :func:`ruleset_attr_size`)."""

    _fields_ = (
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),  # ABI 4
        ("scoped", ctypes.c_uint64),  # ABI 6
    )


class PathBeneathAttr(ctypes.Structure):
    """``struct landlock_path_beneath_attr``: packed, 12 bytes."""

    _pack_ = 1
    _fields_ = (
        ("allowed_access", ctypes.c_uint64),
        ("parent_fd", ctypes.c_int32),
    )


def handled_fs_rights(abi: int) -> int:
    """The filesystem rights wisp handles at this ABI: every write right it knows."""
    rights = _WRITE_RIGHTS_ABI_1
    if abi >= 2:
        rights |= ACCESS_FS_REFER
    if abi >= 3:
        rights |= ACCESS_FS_TRUNCATE
    if abi >= 5:
        rights |= ACCESS_FS_IOCTL_DEV
    return rights


def file_rights(abi: int) -> int:
    """The handled rights a rule on a single file (a device, a narrowed sibling) grants."""
    return handled_fs_rights(abi) & _FILE_RIGHTS


def handled_net_rights(abi: int, *, network_off: bool) -> int:
    """TCP bind and connect, handled with no port rules, so both are refused (ABI 4+)."""
    if not network_off or abi < 4:
        return 0
    return ACCESS_NET_BIND_TCP | ACCESS_NET_CONNECT_TCP


def scopes(abi: int) -> int:
    """ABI 6+: no signal to a process outside the sandbox (``kill $PPID``, wisp itself), no
    connection to an abstract UNIX socket made outside it."""
    return SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0


def ruleset_attr_size(abi: int) -> int:
    """How much of ``landlock_ruleset_attr`` this ABI knows: an older kernel refuses a larger
    struct whose extra fields it cannot check."""
    if abi >= 6:
        return 24
    if abi >= 4:
        return 16
    return 8


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    libc.prctl.restype = ctypes.c_int
    return libc


def _checked(result: int, call: str) -> int:
    if result < 0:
        errno = ctypes.get_errno()
        raise LandlockError(errno, f"{call}: {os.strerror(errno)}")
    return result


def abi_version() -> int | None:
    """The kernel's Landlock ABI, or None when it has none (too old, or turned off at boot).

    The caller probes once per process, so the mechanism never changes between commands, and
    keeps the answer."""
    libc = _libc()
    result = libc.syscall(
        ctypes.c_long(SYS_CREATE_RULESET),
        ctypes.c_void_p(None),
        ctypes.c_size_t(0),
        ctypes.c_long(CREATE_RULESET_VERSION),
    )
    return result if result >= 1 else None


def restrict_self(
    abi: int,
    *,
    roots: Iterable[str],
    files: Iterable[str],
    network_off: bool,
) -> None:
    """Confine this process and what it execs: writes only beneath ``roots`` (all handled
    rights) and into ``files`` (file rights), TCP off when asked and the ABI can.

    A path that cannot be opened is skipped: a missing rule only takes rights away."""
    libc = _libc()
    # no_new_privs first: restrict_self requires it of a process without CAP_SYS_ADMIN, and
    # it keeps a setuid program from shedding the domain.
    # prctl is variadic: every argument a full word, or the unused ones (which must be 0)
    # could carry stray upper bits.
    args = (ctypes.c_ulong(1), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))
    _checked(libc.prctl(ctypes.c_int(PR_SET_NO_NEW_PRIVS), *args), "prctl(NO_NEW_PRIVS)")
    attr = RulesetAttr(
        handled_fs_rights(abi), handled_net_rights(abi, network_off=network_off), scopes(abi)
    )
    ruleset = _checked(
        libc.syscall(
            ctypes.c_long(SYS_CREATE_RULESET),
            ctypes.byref(attr),
            ctypes.c_size_t(ruleset_attr_size(abi)),
            ctypes.c_long(0),
        ),
        "landlock_create_ruleset",
    )
    try:
        for path in roots:
            _add_path_rule(libc, ruleset, path, abi, beneath=True)
        for path in files:
            _add_path_rule(libc, ruleset, path, abi, beneath=False)
        _checked(
            libc.syscall(
                ctypes.c_long(SYS_RESTRICT_SELF), ctypes.c_long(ruleset), ctypes.c_long(0)
            ),
            "landlock_restrict_self",
        )
    finally:
        os.close(ruleset)


def drop_capabilities() -> None:
    """Drop every capability but :data:`KEPT_CAPABILITIES` from the bounding set, so that the
    command run as root execs without them. A user that is not root has none after exec
    anyway (the bounding set is left alone: dropping needs CAP_SETPCAP)."""
    if os.geteuid() != 0:
        return
    try:
        with open("/proc/sys/kernel/cap_last_cap") as file:
            last = int(file.read())
    except (OSError, ValueError):
        last = 63
    libc = _libc()
    for cap in range(last + 1):
        if cap not in KEPT_CAPABILITIES:
            args = (ctypes.c_ulong(cap), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))
            _checked(libc.prctl(ctypes.c_int(PR_CAPBSET_DROP), *args), f"prctl(CAPBSET_DROP {cap})")


def _add_path_rule(libc: ctypes.CDLL, ruleset: int, path: str, abi: int, *, beneath: bool) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        is_dir = stat.S_ISDIR(os.fstat(fd).st_mode)
        # A root that turns out to be a file gets file rights; the kernel refuses more.
        rights = handled_fs_rights(abi) if beneath and is_dir else file_rights(abi)
        rule = PathBeneathAttr(rights, fd)
        _checked(
            libc.syscall(
                ctypes.c_long(SYS_ADD_RULE),
                ctypes.c_long(ruleset),
                ctypes.c_long(RULE_PATH_BENEATH),
                ctypes.byref(rule),
                ctypes.c_long(0),
            ),
            f"landlock_add_rule({path})",
        )
    finally:
        os.close(fd)
