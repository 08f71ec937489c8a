"""The guidance dialog (docs/tui.md, "Dialogs"): a project's guidance file shown whole before
wisp uses it, with its path, size and why it is asked about (docs/turn.md, "Guidance files")."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.events import Key
from textual.widget import Widget
from textual.widgets import Static

from wisp.protocol import Approval, ApprovalGuidance

from .dialog import Dialog

DECISIONS = {"y": "yes", "n": "no"}
"""Each key and the answer it sends."""

OUTCOMES = {
    "yes": "⚠ guidance used, in this and later sessions while it stays as it is: {}",
    "no": "⚠ guidance left out: {}",
}
"""The muted note each answer leaves in the transcript."""


def is_guidance(approval: Approval) -> bool:
    """Whether the request is a guidance file to use rather than a command."""
    return approval.kind == "guidance"


class GuidanceScreen(Dialog[str]):
    """Shows the file whole (↑↓ and PageUp/PageDown scroll it) and dismisses with `yes` or
    `no`; Ctrl-C leaves it out."""

    DEFAULT_CSS = """
    GuidanceScreen > #box { border: round $amber; border-title-color: $amber; }
    GuidanceScreen #path { color: $white; text-style: bold; }
    GuidanceScreen .muted { color: $mist; }
    GuidanceScreen #text { height: auto; max-height: 16; color: $white; }
    GuidanceScreen #keys { color: $white; margin-top: 1; }
    """

    def __init__(self, approval: Approval) -> None:
        super().__init__(approval.id)
        self.approval = approval
        guidance = approval.guidance
        self.guidance = (
            guidance
            if isinstance(guidance, ApprovalGuidance)
            else ApprovalGuidance(path=approval.command, bytes=0, sha256="", text="", reason="")
        )

    def compose(self) -> ComposeResult:
        guidance = self.guidance
        with Vertical(id="box") as box:
            box.border_title = "guidance file · use it?"
            yield Static(Text(guidance.path), id="path")
            yield Static(
                Text(
                    f"{guidance.bytes:,} bytes · {guidance.reason} · the model would read it whole"
                ),
                classes="muted",
            )
            with VerticalScroll(id="text"):
                yield Static(Text(guidance.text), id="body")
            hint = Text()
            hint.append("[y]es use it", style="bold")
            hint.append("  [n]o leave it out")
            yield Static(hint, id="keys")

    def focus_target(self) -> Widget | None:
        return self.query_one("#text")

    def take_key(self, event: Key) -> None:
        decision = DECISIONS.get((event.character or "").lower())
        if decision is not None:
            event.stop()
            self.dismiss(decision)

    def action_cancel(self) -> None:
        self.dismiss("no")
