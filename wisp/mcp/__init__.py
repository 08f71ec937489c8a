"""``wisp mcp``: other agents hand wisp a task over the Model Context Protocol (docs/mcp.md).

The server offers two tools, ``respond`` and ``close_thread``; wisp's own tools are reached only
through ``respond``, so policy, approval and audit always apply. The command line
(``wisp/cli/servers/mcp.py``) builds each thread's conversation and hands it in; this package speaks
the protocol, keeps the threads and words their results.
"""
