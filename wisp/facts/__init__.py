"""Facts: what wisp knows, with where it came from, kept beyond the window."""
