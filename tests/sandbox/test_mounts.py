"""The helper's mount namespace, for real (docs/sandbox.md, "How a command is confined"): wisp's
installation is never writable, WISP_HOME is hidden and its modes fixed, attributes outside the
roots cannot change, a command run as root keeps only the capabilities it needs, and ``.pth`` files
never run in the helper."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import stat
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

import msgspec
import pytest

from tests.hang import HANG
from tests.sandbox.terminal import WRITE_EVERY_TERMINAL, person_terminal, what_arrived
from wisp.sandbox.landlock import KEPT_CAPABILITIES
from wisp.sandbox.mounts import listening_sockets, outermost
from wisp.sandbox.plan import (
    SandboxSupport,
    confined_argv,
    helper_argv,
    probe_uncached,
    working_bwrap,
)
from wisp.sandbox.process import ProcessResult, run_process
from wisp.sandbox.refusal import Verdict, check_refusal
from wisp.sandbox.spec import HelperSpec
from wisp.sandbox.writable import WritableSet

IS_ROOT = os.geteuid() == 0
OWN_SCRIPT = "script -qc 'echo in-script' /dev/null"


@pytest.fixture
def namespaced() -> SandboxSupport:
    """The real probe, where the helper can make its mount namespace."""
    found = probe_uncached()
    if found.landlock_abi is None or not found.namespace:
        pytest.skip("no Landlock, or no mount namespace here")
    return found


async def run(
    line: str,
    writable: WritableSet,
    support: SandboxSupport,
    cwd: Path | str,
    *,
    env: Mapping[str, str] | None = None,
    network_off: bool = False,
    sockets: tuple[str, ...] = (),
) -> ProcessResult:
    extra = {"sockets": sockets} if sockets else {}
    argv, _ = confined_argv(
        ["/bin/sh", "-c", line], writable, network_off=network_off, support=support, **extra
    )
    return await run_process(argv, cwd=cwd, timeout=HANG, env=env)


def build(work: Path | str, home: Path, user_home: Path) -> WritableSet:
    environ = {"HOME": str(user_home), "TMPDIR": "/tmp"}
    return WritableSet.build(working_directory=work, home=home, environ=environ)


@contextlib.contextmanager
def removed_afterwards(*paths: Path) -> Iterator[None]:
    try:
        yield
    finally:
        for path in paths:
            with contextlib.suppress(FileNotFoundError):
                path.rmdir() if path.is_dir() else path.unlink()


async def test_wisp_installed_in_the_working_directory_cannot_be_written(
    namespaced: SandboxSupport, home: Path, user_home: Path
) -> None:
    # The README's set-up: .venv (and, editable, the wisp/ source) in the project wisp runs in.
    site = Path(sysconfig.get_paths()["purelib"])
    package = Path(os.path.realpath(__file__)).parents[2] / "wisp"
    project = os.path.commonpath([os.path.realpath(sys.prefix), str(site)])
    project = os.path.dirname(project)
    writable = build(project, home, user_home)
    assert writable.contains(site / "x")  # the point: the install lies inside a root
    tag = f"wisp-test-{os.getpid()}"
    targets = [
        site / f"zz-{tag}.pth",
        Path(sysconfig.get_paths()["scripts"]) / tag,
        Path(package) / f"{tag}.py",
        Path(package) / "__pycache__" / f"{tag}.pyc",
    ]
    if not Path(package).is_dir():
        targets = targets[:2]
    line = "; ".join(f"echo 'import os' > {target}" for target in targets)
    with removed_afterwards(*targets):
        result = await run(f"{line}; chmod 0777 {site}", writable, namespaced, project)
        made = [target for target in targets if target.exists()]
    assert made == []
    assert result.stderr.count("Read-only file system") == len(targets) + 1
    assert stat.S_IMODE(site.stat().st_mode) != 0o777
    # The model is told why: the sandbox refused it, on purpose, and what to do instead.
    refusal = check_refusal(
        result.stderr,
        exit_status=result.exit_status,
        working_directory=project,
        writable=writable,
        network_off=False,
    )
    assert refusal is not None and refusal.verdict is Verdict.REFUSED
    assert str(targets[0]) in refusal.paths
    assert "it is part of wisp's own installation" in refusal.line


async def test_without_a_namespace_the_installation_is_narrowed_around(
    namespaced: SandboxSupport, home: Path, user_home: Path
) -> None:
    # Where no namespace can be made: Landlock alone, the working directory narrowed around
    # the installation. (This machine can make one; the probe's answer is set aside.)
    landlock_only = msgspec.structs.replace(namespaced, namespace=False)
    site = Path(sysconfig.get_paths()["purelib"])
    project = Path(os.path.realpath(sys.prefix)).parent
    tag = f"wisp-test-{os.getpid()}"
    planted, beside = site / f"zz-{tag}.pth", project / f"{tag}.new"
    # A folder of the project's own beside the installation: made before the run, since the
    # project (CI's: a temporary folder) may hold nothing but the virtual environment.
    sibling = project / f"{tag}.folder"
    sibling.mkdir()
    made = sibling / f"{tag}.made"
    with removed_afterwards(planted, beside, made, sibling):
        result = await run(
            f"touch {planted}; touch {beside}; touch {made}",
            build(project, home, user_home),
            landlock_only,
            project,
        )
        assert not planted.exists() and not beside.exists()
        assert made.exists(), result.stderr  # the rest of the project stays writable
    assert result.stderr.count("Permission denied") == 2


async def test_an_installation_under_tmp_cannot_be_written(
    namespaced: SandboxSupport, tmp_path: Path
) -> None:
    # wherever it lies: here a prefix under /tmp, itself a writable root.
    venv = tmp_path / "venv"
    (venv / "lib").mkdir(parents=True)
    spec = HelperSpec(
        abi=namespaced.landlock_abi or 0,
        roots=[str(tmp_path)],
        files=["/dev/null"],
        network_off=False,
        namespace=True,
        read_only=[str(venv)],
    )
    done = subprocess.run(
        [*helper_argv(), msgspec.json.encode(spec).decode(), "--", "sh", "-c",
         "touch venv/lib/zz.pth; touch beside"],
        cwd=tmp_path, capture_output=True, text=True, timeout=HANG,
    )  # fmt: skip
    assert not (venv / "lib" / "zz.pth").exists()
    assert "Read-only file system" in done.stderr
    assert (tmp_path / "beside").exists()


async def test_a_pth_file_in_site_packages_never_runs_in_the_helper(
    namespaced: SandboxSupport, work: Path, home: Path, user_home: Path, tmp_path: Path
) -> None:
    # Planted by hand here (a command can no longer plant it): the helper must not run it
    # before it confines itself. It only acts when this test's variable is set.
    site = Path(sysconfig.get_paths()["purelib"])
    mark = tmp_path / "pth-ran"
    planted = site / f"zz-wisp-test-{os.getpid()}.pth"
    planted.write_text(
        "import os; p = os.environ.get('WISP_TEST_PTH_MARK'); p and open(p, 'w').close()\n"
    )
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "WISP_TEST_PTH_MARK": str(mark)}
    with removed_afterwards(planted):
        result = await run("true", build(work, home, user_home), namespaced, work, env=env)
    assert result.exit_status == 0, result.stderr
    assert not mark.exists()


async def test_wisp_home_is_empty_to_commands(
    namespaced: SandboxSupport, work: Path, home: Path, user_home: Path
) -> None:
    (home / "config.json").write_text('{"apiKey": "sk-wisp-test-secret"}')
    (home / "logs").mkdir()
    result = await run(
        f"cat {home}/config.json; ls -A {home}; echo listed",
        build(work, home, user_home),
        namespaced,
        work,
    )
    assert "sk-wisp-test-secret" not in result.stdout + result.stderr
    assert result.stdout == "listed\n"
    assert "No such file or directory" in result.stderr


async def test_wisp_home_under_dev_shm_stays_hidden_in_the_commands_own_dev(
    namespaced: SandboxSupport, work: Path, user_home: Path
) -> None:
    # /dev/shm is a root, carried into the /dev of the command's own with what is mounted in it.
    home = Path("/dev/shm") / f"wisp-test-home-{os.getpid()}"
    home.mkdir()
    try:
        (home / "config.json").write_text('{"apiKey": "sk-wisp-test-secret"}')
        result = await run(
            f"cat {home}/config.json; touch {home}/made; ls -A {home}; echo listed",
            build(work, home, user_home),
            namespaced,
            work,
        )
        assert not (home / "made").exists()
    finally:
        shutil.rmtree(home)
    assert "sk-wisp-test-secret" not in result.stdout + result.stderr
    assert result.stdout == "listed\n"


async def test_wisp_home_modes_and_attributes_cannot_change(
    namespaced: SandboxSupport, work: Path, home: Path, user_home: Path
) -> None:
    logs = home / "logs"
    logs.mkdir()
    audit = logs / "audit.jsonl"
    audit.write_text("{}\n")
    home.chmod(0o700)
    audit.chmod(0o600)
    line = (
        f"chmod 0777 {home}; chmod 0666 {audit}; chattr +a {audit}; chattr +i {audit}; "
        f"touch -d 2001-01-01 {audit}; chown 65534 {audit}"
    )
    before = audit.stat().st_mtime_ns
    await run(line, build(work, home, user_home), namespaced, work)
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert stat.S_IMODE(audit.stat().st_mode) == 0o600
    assert audit.stat().st_mtime_ns == before and audit.stat().st_uid == os.geteuid()
    flags = subprocess.run(["lsattr", str(audit)], capture_output=True, text=True, check=False)
    assert flags.returncode != 0 or "i" not in flags.stdout.split()[0]
    assert flags.returncode != 0 or "a" not in flags.stdout.split()[0]


async def test_attributes_outside_the_roots_cannot_change(
    namespaced: SandboxSupport, work: Path, home: Path, user_home: Path
) -> None:
    # /var/tmp lies outside every root; Landlock alone has no right for attributes.
    outside = Path("/var/tmp") / f"wisp-test-{os.getpid()}"
    outside.write_text("x")
    outside.chmod(0o600)
    try:
        before = outside.stat()
        await run(
            f"chmod 0666 {outside}; touch -d 2001-01-01 {outside}; chown 65534 {outside}",
            build(work, home, user_home),
            namespaced,
            work,
        )
        after = outside.stat()
    finally:
        outside.unlink()
    assert (after.st_mode, after.st_mtime_ns, after.st_uid) == (
        before.st_mode,
        before.st_mtime_ns,
        before.st_uid,
    )


@pytest.mark.skipif(not IS_ROOT, reason="only root has capabilities to drop")
async def test_a_command_run_as_root_keeps_only_the_capabilities_it_needs(
    namespaced: SandboxSupport, work: Path, home: Path, user_home: Path
) -> None:
    result = await run(
        "grep -E '^Cap(Eff|Bnd)' /proc/self/status", build(work, home, user_home), namespaced, work
    )
    kept = sum(1 << cap for cap in KEPT_CAPABILITIES)
    masks = {line.split()[0]: int(line.split()[1], 16) for line in result.stdout.splitlines()}
    assert masks == {"CapEff:": kept, "CapBnd:": kept}


async def test_the_working_directory_stays_writable_through_relative_paths(
    namespaced: SandboxSupport, work: Path, home: Path, user_home: Path
) -> None:
    result = await run(
        "echo x > made && mkdir sub && mv made sub/ && mktemp",
        build(work, home, user_home),
        namespaced,
        work,
    )
    assert result.exit_status == 0, result.stderr
    assert (work / "sub" / "made").read_text() == "x\n"


def test_outermost_keeps_only_the_outer_paths() -> None:
    assert outermost(["/a/b", "/a", "/c", "/ab"]) == ["/a", "/c", "/ab"]


def test_listening_sockets_reads_the_paths(tmp_path: Path) -> None:
    table = tmp_path / "unix"
    table.write_text(
        "Num       RefCount Protocol Flags    Type St Inode Path\n"
        "0000: 00000002 00000000 00010000 0001 01 1 /run/a b.sock\n"
        "0000: 00000002 00000000 00010000 0001 01 2 @abstract\n"
        "0000: 00000003 00000000 00000000 0001 03 3\n"
    )
    assert listening_sockets(str(table)) == ["/run/a b.sock"]


@contextlib.contextmanager
def unix_listener(path: Path) -> Iterator[Path]:
    """A UNIX socket with a path, listening, as tmux's server, D-Bus or docker.sock are."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(str(path))
        server.listen(8)
        yield path
    finally:
        server.close()
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def connect_unix(path: Path) -> str:
    code = f"import socket; socket.socket(socket.AF_UNIX).connect({str(path)!r}); print('in')"
    return f'{sys.executable} -c "{code}"'


