"""One fetch of a planned Hugging Face Hub file, and what it leaves on record: ``model.pull``
for how it ended, and the file's entry ``local.models."NAME"`` with its checked SHA-256.

``wisp models pull hf:…`` fetches on its own thread with the progress line on stderr; the
model's ``models`` tool fetches on a worker thread in the background, saying nothing, and stops
it at the next piece that arrives once its task is cancelled (docs/models.md, "Pulling from the
Hub", "The models tool").
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from wisp.audit.kinds import ModelPull
from wisp.cli.context import Context
from wisp.cli.models.files import ConfigModelFiles
from wisp.cli.models.session import Origin, Record
from wisp.config import locked_config, save_config, store_model_entry
from wisp.config.model_entry import Hub
from wisp.errors import WispError
from wisp.models.catalog import human_bytes
from wisp.models.hub_pull import Plan, Pulled
from wisp.models.local_files import FileRecord, FileStamp
from wisp.models.ollama_pull import PullLine, PullProgress, new_progress
from wisp.models.selection import LOCAL


class FetchStopped(Exception):
    """The fetch was asked to stop (its task cancelled): what arrived is kept."""


class HubFetch:
    """Fetches ``plan``'s file (blocking: a caller that must not block runs ``fetch`` on a
    worker thread) and keeps how it ended for ``model.pull``."""

    def __init__(
        self, plan: Plan, *, on_update: Callable[[PullProgress], None] = lambda progress: None
    ) -> None:
        self.plan = plan
        self.progress = new_progress(plan.filename)
        self.on_update = on_update
        self.outcome = "failed"
        self.reason: str | None = None
        self.pulled: Pulled | None = None
        self.seconds = 0.0
        self._stop = threading.Event()

    def fetch(self) -> Pulled:
        """The file, fetched (or found in the cache) and checked; the Hub's errors rise."""
        from wisp.models import hub_pull

        try:
            pulled = hub_pull.fetch(self.plan, self._arrived)
        except (WispError, OSError) as exc:
            self.reason = str(exc)
            raise
        finally:
            self.seconds = round(time.monotonic() - self.progress.started, 3)
        self._arrived(pulled.size, pulled.size, "checked")  # a last line, whole
        self.pulled = pulled
        self.outcome = "linked" if pulled.reused else "fetched"
        return pulled

    def cancel(self, reason: str) -> None:
        """Cancelled (``reason``): a fetch still running stops at the next piece."""
        self._stop.set()
        self.outcome, self.reason = "cancelled", reason

    def event(self, origin: Origin) -> ModelPull:
        """``model.pull`` for the fetch as it ended, as asked by ``origin``."""
        return hub_pull_event(
            self.plan, self.pulled, self.progress, self.outcome, self.reason, self.seconds, origin
        )

    def summary(self) -> str:
        """``pulled hf:OWNER/REPO/FILE as local:NAME: 98 MB fetched, in 3.1 s``."""
        plan, pulled = self.plan, self.pulled
        assert pulled is not None, "summary of a fetch that did not end well"
        if pulled.reused:
            what = f"already in the Hub's cache ({human_bytes(pulled.size)}), checked"
        else:
            resumed = pulled.size - pulled.fetched
            what = f"{human_bytes(pulled.fetched)} fetched"
            if resumed > 0:
                what += f", {human_bytes(resumed)} resumed from an earlier pull"
        return (
            f"pulled hf:{plan.repository}/{plan.filename} as local:{plan.stem}: {what}, "
            f"in {self.seconds:.1f} s"
        )

    def _arrived(self, completed: int, total: int, status: str = "pulling") -> None:
        if self._stop.is_set():
            raise FetchStopped(f"hf:{self.plan.repository}/{self.plan.filename}: stopped")
        self.progress.take(PullLine(status, self.plan.filename, total or completed, completed))
        self.on_update(self.progress)


def record_model(
    context: Context, plan: Plan, pulled: Pulled, record: Record, origin: Origin
) -> None:
    """``local.models."NAME"``: the file, where it came from, and its checked SHA-256."""
    real = os.path.realpath(pulled.path)
    with locked_config(context.home.config_file) as config:
        hub = Hub(repository=plan.repository, file=plan.filename, revision=pulled.commit)
        entry = config.model_entries(LOCAL).entry(plan.stem)
        entry = entry.with_fields(file=str(pulled.path), hub=hub)
        store_model_entry(config, LOCAL, plan.stem, entry)
        save_config(config)
    files = ConfigModelFiles(
        context, source=origin.source, record=record, trusts_changes=True,
        approval=origin.approval,
    )  # fmt: skip
    files.record(plan.stem, FileRecord(real, pulled.sha256, FileStamp.of(os.stat(real))))


def hub_pull_event(
    plan: Plan,
    pulled: Pulled | None,
    progress: PullProgress,
    outcome: str,
    reason: str | None,
    seconds: float,
    origin: Origin,
) -> ModelPull:
    """``model.pull`` for a pull of ``plan``'s file that ended so (or was ``declined``)."""
    from wisp.models.hub_pull import cache_folder

    fetched = pulled.fetched if pulled is not None else progress.fetched
    event = ModelPull(
        model=f"{LOCAL}:{plan.stem}",
        source=origin.source,
        repository=plan.repository,
        directory=str(Path(pulled.path).parent) if pulled is not None else None,
        cache=str(cache_folder()),
        files=1,
        bytes=pulled.size if pulled is not None else (plan.size or progress.total),
        reused=1 if pulled is not None and pulled.reused else 0,
        seeded=0,
        fetched_files=1 if fetched > 0 else 0,
        fetched=fetched,
        link=str(pulled.path) if pulled is not None else None,
        outcome=outcome,
        seconds=seconds,
    )
    return origin.ended(event, reason)
