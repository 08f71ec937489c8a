"""Fitting a tool's result within its byte budget: the agent's text helpers, which the tools
share (the agent may not import tools, so they live in ``wisp.agent.text``)."""

from wisp.agent.text import (
    COMMAND_HINT,
    READ_FILE_HINT,
    bounded,
    cut_to_bytes,
    format_size,
    held_back_marker,
    hold_back,
    memory_hint,
    split_lines,
)

__all__ = [
    "COMMAND_HINT",
    "READ_FILE_HINT",
    "bounded",
    "cut_to_bytes",
    "format_size",
    "held_back_marker",
    "hold_back",
    "memory_hint",
    "split_lines",
]
