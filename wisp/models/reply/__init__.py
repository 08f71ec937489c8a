"""The one parser every backend's reply goes through: thinking, text, and calls written as text.

See docs/models.md, "The reply parser". ``stream.ReplyParser`` is fed the reply as it streams
and holds only what may still become a call; ``calls`` reads the forms models write calls in,
``values`` decides whether a decoded value is a call of an offered tool, and ``think`` splits
reasoning out.
"""
