"""``wisp models pull hf:OWNER/REPO[/FILE.gguf]``: a GGUF from the Hugging Face Hub for ``local``.

The file is chosen (named, or a ``Q4_K_M`` from the repository's list), its publisher is held
to ``models.trustedPublishers`` (``model.publisher``), and it is fetched into the Hub's cache
with the same progress line as an Ollama pull (``wisp.models.hub_pull``). Its SHA-256, checked
against the Hub's, is recorded beside its entry ``local.models."NAME"`` with the file it is, so
``local:NAME`` loads it and a later change to it is refused (``wisp.models.local_files``).
``model.pull`` records how it ended. See docs/models.md, "Pulling from the Hub".
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from wisp.audit.kinds import ConfigChange, ModelPublisher, ModelPull
from wisp.cli.context import Context
from wisp.cli.models.files import ConfigModelFiles
from wisp.cli.models.pull import PullView, new_view
from wisp.cli.models.session import Record
from wisp.config import locked_config, save_config, set_value, store_model_entry
from wisp.config.model_entry import Hub
from wisp.config.paths import shell_word
from wisp.errors import WispError
from wisp.models.catalog import human_bytes
from wisp.models.hub_pull import HubRef, Plan, Pulled
from wisp.models.local_files import FileRecord, FileStamp
from wisp.models.ollama_pull import PullLine, PullProgress, new_progress
from wisp.models.selection import LOCAL

TRUSTED = "models.trustedPublishers"


def pull_from_hub(context: Context, name: str, *, yes: bool, record: Record) -> int:
    """Pull ``hf:name``; ``model.publisher`` and ``model.pull`` record what happened."""
    from wisp.models import hub_pull

    plan = hub_pull.plan(HubRef.parse(name))
    context.warn(f"hf:{plan.repository}: {plan.filename} ({plan.why})")
    trust_publisher(context, plan, yes=yes, record=record)
    progress = new_progress(plan.filename)
    view = new_view(context)

    def on_progress(completed: int, total: int, status: str = "pulling") -> None:
        progress.take(PullLine(status, plan.filename, total or completed, completed))
        view.update(progress)

    outcome, reason, pulled = "failed", None, None
    try:
        with _resumes_said(context, view):
            pulled = hub_pull.fetch(plan, on_progress)
        on_progress(pulled.size, pulled.size, "checked")  # a last line, whole
        outcome = "linked" if pulled.reused else "fetched"
    except KeyboardInterrupt:
        outcome, reason = "cancelled", "interrupted (Ctrl-C)"
        raise
    except (WispError, OSError) as exc:
        reason = str(exc)
        raise
    finally:
        view.finish()
        seconds = round(time.monotonic() - progress.started, 3)
        record(_pull_event(plan, pulled, progress, outcome, reason, seconds))
        if outcome == "cancelled":
            context.warn("pull cancelled: what arrived is kept; pull again to resume from it")
    assert pulled is not None
    _record_model(context, plan, pulled, record)
    print(_summary(plan, pulled, seconds), file=context.stdout, flush=True)
    return 0


@contextlib.contextmanager
def _resumes_said(context: Context, view: PullView) -> Iterator[None]:
    """huggingface_hub's own note of a broken connection it resumes, said in wisp's words on a
    line of its own rather than as the library's two raw lines."""
    source = logging.getLogger("huggingface_hub.file_download")

    class Said(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "resume" in record.getMessage():
                view.finish()
                context.warn("the connection broke; huggingface_hub resumes from where it broke")

    handler = Said(logging.WARNING)
    level, propagate = source.level, source.propagate
    source.addHandler(handler)
    source.setLevel(logging.WARNING)
    source.propagate = False
    try:
        yield
    finally:
        source.removeHandler(handler)
        source.setLevel(level)
        source.propagate = propagate


# -- the publisher -----------------------------------------------------------------------------


def trust_publisher(context: Context, plan: Plan, *, yes: bool, record: Record) -> None:
    """Go on when ``plan``'s publisher is trusted, or trusted now (``--yes``, or asked on a
    terminal); else ``WispError`` naming the setting. Records ``model.publisher`` either way."""
    trusted = context.load_config().settings.models.trusted_publishers
    event = ModelPublisher(
        repository=plan.repository,
        publisher=plan.publisher,
        decision="trusted",
        asked=False,
        licence=plan.licence,
        bytes=plan.size,
        reason=None,
        source="cli",
        approval=None,
    )
    if any(plan.publisher.casefold() == known.casefold() for known in trusted):
        event.reason = f"listed in {TRUSTED}"
    elif yes:
        event.decision, event.approval, event.reason = "once", "--yes", "trusted once with --yes"
    elif _on_terminal():
        event.asked = True
        event.decision = _ask(context, plan)
        event.reason = {"once": "trusted once when asked", "always": f"added to {TRUSTED}"}.get(
            event.decision, "refused when asked"
        )
    else:
        event.decision, event.reason = "refused", f"not in {TRUSTED}, and no terminal to ask on"
    record(event)
    if event.decision == "always":
        _add_trusted(context, plan.publisher, record)
    if event.decision == "refused":
        raise WispError(_refusal(plan, asked=event.asked))


def _on_terminal() -> bool:
    return sys.stdin.isatty() and sys.stderr.isatty()


def _ask(context: Context, plan: Plan) -> str:
    """``once``, ``always`` or ``refused``, as the person answers on the terminal."""
    licence = f", licence {plan.licence}" if plan.licence else ""
    print(
        f"hf:{plan.repository} is published by {plan.publisher}{licence}, whom {TRUSTED} does "
        "not list. The file runs in wisp's own process, outside the sandbox.",
        file=context.stderr,
    )
    print(
        f"Pull it? [y]es once, [a]lways trust {plan.publisher}, [N]o: ",
        end="",
        file=context.stderr,
        flush=True,
    )
    answer = sys.stdin.readline().strip().lower()
    return {"y": "once", "yes": "once", "a": "always", "always": "always"}.get(answer, "refused")


def _refusal(plan: Plan, *, asked: bool) -> str:
    where = "" if asked else " (no terminal to ask on)"
    words = shell_word(f'["{plan.publisher}"]')
    return (
        f"hf:{plan.repository} is published by {plan.publisher}, who is not in {TRUSTED}{where}: "
        f"nothing pulled. Pull it once with --yes, or trust {plan.publisher}: "
        f"wisp config set {TRUSTED} {words} (keep the names already there)"
    )


def _add_trusted(context: Context, publisher: str, record: Record) -> None:
    with locked_config(context.home.config_file) as config:
        old = config.model_choices().trusted_publishers  # None: unset (or not a list)
        new = [*(old or []), publisher]
        set_value(config, TRUSTED, new)
        save_config(config)
    record(ConfigChange(path=TRUSTED, old=old, new=new, source="cli", approval=None))


# -- the records -------------------------------------------------------------------------------


def _record_model(context: Context, plan: Plan, pulled: Pulled, record: Record) -> None:
    """``local.models."NAME"``: the file, where it came from, and its checked SHA-256."""
    real = os.path.realpath(pulled.path)
    with locked_config(context.home.config_file) as config:
        hub = Hub(repository=plan.repository, file=plan.filename, revision=pulled.commit)
        entry = config.model_entries(LOCAL).entry(plan.stem)
        entry = entry.with_fields(file=str(pulled.path), hub=hub)
        store_model_entry(config, LOCAL, plan.stem, entry)
        save_config(config)
    files = ConfigModelFiles(context, source="cli", record=record, trusts_changes=True)
    files.record(plan.stem, FileRecord(real, pulled.sha256, FileStamp.of(os.stat(real))))


def _pull_event(
    plan: Plan,
    pulled: Pulled | None,
    progress: PullProgress,
    outcome: str,
    reason: str | None,
    seconds: float,
) -> ModelPull:
    from wisp.models.hub_pull import cache_folder

    fetched = pulled.fetched if pulled is not None else progress.fetched
    event = ModelPull(
        model=f"{LOCAL}:{plan.stem}",
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
        source="cli",
        approval=None,
    )
    if reason is not None:
        event.reason = reason
    return event


def _summary(plan: Plan, pulled: Pulled, seconds: float) -> str:
    """``pulled hf:OWNER/REPO/FILE as local:NAME: 98 MB fetched in 3.1 s`` and how to use it."""
    if pulled.reused:
        what = f"already in the Hub's cache ({human_bytes(pulled.size)}), checked"
    else:
        resumed = pulled.size - pulled.fetched
        what = f"{human_bytes(pulled.fetched)} fetched"
        if resumed > 0:
            what += f", {human_bytes(resumed)} resumed from an earlier pull"
    return (
        f"pulled hf:{plan.repository}/{plan.filename} as local:{plan.stem}: {what}, "
        f"in {seconds:.1f} s\nuse it: wisp -m local:{plan.stem}"
    )
