"""``wisp chat`` (``command.py``) and the one-shot ``wisp PROMPT`` (``prompt.py``): the session
they open (``session.py``), the face each speaks through (``faces.py``), the hand-over to wisp-tui
(``handover.py``), typed ``!`` commands (``typed.py``) and the chat's ``/models`` (``models.py``).
"""
