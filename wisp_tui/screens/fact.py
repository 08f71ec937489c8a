"""The dialog for a fact to keep (docs/tui.md, "Dialogs"): a fact a `wisp mcp` caller (or the
model there) proposes to keep for every conversation, which only the person decides (an
`approval` line with `kind: "fact"`)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.events import Key
from textual.widgets import Static

from wisp.protocol import Approval

from .. import palette
from .approval import mcp_origin
from .dialog import Dialog

DECISIONS = {"k": "keep", "d": "drop", "n": "drop"}
"""Each key and the decision it sends."""

OUTCOMES = {
    "keep": "⚠ kept for every conversation: {}",
    "drop": "⚠ not kept (it stays its thread's): {}",
}
"""The muted note each decision leaves in the transcript."""


def is_fact(approval: Approval) -> bool:
    """Whether the request is a fact to keep rather than a command."""
    return approval.kind == "fact"


class FactScreen(Dialog[str]):
    """Shows the fact and who proposed it; dismisses with `keep` or `drop`."""

    DEFAULT_CSS = """
    FactScreen > #box { border: round $amber; border-title-color: $amber; }
    FactScreen #fact { color: $white; text-style: bold; }
    FactScreen .muted { color: $mist; }
    FactScreen #keys { color: $white; margin-top: 1; }
    """

    def __init__(self, approval: Approval) -> None:
        super().__init__(approval.id)
        self.approval = approval

    def compose(self) -> ComposeResult:
        approval = self.approval
        with Vertical(id="box") as box:
            box.border_title = "keep fact · wisp mcp"
            yield Static(Text(approval.command), id="fact")
            source = approval.fact.source if approval.fact else "caller"
            origin = Text(f"proposed by the {source}; {mcp_origin(approval)}")
            yield Static(origin, id="origin", classes="muted")
            yield Static(
                Text("kept, every conversation of yours carries it until you delete it"),
                classes="muted",
            )
            hint = Text()
            hint.append("[k]eep for every conversation", style=palette.AMBER)
            hint.append(" [d]rop", style=palette.WHITE)
            yield Static(hint, id="keys")

    def take_key(self, event: Key) -> None:
        event.stop()
        decision = DECISIONS.get((event.character or "").lower())
        if decision is not None:
            self.dismiss(decision)

    def action_cancel(self) -> None:
        self.dismiss("drop")
