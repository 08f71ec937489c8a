"""The approval dialog (docs/tui.md, "Dialogs"): a command waiting for the person's yes or no,
this chat's own or one a `wisp mcp` server waits on (`source: "mcp"`)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.events import Key
from textual.widgets import Static

from wisp.protocol import Approval

from .. import palette
from .dialog import Dialog

DECISIONS = {"y": "once", "s": "session", "p": "project", "a": "always", "n": "no"}
"""Each key and the decision it sends."""

LASTING = ("session", "project", "always")

OUTCOMES = {
    "once": "⚠ approved for this turn: {}",
    "session": "⚠ approved for this session: {}",
    "project": "⚠ approved in this project for 30 days: {}",
    "always": "⚠ approved everywhere for 30 days: {}",
    "no": "⚠ refused: {}",
}
"""The muted note each decision leaves in the transcript."""


def allowed_decisions(level: str) -> tuple[str, ...]:
    """A dangerous command may be allowed once or refused, never for longer."""
    return ("once", "no") if level == "dangerous" else ("once", *LASTING, "no")


def is_from_mcp(approval: Approval) -> bool:
    """Whether a `wisp mcp` server waits on it, rather than this chat."""
    return approval.source == "mcp"


def mcp_origin(approval: Approval) -> str:
    """Where a relayed request waits: `waiting in wisp mcp for <client>, thread <thread>`."""
    client = approval.client if isinstance(approval.client, str) else "an MCP client"
    thread = approval.thread if isinstance(approval.thread, str) else "unnamed"
    return f"waiting in wisp mcp for {client}, thread {thread}"


class ApprovalScreen(Dialog[str]):
    """Shows the command and dismisses with the decision: `once`, `session`, …, or `no`."""

    DEFAULT_CSS = """
    ApprovalScreen > #box.-moderate { border: round $amber; border-title-color: $amber; }
    ApprovalScreen > #box.-dangerous { border: round $ember; border-title-color: $ember; }
    ApprovalScreen #command { color: $white; text-style: bold; }
    ApprovalScreen .muted { color: $mist; }
    ApprovalScreen .reason { color: $white; }
    ApprovalScreen #keys { color: $white; margin-top: 1; }
    """

    def __init__(self, approval: Approval) -> None:
        super().__init__(approval.id)
        self.approval = approval

    def compose(self) -> ComposeResult:
        approval = self.approval
        level = approval.level if approval.level in ("moderate", "dangerous") else "safe"
        with Vertical(id="box", classes=f"-{level}") as box:
            box.border_title = f"approve · {approval.level}"
            if is_from_mcp(approval):
                box.border_title += " · wisp mcp"
            yield Static(Text(approval.command), id="command")
            if is_from_mcp(approval):
                yield Static(Text(mcp_origin(approval)), id="origin", classes="muted")
            if approval.line and approval.line != approval.command:
                yield Static(Text(f"part of: {approval.line}"), classes="muted")
            if approval.directory:
                yield Static(Text(f"in {approval.directory}"), classes="muted")
            for reason in approval.reasons[:4]:
                yield Static(Text(f"- {reason}"), classes="reason")
            if approval.pattern:
                yield Static(Text(f"remembered as {approval.pattern}"), classes="muted")
            yield Static(self._keys_hint(), id="keys")

    def _keys_hint(self) -> Text:
        labels = {
            "once": "[y]once",
            "session": "[s]ession",
            "project": "[p]roject 30d",
            "always": "[a]lways 30d",
            "no": "[n]o",
        }
        colour = palette.level_colour(self.approval.level)
        hint = Text()
        for decision in allowed_decisions(self.approval.level):
            if hint:
                hint.append(" ")
            hint.append(labels[decision], style=colour if decision != "no" else palette.WHITE)
        return hint

    def take_key(self, event: Key) -> None:
        event.stop()
        decision = DECISIONS.get((event.character or "").lower())
        if decision in allowed_decisions(self.approval.level):
            self.dismiss(decision)

    def action_cancel(self) -> None:
        self.dismiss("no")
