"""``inspect``: wisp's own state, read-only: its config, status, approvals and audit.

Every view is capped at 4 KiB. API keys and other secrets in the config are shown only as
``set (config.json)`` or ``unset`` (``wisp.config.secrets``).
"""

from __future__ import annotations

import asyncio
from collections import deque
from pathlib import Path
from typing import Annotated, Any

import msgspec
from msgspec import UNSET, UnsetType

from wisp import __version__
from wisp.agent.types import ConversationView, ToolContext
from wisp.audit.details import REGISTRY
from wisp.audit.event_filter import EventFilter
from wisp.audit.reader import read_decoded
from wisp.audit.summary import summary_line
from wisp.config import SETTINGS, split_path
from wisp.config.secrets import SET_IN_FILE, is_secret
from wisp.diagnostics import logger
from wisp.tools.arguments import parse_arguments, schema_of
from wisp.tools.output import bounded, hold_back

VIEWS = ("config", "status", "approvals", "audit")
CAP = 4096
"""Every view's bytes at most."""
AUDIT_LAST = 20
AUDIT_LAST_MAX = 100
SUMMARY_WIDTH = 160
"""An audit summary line's characters at most: 20 of them must share the 4 KiB."""
NO_EVENTS = "no matching audit events"


class InspectArgs(msgspec.Struct, kw_only=True):
    what: str
    last: (
        Annotated[int, msgspec.Meta(description="audit: the latest N events (20; at most 100)")]
        | UnsetType
    ) = UNSET
    kind: Annotated[str, msgspec.Meta(description="audit: only this kind")] | UnsetType = UNSET
    session: (
        Annotated[str, msgspec.Meta(description="audit: only this session (or a prefix)")]
        | UnsetType
    ) = UNSET


class Sandbox(msgspec.Struct, rename="camel"):
    """How commands are confined, as the command runner reports it; None when this
    conversation runs no commands. wisp never claims a sandbox it does not have."""

    mechanism: str | None = None


class Status(msgspec.Struct, rename="camel"):
    """``inspect status``: the conversation and this wisp."""

    session: str
    entry_point: str | None
    turn: int
    model: str
    tools: list[str]
    session_approvals: list[str]
    audit_file: str | None
    version: str
    sandbox: Sandbox


class InspectTool:
    """Shows wisp's own state: config, status, approvals, or recent audit events."""

    name = "inspect"
    description = (
        "Wisp's own state; what: config (its settings), status (session, model), approvals, or "
        "audit (recent events)."
    )
    parameters = schema_of(InspectArgs)
    extra_parameters = ("last", "kind", "session")
    read_only = True

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> str:
        args = parse_arguments(self.name, arguments, InspectArgs, context.notes)
        if isinstance(args, str):
            return args
        view = context.conversation
        match args.what.strip().lower():
            case "config":
                return _json_view(_config_in_force(view.config))
            case "status":
                return _json_view(_status(view))
            case "approvals":
                return "[]"  # nothing approves commands yet, so there is nothing to list
            case "audit":
                return await _audit(args, view)
            case _:
                return f"error: unknown view '{args.what}'; use config, status, approvals, or audit"


def _json_view(value: Any) -> str:
    """Pretty JSON, compact when pretty passes the cap, cut when even that does."""
    compact = msgspec.json.encode(value)
    pretty = msgspec.json.format(compact, indent=2).decode()
    if len(pretty.encode()) <= CAP:
        return pretty
    return bounded(compact.decode(), CAP - 64)


def _status(view: ConversationView) -> Status:
    return Status(
        session=view.session,
        # Not every conversation names its entry point yet: null rather than a guess.
        entry_point=getattr(view, "entry_point", None),
        turn=view.turn,
        model=view.model,
        tools=list(view.tool_names),
        session_approvals=[],
        audit_file=None if view.audit_file is None else str(view.audit_file),
        version=__version__,
        sandbox=Sandbox(mechanism=getattr(view, "sandbox_mechanism", None)),
    )


def _config_in_force(config: Any) -> dict[str, Any]:
    """Every setting's value in force, then the other keys the file keeps (model entries,
    unknown keys), nested as config.json nests them; secrets as ``set``/``unset``."""
    shown: dict[str, Any] = {}
    for key in SETTINGS:
        _put(shown, key, config.value(key))
    for key, value in config.leaves():
        if key not in SETTINGS:
            _put(shown, key, value)
    return shown


def _put(tree: dict[str, Any], key: str, value: Any) -> None:
    *parents, name = split_path(key)  # a model's name may hold dots
    node = tree
    for part in parents:
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            return  # a stored value where settings nest beneath it: the value stays shown
        node = child
    if is_secret(key):
        value = SET_IN_FILE if value else "unset"
    node[name] = value


async def _audit(args: InspectArgs, view: ConversationView) -> str:
    kind = None if args.kind is UNSET or not args.kind.strip() else args.kind.strip()
    if kind is not None and kind not in REGISTRY:
        return f"error: unknown kind '{kind}'; kinds: {', '.join(REGISTRY)}"
    last = AUDIT_LAST if args.last is UNSET else min(args.last, AUDIT_LAST_MAX)
    if last < 1:
        return f"error: last must be from 1 to {AUDIT_LAST_MAX}, got {args.last}"
    if view.audit_file is None:
        return "error: the audit log is off (audit.enabled is false), so it has no events"
    session = None if args.session is UNSET else args.session.strip() or None
    event_filter = EventFilter(session=session, kinds=frozenset({kind} if kind else ()))
    logs_dir = view.audit_file.parent
    lines = await asyncio.to_thread(_summaries, logs_dir, event_filter, last)
    if not lines:
        return NO_EVENTS
    return hold_back(
        "\n".join(lines), CAP, hint="ask for fewer with last, or narrow with kind or session"
    )


def _summaries(logs_dir: Path, event_filter: EventFilter, last: int) -> list[str]:
    # A torn or foreign line is the reader's to skip; the model needs no word of it.
    events = deque(read_decoded(logs_dir, event_filter, logger.debug), maxlen=last)
    return [summary_line(event, width=SUMMARY_WIDTH) for event in events]
