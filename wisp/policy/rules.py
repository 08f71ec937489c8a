"""The rule classifier: a simple command rated safe, moderate or dangerous, with reasons
(docs/policy.md, "Risk levels and the rules").

The rules are data, ``rules.json`` beside this module: each a regular expression, a level and a
reason shown to the approver, plus named fragments (``{START}``, ``{CREDNAME}`` …) that the
patterns share, and the known-safe read-only forms. It is read with msgspec and every pattern is
compiled when it loads, so a bad one fails at once, naming itself.
"""

from __future__ import annotations

import functools
import re
from importlib import resources

import msgspec

from wisp.policy.shell_words import read_ansi_c
from wisp.policy.split import split_line
from wisp.policy.types import LEVEL_ORDER, Assessment, Level, SimpleCommand

__all__ = [
    "KNOWN_SAFE_REASON",
    "NO_RULE_REASON",
    "UNREADABLE_REASON",
    "RuleSet",
    "assess",
    "assess_line",
    "assess_whole_line",
    "default_rules",
    "network_reason",
    "normalise",
]

KNOWN_SAFE_REASON = "a known read-only command"
NO_RULE_REASON = "no rule covers this command, and no classifier is configured to judge it"
UNREADABLE_REASON = "the command could not be read, so it is rated as cautiously as possible"
KNOWN_SAFE_KEY = "rules.knownSafe"


# -- the file ----------------------------------------------------------------------------------


