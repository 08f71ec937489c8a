"""A person answering what waits on the desk: ``wisp approvals`` (``approvals.py``) and ``wisp
questions`` (``questions.py``) each name their kind and verbs; ``terminal.py`` does the rest for
both (only at a terminal, each run an audited session of its own)."""
