"""``wisp draft``: a text for the person to use, written by a routed model (docs/draft.md)."""
