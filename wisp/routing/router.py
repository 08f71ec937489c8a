"""The model each routed task runs on (docs/models.md, "Routed tasks").

A routed task is a call wisp makes to a model of its own accord (``TASKS``): the assessment of
a turn's tools, distillation, the running summary, memory's reading, scan's thorough pass,
drafts; watch's triage, verification and the command classifier as they come. Every one asks
``Router.model_for``, which chooses, in order:

1. ``routing.tasks.<task>``, the model the person named for the task (a disabled one refused);
2. wisp's measured default: the smallest enabled model whose recorded capability check
   (``wisp models check``, ``<scheme>.models.<name>.verified``) passed what the task needs:
   structured replies (``guidedGeneration``) for a JSON answer, a reply otherwise;
3. the conversation's model;
4. ``local``.

A model that cannot be loaded passes the choice on down the list, and the reason says so. The
reason of each choice goes into the ``model.routed`` the caller records. ``routes`` is the same
choice read from the settings alone, loading nothing: what ``wisp models`` shows.
"""

from __future__ import annotations

import os
import re
from collections.abc import Awaitable, Callable, Iterator

import msgspec

from wisp.agent.assessment import RoutedModel
from wisp.agent.types import ModelUnavailable, ResolvedModel
from wisp.audit.kinds import ModelRouted
from wisp.config import Config
from wisp.config.model_entry import ModelEntry, Verified, as_stored
from wisp.models.selection import LOCAL, canonical_selection

Resolve = Callable[[str], Awaitable[ResolvedModel]]
"""A selection resolved with the settings in force; a disabled one refused."""

MEASURED_SCHEMES = ("local", "llamacpp", "openai")
"""The runtimes whose capabilities a check records in config.json (``wisp models check``)."""

Q4_BYTES_PER_PARAMETER = 0.6
"""A served model's size is guessed from the parameters its name gives (``qwen2.5-1.5b``) at
about what a Q4_K_M GGUF takes: a local file's own size is measured instead."""

_PARAMETERS = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*[bB](?![A-Za-z])")


class Route(msgspec.Struct, frozen=True):
    """A task's model, before it is loaded, and why it was chosen."""

    model: str
    reason: str


class RoutedTask(msgspec.Struct, frozen=True):
    """A task wisp asks of a model of its own accord, and what its callers need of the model."""

    name: str
    structured: bool
    """Its callers ask for JSON held to a schema (``structured=True`` to ``model_for``), so its
    measured default must have passed structured replies; else a plain reply will do."""
    in_conversation: bool
    """It runs inside a conversation, whose model is its fallback; else ``local`` is (a
    command of its own: ``wisp scan --thorough``, ``wisp draft``, ``wisp watch``)."""


TASKS: tuple[RoutedTask, ...] = (
    RoutedTask("assess", structured=True, in_conversation=True),
    RoutedTask("distill", structured=True, in_conversation=True),
    RoutedTask("summary", structured=False, in_conversation=True),
    RoutedTask("summarise", structured=False, in_conversation=True),
    RoutedTask("condense", structured=False, in_conversation=True),
    RoutedTask("scan", structured=True, in_conversation=False),
    RoutedTask("redact", structured=True, in_conversation=False),
    RoutedTask("triage", structured=True, in_conversation=False),
    RoutedTask("draft", structured=False, in_conversation=False),
    RoutedTask("verify", structured=True, in_conversation=True),
    RoutedTask("classify", structured=True, in_conversation=True),
)
"""Every routed task (one ``routing.tasks.<task>`` each), as its callers ask for it."""


class TaskRoute(msgspec.Struct, frozen=True, rename="camel"):
    """Where a task's next call would go, and why: a row of ``wisp models``' routed tasks."""

    task: str
    model: str
    reason: str
    structured: bool
    """The task wants structured replies (JSON held to a schema), not a plain reply."""


class Candidate(msgspec.Struct, frozen=True):
    """A model whose recorded check vouches for a task, with the size it is ranked by."""

    selection: str
    size: float | None
    """Bytes, measured for a local file and guessed from the name for a served model; None
    when neither says (ranked last)."""
    date: str


class Router:
    """Chooses and loads the model of each routed task for one face's session."""

    def __init__(self, config: Callable[[], Config], resolve: Resolve) -> None:
        self._config = config
        self._resolve = resolve
        self._loaded: dict[str, ResolvedModel] = {}
        """Models loaded for tasks, by canonical selection: each is loaded once a session."""

    def choose(self, task: str, *, structured: bool, conversation: str | None) -> list[Route]:
        """The models ``task`` may run on, best first, each with its reason."""
        return routes(self._config(), task, structured=structured, conversation=conversation)

    async def model_for(
        self,
        task: str,
        *,
        structured: bool,
        input_bytes: int,
        conversation: ResolvedModel | None,
    ) -> RoutedModel:
        """The model ``task`` runs on, loaded, and its ``model.routed``. A model named by
        ``routing.tasks`` that cannot be used is refused (``ModelUnavailable``); one wisp chose
        that cannot be loaded passes the task on to the next."""
        current = None if conversation is None else conversation.selection
        routes = self.choose(task, structured=structured, conversation=current)
        named = routes[0].reason.startswith("routing.tasks.")
        failures: list[str] = []
        for route in routes:
            try:
                model = await self._load(route.model, conversation)
            except ModelUnavailable as exc:
                if named:
                    raise
                failures.append(f"{route.model} could not be loaded ({exc})")
                continue
            reason = "; ".join([*failures, route.reason])
            details = ModelRouted(
                task=task, input_bytes=input_bytes, model=model.selection, reason=reason
            )
            return RoutedModel(model, details)
        raise ModelUnavailable("; ".join(failures))

    async def aclose(self) -> None:
        """Closes the models loaded for tasks (a conversation's own is its owner's to close)."""
        loaded, self._loaded = list(self._loaded.values()), {}
        for model in loaded:
            await model.backend.aclose()

    async def _load(self, selection: str, conversation: ResolvedModel | None) -> ResolvedModel:
        """The model, loaded once: the conversation's own when it is the same one (a second
        copy of a local model would take its memory twice)."""
        wanted = canonical_selection(selection)
        if conversation is not None and _same(wanted, conversation):
            return conversation
        if wanted not in self._loaded:
            self._loaded[wanted] = await self._resolve(selection)
        return self._loaded[wanted]


