"""wisp: a local AI agent for the terminal."""

__version__ = "0.1.0"

__all__ = ["__version__"]
