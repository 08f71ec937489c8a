"""``models``: the models wisp can use, listed for the model, and its requests to check, enable
or pull one (docs/models.md, "The models tool"). Offered only when ``models.tool`` is on.

``list`` needs no approval. Each change is a request the person answers through the
conversation's approval gate, as a command's approval is asked: the question's command is the
change (``models pull hf:OWNER/REPO/FILE.gguf``), asked whatever the threshold, approved once
at most, and never by ``--yes`` (``ASKED_EACH_TIME``, ``ONLY_PERSON``). What the change records
carries ``source: tool`` and the approval's id. A pull runs in the background: the result says
it started; ``list`` says how it ended once it has, and ``model.pull`` records it in this
conversation's log (``inspect``'s audit view).

The work is the face's (``ModelActions``, the ``wisp models`` command's own functions), handed
in as a command runner is handed to ``run_command``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Protocol

import msgspec
from msgspec import UNSET, UnsetType

from wisp.agent.types import ToolContext
from wisp.errors import WispError
from wisp.policy.gate import ApprovalGate, GateResult
from wisp.policy.types import ASKED_EACH_TIME, ONLY_PERSON, Assessment, Level, SimpleCommand
from wisp.tools.arguments import parse_arguments, schema_of
from wisp.tools.model_pulls import BackgroundPulls

Record = Callable[[Any], Any]
"""Records one audit event in the asking conversation, under the call's id."""

CHANGES = ("check", "enable", "pull")
EACH_TIME = "the model's request to change its models: the person answers each one"
PERSON_ONLY = "only the person approves the model's request to change its models, never --yes"


class ModelsArgs(msgspec.Struct, kw_only=True):
    action: Annotated[str, msgspec.Meta(description="list, check, enable or pull")]
    name: (
        Annotated[str, msgspec.Meta(description="local:NAME, ollama:NAME, hf:OWNER/REPO")]
        | UnsetType
    ) = UNSET


class ModelChange(Protocol):
    """One change the model asked for, ready to be put to the person."""

    command: str
    """What the approval question shows: ``models pull hf:OWNER/REPO/FILE.gguf``."""
    level: Level
    reasons: list[str]
    """What the person is told of it: what it fetches or writes, and from whom."""
    in_background: bool
    """A pull: it runs on after the call returns."""

    async def run(self, approval: str, record: Record) -> str:
        """Make the change under the approval ``approval``, recording what it does; what the
        model is told of it."""
        ...

    def declined(self, reason: str, record: Record) -> None:
        """The person did not approve it (``reason``): record that nothing was done."""
        ...


class ModelActions(Protocol):
    """What the face does for the tool (the CLI's ``wisp models`` functions)."""

    pulls: BackgroundPulls
    """The pulls running for the face's conversations, closed with the face."""

    async def listing(self, in_use: str) -> str:
        """The catalog, compact; ``in_use`` is the conversation's model."""
        ...

    async def change(self, action: str, name: str) -> ModelChange | str:
        """The change ``action`` (check, enable or pull) of ``name``, or what to tell the
        model when there is nothing to change; ``WispError`` when it cannot be made."""
        ...


class ModelsTool:
    """Lists the models; checks, enables or pulls one once the person approves."""

    name = "models"
    description = (
        "List the models wisp can use, or check, enable or pull one if the person approves."
    )
    parameters = schema_of(ModelsArgs)
    read_only = False

    def __init__(self, actions: ModelActions, gate: ApprovalGate) -> None:
        self.actions = actions
        self.gate = gate

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> str:
        args = parse_arguments(self.name, arguments, ModelsArgs, context.notes)
        if isinstance(args, str):
            return args
        action = args.action.strip().lower()
        if action == "list":
            return await self._list(context)
        if action not in CHANGES:
            return f"error: unknown action '{args.action}'; use list, check, enable or pull"
        name = args.name.strip() if isinstance(args.name, str) else ""
        if not name:
            return f"error: {action} needs a name: local:NAME, ollama:NAME or hf:OWNER/REPO"
        try:
            change = await self.actions.change(action, name)
        except WispError as exc:
            return f"error: {exc}"
        if isinstance(change, str):
            return change  # nothing to change: nothing to ask
        return await self._approved(change, context)

    async def _list(self, context: ToolContext) -> str:
        listing = await self.actions.listing(context.conversation.model)
        pulls = self.actions.pulls.said(context.conversation.session)
        if not pulls:
            return listing
        return "\n".join([listing, "", "pulls this conversation asked for:", *pulls])

    async def _approved(self, change: ModelChange, context: ToolContext) -> str:
        """The change put to the person; made if they approve it."""
        session = context.conversation.session
        if change.in_background and self.actions.pulls.running(change.command, session):
            return f"{change.command} is running already; this tool's list action says how it ends"
        decision = await self._ask(change, context)
        if not decision.approved or decision.approval_id is None:
            change.declined(decision.reason, context.record)
            return f"error: {change.command} not approved: {decision.reason}; nothing was changed"
        if not change.in_background:
            return await change.run(decision.approval_id, context.record)
        pulling = change.run(decision.approval_id, context.record)
        self.actions.pulls.start(change.command, session, pulling)
        return (
            f"approved: {change.command} started in the background (approval "
            f"{decision.approval_id}). It goes on after this turn; this tool's list action "
            "says how it ended, and the audit log records it (inspect audit, kind model.pull)."
        )

    async def _ask(self, change: ModelChange, context: ToolContext) -> GateResult:
        """The person's answer, through the conversation's gate as a command's is asked."""
        part = SimpleCommand(
            text=change.command, executable=None, subcommand=None, pattern=change.command
        )
        assessment = Assessment(
            change.level,
            list(change.reasons),
            sources=["models"],
            metadata={ASKED_EACH_TIME: EACH_TIME, ONLY_PERSON: PERSON_ONLY},
        )
        conversation = context.conversation
        return await self.gate.authorize(
            change.command,
            [part],
            [assessment],
            context.working_directory,
            turn=conversation.turn,
            stop=conversation.stop_requested,
        )
