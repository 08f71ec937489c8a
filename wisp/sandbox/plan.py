"""Deciding how commands are confined (docs/sandbox.md): the probes, once per process, and the argv
that runs one command under the helper (and bubblewrap where it helps).
"""

from __future__ import annotations

import functools
import os
import shutil
import stat
import subprocess
import sys
import sysconfig
from collections.abc import Iterable, Sequence

import msgspec

from wisp.diagnostics import logger
from wisp.sandbox import landlock
from wisp.sandbox.mounts import outermost
from wisp.sandbox.narrowing import is_within
from wisp.sandbox.spec import HelperSpec
from wisp.sandbox.writable import WritableSet

BWRAP_PROBE_SECONDS = 5.0
NAMESPACE_PROBE_SECONDS = 10.0
CUT_ALL = "all"
CUT_TCP = "tcp"
NO_LANDLOCK = "no sandbox: this kernel has no Landlock, so commands run unconfined"
TERMINAL_NOTE = (
    "sandbox: without a namespace, commands see your terminals (/dev/pts): they cannot write "
    "to them, but can read what you type there, and get no pseudo-terminal of their own; "
    "run wisp as root, allow unprivileged user namespaces or install bubblewrap, to fix"
)
PRIVATE = "private"
SHARED = "shared"


class SandboxSupport(msgspec.Struct, frozen=True):
    """What this machine offers, from fixed probes (never from a command's output)."""

    landlock_abi: int | None
    """The Landlock ABI, or None when the kernel has none."""
    bwrap: str | None = None
    """The path of a ``bwrap`` whose probe passed, or None."""
    namespace: bool = False
    """Whether the helper can make its own mount namespace (as root, or in a user namespace)."""


class SandboxState(msgspec.Struct, frozen=True, kw_only=True):
    """How one command runs: what ``policy.decision`` records and ``inspect status`` shows."""

    sandbox: bool
    """Whether the command is confined (``policy.decision``'s ``sandbox``)."""
    network: bool
    """Whether the command has the network (``policy.decision``'s ``network``): false only
    when every protocol is cut."""
    network_cut: str | None = None
    """What turning the network off really cut (``policy.decision``'s ``networkCut``): ``all``
    (a network namespace), ``tcp`` (Landlock's TCP bind and connect; UDP and the rest stay
    open), or None (the network is on, or could not be turned off)."""
    mechanism: str
    """For ``inspect status`` and the diagnostic log: Landlock ABI, bubblewrap, network,
    narrowed roots."""
    note: str | None = None
    """What the person must be told (once): no Landlock, networking not turned off, a root
    narrowed."""
    narrowed_roots: tuple[str, ...] = ()
    namespaces: tuple[str, ...] = ()
    """The namespaces the command runs in (``policy.decision``'s ``namespaces``): ``user``,
    ``mount``, ``pid``, ``net``; empty under Landlock alone or unconfined."""
    landlock_abi: int | None = None
    """The Landlock ABI the command runs under (``policy.decision``'s ``landlockAbi``); None
    when unconfined."""
    devpts: str | None = None
    """Whose pseudo-terminals the command sees (``policy.decision``'s ``devpts``): ``private``
    (a devpts instance of its own: the person's terminals are not there), ``shared`` (Landlock
    alone: the person's are there, not writable), None when unconfined."""


_early_namespace_probe: subprocess.Popen[bytes] | None = None
"""The mount-namespace probe :func:`probe_in_background` started, until :func:`probe` reads it."""


