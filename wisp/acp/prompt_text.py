"""A prompt's content blocks as the text of wisp's prompt: text as it is, a resource link named
for the model to read with ``read_file`` (under wisp's own rules), an embedded text resource
given whole (docs/acp.md, "Prompts")."""

from __future__ import annotations

from typing import Any


def prompt_text(blocks: list[Any]) -> tuple[str, list[str]]:
    """The prompt's text, and a note for each block wisp cannot take (images, audio)."""
    parts: list[str] = []
    skipped: list[str] = []
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text":
            parts.append(block.text)
        elif kind == "resource_link":
            parts.append(f"[linked: {block.name} ({_path(block.uri)})]")
        elif kind == "resource" and isinstance(getattr(block.resource, "text", None), str):
            resource = block.resource
            parts.append(f"[{_path(resource.uri)}]\n{resource.text}")
        else:
            skipped.append(f"wisp takes text only: a {kind or 'block'} of the prompt was left out")
    return "\n\n".join(parts), skipped


def _path(uri: str) -> str:
    """A ``file://`` URI as its path (what ``read_file`` takes); any other URI as it is."""
    return uri.removeprefix("file://")
