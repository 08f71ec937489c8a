"""The helper entry point: it confines, or it refuses to run the command at all."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from tests.hang import HANG
from wisp.sandbox.plan import SandboxSupport, helper_argv
from wisp.sandbox.spec import EXIT_CANNOT_CONFINE, HelperSpec
from wisp.sandbox.spec_reader import OPTIONAL, REQUIRED, read_spec

HELPER = [sys.executable, "-I", "-m", "wisp.sandbox"]


def helper(spec: str, *command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*HELPER, spec, "--", *command], cwd=cwd, capture_output=True, text=True, timeout=HANG
    )


def spec_json(support: SandboxSupport, roots: list[str], **fields: object) -> str:
    assert support.landlock_abi is not None
    spec = HelperSpec(abi=support.landlock_abi, roots=roots, files=["/dev/null"], network_off=False)
    return msgspec.json.encode(msgspec.structs.replace(spec, **fields)).decode()


def test_a_bad_spec_is_refused_and_the_command_never_runs(tmp_path: Path) -> None:
    done = helper("{not json", "touch", "ran", cwd=tmp_path)
    assert done.returncode == EXIT_CANNOT_CONFINE
    assert done.stderr.startswith("wisp-sandbox: cannot confine the command: ")
    assert not (tmp_path / "ran").exists()


def test_a_spec_from_another_version_is_refused(tmp_path: Path, support: SandboxSupport) -> None:
    spec = spec_json(support, [str(tmp_path)])[:-1] + ', "later": true}'
    done = helper(spec, "touch", "ran", cwd=tmp_path)
    assert done.returncode == EXIT_CANNOT_CONFINE
    assert not (tmp_path / "ran").exists()


def test_a_missing_separator_is_refused(tmp_path: Path) -> None:
    done = subprocess.run([*HELPER, "{}", "touch", "ran"], cwd=tmp_path, capture_output=True)
    assert done.returncode == EXIT_CANNOT_CONFINE
    assert not (tmp_path / "ran").exists()


def test_the_command_runs_confined(tmp_path: Path, support: SandboxSupport) -> None:
    done = helper(
        spec_json(support, [str(tmp_path)]),
        "sh", "-c", "touch inside && touch /etc/wisp-helper-escape",
        cwd=tmp_path,
    )  # fmt: skip
    assert (tmp_path / "inside").exists()
    assert done.returncode == 1 and "Permission denied" in done.stderr
    assert not Path("/etc/wisp-helper-escape").exists()


def test_a_missing_program_exits_127(tmp_path: Path, support: SandboxSupport) -> None:
    done = helper(spec_json(support, []), "no-such-program-here", cwd=tmp_path)
    assert done.returncode == 127
    assert (
        done.stderr == "wisp-sandbox: cannot run no-such-program-here: No such file or directory\n"
    )


def test_the_command_gets_default_signals_and_an_empty_mask(
    tmp_path: Path, support: SandboxSupport
) -> None:
    done = helper(
        spec_json(support, []), "grep", "-E", "^Sig(Ign|Blk)", "/proc/self/status", cwd=tmp_path
    )
    assert done.stdout.split() == ["SigBlk:", "0" * 16, "SigIgn:", "0" * 16]


def test_modules_in_the_working_directory_are_not_imported(
    tmp_path: Path, support: SandboxSupport
) -> None:
    # The helper runs before confinement: a msgspec.py beside the command must not run.
    (tmp_path / "msgspec.py").write_text("open('/etc/wisp-hijacked', 'w')\n")
    done = helper(spec_json(support, []), "true", cwd=tmp_path)
    assert done.returncode == 0
    assert not Path("/etc/wisp-hijacked").exists()


def test_the_helper_does_not_load_asyncio(tmp_path: Path, support: SandboxSupport) -> None:
    argv = [*HELPER[:2], "-X", "importtime", *HELPER[2:], spec_json(support, []), "--", "true"]
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=HANG)
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert "wisp.sandbox.landlock" in imported
    assert not {"asyncio", "subprocess", "wisp.sandbox.plan"} & imported


def test_the_command_runs_with_no_new_privs(tmp_path: Path, support: SandboxSupport) -> None:
    done = helper(spec_json(support, []), "grep", "NoNewPrivs", "/proc/self/status", cwd=tmp_path)
    assert done.stdout.split() == ["NoNewPrivs:", "1"]


@pytest.mark.parametrize("abi", range(1, 8))
def test_every_abi_layout_confines(abi: int, tmp_path: Path, support: SandboxSupport) -> None:
    assert support.landlock_abi is not None
    if abi > support.landlock_abi:
        pytest.skip(f"this kernel has Landlock ABI {support.landlock_abi}")
    escape = Path(f"/etc/wisp-abi-{abi}-{os.getpid()}")
    try:
        done = helper(
            spec_json(support, [str(tmp_path)], abi=abi),
            "sh", "-c", f"echo x > inside && echo x > /dev/null && touch {escape}",
            cwd=tmp_path,
        )  # fmt: skip
        assert not escape.exists()
    finally:
        escape.unlink(missing_ok=True)
    assert (tmp_path / "inside").exists()
    assert done.returncode == 1 and "Permission denied" in done.stderr


def test_the_helper_imports_neither_msgspec_nor_typing(
    tmp_path: Path, support: SandboxSupport
) -> None:
    # They cost the helper more than the rest of its start, on every command.
    python, *rest = helper_argv()
    argv = [python, "-X", "importtime", *rest, spec_json(support, [str(tmp_path)]), "--", "true"]
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 0, done.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert "wisp.sandbox.landlock" in imported
    assert not {"msgspec", "typing", "asyncio", "wisp.sandbox.writable"} & imported


def test_the_spec_reader_knows_the_fields_of_the_spec() -> None:
    defaults = HelperSpec(abi=1, roots=[], files=[], network_off=False)
    assert set(REQUIRED) | set(OPTIONAL) == set(HelperSpec.__struct_fields__)
    assert {name: default for name, (_, default) in OPTIONAL.items()} == {
        name: getattr(defaults, name) for name in OPTIONAL
    }
    spec = read_spec(msgspec.json.encode(defaults).decode())
    assert {name: getattr(spec, name) for name in HelperSpec.__struct_fields__} == (
        msgspec.structs.asdict(defaults)
    )


@pytest.mark.parametrize(
    "text",
    ['{"abi": 7}', '{"abi": true, "roots": [], "files": [], "network_off": false}',
     '{"abi": 7, "roots": [1], "files": [], "network_off": false}', "[]"],
    ids=["missing", "bool-for-int", "not-strings", "not-an-object"],
)  # fmt: skip
def test_a_spec_of_the_wrong_shape_is_refused(text: str, tmp_path: Path) -> None:
    done = helper(text, "touch", "ran", cwd=tmp_path)
    assert done.returncode == EXIT_CANNOT_CONFINE
    assert not (tmp_path / "ran").exists()