@pytest.mark.parametrize("where", ["/run", "/tmp"], ids=["outside-the-roots", "in-tmp"])
@pytest.mark.parametrize("network_off", [False, True], ids=["network-on", "network-off"])
async def test_a_command_cannot_connect_to_a_unix_socket_with_a_path(
    where: str,
    network_off: bool,
    namespaced: SandboxSupport,
    work: Path,
    home: Path,
    user_home: Path,
) -> None:
    # A command reached the user's tmux server (/tmp/tmux-UID/default) and ran a window
    # outside the sandbox; D-Bus, docker.sock and ssh-agent the same way.
    with unix_listener(Path(where) / f"wisp-test-{os.getpid()}.sock") as path:
        result = await run(
            connect_unix(path),
            build(work, home, user_home),
            namespaced,
            work,
            network_off=network_off,
        )
    assert result.exit_status != 0 and result.stdout == ""
    assert "Connection refused" in result.stderr


async def test_a_socket_the_setting_allows_can_be_reached(
    namespaced: SandboxSupport, work: Path, home: Path, user_home: Path
) -> None:
    # commandPolicy.sandbox.allowSockets, ~ expanded as the writable roots are.
    with unix_listener(user_home / f"wisp-test-{os.getpid()}.sock") as path:
        writable = WritableSet.build(
            working_directory=work,
            home=home,
            environ={"HOME": str(user_home)},
            sockets=[f"~/{path.name}"],
        )
        assert writable.sockets == (str(path),)
        result = await run(connect_unix(path), writable, namespaced, work)
    assert (result.exit_status, result.stdout) == (0, "in\n"), result.stderr


