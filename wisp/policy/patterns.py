"""Allow and deny patterns: the person's hard limits on what a command may be
(docs/policy.md, "Deny and allow lists").

Both lists are regular expressions searched anywhere in the whole line and in each simple command
(anchored patterns rely on the per-part check). The deny list is also searched in each command's
normalised forms, as the shell will run it (``\\sudo``, ``"/bin/"s\\h``, ``rm -r -f`` are
``sudo``, ``sh``, ``rm -rf``), so spelling a denied command another way does not pass it.
Deny always wins; a non-empty allow list must match every written text.

wisp's own list (``commandPolicy.deny`` unset) is these patterns and the judge of what a command
does (``effects``): its six kinds of command are stopped by what the shell will run, however it
is spelled. A person's own list replaces both.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import msgspec

from wisp.errors import ConfigError
from wisp.policy.effects import effect_of
from wisp.policy.types import SimpleCommand

if TYPE_CHECKING:
    from wisp.config.sections import CommandPolicy

__all__ = ["DEFAULT_DENY", "NESTED_WISP", "CommandPatterns"]

_WORD_START = r"""(^|[\s;&|(/"'\\{`])"""

# `nestedWisp`: the model starting a wisp agent of its own. Anchored at the start of a
# simple command, after a run of wrappers (an atomic group, so it never backtracks into them):
# then `wisp` by any path, quoted or not, its options, and `respond`, `chat`, `mcp` or a quoted
# prompt; or `wisp-tui`; or `python… -m wisp …` / `-m wisp_tui`.
NESTED_WISP = (
    r"""^(?>(?:(?:env|exec|nohup|nice|time|command|builtin|setsid|xargs|timeout|\{|then|do|else"""
    r"""|!|-\S*|\d\S*|\w+=\S*)\s+)*)(?:["'\\]?(?:\S*/)?wisp["']?(?:\s+-\S+(?:\s+[^\s"'-]\S*)??)*?"""
    r"""\s+(?:["']|(?:respond|chat|mcp)\b)|["']?(?:\S*/)?wisp-tui\b|(?:\S*/)?python[\w.]*"""
    r"""(?:\s+-\S+)*?\s+-m\s+(?:wisp_tui\b|wisp(?:\s+-\S+)*\s+(?:["']|(?:respond|chat|mcp)\b)))"""
)

DEFAULT_DENY: tuple[str, ...] = (
    # Running as another user. `su` is a short word, so only as a program: at the start of a
    # command as the shell runs it (the normalised forms put it there: `\su`, `env su`, `| su`).
    r"(^|[\s;&|(])(sudo|doas|pkexec|run0)(\s|$)|^(\|\s*)?([A-Za-z_]\w*=\S*\s+)*su(\s|$)",
    # a recursive rm with `/` or `/*` among its words: `rm -rf /`, `rm -r -f -- build /*`
    r"(^|[\s;&|(])rm\s(?=([^;&|\n]*\s)?(-[A-Za-z]*[rR][A-Za-z]*|--recursive)(\s|$))"
    r"([^;&|\n]*\s)?/+\*?(\s|$)",
    r"\|\s*(ba|z|da)?sh(\s|$)",
    r"(^|[\s;&|(])(mkfs|wipefs|mkswap)",
    r"(^|[\s;&|(])dd\s.*\bof=/dev/",
    _WORD_START + r"""wisp["']?\s+["']?approvals["']?\s+["']?(approve|deny)\b""",
    _WORD_START + r"""wisp["']?\s+["']?facts["']?\s+["']?(keep|drop)\b""",
    _WORD_START + r"""wisp["']?\s+["']?questions["']?\s+["']?(answer|decline)\b""",
    NESTED_WISP,
    r"(^|[\s;&|(/])wisp\s+models\s+pull\b",
)
"""The deny list used while ``commandPolicy.deny`` is unset (Linux forms)."""


class CommandPatterns(msgspec.Struct, frozen=True):
    """The deny and allow lists, compiled once per process."""

    deny: tuple[re.Pattern[str], ...]
    allow: tuple[re.Pattern[str], ...] = ()
    judges_effects: bool = False
    """Whether what a command does is judged too (``effects``): with wisp's own list only."""

    @classmethod
    def compile(
        cls,
        deny: Sequence[str] = DEFAULT_DENY,
        allow: Sequence[str] = (),
        *,
        key: str = "",
        judges_effects: bool | None = None,
    ) -> CommandPatterns:
        """Compile both lists; a pattern that does not compile is a ``ConfigError``. What a
        command does is judged when asked, or (unsaid) when ``deny`` is wisp's own list."""
        if judges_effects is None:
            judges_effects = tuple(deny) == DEFAULT_DENY
        return cls(
            deny=_compile(deny, key and f"{key}.deny"),
            allow=_compile(allow, key and f"{key}.allow"),
            judges_effects=judges_effects,
        )

    @classmethod
    def from_settings(cls, policy: CommandPolicy) -> CommandPatterns:
        """``commandPolicy.deny`` (unset: ``DEFAULT_DENY``; set: replaces it whole) and
        ``commandPolicy.allow`` (empty: no allow list)."""
        deny = DEFAULT_DENY if policy.deny is None else policy.deny
        return cls.compile(
            deny, policy.allow, key="commandPolicy", judges_effects=policy.deny is None
        )

    def denial(self, line: str, parts: Iterable[SimpleCommand]) -> str | None:
        """Why the line may not run, or None: the whole line first, then each part as written,
        then each part as the shell runs it, then what the parts do; deny first."""
        parts = list(parts)
        texts = [line, *(part.text for part in parts)]
        forms = [form for part in parts for form in part.normalised]
        for text in dict.fromkeys([*texts, *forms]):  # each distinct text once
            for pattern in self.deny:
                if pattern.search(text):
                    return f"command matches deny pattern {pattern.pattern}"
        if self.judges_effects and (effect := effect_of(parts)) is not None:
            return effect.reason
        if self.allow:
            for text in texts:
                if not any(pattern.search(text) for pattern in self.allow):
                    return "command matches no allow pattern"
        return None


def in_words(reason: str, parts: Iterable[SimpleCommand], patterns: CommandPatterns) -> str:
    """A denial as the model is told it: what the command does, in words, where wisp's own
    list judges that (``the command runs as another user: sudo apt-get update``), rather than
    the pattern that caught it first, which a small model reads as noise (Qwen2.5-Coder-1.5B
    answered that ``sudo`` "is risky and requires approval")."""
    if patterns.judges_effects and (effect := effect_of(list(parts))) is not None:
        return effect.reason
    return reason


def _compile(patterns: Sequence[str], key: str) -> tuple[re.Pattern[str], ...]:
    compiled = []
    for pattern in patterns:
        try:
            compiled.append(re.compile(pattern))
        except re.error as exc:
            where = f" ({key}: {exc})" if key else f" ({exc})"
            raise ConfigError(f"invalid command policy pattern: {pattern}{where}") from exc
    return tuple(compiled)
