"""The watch's triage and its models (docs/watch.md, "Triage"): routed as ``wisp scan
--thorough`` routes its pass (``routing.tasks.triage``, else wisp's measured default for
structured replies, else ``local``), or on the model ``-m`` names; each call recorded on the
session's log. Nothing of the model machinery is imported until a run fails."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wisp.audit import AuditLog
from wisp.cli.context import Context
from wisp.watch.types import Triaged

if TYPE_CHECKING:
    from wisp.agent.assessment import RoutedModel
    from wisp.agent.types import ResolvedModel
    from wisp.cli.building.model_choice import ModelChoice
    from wisp.watch.triage import ModelTriage

ENTRY_POINT = "watch"


class LazyTriage:
    """Reads a failure; the models, the router and the triage are built at the first."""

    def __init__(self, context: Context, log: AuditLog, command: str, model: str | None) -> None:
        self.context = context
        self.log = log
        self.command = command
        self.model = model
        """``-m``: the model every triage runs on; None routes each."""
        self._triage: ModelTriage | None = None
        self._choice: ModelChoice | None = None
        self._router: Any = None

    async def read(self, output: str) -> Triaged:
        if self._triage is None:
            self._triage = self._build()
        return await self._triage.read(output)

    async def aclose(self) -> None:
        """Closes the models the triage loaded, if it ran at all."""
        if self._router is not None:
            await self._router.aclose()
        if self._choice is not None:
            await self._choice.aclose()

    def _build(self) -> ModelTriage:
        # Imported here: a watch that never fails never pays for the model machinery.
        from wisp.agent.side_calls import SideCalls
        from wisp.cli.building.model_choice import ModelChoice
        from wisp.cli.building.session import NamedModel
        from wisp.models.selection import LOCAL
        from wisp.routing.router import Router
        from wisp.watch.triage import ModelTriage

        config = self.context.load_config()
        named = NamedModel(self.model or LOCAL, ENTRY_POINT)
        self._choice = choice = ModelChoice(self.context, named, lambda: config, self.log.record)
        if self.model is None:
            self._router = Router(lambda: config, choice.resolve)
        else:
            self._router = NamedRoute(self.model, choice)
        return ModelTriage(SideCalls(self.log, self._router, lambda: None), self.command)


class NamedRoute:
    """``-m MODEL``: every triage on that model, whatever ``routing.tasks.triage`` says, and
    ``model.routed`` saying the command line chose it. It fills the agent's ``Router``."""

    def __init__(self, selection: str, choice: ModelChoice) -> None:
        self.selection = selection
        self.choice = choice
        self._model: ResolvedModel | None = None

    async def model_for(
        self, task: str, *, structured: bool, input_bytes: int, conversation: ResolvedModel | None
    ) -> RoutedModel:
        from wisp.agent.assessment import RoutedModel
        from wisp.audit.kinds import ModelRouted

        if self._model is None:
            self._model = await self.choice.resolve(self.selection)
        reason = f"wisp watch -m {self.selection} names it"
        routed = ModelRouted(
            task=task, input_bytes=input_bytes, model=self._model.selection, reason=reason
        )
        return RoutedModel(self._model, routed)

    async def aclose(self) -> None:
        if self._model is not None:
            model, self._model = self._model, None
            await model.backend.aclose()