async def test_udp_is_cut_with_the_network_off(
    namespaced: SandboxSupport, work: Path, home: Path, user_home: Path
) -> None:
    receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    receiver.bind(("127.0.0.1", 0))
    port = receiver.getsockname()[1]
    code = (
        "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
        f"s.sendto(b'x', ('127.0.0.1', {port})); print('sent')"
    )
    try:
        argv, state = confined_argv(
            [sys.executable, "-c", code],
            build(work, home, user_home),
            network_off=True,
            support=namespaced,
        )
        result = await run_process(argv, cwd=work, timeout=HANG)
    finally:
        receiver.close()
    assert result.exit_status != 0 and result.stdout == ""
    assert "Network is unreachable" in result.stderr
    assert state.network is False and "every protocol" in state.mechanism


NOBODY = 65534


@pytest.fixture
def unprivileged_copy() -> Iterator[Path]:
    """As a user that is not root (CI runs as root): a folder outside root's home, readable by
    nobody, holding a copy of what the helper imports (wisp and msgspec)."""
    if not IS_ROOT or not Path("/usr/bin/setpriv").exists():
        pytest.skip("needs root (to become nobody) and setpriv")
    base = Path(tempfile.mkdtemp(prefix="wisp-nobody-", dir="/tmp"))
    base.chmod(0o755)
    try:
        lib = base / "lib"
        skip = shutil.ignore_patterns("__pycache__")
        for name in ("wisp", "msgspec"):
            module = __import__(name)
            source = Path(os.path.realpath(module.__file__ or "")).parent
            shutil.copytree(source, lib / name, ignore=skip)
        for path in (base / "work", base / "home"):
            path.mkdir()
            os.chown(path, NOBODY, NOBODY)
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def as_nobody(base: Path, *args: str) -> subprocess.CompletedProcess[str]:
    python = os.path.realpath(sys.executable)
    code = (
        f"import sys; sys.path += [{str(base / 'lib')!r}]; "
        "from wisp.sandbox.__main__ import main; main(sys.argv[1:])"
    )
    return subprocess.run(
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
         python, "-I", "-S", "-c", code, *args],
        cwd=base / "work", capture_output=True, text=True, timeout=HANG,
        env={"PATH": "/usr/bin:/bin"},
    )  # fmt: skip


