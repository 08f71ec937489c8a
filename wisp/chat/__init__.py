"""The faces of a conversation: one-shot, plain chat at the terminal, and (later) headless."""
