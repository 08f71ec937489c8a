"""The built-in tools, one module each, and the registry that offers them to a conversation."""

from wisp.tools.registry import BUILTIN_TOOLS, ToolFactory, ToolRegistry, default_tools, register

__all__ = ["BUILTIN_TOOLS", "ToolFactory", "ToolRegistry", "default_tools", "register"]
