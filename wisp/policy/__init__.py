"""The command policy: splitting a line, rating each command, patterns, and the approval gate."""