def routes(config: Config, task: str, *, structured: bool, conversation: str | None) -> list[Route]:
    """The models ``task`` may run on, best first, each with its reason: what
    ``Router.model_for`` tries in order, read from the settings alone (nothing is loaded)."""
    settings = config.settings
    named = getattr(settings.routing.tasks, task, None)
    if named is not None:
        return [Route(named, f"routing.tasks.{task} names it")]
    chosen: list[Route] = []
    need = "structured replies" if structured else "a plain reply"
    best = measured_default(config, structured=structured)
    if best is not None:
        size = "" if best.size is None else f", about {best.size / 1e6:,.0f} MB"
        reason = (
            f"wisp's measured default: the smallest enabled model whose capability check "
            f"({best.date}) passed {need}{size}"
        )
        chosen.append(Route(best.selection, reason))
    if conversation is not None:
        chosen.append(Route(conversation, "the conversation's model"))
    chosen.append(Route(LOCAL, "the default local model"))
    if best is None:
        why = f"no enabled model's recorded capability check passed {need}"
        chosen = [Route(r.model, f"{why}: {r.reason}") for r in chosen]
    return chosen


def task_routes(config: Config, conversation: str | None) -> list[TaskRoute]:
    """Where each task of ``TASKS`` would go now, as its callers ask for it: the first of its
    ``routes``, a conversation's task with ``conversation`` as the conversation's model."""
    shown: list[TaskRoute] = []
    for task in TASKS:
        current = conversation if task.in_conversation else None
        first = routes(config, task.name, structured=task.structured, conversation=current)[0]
        shown.append(TaskRoute(task.name, first.model, first.reason, task.structured))
    return shown


def _same(selection: str, model: ResolvedModel) -> bool:
    if selection == model.selection:
        return True
    # local:/path/x.gguf and the conversation's local (or local:NAME) load the same file.
    path = selection.partition(":")[2]
    return selection.startswith(f"{LOCAL}:") and model.backend_name == LOCAL and path == model.asset


def measured_default(config: Config, *, structured: bool) -> Candidate | None:
    """The smallest enabled model whose recorded check passed what a task needs."""
    disabled = set()
    for spelling in config.settings.models.disabled:
        try:
            disabled.add(canonical_selection(spelling))
        except ModelUnavailable:
            continue
    found = [c for c in _candidates(config, structured) if c.selection not in disabled]
    return min(found, key=lambda c: (c.size is None, c.size or 0.0, c.selection), default=None)


def _candidates(config: Config, structured: bool) -> Iterator[Candidate]:
    for scheme in MEASURED_SCHEMES:
        section = config.settings.runtime(scheme)
        if section is None:
            continue
        for name, entry in section.models.items():
            date = _vouched(entry, structured)
            if date is None:
                continue
            selection, size = _located(scheme, name, entry)
            if selection is not None:
                yield Candidate(selection, size, date)


def _vouched(entry: ModelEntry, structured: bool) -> str | None:
    """The day of the entry's recorded check if it passed what is needed, else None. A check
    is recorded only when the model replied, so a record vouches for a plain reply."""
    verified = entry.verified
    if not isinstance(verified, Verified):
        return None
    date, passed = as_stored(verified.date), as_stored(verified.passed)
    if not isinstance(date, str):
        return None
    if structured and not (isinstance(passed, list) and "guidedGeneration" in passed):
        return None
    return date


def _located(scheme: str, name: str, entry: ModelEntry) -> tuple[str | None, float | None]:
    """The selection that loads the entry's model, and its size."""
    if scheme != LOCAL:
        match = _PARAMETERS.search(name)
        guessed = float(match.group(1)) * 1e9 * Q4_BYTES_PER_PARAMETER if match else None
        return canonical_selection(f"{scheme}:{name}"), guessed
    pulled, hashed = as_stored(entry.file), as_stored(entry.sha256_path)
    if isinstance(pulled, str):
        return f"{LOCAL}:{name}", _file_size(pulled)
    if isinstance(hashed, str):  # the file a check of local:PATH loaded, by its real path
        return canonical_selection(f"{LOCAL}:{hashed}"), _file_size(hashed)
    return None, None


def _file_size(path: str) -> float | None:
    try:
        return float(os.stat(os.path.expanduser(path)).st_size)
    except OSError:
        return None
