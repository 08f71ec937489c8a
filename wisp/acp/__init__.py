"""``wisp acp``: wisp as an agent of the Agent Client Protocol (Zed, Toad, any ACP client), on
stdio. The CLI builds each session's conversation; this package maps its turns to the
protocol's updates and asks the person through the client (docs/acp.md)."""
