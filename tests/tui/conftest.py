"""Fixtures for wisp-tui tests: a WispApp on a real `wisp chat --json -m script:FILE`."""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from textual.pilot import Pilot

from tests.hang import HANG
from wisp_tui.app import WispApp
from wisp_tui.screens.dialog import Dialog

MakeApp = Callable[..., WispApp]


def write_script(
    folder: Path, responses: list[dict[str, Any]], context_size: int | None = None
) -> Path:
    """A `script:` model file (docs/models.md, "The replay backend") in `folder`; with
    `context_size`, the model declares that window."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "script.json"
    script: dict[str, Any] = {"responses": responses}
    if context_size is not None:
        script["contextSize"] = context_size
    path.write_bytes(msgspec.json.encode(script))
    return path


def app_env(home: Path) -> dict[str, str]:
    """wisp's environment: HOME is `home`, so the status line reads `~/work`."""
    env = {k: v for k, v in os.environ.items() if k not in ("WISP_HOME", "WISP_LOG", "WISP_BIN")}
    env["HOME"] = str(home)
    env["WISP_HOME"] = str(home / ".wisp")
    return env


@pytest.fixture
def make_app(tmp_path: Path, wisp_script: Path) -> MakeApp:
    """A WispApp whose wisp replays `responses`, run in a fresh home under tmp_path."""

    def make(
        responses: list[dict[str, Any]],
        folder: Path | None = None,
        *,
        context_size: int | None = None,
    ) -> WispApp:
        home = folder or tmp_path / "home"
        # Work in a folder beside WISP_HOME: the sandbox keeps the way down to it read-only.
        work = home / "work"
        script = write_script(work, responses, context_size)
        return WispApp(
            ["-m", f"script:{script.name}"],
            env=app_env(home),
            cwd=work,
            command=str(wisp_script),
        )

    return make


@pytest.fixture
def snapshot_home(request: pytest.FixtureRequest) -> Iterator[Path]:
    """A fixed folder per snapshot test, so the paths wisp shows are the same on every run."""
    folder = Path("/tmp/wisp-tui-snapshots") / request.node.name
    shutil.rmtree(folder, ignore_errors=True)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


async def _wait_for(
    pilot: Pilot[Any], condition: Callable[[], bool], timeout: float = HANG
) -> None:
    """Pause until `condition()` holds, however long that takes; fail only at a hang."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {condition}")
        await pilot.pause(0.02)


def _transcript_text(app: WispApp) -> str:
    """The transcript's entries as plain text, one per line: archived ones, then live ones."""
    return "\n".join(app.transcript.texts())


Waiter = Callable[..., Awaitable[None]]


@pytest.fixture
def wait_for() -> Waiter:
    """`await wait_for(pilot, condition)`."""
    return _wait_for


EndGrace = Callable[[Dialog[Any]], None]


@pytest.fixture
def end_grace(monkeypatch: pytest.MonkeyPatch) -> EndGrace:
    """Dialogs whose grace (500 ms of keyboard quiet) lasts until the test ends it, and the function
    that ends it.

    A key a test types "in the grace" is then in it however slow the machine is; ending it does
    what the quiet's timer does when it fires. The timer itself is checked by the tests that
    wait for `is_taking_keys` at the real 500 ms.
    """
    monkeypatch.setattr(Dialog, "grace_seconds", HANG)

    def end(screen: Dialog[Any]) -> None:
        screen._end_grace()

    return end


@pytest.fixture
def transcript_text() -> Callable[[WispApp], str]:
    """The transcript's entries as plain text."""
    return _transcript_text


# Snapshots live in the repository's snapshots/ folder, not beside the tests. The plugin has
# no setting for that, so its SVG extension is swapped for one that names that folder.

from pytest_textual_snapshot import SVGImageExtension  # noqa: E402
from syrupy.assertion import SnapshotAssertion  # noqa: E402

SNAPSHOTS = Path(__file__).resolve().parents[2] / "snapshots"


class RepoSVGExtension(SVGImageExtension):
    """SVG snapshots under `snapshots/<test module>/`."""

    @classmethod
    def dirname(cls, *, test_location: Any) -> str:
        return str(SNAPSHOTS / test_location.basename)


class RepoSnapshotAssertion(SnapshotAssertion):
    """`snap_compare` asks for the plugin's extension; it gets the one above instead."""

    def use_extension(self, extension_class: Any = None) -> SnapshotAssertion:
        if extension_class is SVGImageExtension:
            extension_class = RepoSVGExtension
        return super().use_extension(extension_class)


@pytest.fixture
def snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return RepoSnapshotAssertion(
        update_snapshots=snapshot.update_snapshots,
        test_location=snapshot.test_location,
        extension_class=snapshot.extension_class,
        session=snapshot.session,
    )


FAKE_WISP = Path(__file__).with_name("fake_wisp.py")


@pytest.fixture
def make_fake_app(tmp_path: Path) -> Callable[..., WispApp]:
    """A WispApp over `fake_wisp.py`, which writes `lines` after its status and echoes answers."""

    def make(lines: list[dict[str, Any]], *, stuck: bool = False) -> WispApp:
        tmp_path.mkdir(parents=True, exist_ok=True)
        scripted = tmp_path / "fake-lines.json"
        scripted.write_bytes(msgspec.json.encode({"lines": lines, "stuck": stuck}))
        command = tmp_path / "fake-wisp"
        command.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_WISP}" "$@"\n')
        command.chmod(0o755)
        return WispApp([str(scripted)], env=app_env(tmp_path), cwd=tmp_path, command=str(command))

    return make


def freeze_turn_clock(app: WispApp, seconds: float = 3.0) -> None:
    """A snapshot's running turn shows `seconds` and stops ticking: its clock is the wall's."""
    bar = app.status_bar
    if bar._ticker is not None:
        bar.sync_seconds(seconds)
        bar._ticker.pause()
