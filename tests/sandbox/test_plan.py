"""confined_argv and the state it reports (docs/sandbox.md): never claim a sandbox
that is not there, and say when the network could not be turned off."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

import wisp
from wisp.sandbox import plan
from wisp.sandbox.plan import (
    SandboxSupport,
    confined_argv,
    helper_argv,
    probe,
    probe_uncached,
    unconfined,
)
from wisp.sandbox.spec import EXIT_CANNOT_CONFINE, HelperSpec
from wisp.sandbox.writable import WritableSet

COMMAND = ["/bin/sh", "-c", "true"]
# Where these tests say wisp is installed: outside every root, wherever the suite itself runs
# from (CI's virtual environment lies under /tmp, a writable root).
INSTALL = ("/opt/wisp-plan-test/venv", "/opt/wisp-plan-test/venv/lib/site-packages")


@pytest.fixture(autouse=True)
def installed_outside_the_roots(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plan, "install_paths", lambda: INSTALL)


@pytest.fixture
def writable(tmp_path: Path) -> WritableSet:
    (tmp_path / "work").mkdir()
    (tmp_path / "home").mkdir()
    return WritableSet.build(
        working_directory=tmp_path / "work", home=tmp_path / "home", environ={"HOME": "/"}
    )


def spec_of(argv: list[str]) -> HelperSpec:
    at = len(argv) - 1 - argv[::-1].index("--")  # bubblewrap has its own "--" before
    assert argv[at - 4 : at - 2] == ["-S", "-c"]
    return msgspec.json.decode(argv[at - 1], type=HelperSpec)


def test_without_landlock_the_command_runs_as_given_and_says_so(writable: WritableSet) -> None:
    argv, state = confined_argv(
        COMMAND, writable, network_off=True, support=SandboxSupport(landlock_abi=None)
    )
    assert argv == COMMAND
    assert (state.sandbox, state.network) == (False, True)
    assert state.note == "no sandbox: this kernel has no Landlock, so commands run unconfined"


def test_the_helper_wraps_the_command(writable: WritableSet) -> None:
    argv, state = confined_argv(
        COMMAND, writable, network_off=False, support=SandboxSupport(landlock_abi=7)
    )
    assert argv[0] == sys.executable
    assert argv[-3:] == COMMAND
    spec = spec_of(argv)
    assert spec.abi == 7 and not spec.network_off
    assert writable.roots[0] in spec.roots and "/dev/null" in spec.files
    assert (state.sandbox, state.network) == (True, True)
    assert state.mechanism.startswith("landlock ABI 7; network on")


def test_a_root_holding_wisp_home_is_narrowed_without_bubblewrap(writable: WritableSet) -> None:
    argv, state = confined_argv(
        COMMAND, writable, network_off=False, support=SandboxSupport(landlock_abi=7)
    )
    assert spec_of(argv).protected == writable.protected
    (root,) = state.narrowed_roots
    assert state.narrowed_roots == writable.roots_holding_home()
    assert state.note is not None and f"lies inside it; set WISP_HOME outside {root}" in state.note
    assert state.mechanism.endswith(f"narrowed: {root}")


def test_a_narrowed_temp_folder_is_said_once_with_what_breaks_and_the_fix(
    tmp_path: Path,
) -> None:
    # The issue: with WISP_HOME under /tmp, mktemp and touch /tmp/x fail; say so, and the fix.
    writable = WritableSet.build(
        working_directory=tmp_path, home="/tmp/wisp-note-home", environ={"HOME": "/"}
    )
    _, state = confined_argv(
        COMMAND, writable, network_off=False, support=SandboxSupport(landlock_abi=7)
    )
    assert state.note is not None and state.note.startswith(
        "sandbox: commands cannot make new files directly in /tmp (mktemp and touch /tmp/x "
        "fail) because WISP_HOME (/tmp/wisp-note-home) lies inside it; set WISP_HOME outside "
        "/tmp, or install bubblewrap, to fix; "
    )


def test_a_narrowed_working_directory_says_where_else_to_start() -> None:
    # wisp started in ~ with WISP_HOME further down, and the home folder allowed as the working
    # folder (commandPolicy.sandbox.allowHome): /tmp is whole, so mktemp still works. (Nothing
    # here touches the folders: they need not exist.)
    user = "/srv/wisp-note-user"
    writable = WritableSet.build(
        working_directory=user, home=f"{user}/dot/.wisp", environ={"HOME": user}, allow_home=True
    )
    _, state = confined_argv(
        COMMAND, writable, network_off=False, support=SandboxSupport(landlock_abi=7)
    )
    assert state.note is not None and state.note.startswith(
        f"sandbox: commands cannot make new files directly in {user} or in the folders between "
        f"it and WISP_HOME (touch {user}/x fails) because WISP_HOME ({user}/dot/.wisp) lies "
        f"inside it; set WISP_HOME outside {user}, start wisp in another folder, or install "
        "bubblewrap, to fix; "
    )


def test_without_a_mount_namespace_the_note_says_what_is_not_protected(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Where neither root nor a user namespace allows one, wisp runs the commands under Landlock
    # alone, narrowed around its installation, and says what that leaves open.
    # (Nothing here touches the folders: they need not exist.)
    project = Path("/srv/wisp-plan-project")
    venv = project / ".venv"
    monkeypatch.setattr(plan, "install_paths", lambda: (str(venv),))
    writable = WritableSet.build(
        working_directory=project, home="/srv/wisp-plan-home", environ={"HOME": "/"}
    )
    argv, state = confined_argv(
        COMMAND, writable, network_off=False, support=SandboxSupport(landlock_abi=7)
    )
    assert state.note is not None
    assert "sandbox: no mount namespace here" in state.note
    assert "commands can read WISP_HOME" in state.note
    # ... and the installation is narrowed around, so it stays read-only: said, with the fix.
    assert (
        f"sandbox: commands cannot make new files directly in {project} or in the folders "
        f"between it and wisp's installation (touch {project}/x fails) because the installation "
    ) in state.note
    assert str(venv) in state.note.split("because the installation")[1]
    assert str(venv) in spec_of(argv).read_only


def test_with_the_mount_namespace_nothing_is_narrowed_and_the_install_is_read_only(
    writable: WritableSet,
) -> None:
    support = SandboxSupport(landlock_abi=7, namespace=True)
    argv, state = confined_argv(COMMAND, writable, network_off=True, support=support)
    spec = spec_of(argv)
    assert spec.namespace and spec.protected is None and spec.hidden == [writable.protected]
    assert spec.read_only == list(INSTALL)
    assert (state.sandbox, state.network, state.note, state.narrowed_roots) == (
        True,
        False,
        None,
        (),
    )
    assert state.network_cut == "all"
    assert "mount namespace" in state.mechanism and "every protocol" in state.mechanism


def test_landlock_tcp_rules_turn_the_network_off_from_abi_4(writable: WritableSet) -> None:
    argv, state = confined_argv(
        COMMAND, writable, network_off=True, support=SandboxSupport(landlock_abi=4)
    )
    assert spec_of(argv).network_off
    # Only TCP is cut: UDP and DNS still pass, so the command has the network, and the
    # record says what was cut.
    assert (state.network, state.network_cut) == (True, "tcp")
    assert "UDP and other protocols open" in state.mechanism


def test_below_abi_4_without_bubblewrap_the_network_stays_on(writable: WritableSet) -> None:
    _, state = confined_argv(
        COMMAND, writable, network_off=True, support=SandboxSupport(landlock_abi=3)
    )
    assert (state.sandbox, state.network) == (True, True)
    assert state.note is not None
    assert state.note.startswith("networking could not be turned off")


def test_bubblewrap_cuts_the_network_and_binds_wisp_home_read_only(
    writable: WritableSet,
) -> None:
    support = SandboxSupport(landlock_abi=3, bwrap="/usr/bin/bwrap")
    argv, state = confined_argv(COMMAND, writable, network_off=True, support=support)
    home = writable.protected
    prefix = argv[: argv.index("--") + 1]
    assert prefix == [
        "/usr/bin/bwrap", "--bind", "/", "/", "--dev", "/dev", "--bind-try", "/dev/shm",
        "/dev/shm", "--unshare-net", "--die-with-parent", "--ro-bind", home, home, "--",
    ]  # fmt: skip
    assert spec_of(argv).protected is None  # the root stays whole
    assert (state.network, state.narrowed_roots) == (False, ())


def test_bubblewrap_guards_wisp_home_with_the_network_on(writable: WritableSet) -> None:
    support = SandboxSupport(landlock_abi=7, bwrap="/usr/bin/bwrap")
    argv, state = confined_argv(COMMAND, writable, network_off=False, support=support)
    assert "--unshare-net" not in argv and "--ro-bind" in argv
    assert state.network is True


def test_bubblewrap_is_used_even_with_wisp_home_outside_and_the_network_on(
    tmp_path: Path,
) -> None:
    # Its --dev is the only way, without the helper's namespace, to keep the person's terminals
    # out of a command's reach (docs/sandbox.md, "The person's terminal").
    outside_roots = WritableSet.build(
        working_directory=tmp_path, home="/var/lib/wisp-nowhere", environ={"HOME": "/"}
    )
    support = SandboxSupport(landlock_abi=7, bwrap="/usr/bin/bwrap")
    argv, state = confined_argv(COMMAND, outside_roots, network_off=False, support=support)
    assert argv[:6] == ["/usr/bin/bwrap", "--bind", "/", "/", "--dev", "/dev"]
    assert spec_of(argv).private_pts is True
    assert (state.devpts, state.namespaces[-1:]) == ("private", ("mount",))


def test_unconfined_never_claims_a_sandbox() -> None:
    state = unconfined("--unsafe")
    assert (state.sandbox, state.network, state.mechanism) == (False, True, "none (--unsafe)")


def test_the_probe_is_made_once_per_process() -> None:
    assert probe() is probe()
    assert probe_uncached() == probe()


def test_a_namespace_probe_started_early_is_read_once_and_answers_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # wisp chat starts the probe before importing the rest of itself; probe() only reads it.
    if probe_uncached().landlock_abi is None:
        pytest.skip("no Landlock: there is no namespace probe to start")
    monkeypatch.setattr(probe, "cache_info", lambda: functools._CacheInfo(0, 0, None, 0))
    plan.probe_in_background()
    started = plan._early_namespace_probe
    assert isinstance(started, subprocess.Popen)
    assert started.args == [*helper_argv(), "--probe-namespace"]
    plan.probe_in_background()  # a second call starts no other
    assert plan._early_namespace_probe is started
    assert probe_uncached() == probe()
    assert plan._early_namespace_probe is None and started.returncode is not None


def test_a_probe_that_hangs_is_killed_and_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        plan,
        "_namespace_probe_argv",
        lambda: [sys.executable, "-c", "import signal; signal.pause()"],
    )
    monkeypatch.setattr(plan, "NAMESPACE_PROBE_SECONDS", 0.05)
    assert plan._namespace_works() is False


def test_the_helper_never_searches_the_folder_that_holds_wisp(tmp_path: Path) -> None:
    # With an editable install that folder is the project, a writable root: a module planted
    # there must not be found by any import the helper makes before it confines itself.
    code = helper_argv()[-1]
    project = str(Path(wisp.__file__).resolve().parent.parent)
    assert repr(project) not in code
    done = subprocess.run(
        [*helper_argv(), "{}", "--", "true"], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == EXIT_CANNOT_CONFINE  # it ran, and refused the empty spec


def test_a_bwrap_planted_on_path_is_never_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An activated .venv/bin first on PATH: a bwrap a command wrote there would wrap, and so
    # run, unconfined before every later command.
    planted = tmp_path / "bin"
    planted.mkdir()
    marker = tmp_path / "ran"
    fake = planted / "bwrap"
    fake.write_text(f"#!/bin/sh\ntouch {marker}\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{planted}:/usr/bin:/bin")
    found = plan.working_bwrap()
    assert found is None or not found.startswith(str(planted))
    assert not marker.exists()


# -- what the sandbox really applied, for policy.decision -----------------------------------------


def test_the_namespace_records_its_namespaces_abi_and_a_private_devpts(
    writable: WritableSet,
) -> None:
    support = SandboxSupport(landlock_abi=7, namespace=True)
    argv, off = confined_argv(COMMAND, writable, network_off=True, support=support)
    _, on = confined_argv(COMMAND, writable, network_off=False, support=support)
    user = ("user",) if os.geteuid() != 0 else ()
    assert off.namespaces == (*user, "mount", "pid", "net")
    assert on.namespaces == (*user, "mount", "pid")
    assert (off.landlock_abi, off.devpts) == (7, "private")
    assert spec_of(argv).private_pts is True


def test_landlock_alone_records_no_namespace_and_the_shared_devpts(writable: WritableSet) -> None:
    argv, state = confined_argv(
        COMMAND, writable, network_off=True, support=SandboxSupport(landlock_abi=5)
    )
    assert (state.namespaces, state.landlock_abi, state.devpts) == ((), 5, "shared")
    assert spec_of(argv).private_pts is False  # the person's /dev/pts: never writable
    assert state.note is not None and plan.TERMINAL_NOTE in state.note


def test_bubblewrap_records_its_namespaces_and_a_private_devpts(writable: WritableSet) -> None:
    support = SandboxSupport(landlock_abi=7, bwrap="/usr/bin/bwrap")
    _, state = confined_argv(COMMAND, writable, network_off=True, support=support)
    assert state.namespaces[-2:] == ("mount", "net")
    assert (state.landlock_abi, state.devpts) == (7, "private")
    assert state.note is None or plan.TERMINAL_NOTE not in state.note


def test_an_unconfined_command_records_nothing_applied() -> None:
    state = unconfined("--unsafe")
    assert (state.namespaces, state.landlock_abi, state.devpts) == ((), None, None)
