"""The command line: the only part that wires the others together (docs/design.md, "Layers").

``main.py`` parses and holds the command table (each command's name and the loader of its
parser); ``context.py`` is what every command is handed. The commands live by family:

- ``chat/``: ``wisp chat`` and the one-shot ``wisp PROMPT``, the session they open, and the
  faces they speak through;
- ``models/``: ``wisp models`` and its verbs;
- ``servers/``: ``wisp mcp`` and ``wisp acp``, the stdio servers;
- ``answering/``: ``wisp approvals`` and ``wisp questions``, a person answering what waits on
  the desk;
- ``building/``: what every command that opens a conversation shares (the session builder,
  the model choice, the command runner, wisp's own programs);
- ``config.py`` and ``logs.py``: ``wisp config`` and ``wisp logs``, one module each.
"""
