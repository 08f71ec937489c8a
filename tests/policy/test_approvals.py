"""approvals.json (docs/policy.md, "approvals.json"): standing approvals shared by processes,
locked, expiring."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.hang import HANG
from wisp.policy.approvals import APPROVALS_FILE, ApprovalsFileError, ApprovalStore

START = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: datetime = START) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(wisp_home: Path, clock: Clock) -> ApprovalStore:
    return ApprovalStore(wisp_home / APPROVALS_FILE, clock=clock)


def test_project_approval_covers_its_directory_only(store: ApprovalStore, tmp_path: Path) -> None:
    store.grant("git push *", tmp_path / "app", "moderate", "project")

    assert store.find("git push *", tmp_path / "app", "moderate") is not None
    assert store.find("git push *", tmp_path / "other", "moderate") is None


def test_always_approval_covers_every_directory(store: ApprovalStore, tmp_path: Path) -> None:
    granted = store.grant("git push *", tmp_path / "app", "moderate", "always")

    found = store.find("git push *", tmp_path / "other", "moderate")

    assert found == granted
    assert found.working_directory is None


def test_approval_covers_its_level_and_below_only(store: ApprovalStore, tmp_path: Path) -> None:
    store.grant("touch *", tmp_path, "safe", "always")

    assert store.find("touch *", tmp_path, "safe") is not None
    assert store.find("touch *", tmp_path, "moderate") is None


def test_dangerous_approval_is_never_stored(store: ApprovalStore, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="never stored"):
        store.grant("rm -rf build", tmp_path, "dangerous", "always")

    assert not store.path.exists()


def test_file_is_a_private_sorted_json_array_with_iso_dates(
    store: ApprovalStore, tmp_path: Path
) -> None:
    entry = store.grant("npm install *", tmp_path, "moderate", "project")

    [written] = json.loads(store.path.read_text())
    assert list(written) == sorted(written)
    assert written == {
        "expiresAt": "2025-03-31T12:00:00Z",
        "grantedAt": "2025-03-01T12:00:00Z",
        "id": entry.id,
        "level": "moderate",
        "pattern": "npm install *",
        "scope": "project",
        "source": "chat",
        "workingDirectory": str(tmp_path),
    }
    assert store.path.read_text().startswith("[\n  {")
    assert store.path.stat().st_mode & 0o777 == 0o600
    assert store.lock_path.stat().st_mode & 0o777 == 0o600
    assert store.path.parent.stat().st_mode & 0o777 == 0o700


def test_expired_approval_is_not_found(store: ApprovalStore, clock: Clock, tmp_path: Path) -> None:
    store.grant("git push *", tmp_path, "moderate", "always")

    clock.now = START + timedelta(days=30)

    assert store.find("git push *", tmp_path, "moderate") is None


def test_approval_lasts_persist_days(wisp_home: Path, clock: Clock, tmp_path: Path) -> None:
    store = ApprovalStore(wisp_home / APPROVALS_FILE, persist_days=2, clock=clock)
    store.grant("git push *", tmp_path, "moderate", "always")

    clock.now = START + timedelta(days=2, seconds=-1)
    assert store.find("git push *", tmp_path, "moderate") is not None
    clock.now = START + timedelta(days=2)
    assert store.find("git push *", tmp_path, "moderate") is None


def test_expired_entries_are_dropped_from_the_file_on_the_next_change(
    store: ApprovalStore, clock: Clock, tmp_path: Path
) -> None:
    store.grant("git push *", tmp_path, "moderate", "always")
    clock.now = START + timedelta(days=31)

    store.grant("touch *", tmp_path, "moderate", "always")

    assert [e["pattern"] for e in json.loads(store.path.read_text())] == ["touch *"]


def test_revocation_by_another_process_is_not_undone_by_a_grant(
    store: ApprovalStore, wisp_home: Path, clock: Clock, tmp_path: Path
) -> None:
    first = store.grant("git push *", tmp_path, "moderate", "always")
    other = ApprovalStore(wisp_home / APPROVALS_FILE, clock=clock)

    assert other.revoke(first.id)
    store.grant("touch *", tmp_path, "moderate", "always")

    assert [e.pattern for e in store.entries()] == ["touch *"]


def test_clear_removes_every_entry(store: ApprovalStore, tmp_path: Path) -> None:
    store.grant("git push *", tmp_path, "moderate", "always")
    store.grant("touch *", tmp_path, "moderate", "project")

    assert store.clear() == 2
    assert store.entries() == []


def test_reading_a_missing_home_creates_nothing(store: ApprovalStore, wisp_home: Path) -> None:
    assert store.entries() == []
    assert not wisp_home.exists()


def test_broken_file_is_reported_and_left_alone(store: ApprovalStore, tmp_path: Path) -> None:
    store.path.parent.mkdir(mode=0o700)
    store.path.write_text('[{"id": 1}]')

    with pytest.raises(ApprovalsFileError, match=r"approvals\.json: .*\$\[0\]"):
        store.find("git push *", tmp_path, "moderate")
    with pytest.raises(ApprovalsFileError):
        store.grant("git push *", tmp_path, "moderate", "always")
    assert store.path.read_text() == '[{"id": 1}]'


GRANTER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from wisp.policy.approvals import ApprovalStore

    store = ApprovalStore(Path(sys.argv[1]))
    sys.stdin.readline()  # both start writing together
    for n in range(int(sys.argv[3])):
        store.grant(f"{sys.argv[2]}-{n} *", Path("/"), "moderate", "always")
    """
)


def test_concurrent_grants_from_two_processes_lose_no_entry(wisp_home: Path) -> None:
    path = wisp_home / APPROVALS_FILE
    count = 100
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", GRANTER, str(path), name, str(count)],
            stdin=subprocess.PIPE,
        )
        for name in ("first", "second")
    ]
    for writer in writers:
        assert writer.stdin is not None
        writer.stdin.write(b"go\n")
        writer.stdin.close()
    for writer in writers:
        assert writer.wait(timeout=HANG) == 0

    patterns = {entry.pattern for entry in ApprovalStore(path).entries()}

    assert patterns == {f"{name}-{n} *" for name in ("first", "second") for n in range(count)}
