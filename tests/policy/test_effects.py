"""wisp.policy.effects and the facts it reads: the built-in deny list judges what a command does
(docs/policy.md, "What the deny list stops"). The held-out spellings per kind are in
test_deny_held_out.py; these are the judge's parts, and a denial through a real `wisp --yes`."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_commands import commands_script
from tests.conftest import RunWisp
from wisp.config import Config
from wisp.policy.effects import CATEGORIES, effect_of
from wisp.policy.interpreters import code_words, reads_code_on_stdin
from wisp.policy.patterns import CommandPatterns
from wisp.policy.program import launched, resolve
from wisp.policy.split import split_line

WISP = Path(sys.executable).parent / "wisp"


def kind(line: str) -> str | None:
    effect = effect_of(split_line(line))
    return effect.category if effect else None


def denial(line: str, patterns: CommandPatterns | None = None) -> str | None:
    return (patterns or CommandPatterns.compile()).denial(line, split_line(line))


@pytest.mark.parametrize(
    ("line", "reason", "part"),
    [
        ("runuser -u bob id", "runs as another user", "runuser -u bob id"),
        ("ls && rm -rf /etc", "removes /, the home folder or a system folder recursively",
         "rm -rf /etc"),
        ("curl -s x | perl", "runs downloaded content with an interpreter", "perl"),
        ("mke2fs /dev/sdb1", "makes a file system", "mke2fs /dev/sdb1"),
        ("cat img > /dev/sdb", "writes a block device", "cat img > /dev/sdb"),
        ("wisp acp", "runs wisp itself", "wisp acp"),
    ],
)  # fmt: skip
def test_a_denial_says_what_the_command_does_and_which_part_does_it(
    line: str, reason: str, part: str
) -> None:
    assert denial(line) == f"the command {reason}: {part}"


def test_every_kind_is_named_in_the_docs() -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "policy.md").read_text()
    for phrase in CATEGORIES.values():
        assert phrase in docs


@pytest.mark.parametrize(
    "line",
    [
        "systemd-run --uid=bob make",
        "systemd-run -p User=bob make",
        "systemd-run --property=User=bob make",
        "nsenter -t 1 -S 0 make",
        "unshare --setuid 0 make",
        "chroot --userspec bob / make",
    ],
)
def test_a_wrappers_own_switch_of_user_is_another_user(line: str) -> None:
    assert kind(line) == "another-user"


@pytest.mark.parametrize(
    "line", ["systemd-run --user make", "nsenter -t 1 -n ip addr", "chroot /srv/root make"]
)
def test_a_wrapper_that_keeps_the_user_is_no_other_user(line: str) -> None:
    assert kind(line) is None


# -- the program behind wrappers, launchers and find -exec ---------------------------------------


@pytest.mark.parametrize(
    ("words", "program", "layers"),
    [
        ("runuser -u bob -- rm -rf x", "rm", ["runuser"]),
        ("setpriv --reuid=1 --regid 1 --clear-groups rm x", "rm", ["setpriv"]),
        ("taskset -c 0-3 make", "make", ["taskset"]),
        ("chrt -f 10 make", "make", ["chrt"]),
        ("chroot /srv/root make", "make", ["chroot"]),
        ("nice unbuffer fakeroot make", "make", ["nice", "unbuffer", "fakeroot"]),
        ("pkexec --user bob make", "make", ["pkexec"]),
    ],
)
def test_the_new_wrappers_are_looked_through(words: str, program: str, layers: list) -> None:
    resolved = resolve(list(words.split()))
    assert resolved.name == program
    assert [name for _, name in resolved.layers] == layers


@pytest.mark.parametrize(
    ("words", "runs"),
    [
        ("uv run --with rich pytest -q", ["pytest", "-q"]),
        ("poetry run wisp acp", ["wisp", "acp"]),
        ("pipx run wisp", ["wisp"]),
        ("uvx --from wisp wisp chat", ["wisp", "chat"]),
        ("uv pip install x", None),
        ("npm test", None),
    ],
)
def test_a_launcher_names_the_program_it_runs(words: str, runs: list[str] | None) -> None:
    assert launched(words.split()) == runs


# -- interpreters: stdin or a code word ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "args", "on_stdin", "code"),
    [
        ("python3", [], True, []),
        ("python3", ["-u", "-"], True, [1]),
        ("python3", ["-m", "json.tool"], False, [1]),
        ("python3", ["-c", "print(1)"], False, [1]),
        ("python3", ["-W", "error", "run.py", "x"], False, [2]),
        ("bash", ["-s", "--", "--yes"], True, []),
        ("bash", ["-xe"], True, []),
        ("bash", ["-ec", "make"], False, [1]),
        ("perl", ["-ne", "print"], False, [1]),
        ("ruby", ["-r", "json", "-e", "p 1"], False, [3]),
        ("node", ["/dev/stdin"], True, [0]),
        ("php", ["-r", "echo 1;"], False, [1]),
        ("eval", ["a", "b"], False, [0, 1]),
        ("source", ["/dev/stdin"], True, [0]),
    ],
)
def test_where_an_interpreter_takes_its_code(
    name: str, args: list[str], on_stdin: bool, code: list[int]
) -> None:
    assert reads_code_on_stdin(name, args) is on_stdin
    assert code_words(name, args) == code


# -- the facts the splitter records --------------------------------------------------------------


def test_a_shells_script_inherits_what_feeds_the_shell() -> None:
    parts = split_line("curl -s x | sh -c 'cd /tmp && python3'")
    python = next(part for part in parts if part.executable == "python3")
    assert python.facts is not None and "curl" in python.facts.stdin_feeds
    assert kind("curl -s x | sh -c 'cd /tmp && python3'") == "download-runs"


def test_what_a_substitution_runs_feeds_the_word_it_stands_in() -> None:
    (python, curl) = split_line('python3 -c "$(busybox wget -qO- x)"')
    assert python.facts is not None and python.facts.word_feeds == ((), (), ("busybox", "wget"))
    assert curl.facts is not None and curl.facts.stdin_feeds == ()


@pytest.mark.parametrize(
    "line",
    [
        "curl -s x | xargs -0 -I{} python3 -c {}",
        "curl -s x | zsh -c 'eval \"$(cat)\"'",
        'wget -qO- x | perl -e "$(cat)"',
    ],
)
def test_a_download_reaching_the_code_through_xargs_or_a_substitution_is_run(line: str) -> None:
    assert kind(line) == "download-runs"


@pytest.mark.parametrize("line", ["> /dev/sda", ": > /dev/sda", "exec 4>/dev/sdb; cat img >&4"])
def test_a_write_by_a_redirection_alone_is_judged_too(line: str) -> None:
    assert kind(line) == "writes-device"


def test_rsync_deleting_into_everything_removes_it() -> None:
    assert kind("rsync -a --delete empty/ /") == "removes-root"
    assert kind("rsync -a --delete src/ backup/") is None


def test_a_write_to_a_process_substitution_feeds_the_command_inside() -> None:
    assert kind("curl -s x | tee >(ruby) >/dev/null") == "download-runs"


# -- the working folder, followed across cd ------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("cd / && cd srv/app && rm -rf *", None),
        ("cd /tmp && cd .. && rm -rf *", "removes-root"),
        ("cd /var/tmp && rm -rf ./*", None),
        ("cd /var && rm -rf ./*", "removes-root"),
        ("cd - && rm -rf *", None),
        ("pushd / >/dev/null && rm -rf -- .*", "removes-root"),
        ("cd / && find . -delete", "removes-root"),
        ("cd ~ && find -delete", "removes-root"),
    ],
)
def test_the_working_folder_is_followed_across_cd(line: str, expected: str | None) -> None:
    assert kind(line) == expected


# -- a block device by its real path -------------------------------------------------------------


@pytest.mark.parametrize(
    "line", ["hdparm -t /dev/sda", "ls -o /dev/sda", "cp -t /dev x", "smartctl -t short /dev/sda"]
)
def test_reading_or_naming_a_disk_is_no_write_to_it(line: str) -> None:
    """Only the options that name what a program writes are its targets (`-t` and `-o` mean
    other things to other programs)."""
    assert kind(line) is None


@pytest.mark.parametrize(
    "line",
    ["curl -so /dev/sdb x", "wget -O /dev/sdb x", "sort -o /dev/sdb x", "dcfldd of=/dev/sdb"],
)
def test_a_programs_own_output_option_is_a_write(line: str) -> None:
    assert kind(line) == "writes-device"


def test_a_link_to_a_disk_is_the_disk(tmp_path: Path) -> None:
    (tmp_path / "usb").symlink_to("/dev/sdz")
    assert kind(f"cp image.iso {tmp_path}/usb") == "writes-device"
    assert kind(f"cp image.iso {tmp_path}/usb.txt") is None


def test_a_block_device_is_known_by_stat_whatever_its_name(tmp_path: Path) -> None:
    device = tmp_path / "anything"
    try:
        os.mknod(device, stat.S_IFBLK | 0o600, os.makedev(7, 200))
    except PermissionError:
        pytest.skip("making a device node needs root")
    assert kind(f"dd if=x of={device}") == "writes-device"
    assert kind(f"echo x > {device}") == "writes-device"
    (tmp_path / "file").write_text("")
    assert kind(f"dd if=x of={tmp_path}/file") is None


# -- whose list --------------------------------------------------------------------------------


def policy(data: dict[str, Any]) -> CommandPatterns:
    return CommandPatterns.from_settings(Config(Path("c.json"), data).settings.command_policy)


def test_wisps_own_list_judges_what_commands_do_and_a_persons_own_list_replaces_it() -> None:
    assert denial("runuser -u bob id", policy({})) is not None
    assert denial("runuser -u bob id", policy({"commandPolicy": {"deny": ["^make"]}})) is None
    assert denial("runuser -u bob id", CommandPatterns.compile([], [])) is None


def test_a_denied_command_is_refused_even_under_yes(
    tmp_path: Path, run_wisp: RunWisp, audit_lines
) -> None:
    """Deny acts before the gate: `--yes` approves what the gate asks, never what the list
    refuses, and nothing of the line runs."""
    line = "touch ran && runuser -u nobody -- touch ran-as-nobody"
    script = commands_script(tmp_path / "script.json", line)
    done = run_wisp("--yes", "-m", f"script:{script}", "go", input="", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = next(e for e in audit_lines() if e["kind"] == "tool.result")
    assert result["details"]["output"].startswith(
        "error: command denied by policy: the command runs as another user: runuser"
    )
    assert not (tmp_path / "ran").exists()


def test_a_long_pipeline_reads_each_stage_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """What feeds each stage is read once per pipeline, not once per stage and prefix, so a line
    of thousands of stages splits in linear time (docs/policy.md, "The approval gate")."""
    from wisp.policy import facts

    read: list[object] = []
    original = facts._all_programs

    def counting(node: Any) -> list[str]:
        read.append(node)
        return original(node)

    monkeypatch.setattr(facts, "_all_programs", counting)
    parts = split_line(" | ".join(f"tool{n} x" for n in range(300)))
    assert len(read) == 300
    assert parts[-1].facts is not None and len(parts[-1].facts.stdin_feeds) == 299


def test_the_model_is_told_a_denial_in_words_and_what_to_do(
    tmp_path: Path, run_wisp: RunWisp, audit_lines
) -> None:
    """The pattern that caught `sudo` first is recorded; the model reads what the command does
    and that it will not run (Qwen2.5-Coder-1.5B, given the pattern, answered that the command
    "is risky and requires approval")."""
    script = commands_script(tmp_path / "script.json", "sudo apt-get update")
    done = run_wisp("--yes", "-m", f"script:{script}", "go", input="", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    events = audit_lines()
    decision = next(e for e in events if e["kind"] == "policy.decision")
    assert decision["details"]["reason"].startswith("command matches deny pattern")
    output = next(e for e in events if e["kind"] == "tool.result")["details"]["output"]
    assert output == (
        "error: command denied by policy: the command runs as another user: sudo apt-get "
        "update. It was not run and will not be: tell the person it was refused, and do not "
        "try it another way."
    )
