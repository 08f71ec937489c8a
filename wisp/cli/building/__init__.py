"""What every command that opens a conversation shares: the session builder (``session.py``: chat,
one-shot, ``wisp mcp`` and ``wisp acp`` say what differs, it builds the rest), which model runs
(``model_choice.py``), the command runner with its policy and sandbox (``runner.py``), and the
programs wisp runs for itself (``own_programs.py``)."""
