"""A private mount namespace for one command, made by the helper before Landlock.

Landlock cannot make a folder read-only inside a writable one, nor stop ``chmod``, ``chown``,
``chattr`` or ``touch -d`` (it has no right for attributes). In the command's own mount
namespace the helper:

1. keeps a copy of each writable root as it is (``open_tree`` clone, before anything changes);
2. makes every mount read-only (``mount_setattr`` recursive on ``/``);
3. puts the writable roots back over themselves, with their own flags;
4. binds wisp's installation read-only over itself where it lies inside a writable root;
5. mounts an empty read-only tmpfs over ``WISP_HOME``, and over every UNIX socket with a path
   that is not allowed (they are files: hidden, nothing can connect to them);
6. puts a ``/dev`` of the command's own over ``/dev`` (:func:`private_dev`): the few devices a
   command uses, and a new devpts instance, so it gets pseudo-terminals of its own but never
   the person's; ``/dev/tty`` and ``/dev/console`` are not there.

As root the helper makes the namespace itself; otherwise inside a new user namespace that maps
the user to itself. Only the standard library: the helper imports this on every command.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
from collections.abc import Iterable, Sequence

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
CLONE_NEWPID = 0x20000000

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18

SYS_OPEN_TREE = 428
SYS_MOVE_MOUNT = 429
SYS_MOUNT_SETATTR = 442
AT_FDCWD = -100
AT_EMPTY_PATH = 0x1000
AT_RECURSIVE = 0x8000
OPEN_TREE_CLONE = 1
MOVE_MOUNT_F_EMPTY_PATH = 0x4
MOUNT_ATTR_RDONLY = 0x1

EMPTY_TMPFS = "mode=0555,size=4k,nr_inodes=1"

DEV = "/dev"
DEV_TMPFS = "mode=0755,size=4k,nr_inodes=32"
DEV_NODES = ("null", "zero", "full", "random", "urandom")
"""The devices of the command's ``/dev``: the host's, bound (a user namespace cannot ``mknod``)."""
DEV_LINKS = (
    ("fd", "/proc/self/fd"),
    ("stdin", "/proc/self/fd/0"),
    ("stdout", "/proc/self/fd/1"),
    ("stderr", "/proc/self/fd/2"),
    ("ptmx", "pts/ptmx"),
)
DEVPTS_OPTIONS = "newinstance,ptmxmode=0666,mode=0620"
PRIVATE_PTS = DEV + "/pts"
"""The command's own devpts: a writable root for Landlock once it is mounted (its ptys)."""


class MountAttr(ctypes.Structure):
    """``struct mount_attr``."""

    _fields_ = (
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    )


class MountError(OSError):
    """A namespace or mount call failed; the message names the call, the path and the reason."""


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    libc.mount.argtypes = (
        ctypes.c_char_p,
        ctypes.c_char_p,
        ctypes.c_char_p,
        ctypes.c_ulong,
        ctypes.c_char_p,
    )
    libc.unshare.argtypes = (ctypes.c_int,)
    return libc


def _checked(result: int, call: str) -> int:
    if result < 0:
        errno = ctypes.get_errno()
        raise MountError(errno, f"{call}: {os.strerror(errno)}")
    return result


def enter_namespace(*, network_off: bool, pid: bool = False) -> None:
    """Unshare the mount namespace (the network one when it is off, the PID one for the
    children when asked); as a user that is not root, inside a new user namespace that maps
    the user and group to themselves."""
    libc = _libc()
    uid, gid = os.geteuid(), os.getegid()
    flags = CLONE_NEWNS | (CLONE_NEWNET if network_off else 0) | (CLONE_NEWPID if pid else 0)
    if uid != 0:
        flags |= CLONE_NEWUSER
    _checked(libc.unshare(flags), "unshare")
    if uid != 0:
        for name, text in (
            ("setgroups", "deny"),
            ("uid_map", f"{uid} {uid} 1"),
            ("gid_map", f"{gid} {gid} 1"),
        ):
            with open(f"/proc/self/{name}", "w") as file:
                file.write(text)
    _mount(libc, None, "/", None, MS_REC | MS_PRIVATE, None)


def confine_mounts(
    *,
    writable: Sequence[str],
    read_only: Iterable[str],
    hidden: Iterable[str],
    sockets: Iterable[str] = (),
) -> None:
    """Steps 1 to 5 of the module's docstring, in a namespace :func:`enter_namespace` made."""
    libc = _libc()
    roots = outermost(path for path in writable if os.path.isdir(path))
    clones = [(root, _clone(libc, root)) for root in roots]
    try:
        _setattr(libc, "/", set_=MOUNT_ATTR_RDONLY)
        for root, fd in clones:
            _move(libc, fd, root)
    finally:
        for _, fd in clones:
            os.close(fd)
    for path in outermost(path for path in read_only if os.path.exists(path)):
        if not any(is_within(path, root) for root in roots):
            continue  # read-only already
        fd = _clone(libc, path)
        try:
            _setattr(libc, "", set_=MOUNT_ATTR_RDONLY, fd=fd)
            _move(libc, fd, path)
        finally:
            os.close(fd)
    for path in hidden:
        if os.path.isdir(path):
            flags = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC
            _mount(libc, "tmpfs", path, "tmpfs", flags, EMPTY_TMPFS)
    for path in sockets:
        # A socket is a file: /dev/null bound over it cannot be connected to.
        try:
            _mount(libc, "/dev/null", path, None, MS_BIND, None)
        except MountError:
            continue  # gone meanwhile, or not reachable: nothing to connect to there either
    # The working directory still points into the mount it was on before: go to it again, so
    # that relative paths land in the writable copy.
    with contextlib.suppress(OSError):
        os.chdir(os.getcwd())


