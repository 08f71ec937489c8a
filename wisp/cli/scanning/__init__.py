"""``wisp scan`` and ``wisp redact``: the sources they read and the reports they write."""
