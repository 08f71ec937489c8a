"""The one parser every backend's reply goes through: thinking, text, and calls written as text.

See docs/models.md, "The reply parser". ``ReplyParser`` (in ``stream``) is fed the reply as it
streams; ``calls`` knows the forms models write calls in; ``think`` splits reasoning out.
"""
