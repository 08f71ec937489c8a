"""The refusal check's parser (docs/sandbox.md, "When the sandbox refuses something") on messages
Linux's tools print, verbatim."""

from __future__ import annotations

from pathlib import Path

import pytest

from wisp.sandbox.refusal import Verdict, check_refusal, first_marker, named_paths
from wisp.sandbox.writable import WritableSet

MESSAGES = {
    "touch": "touch: cannot touch '/etc/x': Permission denied\n",
    "cp": "cp: cannot create regular file '/etc/x': Permission denied\n",
    "mkdir": "mkdir: cannot create directory ‘/etc/x’: Permission denied\n",
    "mkdir-c-locale": "mkdir: cannot create directory '/etc/x': Permission denied\n",
    "mv": "mv: cannot move 'file' to '/etc/x': Permission denied\n",
    "rm": "rm: cannot remove '/etc/x': Permission denied\n",
    "ln": "ln: failed to create symbolic link '/etc/x': Permission denied\n",
    "dash": "sh: 1: cannot create /etc/x: Permission denied\n",
    "dash-as-bin-sh": "/bin/sh: 1: cannot create /etc/x: Permission denied\n",
    "bash": "bash: line 1: /etc/x: Permission denied\n",
    "sh-is-bash": "sh: line 1: /etc/x: Permission denied\n",
    "tool": "tee: /etc/x: Read-only file system\n",
    "python": (
        "Traceback (most recent call last):\n"
        '  File "<string>", line 1, in <module>\n'
        "PermissionError: [Errno 13] Permission denied: '/etc/x'\n"
    ),
    "python-erofs": "OSError: [Errno 30] Read-only file system: '/etc/x'\n",
    "python-eperm": "PermissionError: [Errno 1] Operation not permitted: '/etc/x'\n",
    "mktemp": "mktemp: failed to create file via template ‘/etc/x’: Permission denied\n",
    "mktemp-d": "mktemp: failed to create directory via template '/etc/x': Permission denied\n",
    "tool-quoted": "tee: '/etc/x': Permission denied\n",
}


@pytest.fixture
def writable(tmp_path: Path) -> WritableSet:
    (tmp_path / "work").mkdir()
    return WritableSet.build(
        working_directory=tmp_path / "work",
        home=tmp_path / "home",
        environ={"HOME": str(tmp_path / "user")},
    )


@pytest.mark.parametrize("message", MESSAGES.values(), ids=MESSAGES.keys())
def test_each_shape_names_its_path(message: str) -> None:
    assert named_paths(message, "/", "/root") == ["/etc/x"]


@pytest.mark.parametrize("message", MESSAGES.values(), ids=MESSAGES.keys())
def test_a_path_outside_the_roots_is_refused(message: str, writable: WritableSet) -> None:
    refusal = check_refusal(
        message, exit_status=1, working_directory="/", writable=writable, network_off=False
    )
    assert refusal is not None
    assert (refusal.verdict, refusal.paths) == (Verdict.REFUSED, ["/etc/x"])


def test_the_refused_line_names_the_paths_and_the_roots(writable: WritableSet) -> None:
    refusal = check_refusal(
        MESSAGES["touch"],
        exit_status=1,
        working_directory="/",
        writable=writable,
        network_off=False,
    )
    assert refusal is not None
    prefix = "sandbox: refused writing to /etc/x; commands may write only under "
    assert refusal.line.startswith(prefix)
    # The roots in order, whole; cut with "…" where the list grows long (the folder's own
    # cache has a long name).
    listed = refusal.line.removeprefix(prefix).split(", ")
    if listed[-1] == "…":
        listed.pop()
    assert listed == list(writable.roots[: len(listed)])
    assert len(listed) >= 2


def test_relative_paths_are_resolved_against_the_working_directory(tmp_path: Path) -> None:
    message = (
        "touch: cannot touch './a': Permission denied\n"
        "cp: cannot create regular file '../b': Permission denied\n"
    )
    assert named_paths(message, str(tmp_path / "x"), "/root") == [
        str(tmp_path / "x" / "a"),
        str(tmp_path / "b"),
    ]