def private_dev() -> None:
    """Step 6: an empty tmpfs over ``/dev``, the host's ``null``, ``zero``, ``full``, ``random``,
    ``urandom`` and ``shm`` (the writable copy step 3 put there) bound into it, a new devpts
    instance on ``pts`` with ``ptmx`` pointing at its own, the ``fd`` links; then read-only.
    What is not there cannot be reached: the person's terminals (``/dev/pts/N`` of the old
    instance), ``/dev/tty``, ``/dev/console``, the virtual consoles, the disks, the input
    devices."""
    libc = _libc()
    # Recursive: what steps 3 to 5 mounted inside /dev/shm (WISP_HOME's tmpfs) comes along.
    kept = [(name, _clone(libc, f"{DEV}/{name}")) for name in _kept_names()]
    try:
        _mount(libc, "tmpfs", DEV, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, DEV_TMPFS)
        for name, fd in kept:
            path = f"{DEV}/{name}"
            if name == "shm":
                os.mkdir(path)
            else:
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
            _move(libc, fd, path)
    finally:
        for _, fd in kept:
            os.close(fd)
    os.mkdir(PRIVATE_PTS)
    _mount(libc, "devpts", PRIVATE_PTS, "devpts", MS_NOSUID | MS_NOEXEC, DEVPTS_OPTIONS)
    for name, target in DEV_LINKS:
        os.symlink(target, f"{DEV}/{name}")
    flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC
    _mount(libc, None, DEV, None, flags, None)
    with contextlib.suppress(OSError):
        os.chdir(os.getcwd())  # a working directory in /dev/shm: into the copy now there


def _kept_names() -> list[str]:
    names = [name for name in DEV_NODES if os.path.exists(f"{DEV}/{name}")]
    return [*names, "shm"] if os.path.isdir(f"{DEV}/shm") else names


def mount_proc() -> None:
    """A ``/proc`` of the new PID namespace over the old one (in its first process): wisp's
    processes, and every other outside it, are not there (their ``environ`` with them)."""
    _mount(_libc(), "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)


def listening_sockets(table: str = "/proc/net/unix") -> list[str]:
    """The paths of UNIX sockets bound in this network namespace (``/proc/net/unix``)."""
    try:
        with open(table, "rb") as file:
            lines = file.read().decode(errors="replace").splitlines()[1:]
    except OSError:
        return []
    paths: list[str] = []
    for line in lines:
        fields = line.split(None, 7)
        if len(fields) == 8 and fields[7].startswith("/"):
            paths.append(fields[7])
    return list(dict.fromkeys(paths))


def is_within(path: str, root: str) -> bool:
    if path == root or root == "/":
        return True
    return path.startswith(root + "/")


def outermost(paths: Iterable[str]) -> list[str]:
    """The paths, without those inside another one, outermost first."""
    kept: list[str] = []
    for path in sorted(set(paths), key=lambda path: (len(path), path)):
        if not any(is_within(path, outer) for outer in kept):
            kept.append(path)
    return kept


def _mount(
    libc: ctypes.CDLL,
    source: str | None,
    target: str,
    fstype: str | None,
    flags: int,
    data: str | None,
) -> None:
    def raw(text: str | None) -> bytes | None:
        return None if text is None else os.fsencode(text)

    _checked(
        libc.mount(raw(source), raw(target), raw(fstype), flags, raw(data)), f"mount({target})"
    )


def _clone(libc: ctypes.CDLL, path: str) -> int:
    return _checked(
        libc.syscall(
            ctypes.c_long(SYS_OPEN_TREE),
            ctypes.c_int(AT_FDCWD),
            ctypes.c_char_p(os.fsencode(path)),
            ctypes.c_uint(OPEN_TREE_CLONE | os.O_CLOEXEC | AT_RECURSIVE),
        ),
        f"open_tree({path})",
    )


def _move(libc: ctypes.CDLL, fd: int, target: str) -> None:
    _checked(
        libc.syscall(
            ctypes.c_long(SYS_MOVE_MOUNT),
            ctypes.c_int(fd),
            ctypes.c_char_p(b""),
            ctypes.c_int(AT_FDCWD),
            ctypes.c_char_p(os.fsencode(target)),
            ctypes.c_uint(MOVE_MOUNT_F_EMPTY_PATH),
        ),
        f"move_mount({target})",
    )


def _setattr(libc: ctypes.CDLL, path: str, *, set_: int, fd: int = AT_FDCWD) -> None:
    attr = MountAttr(set_, 0, 0, 0)
    flags = AT_RECURSIVE | (AT_EMPTY_PATH if fd != AT_FDCWD else 0)
    _checked(
        libc.syscall(
            ctypes.c_long(SYS_MOUNT_SETATTR),
            ctypes.c_int(fd),
            ctypes.c_char_p(os.fsencode(path)),
            ctypes.c_uint(flags),
            ctypes.byref(attr),
            ctypes.c_size_t(ctypes.sizeof(attr)),
        ),
        f"mount_setattr({path or fd})",
    )