class RuleEntry(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    pattern: str
    level: Level
    reason: str


class KnownSafeEntry(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    forms: list[str]
    """A command matching one of these from start to end reads and changes nothing."""
    disqualifiers: list[str]
    """Anything matching one of these is never known-safe (``-exec``, a pipe, ``sort -o``)."""
    sensitive: str
    """Paths and names whose reading deserves a look (``.env``, keys, histories)."""
    trailers: str
    """A harmless ending, removed again and again before the check (``2>/dev/null``)."""
    display_variables: str
    """A leading assignment that only changes how output looks (``NO_COLOR=1``)."""


class NetworkEntry(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    pattern: str
    """Matched from the start of the command as the shell runs it (``curl``, ``git fetch``)."""
    reason: str
    """What the dialog says it needs the network for."""


class NetworkMarks(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The programs that need the network (docs/policy.md, "The network mark")."""

    about: str = ""
    programs: list[NetworkEntry] = msgspec.field(default_factory=list)


class RuleFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    about: str
    fragments: dict[str, str]
    rules: list[RuleEntry]
    known_safe: KnownSafeEntry
    network: NetworkMarks = msgspec.field(default_factory=NetworkMarks)


class Rule(msgspec.Struct, frozen=True):
    """One compiled rule."""

    source: str
    """The pattern as the file writes it, fragments unexpanded."""
    regex: re.Pattern[str]
    level: Level
    reason: str


class NetworkRule(msgspec.Struct, frozen=True):
    """One compiled network mark."""

    regex: re.Pattern[str]
    reason: str


_FRAGMENT = re.compile(r"\{([A-Z][A-Z_]*)\}")


class RuleSet(msgspec.Struct, frozen=True):
    """The rules and known-safe forms, compiled."""

    rules: tuple[Rule, ...]
    forms: tuple[re.Pattern[str], ...]
    disqualifiers: tuple[re.Pattern[str], ...]
    sensitive: re.Pattern[str]
    trailers: re.Pattern[str]
    display_variables: re.Pattern[str]
    network: tuple[NetworkRule, ...] = ()
    """The network mark: the programs that need the network, each with its reason."""

    @classmethod
    def from_json(cls, raw: bytes | str, *, where: str = "rules.json") -> RuleSet:
        """Read and compile a rules file; a pattern that does not compile is a ``ValueError``."""
        try:
            data = msgspec.json.decode(raw, type=RuleFile)
        except msgspec.ValidationError as exc:
            raise ValueError(f"{where}: {exc}") from exc
        expand = functools.partial(_compile, data.fragments, where)
        known = data.known_safe
        return cls(
            rules=tuple(
                Rule(entry.pattern, expand(entry.pattern), entry.level, entry.reason)
                for entry in data.rules
            ),
            forms=tuple(expand(form) for form in known.forms),
            disqualifiers=tuple(expand(item) for item in known.disqualifiers),
            sensitive=expand(known.sensitive),
            trailers=expand(known.trailers),
            display_variables=expand(known.display_variables),
            network=tuple(
                NetworkRule(expand(entry.pattern), entry.reason) for entry in data.network.programs
            ),
        )

    def matching(self, *texts: str) -> list[Rule]:
        """The rules that match any of the texts or their normalised forms (reading a text more
        ways can only add rules, never take one away)."""
        forms = {form for text in texts for form in (text, normalise(text))}
        return [rule for rule in self.rules if any(rule.regex.search(form) for form in forms)]

    def is_known_safe(self, text: str) -> bool:
        """Whether ``text`` is one of the known-safe forms; that no rule matched it, the caller
        checks."""
        text = text.strip()
        if self.sensitive.search(text):
            return False
        bare = self.strip_harmless(text)
        if ">" in bare or any(item.search(bare) for item in self.disqualifiers):
            return False
        if not _is_one_simple_command(bare):
            return False
        return any(form.fullmatch(bare) for form in self.forms)

    def strip_harmless(self, text: str) -> str:
        """The text less harmless trailers and leading display-only variables."""
        previous = None
        while previous != text:
            previous = text
            text = self.trailers.sub("", text)
            text = self.display_variables.sub("", text, count=1)
        return text.strip()


def _compile(fragments: dict[str, str], where: str, pattern: str) -> re.Pattern[str]:
    def fragment(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in fragments:
            raise ValueError(f"{where}: unknown fragment {{{name}}} in {pattern}")
        return f"(?:{fragments[name]})"

    try:
        return re.compile(_FRAGMENT.sub(fragment, pattern))
    except re.error as exc:
        raise ValueError(f"{where}: pattern does not compile ({exc}): {pattern}") from exc


@functools.cache
def default_rules() -> RuleSet:
    """The rules wisp ships, read once (they are package data, never changed at run time)."""
    raw = resources.files("wisp.policy").joinpath("rules.json").read_bytes()
    return RuleSet.from_json(raw)


# -- assessing ---------------------------------------------------------------------------------


def assess(command: SimpleCommand, rules: RuleSet | None = None) -> Assessment:
    """Rate one simple command by the rules alone: the highest matching level wins."""
    rules = rules or default_rules()
    # As written and as the shell runs it (``/bin/rm -r -f``, ``$"git" push --force``,
    # ``curl x | env sh``): the most severe reading wins, so no spelling rates lower.
    matched = rules.matching(command.text, *command.normalised)
    reasons = _reasons(matched)
    if not command.readable:
        return Assessment("dangerous", [UNREADABLE_REASON, *reasons])
    if matched:
        return Assessment(_highest(matched), reasons)
    if _is_known_safe(command, rules):
        return Assessment("safe", [KNOWN_SAFE_REASON], metadata={KNOWN_SAFE_KEY: True})
    return Assessment("moderate", [NO_RULE_REASON])


def _is_known_safe(command: SimpleCommand, rules: RuleSet) -> bool:
    """Known-safe only when every reading is: a quoted option (``sort "-o" out``) or name
    (``cat .e""nv``) hides from the written text what the shell runs."""
    if not rules.is_known_safe(command.text):
        return False
    # The `| ` mark says the command reads a pipe, which a read-only command may.
    return all(rules.is_known_safe(form.removeprefix("| ")) for form in command.normalised)


def assess_line(line: str, rules: RuleSet | None = None) -> list[tuple[SimpleCommand, Assessment]]:
    """Split ``line`` and rate each of its simple commands."""
    return [(part, assess(part, rules)) for part in split_line(line)]


def assess_whole_line(line: str, rules: RuleSet | None = None) -> Assessment | None:
    """What the rules alone say of the whole line, or None when no rule matches it.

    Signals that belong to the line and to no one part (``curl … | sh``, ``env | grep TOKEN``)
    show only here; the gate compares this with the parts' verdicts.
    """
    matched = (rules or default_rules()).matching(line.strip())
    return Assessment(_highest(matched), _reasons(matched)) if matched else None


def _highest(matched: list[Rule]) -> Level:
    return max((rule.level for rule in matched), key=LEVEL_ORDER.__getitem__)


def _reasons(matched: list[Rule]) -> list[str]:
    """Each reason once, the most serious first, then in the file's order."""
    ordered = sorted(matched, key=lambda rule: -LEVEL_ORDER[rule.level])
    return list(dict.fromkeys(rule.reason for rule in ordered))


def _is_one_simple_command(text: str) -> bool:
    parts = split_line(text)
    return len(parts) == 1 and parts[0].readable and parts[0].text == text


# -- the normalised form -----------------------------------------------------------------------

# git's global options, dropped so `git -C dir push --force` reads as `git push --force`.
_GIT_VALUE_OPTIONS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})
_GIT_FLAGS = frozenset({"--no-pager", "-P", "-p", "--paginate", "--bare"})
# A quoted piece: $'…' (1), '…' (2), "…" or $"…" (3), or a backslash and the character after
# it (4). ($"…" is translated text; untranslated, it is its contents.)
_QUOTED = r"""\$'((?:[^'\\]|\\.)*)'?|'([^']*)'?|\$?"((?:[^"\\]|\\.)*)"?|\\(.)"""
_PIECE = re.compile(_QUOTED, re.DOTALL)
_WORD = re.compile(rf"""(?:{_QUOTED}|[^\s'"\\$]+|\$)+""", re.DOTALL)


def normalise(text: str) -> str:
    """The text as the rules' second reading sees it: quotes removed, ``$'…'`` read,
    continuations joined, git's global options dropped; words joined by single spaces."""
    joined = text.replace("\\\n", "")
    words = [_unquote(match.group(0)) for match in _WORD.finditer(joined)]
    kept: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        kept.append(word)
        index += 1
        if word.rsplit("/", 1)[-1] != "git":
            continue
        while index < len(words):
            option = words[index]
            if option in _GIT_VALUE_OPTIONS:
                index += 2
            elif option in _GIT_FLAGS or (option.startswith("--") and option != "--"):
                # every other global option is a flag or carries its value after `=`
                index += 1
            else:
                break
    return " ".join(kept)


def _unquote(word: str) -> str:
    def piece(match: re.Match[str]) -> str:
        ansi_c, single, double, escaped = match.groups()
        if ansi_c is not None:
            return read_ansi_c(ansi_c)
        if single is not None:
            return single
        if double is not None:
            return re.sub(r'\\([\\"$`])', r"\1", double)
        return escaped

    return _PIECE.sub(piece, word)


# -- the network mark --------------------------------------------------------------------------


def network_reason(command: SimpleCommand, rules: RuleSet | None = None) -> str | None:
    """Why ``command`` needs the network, when the rules mark its program (``curl``, ``pip
    install``, ``git fetch``), else None. Read as the shell runs it, from each wrapper looked
    through (``env A=1 timeout 5 curl x`` is ``curl``); a command that cannot be read is never
    marked, so it runs offline."""
    rules = rules or default_rules()
    forms = {command.text, *command.normalised}
    forms |= {normalise(form) for form in forms}
    for form in forms:
        bare = form.removeprefix("| ")
        for mark in rules.network:
            if mark.regex.match(bare):
                return mark.reason
    return None
