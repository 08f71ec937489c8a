"""The ``wisp models`` commands as the model's ``models`` tool runs them
(``wisp.tools.models.ModelActions``): the catalog, a line a model, and each change (a
check, an enable, a pull) made with the command line's own functions once the person approved
it, recorded in the asking conversation's log with ``source: tool`` and the approval's id
(docs/models.md, "The models tool").

Nothing here writes to the terminal: under ``wisp mcp`` stdout is the protocol's. A pull says
nothing while it runs; its result is what the tool's ``list`` tells of it afterwards.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from wisp.cli.context import Context
from wisp.cli.models.check import Uncheckable, check_and_record, enable_checked, needs_check
from wisp.cli.models.check import outcome_message as check_outcome
from wisp.cli.models.command import PULL_ELSEWHERE, picker_rows
from wisp.cli.models.disabled import canonical, disabled_list
from wisp.cli.models.hub_fetch import HubFetch, hub_pull_event, record_model
from wisp.cli.models.pull import ollama_pull_event, pull_recorded
from wisp.cli.models.pull_hf import TRUSTED, approved_publisher, is_trusted
from wisp.cli.models.session import Origin, Record
from wisp.cli.models.table import capabilities_cell, unreachable_line
from wisp.errors import WispError
from wisp.models.catalog import human_bytes
from wisp.models.check import CHECKED_SCHEMES
from wisp.models.hub_pull import HubRef, Plan
from wisp.models.ollama_pull import new_progress
from wisp.models.selection import parse_selection
from wisp.tools.model_pulls import BackgroundPulls

if TYPE_CHECKING:
    from wisp.models.catalog import Catalog, ModelRow
    from wisp.tools.models import ModelChange

TOOL = "tool"
ENDED = "the face closed before the pull ended"
"""Why a background pull was cancelled: its conversation's face (a chat, a server) closed."""
RUNS_INSIDE = "the file runs in wisp's own process, outside the sandbox"
CHECK_WORDS = (
    "loads the model and asks it three short questions (a reply, a tool call, a structured "
    "reply): up to 3 min for the first, 60 s for each other"
)


def tool_origin(approval: str | None) -> Origin:
    return Origin(TOOL, approval)


class ModelsCommands:
    """The face's ``ModelActions``: one per session builder, closed with it."""

    def __init__(self, context: Context) -> None:
        self.context = context
        self.pulls = BackgroundPulls()

    async def listing(self, in_use: str) -> str:
        config = self.context.load_config()
        catalog = await picker_rows(config, self.context.environ, in_use=in_use)
        return compact_listing(catalog)

    async def change(self, action: str, name: str) -> ModelChange | str:
        selection = parse_selection(name)
        if action == "check":
            if selection.scheme not in CHECKED_SCHEMES:
                return f"{name}: its runtime reports what it can do; there is nothing to check"
            return CheckChange(self.context, selection.canonical)
        if action == "enable":
            return self._enable(selection.canonical)
        if action == "pull":
            return await self._pull(selection.scheme, selection.name, selection.canonical)
        raise WispError(f"unknown action {action!r}: use check, enable or pull")

    def _enable(self, selection: str) -> ModelChange | str:
        config = self.context.load_config()
        is_off = canonical(selection) in {canonical(s) for s in disabled_list(config)}
        checks = needs_check(config, selection)
        if not is_off and not checks:
            return f"{selection} is enabled already; nothing to change"
        return EnableChange(self.context, selection, checks=checks)

    async def _pull(self, scheme: str, name: str, selection: str) -> ModelChange:
        if scheme == "hf":
            from wisp.models import hub_pull

            plan = await asyncio.to_thread(hub_pull.plan, HubRef.parse(name))
            return HubPull(self.context, plan)
        if scheme == "ollama":
            return OllamaPull(self.context, name, selection)
        raise WispError(PULL_ELSEWHERE.get(scheme, f"{scheme} models cannot be pulled"))

    async def aclose(self) -> None:
        """Cancels the pulls still running; each records itself as cancelled."""
        await self.pulls.aclose()


def compact_listing(catalog: Catalog) -> str:
    """One line a model: ``* local:NAME · local · enabled · tools (verified)``, ``*`` marking
    the one in use; then a line for each runtime that did not answer."""
    lines = ["models (* the one in use):", *map(_row_line, catalog.models)]
    lines += [f"unreachable: {unreachable_line(runtime)}" for runtime in catalog.unreachable]
    return "\n".join(lines)


def _row_line(row: ModelRow) -> str:
    cells = [
        ("* " if row.in_use else "") + row.selection,
        row.runtime,
        "enabled" if row.enabled else "disabled",
        capabilities_cell(row) or "capabilities unknown",
    ]
    if row.problem:
        cells.append(f"not usable: {row.problem}")
    return " · ".join(cells)


