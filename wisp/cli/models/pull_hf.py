"""``wisp models pull hf:OWNER/REPO[/FILE.gguf]``: a GGUF from the Hugging Face Hub for ``local``.

The file is chosen (named, or a ``Q4_K_M`` from the repository's list), its publisher is held
to ``models.trustedPublishers`` (``model.publisher``), and it is fetched into the Hub's cache
with the same progress line as an Ollama pull (``wisp.models.hub_pull``). Its SHA-256, checked
against the Hub's, is recorded beside its entry ``local.models."NAME"`` with the file it is, so
``local:NAME`` loads it and a later change to it is refused (``wisp.models.local_files``).
``model.pull`` records how it ended (``wisp.cli.models.hub_fetch``). See docs/models.md,
"Pulling from the Hub".
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator

from wisp.audit.kinds import ConfigChange, ModelPublisher
from wisp.cli.context import Context
from wisp.cli.models.hub_fetch import HubFetch, record_model
from wisp.cli.models.pull import PullView, new_view
from wisp.cli.models.session import CLI, Origin, Record
from wisp.config import locked_config, save_config, set_value
from wisp.config.paths import shell_word
from wisp.errors import WispError
from wisp.models.hub_pull import HubRef, Plan

TRUSTED = "models.trustedPublishers"


def pull_from_hub(context: Context, name: str, *, yes: bool, record: Record) -> int:
    """Pull ``hf:name``; ``model.publisher`` and ``model.pull`` record what happened."""
    from wisp.models import hub_pull

    plan = hub_pull.plan(HubRef.parse(name))
    context.warn(f"hf:{plan.repository}: {plan.filename} ({plan.why})")
    trust_publisher(context, plan, yes=yes, record=record)
    view = new_view(context)
    fetching = HubFetch(plan, on_update=view.update)
    try:
        with _resumes_said(context, view):
            pulled = fetching.fetch()
    except KeyboardInterrupt:
        fetching.cancel("interrupted (Ctrl-C)")
        raise
    finally:
        view.finish()
        record(fetching.event(CLI))
        if fetching.outcome == "cancelled":
            context.warn("pull cancelled: what arrived is kept; pull again to resume from it")
    record_model(context, plan, pulled, record, CLI)
    print(fetching.summary(), file=context.stdout)
    print(f"use it: wisp -m local:{plan.stem}", file=context.stdout, flush=True)
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
    event = _publisher_event(plan, CLI)
    if is_trusted(context, plan.publisher):
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


def approved_publisher(context: Context, plan: Plan, origin: Origin) -> ModelPublisher:
    """``model.publisher`` for a pull the person approved (the models tool's request):
    ``trusted`` when ``models.trustedPublishers`` lists the publisher, else ``once``, since the
    person approved that pull alone. The model's say-so never adds to the setting. ``asked``:
    the approval's question, which named the publisher, was put to the person."""
    event = _publisher_event(plan, origin)
    event.asked = True
    if is_trusted(context, plan.publisher):
        event.reason = f"listed in {TRUSTED}"
    else:
        event.decision = "once"
        event.reason = f"not in {TRUSTED}: the person approved this pull alone"
    return event


def is_trusted(context: Context, publisher: str) -> bool:
    """Whether ``models.trustedPublishers`` lists ``publisher`` (without regard to case)."""
    trusted = context.load_config().settings.models.trusted_publishers
    return any(publisher.casefold() == known.casefold() for known in trusted)


def _publisher_event(plan: Plan, origin: Origin) -> ModelPublisher:
    """``trusted``, not asked: the decision is the caller's to change."""
    return ModelPublisher(
        repository=plan.repository,
        publisher=plan.publisher,
        decision="trusted",
        asked=False,
        licence=plan.licence,
        bytes=plan.size,
        reason=None,
        source=origin.source,
        approval=origin.approval,
    )


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
