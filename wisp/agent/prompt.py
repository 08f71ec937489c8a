"""The system prompt: wisp's own text, then the operator's and the caller's layers."""

from __future__ import annotations

OWN_PROMPT = (
    "You are Wisp, a concise assistant running on this computer. Use tools when they help, one "
    "at a time, with exact arguments, and wait for each result. The person sees tool output as "
    "returned, so comment on it rather than repeat it unless asked. If a command was refused, "
    'say so rather than guess. A message that asks for nothing (a greeting, one word, "test") '
    "gets a brief reply and a question about what they would like. Keep replies short."
)
NO_TOOLS = " This conversation has no tools; answer directly from what you know."
MEMORY_RULE = (
    "Earlier turns may reach you only as references or summaries; when a question needs detail "
    "they leave out, recall the entry or turn they name with memory instead of guessing or "
    "running a tool again."
)


def system_prompt(
    *, has_tools: bool, has_memory: bool, extension: str | None, instructions: str | None
) -> str:
    """The instructions text: three layers joined by a blank line, empty layers left out."""
    own = OWN_PROMPT if has_tools else OWN_PROMPT + NO_TOOLS
    if has_memory:
        own += "\n" + MEMORY_RULE
    layers = [own]
    if extension and extension.strip():
        layers.append("Guidance for this machine:\n" + extension.strip())
    if instructions and instructions.strip():
        layers.append("Instructions for this conversation:\n" + instructions.strip())
    return "\n\n".join(layers)