class CheckChange:
    """``models check NAME``: the capability check, recorded as ``wisp models check`` does."""

    level = "moderate"
    in_background = False

    def __init__(self, context: Context, selection: str) -> None:
        self.context = context
        self.selection = selection
        self.command = f"models check {selection}"
        self.reasons = [CHECK_WORDS, "records what it can do in config.json (model.verified)"]

    async def run(self, approval: str, record: Record) -> str:
        import httpx

        said: list[str] = []
        async with httpx.AsyncClient() as client:
            try:
                result = await check_and_record(
                    self.context, self.selection, trigger="check", origin=tool_origin(approval),
                    record=record, say=said.append, client=client,
                )  # fmt: skip
            except Uncheckable as exc:
                return f"error: {self.selection} cannot be checked: {exc}"
        return "\n".join([*said, check_outcome(self.selection, result)])

    def declined(self, reason: str, record: Record) -> None:
        """Nothing ran and nothing was written: the gate's ``approval.decided`` says why."""


class EnableChange:
    """``models enable NAME``: on again in ``models.disabled``, checked first when nothing is
    declared for it, as ``wisp models enable`` does."""

    level = "moderate"
    in_background = False

    def __init__(self, context: Context, selection: str, *, checks: bool) -> None:
        self.context = context
        self.selection = selection
        self.command = f"models enable {selection}"
        self.reasons = [f"takes {selection} out of models.disabled in config.json"]
        if checks:
            self.reasons.append(f"nothing is recorded of what it can do, so it first {CHECK_WORDS}")

    async def run(self, approval: str, record: Record) -> str:
        said: list[str] = []
        await enable_checked(
            self.context, [self.selection], record=record, say=said.append,
            origin=tool_origin(approval),
        )  # fmt: skip
        return "\n".join(said) or f"{self.selection} is enabled"

    def declined(self, reason: str, record: Record) -> None:
        """Nothing was written: the gate's ``approval.decided`` says why."""


class HubPull:
    """``models pull hf:OWNER/REPO/FILE.gguf``: ``model.publisher`` once approved, then the
    file fetched in the background and recorded as ``wisp models pull hf:…`` does."""

    level = "dangerous"
    in_background = True

    def __init__(self, context: Context, plan: Plan) -> None:
        self.context = context
        self.plan = plan
        self.command = f"models pull hf:{plan.repository}/{plan.filename}"
        size = f", {human_bytes(plan.size)}" if plan.size else ""
        licence = f", licence {plan.licence}" if plan.licence else ""
        if is_trusted(context, plan.publisher):
            trust = f"published by {plan.publisher}{licence}, whom {TRUSTED} lists"
        else:
            trust = (
                f"published by {plan.publisher}{licence}, whom {TRUSTED} does not list: "
                "approving trusts them for this pull alone"
            )
        self.reasons = [
            f"downloads {plan.filename} ({plan.why}{size}) to run as local:{plan.stem}",
            trust,
            RUNS_INSIDE,
        ]

    async def run(self, approval: str, record: Record) -> str:
        origin = tool_origin(approval)
        record(approved_publisher(self.context, self.plan, origin))
        fetching = HubFetch(self.plan)
        try:
            pulled = await asyncio.to_thread(fetching.fetch)
        except asyncio.CancelledError:
            fetching.cancel(ENDED)
            raise
        except (WispError, OSError) as exc:
            return f"failed: {exc}"
        finally:
            record(fetching.event(origin))
        record_model(self.context, self.plan, pulled, record, origin)
        return f"{fetching.summary()}; the model local:{self.plan.stem} can be used now"

    def declined(self, reason: str, record: Record) -> None:
        plan = self.plan
        progress = new_progress(plan.filename)
        record(hub_pull_event(plan, None, progress, "declined", reason, 0.0, tool_origin(None)))


class OllamaPull:
    """``models pull ollama:NAME``: Ollama pulls it in the background, recorded as ``wisp
    models pull ollama:…`` records it."""

    level = "dangerous"
    in_background = True

    def __init__(self, context: Context, name: str, selection: str) -> None:
        self.context = context
        self.name = name
        self.selection = selection
        self.command = f"models pull {selection}"
        self.reasons = [
            f"has Ollama download {name} (its size is known once Ollama starts)",
            "Ollama serves it from its own process, not wisp's",
        ]

    async def run(self, approval: str, record: Record) -> str:
        from wisp.agent.types import ModelError

        try:
            return await pull_recorded(
                self.context.load_config(), self.name, record=record,
                origin=tool_origin(approval), on_update=lambda progress: None, cancelled=ENDED,
            )  # fmt: skip
        except ModelError as exc:
            return f"failed: {exc}"

    def declined(self, reason: str, record: Record) -> None:
        progress = new_progress(self.name)
        record(
            ollama_pull_event(
                self.selection, self.name, progress, "declined", reason, 0.0, tool_origin(None)
            )
        )
