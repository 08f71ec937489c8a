"""The agent: one conversation's turns, the tool loop, and the checks under each reply."""
