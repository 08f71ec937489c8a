"""The helper: ``python -I -S -c BOOTSTRAP SPEC_JSON -- argv...`` confines itself, then execs
argv (``python -I -m wisp.sandbox`` works too, but reads the ``.pth`` files of site-packages).

It runs in the child before exec (D6), never as ``preexec_fn`` in wisp's threaded process. It
runs on every command, so it imports only the standard library, msgspec, and the two modules
it needs. If anything goes wrong it says so on stderr and exits ``EXIT_CANNOT_CONFINE``:
the command never runs unconfined.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import NoReturn

import msgspec

from wisp.sandbox.landlock import drop_capabilities, restrict_self
from wisp.sandbox.mounts import confine_mounts, enter_namespace, listening_sockets
from wisp.sandbox.spec import EXIT_CANNOT_CONFINE, MESSAGE_PREFIX, HelperSpec
from wisp.sandbox.writable import is_within, narrow

USAGE = "usage: python -m wisp.sandbox SPEC_JSON -- COMMAND [ARG...]"
PROBE = "--probe-namespace"


def main(args: list[str]) -> NoReturn:
    if args == [PROBE]:
        _probe()
    if len(args) < 3 or args[1] != "--":
        _fail(f"cannot confine the command: {USAGE}")
    try:
        spec = msgspec.json.decode(args[0], type=HelperSpec)
        confine(spec)
    except Exception as exc:  # anything at all: never fall through to an unconfined exec
        _fail(f"cannot confine the command: {exc}")
    _exec(args[2:])


def confine(spec: HelperSpec) -> None:
    """The mount namespace when asked (else narrow the roots that hold ``WISP_HOME``), the
    capabilities a command does not need dropped, then Landlock (no_new_privs, ruleset,
    restrict_self)."""
    if spec.namespace:
        allowed = set(spec.sockets)
        sockets = [path for path in listening_sockets() if path not in allowed]
        enter_namespace(network_off=spec.network_off)
        confine_mounts(
            writable=spec.roots, read_only=spec.read_only, hidden=spec.hidden, sockets=sockets
        )
        roots = list(spec.roots)
        files = list(spec.files)
    else:
        roots, files = _narrowed(spec)
    drop_capabilities()
    restrict_self(spec.abi, roots=roots, files=files, network_off=spec.network_off)


def _narrowed(spec: HelperSpec) -> tuple[list[str], list[str]]:
    roots: list[str] = []
    files = list(spec.files)
    for root in spec.roots:
        protected = spec.protected
        if protected is not None and root != protected and is_within(protected, root):
            dirs, siblings = narrow(root, protected)
            roots += dirs
            files += siblings
        elif protected is None or not is_within(root, protected):
            roots.append(root)
    return roots, files


def _probe() -> NoReturn:
    """Whether the namespace can be made here: the planner asks once per process (§5.1)."""
    try:
        enter_namespace(network_off=True)
        confine_mounts(writable=["/tmp"], read_only=[], hidden=["/tmp"])
    except Exception as exc:
        _fail(f"no mount namespace: {exc}")
    sys.exit(0)


def _exec(argv: list[str]) -> NoReturn:
    # Python ignores SIGPIPE and SIGXFSZ, and an ignored signal stays ignored across exec:
    # give the command the defaults a shell expects, and an empty mask (policy.md §4).
    for name in ("SIGPIPE", "SIGXFSZ"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)
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