def test_as_a_user_that_is_not_root_the_helper_makes_its_namespaces(
    unprivileged_copy: Path, bystander_for_nobody: subprocess.Popen[bytes]
) -> None:
    base = unprivileged_copy
    if as_nobody(base, "--probe-namespace").returncode != 0:
        pytest.skip("unprivileged user namespaces are not allowed here")
    # The installation (here the copy of wisp inside the working directory), WISP_HOME with a
    # secret, and a process of the same user with one in its environment.
    work, home = base / "work", base / "home"
    shutil.move(base / "lib", work / "lib")
    base.joinpath("lib").symlink_to(work / "lib")
    (home / "config.json").write_text('{"apiKey": "sk-nobody-secret"}')
    os.chown(home / "config.json", NOBODY, NOBODY)
    spec = HelperSpec(
        abi=probe_uncached().landlock_abi or 0,
        roots=[str(work)],
        files=["/dev/null"],
        network_off=True,
        namespace=True,
        read_only=[str(work / "lib")],
        hidden=[str(home)],
    )
    line = (
        f"touch made; touch lib/wisp/zz.py; cat {home}/config.json; chmod 0777 {home}; "
        f"cat /proc/{bystander_for_nobody.pid}/environ; kill -KILL {bystander_for_nobody.pid}; "
        "id -u"
    )
    done = as_nobody(base, msgspec.json.encode(spec).decode(), "--", "sh", "-c", line)
    assert (work / "made").exists(), done.stderr
    assert not (work / "lib" / "wisp" / "zz.py").exists()
    assert "sk-nobody-secret" not in done.stdout + done.stderr
    assert stat.S_IMODE(home.stat().st_mode) != 0o777
    assert "sk-bystander" not in done.stdout
    assert bystander_for_nobody.poll() is None
    assert done.stdout.split()[-1] == str(NOBODY)


