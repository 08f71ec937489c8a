"""``wisp models pull hf:…`` as a person runs it: a real ``wisp`` against a loopback Hub that
speaks the Hub's download protocol (tests/models/fake_hub.py), through ``HF_ENDPOINT``, with
its own ``HF_HOME`` and ``WISP_HOME``."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from huggingface_hub import constants

from tests.hang import HANG
from tests.models.conftest import smollm2_gguf
from tests.models.fake_hub import FakeHub, HubFile, HubRepo, serving
from wisp.models.suggested import TOOL_MODEL_HINT

REPO = "acme/Tiny-GGUF"
FILE = "tiny-Q4_K_M.gguf"
NAME = "tiny-Q4_K_M"
DATA = bytes(range(256)) * 100_000  # 25.6 MB: two of the library's chunks and a part
CHUNK = constants.DOWNLOAD_CHUNK_SIZE
"""huggingface_hub writes what arrives in pieces this size (10 MiB): a break loses what is
short of a piece, and a pull resumes from the last one written."""
SHA256 = hashlib.sha256(DATA).hexdigest()


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    with serving(FakeHub()) as hub:
        hub.add(
            REPO,
            HubRepo(
                "acme",
                [
                    HubFile("README.md", data=b"# Tiny\n", lfs=False),
                    HubFile(FILE, data=DATA),
                    HubFile("tiny-Q8_0.gguf", data=DATA[:1000]),
                ],
            ),
        )
        yield hub


@pytest.fixture
def hf_home(tmp_path: Path) -> Path:
    return tmp_path / "hf"


@pytest.fixture
def env(bare_env: dict[str, str], hub: FakeHub, hf_home: Path) -> dict[str, str]:
    return bare_env | {
        "HF_HOME": str(hf_home),
        "HF_ENDPOINT": hub.endpoint,
        "HF_HUB_DISABLE_TELEMETRY": "1",
    }


def wisp(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    script = str(Path(sys.executable).parent / "wisp")
    result = subprocess.run(
        [script, *args], env=env, capture_output=True, encoding="utf-8", timeout=HANG
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result


def trust(env: dict[str, str], *names: str) -> None:
    done = wisp(env, "config", "set", "models.trustedPublishers", json.dumps(list(names)))
    assert done.returncode == 0, done.stderr


def events(wisp_home: Path, kind: str) -> list[dict[str, Any]]:
    lines = (wisp_home / "logs" / "audit.jsonl").read_text().splitlines()
    return [e["details"] for e in map(json.loads, lines) if e["kind"] == kind]


def blobs(hf_home: Path, repository: str = REPO) -> Path:
    return hf_home / "hub" / f"models--{repository.replace('/', '--')}" / "blobs"


def entry(wisp_home: Path, name: str = NAME) -> dict[str, Any]:
    config = json.loads((wisp_home / "config.json").read_text())
    return config.get("local", {}).get("models", {}).get(name, {})


# -- pulls -------------------------------------------------------------------------------------


def test_a_fresh_pull_fetches_checks_and_records_the_file(
    env: dict[str, str], hub: FakeHub, hf_home: Path, wisp_home: Path
) -> None:
    trust(env, "ACME")  # names compare without regard to case
    done = wisp(env, "models", "pull", f"hf:{REPO}")
    assert done.returncode == 0, done.stderr
    assert f"{FILE} (Q4_K_M of 2 GGUF files" in done.stderr
    assert f"[1/1] {FILE}" in done.stderr
    assert f"as local:{NAME}: 26 MB fetched" in done.stdout
    assert f"use it: wisp -m local:{NAME}" in done.stdout

    blob = blobs(hf_home) / SHA256
    assert blob.read_bytes() == DATA
    assert not list(blobs(hf_home).glob("*.incomplete"))
    recorded = entry(wisp_home)
    assert Path(recorded["file"]).resolve() == blob
    assert recorded["hub"] == {"repository": REPO, "file": FILE, "revision": hub.repos[REPO].sha}
    assert recorded["sha256"] == SHA256
    assert recorded["sha256Path"] == str(blob)

    [publisher] = events(wisp_home, "model.publisher")
    assert publisher | {"reason": None} == {
        "repository": REPO,
        "publisher": "acme",
        "decision": "trusted",
        "asked": False,
        "licence": "apache-2.0",
        "bytes": len(DATA),
        "reason": None,
        "source": "cli",
        "approval": None,
    }
    [pull] = events(wisp_home, "model.pull")
    assert pull["model"] == f"local:{NAME}"
    assert pull["repository"] == REPO
    assert pull["cache"] == str(hf_home / "hub")
    assert pull["link"] == recorded["file"]
    assert (pull["files"], pull["bytes"], pull["reused"], pull["seeded"]) == (1, len(DATA), 0, 0)
    assert (pull["fetchedFiles"], pull["fetched"], pull["outcome"]) == (1, len(DATA), "fetched")


def test_a_second_pull_reuses_the_cached_file_after_checking_it(
    env: dict[str, str], hub: FakeHub, wisp_home: Path
) -> None:
    trust(env, "acme")
    assert wisp(env, "models", "pull", f"hf:{REPO}/{FILE}").returncode == 0
    again = wisp(env, "models", "pull", f"hf:{REPO}/{FILE}")
    assert again.returncode == 0, again.stderr
    assert "already in the Hub's cache (26 MB), checked" in again.stdout
    assert len(hub.ranges()) == 1  # the bytes were sent once
    _, second = events(wisp_home, "model.pull")
    assert (second["outcome"], second["reused"], second["fetched"]) == ("linked", 1, 0)
    assert second["fetchedFiles"] == 0


def test_a_broken_connection_is_resumed_within_the_pull(
    env: dict[str, str], hub: FakeHub, hf_home: Path, wisp_home: Path
) -> None:
    trust(env, "acme")
    hub.faults.break_after = CHUNK + 1_000_000
    done = wisp(env, "models", "pull", f"hf:{REPO}/{FILE}")
    assert done.returncode == 0, done.stderr
    assert hub.ranges() == [None, f"bytes={CHUNK}-"]
    assert "wisp: the connection broke; huggingface_hub resumes from where it broke" in (
        done.stderr
    )
    assert "Trying to resume" not in done.stderr  # the library's raw lines are not shown
    assert (blobs(hf_home) / SHA256).read_bytes() == DATA
    [pull] = events(wisp_home, "model.pull")
    assert (pull["outcome"], pull["fetched"]) == ("fetched", len(DATA))


def test_an_interrupted_pull_leaves_the_cache_whole_and_the_next_resumes(
    env: dict[str, str], hub: FakeHub, hf_home: Path, wisp_home: Path
) -> None:
    trust(env, "acme")
    hub.faults.stall_after = CHUNK + 1_000_000
    script = str(Path(sys.executable).parent / "wisp")
    process = subprocess.Popen(
        [script, "models", "pull", f"hf:{REPO}/{FILE}"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        encoding="utf-8",
    )
    partial = blobs(hf_home) / f"{SHA256}.incomplete"
    wait_for(lambda: partial.exists() and partial.stat().st_size >= CHUNK, process)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=HANG)
    assert process.returncode == 130, err
    assert "pull cancelled: what arrived is kept; pull again to resume from it" in err
    assert partial.stat().st_size == CHUNK
    assert not (blobs(hf_home) / SHA256).exists()
    assert entry(wisp_home) == {}  # nothing names a file that is not whole
    [cancelled] = events(wisp_home, "model.pull")
    assert (cancelled["outcome"], cancelled["reason"]) == ("cancelled", "interrupted (Ctrl-C)")

    again = wisp(env, "models", "pull", f"hf:{REPO}/{FILE}")
    assert again.returncode == 0, again.stderr
    assert hub.ranges()[-1] == f"bytes={CHUNK}-"
    assert "10 MB resumed from an earlier pull" in again.stdout
    assert (blobs(hf_home) / SHA256).read_bytes() == DATA
    assert not partial.exists()
    resumed = events(wisp_home, "model.pull")[-1]
    assert (resumed["outcome"], resumed["fetched"]) == ("fetched", len(DATA) - CHUNK)


def test_a_left_part_longer_than_the_file_is_dropped_not_resumed_from(
    env: dict[str, str], hub: FakeHub, hf_home: Path
) -> None:
    trust(env, "acme")
    blobs(hf_home).mkdir(parents=True)
    (blobs(hf_home) / f"{SHA256}.incomplete").write_bytes(b"x" * (len(DATA) + 10))
    done = wisp(env, "models", "pull", f"hf:{REPO}/{FILE}")
    assert done.returncode == 0, done.stderr
    assert hub.ranges() == [None]
    assert (blobs(hf_home) / SHA256).read_bytes() == DATA


def test_a_file_that_does_not_match_its_checksum_is_refused_and_not_kept(
    env: dict[str, str], hub: FakeHub, hf_home: Path, wisp_home: Path
) -> None:
    trust(env, "acme")
    tampered = bytearray(DATA)
    tampered[2_000_000] ^= 0xFF
    hub.repos[REPO].files[1].served = bytes(tampered)
    done = wisp(env, "models", "pull", f"hf:{REPO}/{FILE}")
    assert done.returncode == 1
    assert f"hf:{REPO}/{FILE}: the file that arrived does not have the SHA-256" in done.stderr
    assert not [p for p in blobs(hf_home).iterdir()]  # neither the blob nor the partial
    assert entry(wisp_home) == {}
    [pull] = events(wisp_home, "model.pull")
    assert pull["outcome"] == "failed"
    assert "SHA-256" in pull["reason"]
    refused = wisp(env, "-m", f"local:{NAME}", "hi")
    assert refused.returncode == 1
    assert f"local:{NAME}: no model of that name" in refused.stderr


def test_an_untrusted_publisher_is_refused_with_no_terminal_and_trusted_once_with_yes(
    env: dict[str, str], hub: FakeHub, hf_home: Path, wisp_home: Path
) -> None:
    done = wisp(env, "models", "pull", f"hf:{REPO}")
    assert done.returncode == 1
    assert "published by acme, who is not in models.trustedPublishers" in done.stderr
    assert "--yes" in done.stderr
    assert hub.ranges() == []  # nothing fetched
    assert not blobs(hf_home).exists()
    [refused] = events(wisp_home, "model.publisher")
    assert (refused["decision"], refused["asked"]) == ("refused", False)
    assert events(wisp_home, "model.pull") == []

    once = wisp(env, "models", "pull", f"hf:{REPO}", "--yes")
    assert once.returncode == 0, once.stderr
    allowed = events(wisp_home, "model.publisher")[-1]
    assert (allowed["decision"], allowed["approval"]) == ("once", "--yes")
    config = json.loads((wisp_home / "config.json").read_text())
    assert "trustedPublishers" not in config.get("models", {})  # once is not always


def test_a_repository_without_a_gguf_or_without_a_clear_choice_is_refused(
    env: dict[str, str], hub: FakeHub
) -> None:
    hub.add("acme/weights", HubRepo("acme", [HubFile("model.safetensors", data=b"w" * 100)]))
    hub.add(
        "acme/two",
        HubRepo(
            "acme", [HubFile("two-Q5_K_M.gguf", data=b"a"), HubFile("two-Q8_0.gguf", data=b"b")]
        ),
    )
    none = wisp(env, "models", "pull", "hf:acme/weights", "--yes")
    assert none.returncode == 1
    assert "hf:acme/weights holds no single-file GGUF model" in none.stderr
    two = wisp(env, "models", "pull", "hf:acme/two", "--yes")
    assert two.returncode == 1
    assert "hf:acme/two/two-Q5_K_M.gguf" in two.stderr
    assert "hf:acme/two/two-Q8_0.gguf" in two.stderr
    missing = wisp(env, "models", "pull", "hf:acme/nothing-here", "--yes")
    assert missing.returncode == 1
    assert "hf:acme/nothing-here: no such repository on the Hub" in missing.stderr
    assert hub.ranges() == []


def test_a_pulled_model_is_listed_and_answers_as_local_name(
    env: dict[str, str], hub: FakeHub, wisp_home: Path
) -> None:
    gguf = smollm2_gguf()
    repository = "HuggingFaceTB/SmolLM2-135M-Instruct-GGUF"
    hub.add(repository, HubRepo("HuggingFaceTB", [HubFile("smollm2-135m-q4_k_m.gguf", path=gguf)]))
    done = wisp(env, "models", "pull", f"hf:{repository}", "--yes")
    assert done.returncode == 0, done.stderr
    assert "the repository's only GGUF file" in done.stderr

    listing = wisp(env, "models")
    row = next(line for line in listing.stdout.splitlines() if "smollm2-135m-q4_k_m" in line)
    assert row.split("\t")[:2] == ["  local:smollm2-135m-q4_k_m", "local"]
    assert "\thub\t" in row

    answer = wisp(env, "-m", "local:smollm2-135m-q4_k_m", "What is the capital of France?")
    assert answer.returncode == 0, answer.stderr
    assert answer.stdout.strip()
    for line in answer.stderr.splitlines():
        if "is text only" in line:  # and in the same line, how to get a model that is not
            assert line.endswith(f"; {TOOL_MODEL_HINT}"), line
    [resolved] = events(wisp_home, "model.resolved")
    assert resolved["model"] == "local:smollm2-135m-q4_k_m"

    # The file changed after the pull (anything that can write the cache could do it): refused.
    entry = json.loads((wisp_home / "config.json").read_text())["local"]["models"]
    pulled = Path(entry["smollm2-135m-q4_k_m"]["file"]).resolve()
    with pulled.open("ab") as file:
        file.write(b"\0")
    changed = wisp(env, "-m", "local:smollm2-135m-q4_k_m", "What is the capital of France?")
    assert changed.returncode != 0
    assert "changed" in changed.stderr


def test_on_a_terminal_the_person_is_asked_and_always_adds_the_publisher(
    env: dict[str, str], hub: FakeHub, wisp_home: Path
) -> None:
    with Terminal(["models", "pull", f"hf:{REPO}"], env) as terminal:
        terminal.wait_for("Pull it? [y]es once, [a]lways trust acme, [N]o: ")
        assert "published by acme, licence apache-2.0, whom models.trustedPublishers" in (
            terminal.text
        )
        terminal.type(b"a\r")
        assert terminal.finish() == 0, terminal.text
    assert f"use it: wisp -m local:{NAME}" in terminal.text
    asked = events(wisp_home, "model.publisher")[-1]
    assert (asked["decision"], asked["asked"]) == ("always", True)
    config = json.loads((wisp_home / "config.json").read_text())
    assert config["models"]["trustedPublishers"] == ["acme"]
    [change] = [c for c in events(wisp_home, "config.change") if "trusted" in c["path"]]
    assert (change["path"], change["old"], change["new"]) == (
        "models.trustedPublishers",
        None,
        ["acme"],
    )


def test_on_a_terminal_the_listing_ends_with_models_that_can_call_tools(
    env: dict[str, str],
) -> None:
    with Terminal(["models"], env) as terminal:
        assert terminal.finish() == 0, terminal.text
    assert "small models that can call tools, for wisp models pull:" in terminal.text
    assert "hf:lmstudio-community/Qwen2.5-1.5B-Instruct-GGUF" in terminal.text
    piped = wisp(env, "models")
    assert "small models" not in piped.stdout + piped.stderr  # a pipe gets the table alone


def test_help_says_how_to_get_a_model_that_can_use_tools(env: dict[str, str]) -> None:
    helped = wisp(env, "--help")
    assert "wisp models pull hf:lmstudio-community/Qwen2.5-1.5B-Instruct-GGUF" in helped.stdout
    assert "a small model that can use tools (local cannot)" in helped.stdout


# -- helpers -----------------------------------------------------------------------------------


class Terminal:
    """``wisp`` with a terminal for stdin, stdout and stderr, as a person runs it."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.main_fd, sub_fd = pty.openpty()
        fcntl.ioctl(sub_fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 200, 0, 0))
        script = str(Path(sys.executable).parent / "wisp")
        try:
            self.process = subprocess.Popen(
                [script, *args], env=env, stdin=sub_fd, stdout=sub_fd, stderr=sub_fd,
                start_new_session=True,
            )  # fmt: skip
        finally:
            os.close(sub_fd)
        self.raw = b""

    @property
    def text(self) -> str:
        return re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", self.raw).decode(errors="replace")

    def type(self, keys: bytes) -> None:
        os.write(self.main_fd, keys)

    def wait_for(self, text: str) -> None:
        """Until ``text`` is on the terminal; fails after HANG seconds without new output."""
        while text not in self.text:
            if not self._read():
                raise AssertionError(f"{text!r} never came: {self.text!r}")

    def finish(self) -> int:
        """Read to the end; the exit status."""
        while self._read():
            pass
        return self.process.wait(timeout=HANG)

    def _read(self) -> bool:
        ready, _, _ = select.select([self.main_fd], [], [], HANG)
        if not ready:
            return False
        try:
            chunk = os.read(self.main_fd, 65536)
        except OSError:  # EIO: every writer has closed
            return False
        self.raw += chunk
        return bool(chunk)

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self.main_fd)


def wait_for(condition: Callable[[], bool], process: subprocess.Popen[str]) -> None:
    """Until ``condition`` holds; fails if ``process`` ends first or nothing happens for HANG."""
    since = time.monotonic()
    while not condition():
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=0.05)
        if process.returncode is not None:
            raise AssertionError(f"wisp ended first ({process.returncode}): {process.stderr}")
        if time.monotonic() - since > HANG:
            process.kill()
            raise AssertionError(f"no progress for {HANG:.0f} s")
