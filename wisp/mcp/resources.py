"""The server's resources (docs/mcp.md, "Resources"): the threads, a thread's entries, a kept
output, the settings and the status. Each is read as it is now; none is cached."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from wisp.mcp.results import whole_output
from wisp.mcp.threads import Thread, Threads

THREADS = "wisp://threads"
CONFIG = "wisp://config"
STATUS = "wisp://status"
THREAD_TEMPLATE = "wisp://threads/{thread_id}"
OUTPUT_TEMPLATE = "wisp://threads/{thread_id}/output/{call_id}"
_THREAD = re.compile(r"^wisp://threads/([A-Za-z0-9._-]{1,64})$")
_OUTPUT = re.compile(r"^wisp://threads/([A-Za-z0-9._-]{1,64})/output/([A-Za-z0-9._-]+)$")


class UnknownResource(Exception):
    """No resource at that URI; the message says what is missing."""


class Resources:
    """Reads a resource by URI, as JSON text (a kept output as plain text)."""

    def __init__(
        self,
        threads: Threads,
        *,
        output_dir: Path,
        config: Callable[[], Any],
        status: Callable[[], dict[str, Any]],
    ) -> None:
        self.threads = threads
        self.output_dir = output_dir
        self._config = config
        self._status = status

    def fixed(self) -> list[tuple[str, str, str]]:
        """(uri, name, description) of the resources that are always there, then each thread."""
        listed = [
            (THREADS, "threads", "The open threads: id, audit session, model, tools, turns."),
            (CONFIG, "config", "The settings as wisp config list shows them, secrets hidden."),
            (STATUS, "status", "Version, default model, sandbox mechanism, open threads."),
        ]
        for thread in self.threads.all():
            listed.append(
                (f"{THREADS}/{thread.id}", f"thread {thread.id}", "The thread's entries.")
            )
        return listed

    def read(self, uri: str) -> tuple[str, str]:
        """(mime type, text) of the resource at ``uri``; ``UnknownResource`` when there is none."""
        if uri == THREADS:
            return _json([thread_summary(thread) for thread in self._open()])
        if uri == CONFIG:
            return _json(self._config())
        if uri == STATUS:
            status = dict(self._status())
            status["threads"] = [thread.id for thread in self._open()]
            return _json(status)
        if match := _THREAD.match(uri):
            thread = self._thread(match.group(1))
            shown = thread_summary(thread)
            entries = thread.conversation.store.entries
            shown["entries"] = msgspec.to_builtins(entries)
            return _json(shown)
        if match := _OUTPUT.match(uri):
            thread = self._thread(match.group(1))
            call = match.group(2)
            folder = self.output_dir / thread.conversation.session
            text = whole_output(folder, call, thread.outputs.get(call))
            if text is None:
                raise UnknownResource(f"thread {thread.id} has no output {call}")
            return "text/plain", text
        raise UnknownResource(f"no resource {uri}")

    def _open(self) -> list[Thread]:
        return [thread for thread in self.threads.all() if thread.opened is not None]

    def _thread(self, thread_id: str) -> Thread:
        thread = self.threads.get(thread_id)
        if thread is None or thread.opened is None:
            raise UnknownResource(f"unknown thread {thread_id}")
        return thread


def thread_summary(thread: Thread) -> dict[str, Any]:
    conversation = thread.conversation
    return {
        "thread_id": thread.id,
        "session": conversation.session,
        "model": conversation.model,
        "tools": conversation.tool_names,
        "turns": conversation.turn,
    }


def _json(value: Any) -> tuple[str, str]:
    return "application/json", json.dumps(value, ensure_ascii=False, indent=2)