def test_as_a_user_that_is_not_root_the_command_has_a_devpts_of_its_own(
    unprivileged_copy: Path,
) -> None:
    # In a user namespace too (devpts newinstance, kernel 4.7+): the person's terminal, which
    # nobody could write to unconfined, is not there; the command still gets ptys of its own.
    base = unprivileged_copy
    if as_nobody(base, "--probe-namespace").returncode != 0:
        pytest.skip("unprivileged user namespaces are not allowed here")
    spec = HelperSpec(
        abi=probe_uncached().landlock_abi or 0,
        roots=[str(base / "work")],
        files=["/dev/null"],
        network_off=False,
        namespace=True,
        private_pts=True,
    )
    line = f"{WRITE_EVERY_TERMINAL}; test -e /dev/tty || echo no-tty; {OWN_SCRIPT}"
    with person_terminal() as person:
        os.chown(person.name, NOBODY, NOBODY)
        done = as_nobody(base, msgspec.json.encode(spec).decode(), "--", "sh", "-c", line)
        assert what_arrived(person) == b""
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-3:] == ["ptmx", "no-tty", "in-script"]


@pytest.fixture
def bystander_for_nobody() -> Iterator[subprocess.Popen[bytes]]:
    """nobody's own unconfined process, a secret in its environment (as wisp run by nobody)."""
    process = subprocess.Popen(
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "sleep",
         f"{2 * HANG:.0f}"],
        env={"WISP_TEST_SECRET": "sk-bystander-secret", "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    try:
        yield process
    finally:
        process.kill()
        process.wait()


@pytest.fixture
def bubblewrap(namespaced: SandboxSupport) -> SandboxSupport:
    """Bubblewrap in place of the helper's own namespace (where user namespaces are allowed
    to bubblewrap alone: AppArmor's profile on Ubuntu, a setuid bwrap)."""
    found = working_bwrap()
    if found is None:
        pytest.skip("bubblewrap is not installed (apt-get install bubblewrap)")
    return msgspec.structs.replace(namespaced, namespace=False, bwrap=found)


async def test_with_bubblewrap_wisp_installed_in_the_working_directory_cannot_be_written(
    bubblewrap: SandboxSupport, home: Path, user_home: Path
) -> None:
    site = Path(sysconfig.get_paths()["purelib"])
    project = Path(os.path.realpath(sys.prefix)).parent
    writable = build(project, home, user_home)
    assert writable.contains(site / "x")  # the install lies inside a root
    tag = f"wisp-test-{os.getpid()}"
    planted, scripts = site / f"zz-{tag}.pth", Path(sysconfig.get_paths()["scripts"]) / tag
    sibling = project / f"{tag}.folder"
    sibling.mkdir()
    made = sibling / f"{tag}.made"
    argv, state = confined_argv(
        ["/bin/sh", "-c", f"touch {planted}; touch {scripts}; chmod 0777 {site}; touch {made}"],
        writable,
        network_off=False,
        support=bubblewrap,
    )
    with removed_afterwards(planted, scripts, made, sibling):
        result = await run_process(argv, cwd=project, timeout=HANG)
        assert not planted.exists() and not scripts.exists()
        assert made.exists(), result.stderr  # bubblewrap's binds narrow nothing
    assert argv[0] == bubblewrap.bwrap
    assert result.stderr.count("Read-only file system") == 3
    assert stat.S_IMODE(site.stat().st_mode) != 0o777
    assert "bubblewrap" in state.mechanism and state.narrowed_roots == ()
