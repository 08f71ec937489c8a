"""A prompt's content blocks as the text of wisp's prompt: text as it is, a linked file read
under ``read_file``'s rules (never inside WISP_HOME, text only, a page within the output
budget), an embedded text resource given whole (docs/acp.md, "Prompts")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

ReadLink = Callable[[str], str]
"""A linked file's path to its first page, as ``read_file`` gives it (an ``error:`` line when
it cannot be read). Handed in by the command line, which knows the session's folder."""


def prompt_text(blocks: list[Any], read: ReadLink | None = None) -> tuple[str, list[str]]:
    """The prompt's text, and a note for each block wisp cannot take (images, audio). Blocking:
    a linked file is read here."""
    parts: list[str] = []
    skipped: list[str] = []
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text":
            parts.append(block.text)
        elif kind == "resource_link":
            parts.append(_linked(block, read))
        elif kind == "resource" and isinstance(getattr(block.resource, "text", None), str):
            resource = block.resource
            parts.append(f"[{_path(resource.uri)}]\n{resource.text}")
        else:
            skipped.append(f"wisp takes text only: a {kind or 'block'} of the prompt was left out")
    return "\n\n".join(parts), skipped


def _path(uri: str) -> str:
    """A ``file://`` URI as its path (what ``read_file`` takes); any other URI as it is."""
    return uri.removeprefix("file://")


def _linked(block: Any, read: ReadLink | None) -> str:
    """``[linked: NAME (PATH)]`` then the file's first page; a link that is not a local file is
    named only, for the model to ask about."""
    path = _path(block.uri)
    head = f"[linked: {block.name} ({path})]"
    if read is None or "://" in path:
        return head
    return f"{head}\n{read(path)}"