def probe_in_background() -> None:
    """Start the mount-namespace probe now, so that its Python starts while wisp imports the
    rest of itself; :func:`probe` then only reads its answer (about 40 ms off wisp's start)."""
    global _early_namespace_probe
    if _early_namespace_probe is not None or probe.cache_info().currsize:
        return
    if landlock.abi_version() is None:
        return  # no namespace probe follows: probe() reports no Landlock
    try:
        _early_namespace_probe = subprocess.Popen(
            _namespace_probe_argv(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )  # fmt: skip
    except OSError:
        _early_namespace_probe = None  # probe() runs it again and logs why it failed


@functools.cache
def probe() -> SandboxSupport:
    """The Landlock ABI and a working bubblewrap, probed once per process: the
    mechanism must not change between commands."""
    return probe_uncached()


def probe_uncached() -> SandboxSupport:
    """:func:`probe` without the memory, for tests and diagnostics."""
    abi = landlock.abi_version()
    namespace = abi is not None and _namespace_works()
    bwrap = None if namespace else working_bwrap()
    logger.info(
        "sandbox probe: landlock ABI %s, mount namespace %s, bwrap %s",
        abi,
        "yes" if namespace else "no",
        bwrap or "absent",
    )
    return SandboxSupport(landlock_abi=abi, bwrap=bwrap, namespace=namespace)


def helper_argv(python: str = sys.executable) -> list[str]:
    """How the helper starts: ``-I`` (no working directory, no environment variables) and
    ``-S`` (no site-packages, so no ``.pth`` file runs): the standard library only, and the
    ``wisp`` package loaded from its own folder by name, so that the folder holding it (the
    project, for an editable install) is never searched."""
    package = _package_folder("wisp")
    code = (
        "import sys, importlib.util as u; "
        f"s = u.spec_from_file_location('wisp', {os.path.join(package, '__init__.py')!r}, "
        f"submodule_search_locations=[{package!r}]); "
        "m = sys.modules['wisp'] = u.module_from_spec(s); s.loader.exec_module(m); "
        "from wisp.sandbox.__main__ import main; main(sys.argv[1:])"
    )
    return [python, "-I", "-S", "-c", code]


def _package_folder(name: str) -> str:
    module = sys.modules.get(name) or __import__(name)
    return os.path.dirname(os.path.realpath(module.__file__ or ""))


@functools.cache
def install_paths() -> tuple[str, ...]:
    """wisp's own installation: the interpreter's prefixes, the standard library,
    site-packages, the console scripts, the interpreter itself, and the folders of the wisp
    and msgspec packages (an editable install keeps wisp's in the project)."""
    found: list[str] = [sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix]
    paths = sysconfig.get_paths()
    found += [paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib", "scripts")]
    found.append(os.path.realpath(sys.executable))
    found += [_package_folder("wisp"), _package_folder("msgspec")]
    return tuple(dict.fromkeys(os.path.realpath(path) for path in found if path))


def _namespace_probe_argv() -> list[str]:
    return [*helper_argv(), "--probe-namespace"]


def _namespace_works() -> bool:
    global _early_namespace_probe
    started, _early_namespace_probe = _early_namespace_probe, None
    if started is not None:
        return _answer(started, NAMESPACE_PROBE_SECONDS, "mount namespace")
    return _passes(_namespace_probe_argv(), NAMESPACE_PROBE_SECONDS, "mount namespace")


def _passes(argv: list[str], seconds: float, what: str) -> bool:
    """Whether a probe runs and exits 0; why not goes to the diagnostic log."""
    try:
        started = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
    except OSError as exc:
        logger.info("%s probe failed: %s", what, exc)
        return False
    return _answer(started, seconds, what)


def _answer(started: subprocess.Popen[bytes], seconds: float, what: str) -> bool:
    """Whether a started probe exits 0 within ``seconds``; why not goes to the diagnostic log."""
    with started:
        try:
            _, stderr = started.communicate(timeout=seconds)
        except subprocess.TimeoutExpired as exc:
            started.kill()
            started.communicate()
            logger.info("%s probe failed: %s", what, exc)
            return False
    if started.returncode != 0:
        logger.info("%s probe failed: %s", what, stderr.decode(errors="replace").strip())
        return False
    return True


SYSTEM_PROGRAM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
"""Where wisp looks for programs it runs for itself around a command."""


def working_bwrap() -> str | None:
    # Only the system's folders: a `bwrap` planted in a PATH folder a command can write (an
    # activated .venv/bin) would wrap every later command, itself unconfined.
    path = shutil.which("bwrap", path=SYSTEM_PROGRAM_PATH)
    if path is None:
        return None
    probe = [path, "--bind", "/", "/", "--dev", "/dev", "--unshare-net", "--", "/bin/true"]
    if not _passes(probe, BWRAP_PROBE_SECONDS, "bwrap"):
        return None
    return path


def unconfined(reason: str) -> SandboxState:
    """The state of a command run without the sandbox (``sandbox.enabled: false``, ``--unsafe``,
    no Landlock): never claim one."""
    return SandboxState(sandbox=False, network=True, mechanism=f"none ({reason})")


def confined_argv(
    argv: Sequence[str],
    writable: WritableSet,
    *,
    network_off: bool,
    support: SandboxSupport,
    python: str = sys.executable,
    sockets: Iterable[str] = (),
) -> tuple[list[str], SandboxState]:
    """The argv that runs ``argv`` confined to ``writable``, and what that confinement is.

    ``sockets``: the UNIX sockets with a path that commands may reach (every other one is
    hidden where the mount namespace works). Without Landlock the command runs as given and
    the state says ``sandbox: false``."""
    abi = support.landlock_abi
    if abi is None:
        state = unconfined("this kernel has no Landlock")
        return list(argv), msgspec.structs.replace(state, note=NO_LANDLOCK)
    if support.namespace:
        roots, files = writable.landlock_roots()
        spec = HelperSpec(
            abi=abi,
            roots=roots,
            files=files,
            network_off=network_off,
            namespace=True,
            read_only=list(install_paths()),
            hidden=[writable.protected],
            sockets=[*writable.sockets, *(os.path.realpath(path) for path in sockets)],
            private_pts=True,
        )
        command = [*helper_argv(python), msgspec.json.encode(spec).decode(), "--", *argv]
        network = (
            "network off (every protocol: a network namespace)" if network_off else ("network on")
        )
        mechanism = f"landlock ABI {abi}; mount namespace; {network}"
        state = SandboxState(
            sandbox=True,
            network=not network_off,
            network_cut=CUT_ALL if network_off else None,
            mechanism=mechanism,
            namespaces=(*_user_namespace(), "mount", "pid", *(("net",) if network_off else ())),
            landlock_abi=abi,
            devpts=PRIVATE,
        )
        return command, state
    holding_home = writable.roots_holding_home()
    # wisp's installation where it lies in a root (.venv in the project): it must stay
    # read-only, or a command could change what wisp runs next, unconfined (docs/sandbox.md,
    # "Threat model").
    exposed = [path for path in outermost(install_paths()) if writable.contains(path)]
    # bubblewrap binds WISP_HOME and the installation read-only and keeps the roots
    # whole; it needs the folder.
    bwrap = support.bwrap
    bind_home = bwrap is not None and bool(holding_home) and os.path.isdir(writable.protected)
    bind_install = bwrap is not None and bool(exposed)
    # bubblewrap always has something to do: its --dev gives the command a devpts of its own.
    use_bwrap = bwrap is not None
    roots, files = writable.landlock_roots()
    spec = HelperSpec(
        abi=abi,
        roots=roots,
        files=files,
        network_off=network_off,
        protected=None if bind_home or not holding_home else writable.protected,
        read_only=[] if bind_install else exposed,
        private_pts=use_bwrap,
    )
    helper = [*helper_argv(python), msgspec.json.encode(spec).decode(), "--"]
    command = [*helper, *argv]
    if bwrap is not None and use_bwrap:
        binds = exposed if bind_install else []
        command = [*_bwrap_prefix(bwrap, writable, network_off, bind_home, binds), *command]
    narrowed = () if bind_home else holding_home
    around_install = () if bind_install else _holding(writable.roots, exposed)
    state = _state(abi, network_off, use_bwrap, narrowed, writable)
    notes = [state.note, _install_note(around_install, exposed), _exposed(writable)]
    mechanism = state.mechanism
    if around_install:
        mechanism += f"; narrowed around wisp's installation: {', '.join(around_install)}"
    if not use_bwrap:
        notes.insert(-1, TERMINAL_NOTE)  # before what no namespace leaves open, said last
    state = _applied(state, abi, network_off, bwrap if use_bwrap else None)
    return command, msgspec.structs.replace(state, note=_join(*notes), mechanism=mechanism)


def _user_namespace(bwrap: str | None = None) -> tuple[str, ...]:
    """``("user",)`` when the namespaces are made in a user namespace: wisp is not root (and
    bubblewrap, when it makes them, is not setuid)."""
    if os.geteuid() == 0:
        return ()
    try:
        setuid = bwrap is not None and bool(os.stat(bwrap).st_mode & stat.S_ISUID)
    except OSError:
        setuid = False
    return () if setuid else ("user",)


def _applied(state: SandboxState, abi: int, network_off: bool, bwrap: str | None) -> SandboxState:
    """``state`` with what ``policy.decision`` records of bubblewrap (its namespaces and a
    devpts of its own), or of Landlock alone (no namespace, the person's devpts)."""
    if bwrap is None:
        return msgspec.structs.replace(state, landlock_abi=abi, devpts=SHARED)
    net = ("net",) if network_off else ()
    namespaces = (*_user_namespace(bwrap), "mount", *net)
    return msgspec.structs.replace(state, namespaces=namespaces, landlock_abi=abi, devpts=PRIVATE)


def _holding(roots: Sequence[str], paths: Sequence[str]) -> tuple[str, ...]:
    return tuple(root for root in roots if any(is_within(path, root) for path in paths))


def _install_note(narrowed: Sequence[str], exposed: Sequence[str]) -> str | None:
    """Said once at start-up: the roots narrowed around wisp's installation, and the fix."""
    if not narrowed:
        return None
    outer = min(narrowed, key=len)
    return (
        f"sandbox: commands cannot make new files directly in {outer} or in the folders between "
        f"it and wisp's installation (touch {os.path.join(outer, 'x')} fails) because the "
        f"installation ({', '.join(exposed[:3])}) lies inside it and no mount namespace can be "
        "made here; install wisp outside the working directory (pipx or uv tool), run it as "
        "root, or allow unprivileged user namespaces, to fix"
    )


def _exposed(writable: WritableSet) -> str:
    """What is not protected without the mount namespace (said once, with the start-up note)."""
    return (
        "sandbox: no mount namespace here (not root, and user namespaces are not allowed), so "
        "commands can read WISP_HOME (and any key in its config) and change file modes and "
        "attributes outside the roots; run wisp as root or allow unprivileged user namespaces, "
        "to fix"
    )


def _join(*notes: str | None) -> str | None:
    return "; ".join(note for note in notes if note) or None


def _bwrap_prefix(
    bwrap: str,
    writable: WritableSet,
    network_off: bool,
    bind_home: bool,
    read_only: Sequence[str] = (),
) -> list[str]:
    # A /dev of its own (a new devpts instance: never the person's terminals, no /dev/console),
    # with the host's /dev/shm, which commands share as before.
    prefix = [bwrap, "--bind", "/", "/", "--dev", "/dev", "--bind-try", "/dev/shm", "/dev/shm"]
    if network_off:
        prefix.append("--unshare-net")
    prefix.append("--die-with-parent")
    if bind_home:
        prefix += ["--ro-bind", writable.protected, writable.protected]
    for path in read_only:
        prefix += ["--ro-bind", path, path]
    return [*prefix, "--"]


def _state(
    abi: int,
    network_off: bool,
    use_bwrap: bool,
    narrowed: Sequence[str],
    writable: WritableSet,
) -> SandboxState:
    parts = [f"landlock ABI {abi}"]
    notes: list[str] = []
    network = True
    cut = None
    if use_bwrap:
        parts.append("bubblewrap" + (" --unshare-net" if network_off else ""))
    if network_off and use_bwrap:
        network, cut = False, CUT_ALL
        parts.append("network off (every protocol)")
    elif network_off and abi >= 4:
        # UDP, DNS and every other protocol still pass: the command has the network.
        cut = CUT_TCP
        parts.append("network off (Landlock TCP bind and connect; UDP and other protocols open)")
    elif network_off:
        notes.append(
            f"networking could not be turned off: Landlock ABI {abi} has no TCP rules (4+) "
            "and bubblewrap is not installed"
        )
        parts.append("network on (could not be turned off)")
    else:
        parts.append("network on")
    if narrowed:
        # What the narrowing breaks, and its fix, said once at start-up.
        notes.append(writable.narrowing_note(narrowed))
        parts.append(f"narrowed: {', '.join(narrowed)}")
    if cut == CUT_TCP:
        notes.append(
            "sandbox: only Landlock can confine here (no namespaces, no bubblewrap), so the "
            "network cannot be turned off all the way: TCP is cut, UDP and DNS stay open "
            "(install bubblewrap, run as root, or allow unprivileged user namespaces, to fix)"
        )
    return SandboxState(
        sandbox=True,
        network=network,
        network_cut=cut,
        mechanism="; ".join(parts),
        note="; ".join(notes) or None,
        narrowed_roots=tuple(narrowed),
    )
