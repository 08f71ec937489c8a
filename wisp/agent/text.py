"""Cutting text to a size, at character boundaries (agent.md §4.1)."""

from __future__ import annotations


def bounded(text: str, max_bytes: int) -> str:
    """The first ``max_bytes`` bytes cut back to a character boundary, plus a marker when cut."""
    data = text.encode()
    if len(data) <= max_bytes:
        return text
    head = data[:max_bytes].decode(errors="ignore")
    return f"{head}\n[truncated: {len(data)} bytes, showing {max_bytes}]"


def utf8_len(text: str) -> int:
    return len(text.encode())


def held_back(text: str, budget: int, *, output_id: str | None, hint: str) -> str:
    """The head (up to a quarter of ``budget``) and tail of ``text`` at line boundaries, with
    one marker between them naming what was held back (agent.md §4.2). ``text`` if it fits."""
    if utf8_len(text) <= budget:
        return text
    lines = text.split("\n")
    head_budget = budget // 4
    head: list[str] = []
    used = 0
    for line in lines:
        cost = utf8_len(line) + 1
        if used + cost > head_budget:
            break
        head.append(line)
        used += cost
    tail: list[str] = []
    for line in reversed(lines[len(head) :]):
        cost = utf8_len(line) + 1
        if used + cost > budget - 200:  # room for the marker
            break
        tail.append(line)
        used += cost
    tail.reverse()
    first, last = len(head) + 1, len(lines) - len(tail)
    held = "\n".join(lines[len(head) : len(lines) - len(tail)])
    where = f" of output {output_id}" if output_id else ""
    marker = f"[held back: lines {first:,}–{last:,} ({_size(utf8_len(held))}){where}; {hint}]"
    return "\n".join([*head, marker, *tail])


def _size(count: int) -> str:
    return f"{count / 1024:.0f} KiB" if count >= 1024 else f"{count} bytes"
