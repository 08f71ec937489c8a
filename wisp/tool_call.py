"""``ToolCall``: one call a model asked for.

Backends write it, the agent runs it, the store keeps it as a ``toolCalls`` entry. It lives
apart from both the agent and the store so that each may use it while the arrow between them
points one way: the agent imports the store, never the reverse. ``wisp.agent.types`` re-exports
it with the rest of the agent's vocabulary.
"""

from __future__ import annotations

from typing import Any

import msgspec


class ToolCall(msgspec.Struct, frozen=True):
    """One call the model asked for. ``id`` is wisp's (8 lowercase hex, unique in a session)."""

    id: str
    name: str
    arguments: dict[str, Any]
