"""The helper: ``python -I -S -c BOOTSTRAP SPEC_JSON -- argv...`` confines itself, then execs
argv (``python -I -m wisp.sandbox`` works too, but reads the ``.pth`` files of site-packages).

It runs in the child before exec, never as ``preexec_fn`` in wisp's threaded process. It
runs on every command, so it imports only the standard library and its own light modules (not
msgspec, not ``typing``: they cost more than the rest of its start). If anything goes wrong
it says so on stderr and exits ``EXIT_CANNOT_CONFINE``: the command never runs unconfined.
"""

from __future__ import annotations

import os
import signal
import sys

from wisp.sandbox.landlock import drop_capabilities, restrict_self
from wisp.sandbox.mounts import (
    PRIVATE_PTS,
    confine_mounts,
    enter_namespace,
    listening_sockets,
    mount_proc,
    private_dev,
)
from wisp.sandbox.narrowing import is_within, narrow
from wisp.sandbox.spec_reader import EXIT_CANNOT_CONFINE, MESSAGE_PREFIX, Spec, read_spec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

USAGE = "usage: python -m wisp.sandbox SPEC_JSON -- COMMAND [ARG...]"
PROBE = "--probe-namespace"
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)
"""A stop's signals: the helper's own processes ignore them, the command gets the defaults."""


def main(args: list[str]) -> NoReturn:
    if args == [PROBE]:
        _probe()
    if len(args) < 3 or args[1] != "--":
        _fail(f"cannot confine the command: {USAGE}")
    try:
        spec = read_spec(args[0])
        status = _isolate(spec) if spec.namespace else None
        confine(spec)
    except Exception as exc:  # anything at all: never fall through to an unconfined exec
        _fail(f"cannot confine the command: {exc}")
    if status is not None:
        _init(args[2:], status)
    _exec(args[2:])


def confine(spec: Spec) -> None:
    """Narrow the roots that hold ``WISP_HOME`` (without the namespace), drop the capabilities
    a command does not need, then Landlock (no_new_privs, ruleset, restrict_self). A devpts
    of the command's own is a root too: its ptys, never the person's."""
    roots, files = (list(spec.roots), list(spec.files)) if spec.namespace else _narrowed(spec)
    if spec.private_pts:
        roots.append(PRIVATE_PTS)
    drop_capabilities()
    restrict_self(spec.abi, roots=roots, files=files, network_off=spec.network_off)


def _isolate(spec: Spec) -> int:
    """The namespaces (mount, PID, network when off, user when not root) and the mounts, a
    ``/dev`` of the command's own last; then fork. The parent stays outside the new PID
    namespace and ends as the command ends (it is what wisp waits for); only the child, PID 1
    of the new namespace with a ``/proc`` of its own, returns: the write end of the pipe that
    carries the command's wait status."""
    allowed = set(spec.sockets)
    sockets = [path for path in listening_sockets() if path not in allowed]
    enter_namespace(network_off=spec.network_off, pid=True)
    confine_mounts(
        writable=spec.roots, read_only=spec.read_only, hidden=spec.hidden, sockets=sockets
    )
    private_dev()
    status_read, status_write = os.pipe()
    child = os.fork()
    if child:
        os.close(status_write)
        _mirror(child, status_read)
    os.close(status_read)
    mount_proc()
    return status_write


def _mirror(child: int, status_read: int) -> NoReturn:
    """End as the command ended: its exit code, or death by the same signal. The signals of a
    stop reach the command itself (the whole group gets them), so they are ignored here."""
    for signum in FORWARDED:
        signal.signal(signum, signal.SIG_IGN)
    _, status = os.waitpid(child, 0)
    data = os.read(status_read, 4)
    if len(data) == 4:
        status = int.from_bytes(data, "little")
    code = os.waitstatus_to_exitcode(status)
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code if code >= 0 else 128 - code)


def _init(argv: list[str], status_write: int) -> NoReturn:
    """PID 1 of the command's namespace: run the command, reap orphans, pass on its status.
    When this ends, the kernel kills whatever is left in the namespace."""
    for signum in FORWARDED:
        signal.signal(signum, signal.SIG_IGN)
    command = os.fork()
    if command == 0:
        os.close(status_write)
        _exec(argv)
    while True:
        try:
            reaped, status = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(EXIT_CANNOT_CONFINE)
        if reaped == command:
            os.write(status_write, status.to_bytes(4, "little"))
            os._exit(0)


def _narrowed(spec: Spec) -> tuple[list[str], list[str]]:
    """Without the namespaces: each root that holds ``WISP_HOME`` or a part of wisp's
    installation (``read_only``) narrowed around them; a root inside one of them dropped."""
    guarded = [path for path in (spec.protected, *spec.read_only) if path is not None]
    roots: list[str] = []
    files = list(spec.files)
    for root in spec.roots:
        if any(is_within(root, path) for path in guarded):
            continue
        inside = [path for path in guarded if is_within(path, root)]
        if inside:
            dirs, siblings = narrow(root, inside)
            roots += dirs
            files += siblings
        else:
            roots.append(root)
    return roots, files


def _probe() -> NoReturn:
    """Whether the namespace can be made here: the planner asks once per process."""
    try:
        enter_namespace(network_off=True, pid=True)
        confine_mounts(writable=["/tmp"], read_only=[], hidden=["/tmp"])
        private_dev()
        child = os.fork()
        if child == 0:
            try:
                mount_proc()
            except Exception as exc:
                _fail(f"no /proc of its own: {exc}")
            os._exit(0)
        _, status = os.waitpid(child, 0)
    except Exception as exc:
        _fail(f"no mount namespace: {exc}")
    sys.exit(os.waitstatus_to_exitcode(status))


def _exec(argv: list[str]) -> NoReturn:
    # Python ignores SIGPIPE and SIGXFSZ, and an ignored signal stays ignored across exec:
    # give the command the defaults a shell expects, and an empty mask.
    for signum in (signal.SIGPIPE, signal.SIGXFSZ, *FORWARDED):
        signal.signal(signum, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, ())
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        sys.stderr.write(f"{MESSAGE_PREFIX}cannot run {argv[0]}: {exc.strerror}\n")
        sys.exit(127 if isinstance(exc, FileNotFoundError) else 126)


def _fail(message: str) -> NoReturn:
    sys.stderr.write(f"{MESSAGE_PREFIX}{message}\n")
    sys.exit(EXIT_CANNOT_CONFINE)


if __name__ == "__main__":
    main(sys.argv[1:])
