"""The writable set (docs/sandbox.md, "What is confined"): where a confined command may write, and
the narrowing of a root that holds ``WISP_HOME``.

The narrowing itself (``narrow``, ``is_within``) is in ``narrowing.py``, which the helper
imports without msgspec.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence

import msgspec

from wisp.sandbox.cache import cache_folder, person_cache
from wisp.sandbox.narrowing import is_within, narrow

__all__ = ["DEVICE_PATHS", "WritableSet", "canonical", "holds_home", "is_within", "narrow"]

DEVICE_PATHS = ("/dev/null", "/dev/zero", "/dev/shm")
"""(Python wisp) Device files the tools need to write; directories among them get write
rights beneath, files get file rights. Not the terminals: in the mount namespace a command has a
devpts of its own, writable there (``wisp.sandbox.mounts.PRIVATE_PTS``); the person's
``/dev/tty`` and ``/dev/pts`` are never writable (docs/sandbox.md, "The person's terminal")."""


def canonical(path: str) -> str:
    """``os.path.realpath`` (which resolves the longest existing prefix), no trailing slash."""
    real = os.path.realpath(path)
    return real.rstrip("/") or "/"


def holds_home(folder: str | os.PathLike[str], user_home: str) -> bool:
    """Whether ``folder`` is the home folder or ``/``, or holds the home folder: a working
    folder like that would make ``~/.bashrc``, ``~/.profile`` and the shims on ``PATH``
    writable, so it is no writable root unless ``commandPolicy.sandbox.allowHome`` says so."""
    real = canonical(os.fspath(folder))
    return real == "/" or is_within(canonical(user_home), real)


class WritableSet(msgspec.Struct, frozen=True):
    """Canonical writable roots and device paths, and the protected ``WISP_HOME``.

    Invariant: a write is allowed iff its real target is inside a root or device path and
    outside ``protected``."""

    roots: tuple[str, ...]
    """The working directory (unless ``working_writable`` is False), ``$TMPDIR`` and ``/tmp``,
    the model's commands' own cache (``cache``), configured roots."""
    devices: tuple[str, ...]
    protected: str
    """``WISP_HOME``, never writable."""
    user_home: str
    """What ``~`` means, for configured roots and for paths in refusal messages."""
    temp: str = "/tmp"
    """Where ``mktemp`` makes its files: ``$TMPDIR``, else ``/tmp``."""
    sockets: tuple[str, ...] = ()
    """``commandPolicy.sandbox.allowSockets``: the UNIX sockets with a path commands may reach
    (canonical); every other one is hidden from them."""
    working_writable: bool = True
    """The working directory is the first root; False when it holds the home folder (or is
    ``/``) and ``commandPolicy.sandbox.allowHome`` is off, and then it is none."""
    cache: str = ""
    """The model's commands' own cache for this working folder (``wisp.sandbox.cache``), a
    root; the rest of the person's cache is none."""
    person_cache: str = ""
    """The person's cache (``$XDG_CACHE_HOME``, else ``~/.cache``): a root for ``!`` commands
    only (``for_person``)."""

    @classmethod
    def build(
        cls,
        *,
        working_directory: str | os.PathLike[str],
        home: str | os.PathLike[str],
        environ: Mapping[str, str],
        extra_roots: Iterable[str | os.PathLike[str]] = (),
        sockets: Iterable[str | os.PathLike[str]] = (),
        allow_home: bool = False,
    ) -> WritableSet:
        """The set for a conversation's working directory (fixed for the conversation, never a
        command's ``workingDirectory``), ``home`` = ``WISP_HOME``, and the configured
        ``commandPolicy.sandbox.writableRoots`` and ``.allowSockets`` (``~`` expanded)."""
        user_home = environ.get("HOME") or os.path.expanduser("~")
        cwd = os.fspath(working_directory)
        tmpdir = environ.get("TMPDIR", "").strip()
        # Real already, but for a link below the person's cache, which prepare refuses: not
        # resolved here, or a link planted there would choose the root.
        cache = cache_folder(cwd, environ)
        working_writable = allow_home or not holds_home(cwd, user_home)
        wanted = [*([cwd] if working_writable else []), *([tmpdir] if tmpdir else []), "/tmp"]
        configured = [_expand(os.fspath(root), user_home, cwd) for root in extra_roots]
        real = [canonical(os.path.join(cwd, root)) for root in wanted]
        real.append(cache)
        real += [canonical(os.path.join(cwd, root)) for root in configured]
        roots = tuple(dict.fromkeys(real))
        devices = tuple(dict.fromkeys(canonical(path) for path in DEVICE_PATHS))
        temp = canonical(os.path.join(cwd, tmpdir or "/tmp"))
        allowed = tuple(canonical(_expand(os.fspath(path), user_home, cwd)) for path in sockets)
        protected = canonical(os.fspath(home))
        return cls(
            roots,
            devices,
            protected,
            user_home,
            temp,
            allowed,
            working_writable,
            cache,
            canonical(person_cache(environ)),
        )

    def for_person(self) -> WritableSet:
        """The set a ``!`` command runs with: the person's whole cache besides (theirs to fill,
        as outside wisp)."""
        if not self.person_cache or self.person_cache in self.roots:
            return self
        return msgspec.structs.replace(self, roots=(*self.roots, self.person_cache))

    def contains(self, path: str | os.PathLike[str]) -> bool:
        """Whether a write to ``path`` is allowed: its real target inside a root or device path,
        and outside ``WISP_HOME``."""
        real = canonical(os.fspath(path))
        if is_within(real, self.protected):
            return False
        return any(is_within(real, root) for root in (*self.roots, *self.devices))

    def is_carved_out(self, path: str | os.PathLike[str], narrowed_roots: Iterable[str]) -> bool:
        """Whether ``path`` names an entry directly in a folder on the way from a narrowed root
        down to ``WISP_HOME``, where nothing new can be made."""
        parent = os.path.dirname(canonical(os.fspath(path)))
        return any(
            is_within(parent, root) and is_within(self.protected, parent) for root in narrowed_roots
        )

    def narrowing_note(self, narrowed_roots: Sequence[str]) -> str:
        """The one line that says what narrowing the roots breaks, and how to fix it.

        Every narrowed root holds ``WISP_HOME``, so the outermost holds the others: nothing new
        can be made directly in it or in any folder from it down to ``WISP_HOME``."""
        outer = min(narrowed_roots, key=len)
        where = outer
        if os.path.dirname(self.protected) != outer:
            where += " or in the folders between it and WISP_HOME"
        touch = f"touch {os.path.join(outer, 'x')}"
        is_temp_narrowed = self.is_carved_out(os.path.join(self.temp, "x"), (outer,))
        fails = f"mktemp and {touch} fail" if is_temp_narrowed else f"{touch} fails"
        return (
            f"sandbox: commands cannot make new files directly in {where} ({fails}) because "
            f"WISP_HOME ({self.protected}) lies inside it; {self.narrowing_fix(narrowed_roots)}"
        )

    def narrowing_fix(self, narrowed_roots: Sequence[str]) -> str:
        """How to keep the roots whole: ``WISP_HOME`` out of the outermost, wisp started
        elsewhere (when that is the working directory), or bubblewrap."""
        outer = min(narrowed_roots, key=len)
        is_working = self.working_writable and outer == self.roots[0]
        elsewhere = " start wisp in another folder," if is_working else ""
        return f"set WISP_HOME outside {outer},{elsewhere} or install bubblewrap, to fix"

    def roots_holding_home(self) -> tuple[str, ...]:
        """The roots that strictly contain ``WISP_HOME``: Landlock must narrow them (or
        bubblewrap bind it read-only)."""
        return tuple(
            root
            for root in self.roots
            if root != self.protected and is_within(self.protected, root)
        )

    def landlock_roots(self) -> tuple[list[str], list[str]]:
        """Paths for Landlock: (roots, device files). Roots inside ``WISP_HOME`` are left out;
        roots holding it are still listed whole, for the helper to narrow or bubblewrap to
        cover."""
        roots = [root for root in self.roots if not is_within(root, self.protected)]
        dirs = [path for path in self.devices if os.path.isdir(path)]
        files = [path for path in self.devices if path not in dirs]
        return roots + dirs, files


def _expand(path: str, user_home: str, cwd: str) -> str:
    if path == "~" or path.startswith("~/"):
        path = user_home + path[1:]
    return os.path.join(cwd, path)
