"""Run a program as on a machine where no namespace can be made (not root, and unprivileged
user namespaces disallowed): ``python tests/no_namespaces.py ARGV...``.

It installs a seccomp filter, then execs ``ARGV``; the filter holds for the program and every
process it starts. ``unshare`` fails with EPERM, as does ``clone`` with a namespace flag, and
``clone3`` fails with ENOSYS, so that glibc falls back to ``clone`` (whose flags a filter can
see). Threads, ``fork`` and ``posix_spawn`` still work. This is how the tests reach wisp's
Landlock-only fallback (roots narrowed around WISP_HOME and the installation) on a machine, such
as CI running as root, where the real probe always finds a namespace.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct
import sys

REASON_UNSUPPORTED = "the seccomp filter that takes namespaces away is written for x86_64 only"

AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000
SYS_CLONE = 56
SYS_UNSHARE = 272
SYS_CLONE3 = 435
NAMESPACE_FLAGS = (
    0x00020000  # CLONE_NEWNS
    | 0x02000000  # CLONE_NEWCGROUP
    | 0x04000000  # CLONE_NEWUTS
    | 0x08000000  # CLONE_NEWIPC
    | 0x10000000  # CLONE_NEWUSER
    | 0x20000000  # CLONE_NEWPID
    | 0x40000000  # CLONE_NEWNET
)

PR_SET_SECCOMP = 22
PR_SET_NO_NEW_PRIVS = 38
SECCOMP_MODE_FILTER = 2
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000

# Classic BPF opcodes.
LOAD_WORD = 0x20  # BPF_LD | BPF_W | BPF_ABS
JUMP_EQUAL = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
JUMP_AT_LEAST = 0x35  # BPF_JMP | BPF_JGE | BPF_K
JUMP_ANY_BIT = 0x45  # BPF_JMP | BPF_JSET | BPF_K
RETURN = 0x06  # BPF_RET | BPF_K

# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6].
NR_OFFSET = 0
ARCH_OFFSET = 4
FIRST_ARGUMENT_LOW_OFFSET = 16  # little-endian: the low 32 bits, where every CLONE_NEW* lies


def supported() -> bool:
    """Whether the filter can be installed here (x86_64 Linux)."""
    return sys.platform == "linux" and platform.machine() == "x86_64"


def _filter() -> list[tuple[int, int, int, int]]:
    """(code, jump if true, jump if false, k): the jumps count the instructions skipped."""
    allow = (RETURN, 0, 0, SECCOMP_RET_ALLOW)
    refuse = (RETURN, 0, 0, SECCOMP_RET_ERRNO | errno.EPERM)
    no_such_call = (RETURN, 0, 0, SECCOMP_RET_ERRNO | errno.ENOSYS)
    return [
        (LOAD_WORD, 0, 0, ARCH_OFFSET),
        (JUMP_EQUAL, 1, 0, AUDIT_ARCH_X86_64),
        refuse,  # another ABI (i386 through int 0x80): nothing here uses one
        (LOAD_WORD, 0, 0, NR_OFFSET),
        (JUMP_AT_LEAST, 0, 1, X32_SYSCALL_BIT),
        refuse,  # the x32 ABI's numbers would slip past the ones below
        (JUMP_EQUAL, 0, 1, SYS_UNSHARE),
        refuse,
        (JUMP_EQUAL, 0, 1, SYS_CLONE3),
        no_such_call,  # its flags lie in memory a filter cannot read; glibc falls back to clone
        (JUMP_EQUAL, 0, 3, SYS_CLONE),
        (LOAD_WORD, 0, 0, FIRST_ARGUMENT_LOW_OFFSET),
        (JUMP_ANY_BIT, 0, 1, NAMESPACE_FLAGS),
        refuse,
        allow,
    ]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install() -> None:
    """Take namespaces away from this process and everything it later starts."""
    if not supported():
        raise OSError(errno.ENOSYS, REASON_UNSUPPORTED)
    instructions = _filter()
    code = b"".join(struct.pack("=HBBI", *instruction) for instruction in instructions)
    buffer = ctypes.create_string_buffer(code, len(code))
    program = _Program(len(instructions), ctypes.cast(buffer, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = (ctypes.c_int, *[ctypes.c_ulong] * 4)
    # Required for an unprivileged caller; as root it also keeps setuid programs from gaining.
    _checked(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
    _checked(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(program), 0, 0))


def _checked(result: int) -> None:
    if result != 0:
        number = ctypes.get_errno()
        raise OSError(number, os.strerror(number))


def launcher() -> list[str]:
    """The argv prefix that runs a program without namespaces."""
    return [sys.executable, os.path.abspath(__file__)]


def main(argv: list[str]) -> None:
    if not argv:
        sys.exit(f"usage: {sys.executable} {__file__} PROGRAM [ARGUMENT...]")
    install()
    os.execvp(argv[0], argv)


if __name__ == "__main__":
    main(sys.argv[1:])