def test_a_tilde_is_the_users_home() -> None:
    message = "mkdir: cannot create directory '~/d': Permission denied\n"
    assert named_paths(message, "/", "/home/me") == ["/home/me/d"]


def test_a_bare_relative_name_a_message_names_is_resolved_where_the_command_ran() -> None:
    # The issue: relative paths in a message resolve against the command's directory, so a
    # write through a symlink (out -> /etc) is seen for what it is.
    assert named_paths("touch: cannot touch 'out.txt': Permission denied\n", "/w", "/") == [
        "/w/out.txt"
    ]
    dash = "/bin/sh: 1: cannot create link/x: Permission denied\n"
    assert named_paths(dash, "/w", "/") == ["/w/link/x"]


def test_a_bare_word_in_a_catch_all_message_is_not_a_path() -> None:
    assert named_paths("ping: socket: Operation not permitted\n", "/w", "/") == []


def test_prose_with_a_slash_in_a_catch_all_message_is_not_a_path() -> None:
    message = "tool: could not write the report to the folder a/b: Permission denied\n"
    assert named_paths(message, "/w", "/") == []


def test_paths_are_canonical_deduplicated_and_at_most_eight() -> None:
    lines = [f"touch: cannot touch '/etc/{n}/': Permission denied" for n in range(10)]
    lines.insert(1, "touch: cannot touch '/etc//0': Permission denied")
    assert named_paths("\n".join(lines), "/", "/") == [f"/etc/{n}" for n in range(8)]


def test_only_marker_lines_are_read() -> None:
    message = "cp: cannot create regular file '/etc/x': No space left on device\n"
    assert named_paths(message, "/", "/") == []


def test_paths_inside_the_roots_are_not_the_sandbox(writable: WritableSet) -> None:
    message = "touch: cannot touch './f': Operation not permitted\n"
    refusal = check_refusal(
        message,
        exit_status=1,
        working_directory=writable.roots[0],
        writable=writable,
        network_off=False,
    )
    assert refusal is not None
    assert refusal.verdict is Verdict.NOT_THE_SANDBOX
    assert refusal.paths == [f"{writable.roots[0]}/f"]
    assert refusal.line == (
        f"sandbox: not the sandbox: {writable.roots[0]}/f is inside the writable roots, so "
        "something else refused it (file permissions, attributes, or a read-only mount)"
    )


def test_for_refused_only_the_paths_outside_are_kept(writable: WritableSet) -> None:
    message = (
        f"touch: cannot touch '{writable.roots[0]}/in': Permission denied\n"
        "touch: cannot touch '/etc/out': Permission denied\n"
    )
    refusal = check_refusal(
        message, exit_status=1, working_directory="/", writable=writable, network_off=False
    )
    assert refusal is not None
    assert (refusal.verdict, refusal.paths) == (Verdict.REFUSED, ["/etc/out"])


def test_a_path_inside_wisp_home_is_refused(writable: WritableSet) -> None:
    message = f"sh: 1: cannot create {writable.protected}/owned: Permission denied\n"
    refusal = check_refusal(
        message, exit_status=2, working_directory="/", writable=writable, network_off=False
    )
    assert refusal is not None
    assert refusal.verdict is Verdict.REFUSED


def test_an_entry_on_the_narrowed_path_is_refused(writable: WritableSet) -> None:
    message = "touch: cannot touch '/tmp/new': Permission denied\n"
    kwargs = {"exit_status": 1, "working_directory": "/", "writable": writable}
    narrowed = check_refusal(message, **kwargs, network_off=False, narrowed_roots=("/tmp",))
    whole = check_refusal(message, **kwargs, network_off=False)
    assert narrowed is not None and narrowed.verdict is Verdict.REFUSED
    assert whole is not None and whole.verdict is Verdict.NOT_THE_SANDBOX


