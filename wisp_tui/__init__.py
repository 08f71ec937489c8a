"""wisp-tui: the full-screen Textual front end for ``wisp chat --json``."""
