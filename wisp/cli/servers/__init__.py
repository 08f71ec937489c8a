"""The stdio servers: ``wisp mcp`` (``mcp.py``) and ``wisp acp`` (``acp.py``), with the options
and the SDK check they share (``options.py``). Each builds its conversations with
``wisp.cli.building.session``."""