def test_mktemp_in_a_narrowed_temp_folder_is_the_sandbox_and_says_why(
    writable: WritableSet,
) -> None:
    # The issue: WISP_HOME under /tmp, and mktemp's refusal was blamed on something else.
    message = (
        "mktemp: failed to create file via template ‘/tmp/tmp.XXXXXXXXXX’: Permission denied\n"
    )
    refusal = check_refusal(
        message,
        exit_status=1,
        working_directory=writable.roots[0],
        writable=writable,
        network_off=False,
        narrowed_roots=("/tmp",),
    )
    assert refusal is not None
    assert (refusal.verdict, refusal.paths) == (Verdict.REFUSED, ["/tmp/tmp.XXXXXXXXXX"])
    assert refusal.line == (
        "sandbox: refused writing to /tmp/tmp.XXXXXXXXXX: nothing new can be made directly in "
        f"/tmp while WISP_HOME ({writable.protected}) lies inside it; set WISP_HOME outside "
        "/tmp, or install bubblewrap, to fix"
    )


def test_a_write_into_wisp_home_is_not_blamed_on_the_narrowing(writable: WritableSet) -> None:
    message = f"sh: 1: cannot create {writable.protected}/owned: Permission denied\n"
    refusal = check_refusal(
        message,
        exit_status=2,
        working_directory="/",
        writable=writable,
        network_off=False,
        narrowed_roots=("/tmp",),
    )
    assert refusal is not None
    assert refusal.line.startswith(
        f"sandbox: refused writing to {writable.protected}/owned; commands may write only under "
    )


def test_a_refusal_on_the_narrowed_path_and_one_outside_are_both_explained(
    writable: WritableSet,
) -> None:
    message = (
        "touch: cannot touch '/tmp/new': Permission denied\n"
        "touch: cannot touch '/etc/out': Permission denied\n"
    )
    refusal = check_refusal(
        message,
        exit_status=1,
        working_directory="/",
        writable=writable,
        network_off=False,
        narrowed_roots=("/tmp",),
    )
    assert refusal is not None
    assert refusal.paths == ["/tmp/new", "/etc/out"]
    assert refusal.line.startswith(
        "sandbox: refused writing to /etc/out; commands may write only under "
    )
    assert refusal.line.endswith(
        "; and to /tmp/new: nothing new can be made directly in /tmp while WISP_HOME "
        f"({writable.protected}) lies inside it; set WISP_HOME outside /tmp, or install "
        "bubblewrap, to fix"
    )


def test_no_path_is_a_guess(writable: WritableSet) -> None:
    message = "PermissionError: [Errno 13] Permission denied\n"
    refusal = check_refusal(
        message, exit_status=1, working_directory="/", writable=writable, network_off=True
    )
    assert refusal is not None
    assert (refusal.verdict, refusal.paths) == (Verdict.GUESS, [])
    assert refusal.line == (
        "sandbox: the sandbox may have refused this (Permission denied, no path to check: a "
        "network connection, a process, or a file the error does not name); no policy rule "
        "denied it"
    )


def test_network_unreachable_counts_only_with_the_network_off() -> None:
    message = "curl: (7) Failed to connect: Network is unreachable\n"
    assert first_marker(message, network_off=True) == "Network is unreachable"
    assert first_marker(message, network_off=False) is None


def test_a_directory_that_is_not_writable_is_a_marker() -> None:
    message = "WARNING: The directory '/root/.cache/pip' is not writable\n"
    assert first_marker(message, network_off=False) == "is not writable"


def test_a_success_or_no_marker_is_not_checked(writable: WritableSet) -> None:
    kwargs = {"working_directory": "/", "writable": writable, "network_off": False}
    assert check_refusal(MESSAGES["touch"], exit_status=0, **kwargs) is None
    assert check_refusal("ls: cannot access 'x': No such file\n", exit_status=2, **kwargs) is None


def test_the_model_is_told_at_most_three_paths(writable: WritableSet) -> None:
    message = "\n".join(f"touch: cannot touch '/etc/{n}': Permission denied" for n in range(5))
    refusal = check_refusal(
        message, exit_status=1, working_directory="/", writable=writable, network_off=False
    )
    assert refusal is not None
    assert len(refusal.paths) == 5
    assert refusal.line.startswith(
        "sandbox: refused writing to /etc/0, /etc/1, /etc/2 (and 2 more);"
    )
