"""A rule's regular expression read as a tree (the ``re`` module's own parser) and written back:
what a match must start with, what it must hold, whether it can cross a line, and the same
pattern rewritten to start with what it consumes first (wisp/scan/searching.py says why).

Every question here may be answered "cannot tell" (:class:`Unknown`); the searcher then falls
back to the rule's pattern as written, which is always right, only slower.
"""

from __future__ import annotations

import re
import string
from re import _constants as sre  # the parser's vocabulary: private, but stable since 3.11
from re import _parser
from typing import Any

import msgspec

Item = tuple[Any, Any]
"""One node of a parsed pattern: an opcode and its argument."""

_MAX_ALTERNATIVES = 32
_MAX_PREFIXES = 64
_MAX_CLASS_EXPANSION = 8
_SPREAD_BELOW = 3
_LOOKBEHIND = -1
_ZERO_WIDTH_AT = {sre.AT_BOUNDARY: r"\b", sre.AT_NON_BOUNDARY: r"\B"}
_AT = {
    **_ZERO_WIDTH_AT,
    sre.AT_BEGINNING: "^",
    sre.AT_BEGINNING_STRING: r"\A",
    sre.AT_END: "$",
    sre.AT_END_STRING: r"\Z",
}
_CATEGORY = {
    sre.CATEGORY_DIGIT: r"\d",
    sre.CATEGORY_NOT_DIGIT: r"\D",
    sre.CATEGORY_SPACE: r"\s",
    sre.CATEGORY_NOT_SPACE: r"\S",
    sre.CATEGORY_WORD: r"\w",
    sre.CATEGORY_NOT_WORD: r"\W",
}
_ASCII = "".join(map(chr, range(128)))


def _ascii_taken(category: str) -> str:
    """The ASCII characters a category takes in a str pattern, as ranges for ``[…]``."""
    taken = [ord(c) for c in re.findall(category, _ASCII)]
    runs: list[list[int]] = []
    for code in taken:
        if runs and runs[-1][1] == code - 1:
            runs[-1][1] = code
        else:
            runs.append([code, code])
    return "".join(f"\\x{low:02x}-\\x{high:02x}" for low, high in runs)


_ASCII_CATEGORY = {code: _ascii_taken(written) for code, written in _CATEGORY.items()}
"""Each category as the ASCII characters it takes: the same as the category on ASCII text
(``\\s`` takes ``\\x1c``-``\\x1f`` there, as ``str.isspace`` does, which ``re.ASCII`` would not)."""
_WORD_CATEGORIES = {sre.CATEGORY_DIGIT: True, sre.CATEGORY_WORD: True, sre.CATEGORY_NOT_WORD: False}
_FLAG_LETTERS = ((re.IGNORECASE, "i"), (re.MULTILINE, "m"), (re.DOTALL, "s"), (re.ASCII, "a"))
_WRITTEN_FLAGS = re.IGNORECASE | re.MULTILINE | re.DOTALL | re.ASCII


class Unknown(Exception):
    """The tree holds something these questions do not answer for."""


class Parsed(msgspec.Struct, frozen=True):
    items: list[Item]
    flags: int
    """The pattern's global flags, as ``re.compile`` takes them."""


def parse(pattern: str) -> Parsed:
    tree = _parser.parse(pattern)
    return Parsed(list(tree), tree.state.flags & _WRITTEN_FLAGS)


# --- Writing a tree back -------------------------------------------------------------------


def write(items: list[Item], ascii_text: bool = False) -> str:
    r"""The pattern ``items`` came from, give or take spelling; capturing groups are written
    as plain ones (a rewritten pattern only says where a match starts). With ``ascii_text``,
    for texts known to be ASCII: ``\d``, ``\s``, ``\w`` and the rest written as the ASCII
    characters they take, which ``re`` tests with a table instead of a Unicode lookup."""
    return "".join(_write_item(op, av, ascii_text) for op, av in items)


def _write_item(op: Any, av: Any, ascii_text: bool) -> str:
    if op is sre.LITERAL:
        return _char(av)
    if op is sre.NOT_LITERAL:
        return f"[^{_char(av)}]"
    if op is sre.ANY:
        return "."
    if op is sre.IN:
        return f"[{write_class(av, ascii_text)}]"
    if op is sre.AT and av in _AT:
        return _AT[av]
    if op is sre.BRANCH:
        return "(?:" + "|".join(write(list(branch), ascii_text) for branch in av[1]) + ")"
    if op is sre.SUBPATTERN:
        _, add, remove, items = av
        return f"(?{_flags(add, remove)}:{write(list(items), ascii_text)})"
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        low, high, items = av
        count = f"{{{low},}}" if high is sre.MAXREPEAT else f"{{{low},{high}}}"
        lazy = {sre.MIN_REPEAT: "?", sre.POSSESSIVE_REPEAT: "+"}.get(op, "")
        return f"(?:{write(list(items), ascii_text)}){count}{lazy}"
    if op in (sre.ASSERT, sre.ASSERT_NOT):
        direction, items = av
        behind = "<" if direction == _LOOKBEHIND else ""
        return f"(?{behind}{'=' if op is sre.ASSERT else '!'}{write(list(items), ascii_text)})"
    if op is sre.ATOMIC_GROUP:
        return f"(?>{write(list(av), ascii_text)})"
    raise Unknown(f"cannot write {op}")  # a back reference, a conditional group


def write_class(items: list[Item], ascii_text: bool = False) -> str:
    """The inside of ``[…]``."""
    parts = []
    for op, av in items:
        if op is sre.NEGATE:
            parts.append("^")
        elif op is sre.LITERAL:
            parts.append(_char(av))
        elif op is sre.RANGE:
            parts.append(f"{_char(av[0])}-{_char(av[1])}")
        elif op is sre.CATEGORY and av in _CATEGORY:
            parts.append(_ASCII_CATEGORY[av] if ascii_text else _CATEGORY[av])
        else:
            raise Unknown(f"cannot write {op} in a class")
    return "".join(parts)


def _char(code: int) -> str:
    character = chr(code)
    if character.isalnum() and character.isascii():
        return character
    return (
        f"\\x{code:02x}"
        if code < 0x100
        else f"\\u{code:04x}"
        if code < 0x10000
        else f"\\U{code:08x}"
    )


def _flags(add: int, remove: int) -> str:
    if (add | remove) & ~_WRITTEN_FLAGS & ~re.UNICODE & ~re.VERBOSE:
        raise Unknown("a flag this writer does not know")
    on = "".join(letter for flag, letter in _FLAG_LETTERS if add & flag)
    off = "".join(letter for flag, letter in _FLAG_LETTERS if remove & flag)
    return on + (f"-{off}" if off else "")


# --- What a match starts with ----------------------------------------------------------------


class Alternative(msgspec.Struct, frozen=True):
    """One way a match goes: the zero-width checks where it starts (``\\b``, lookbehinds), the
    characters it consumes first (a run of literals, or one class) and what follows."""

    checks: list[Item]
    head: list[Item]
    rest: list[Item]


def alternatives(items: list[Item], checks: list[Item] | None = None) -> list[Alternative]:
    """The pattern as alternatives each starting with what it consumes first, tried in the
    order the pattern tries them: groups opened, branches and optional parts spread out,
    repeats unrolled once. Raises :class:`Unknown` for what cannot be spread this way (a
    lookahead or a flag where a match starts, an empty match)."""
    checks = list(checks or [])
    for index, (op, av) in enumerate(items):
        rest = items[index + 1 :]
        if (op is sre.AT and av in _ZERO_WIDTH_AT) or _is_lookbehind(op, av):
            checks.append((op, av))
            continue
        if op is sre.LITERAL:
            run = index
            while run < len(items) and items[run][0] is sre.LITERAL:
                run += 1
            return [Alternative(checks, items[index:run], items[run:])]
        if op in (sre.IN, sre.NOT_LITERAL, sre.ANY):
            return [Alternative(checks, [(op, av)], rest)]
        if op is sre.SUBPATTERN and not (av[1] or av[2]):
            return alternatives([*av[3], *rest], checks)
        if op is sre.BRANCH:
            spread = [alternatives([*branch, *rest], checks) for branch in av[1]]
            return _bounded([alternative for branch in spread for alternative in branch])
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
            return _bounded(_unrolled(op, av, rest, checks))
        raise Unknown(f"a match may start with {op}")
    raise Unknown("the pattern matches the empty string")


def _is_lookbehind(op: Any, av: Any) -> bool:
    return op in (sre.ASSERT, sre.ASSERT_NOT) and av[0] == _LOOKBEHIND


def _unrolled(op: Any, av: Any, rest: list[Item], checks: list[Item]) -> list[Alternative]:
    """``X{m,n}`` as ``X X{m-1,n-1}``; an optional ``X{0,n}`` as that or nothing, greedy
    first and lazy last, as the engine tries them."""
    low, high, body = av
    body = list(body)
    if high == 0:
        return alternatives(rest, checks)
    if nullable(body):
        raise Unknown("a repeat of what may be empty")
    more = high if high is sre.MAXREPEAT else high - 1
    fewer: list[Item] = [] if more == 0 else [(op, (max(low - 1, 0), more, body))]
    once = alternatives([*body, *fewer, *rest], checks)
    if low >= 1:
        return once
    skipped = alternatives(rest, checks)
    return once + skipped if op is sre.MAX_REPEAT else skipped + once


def _bounded(found: list[Alternative]) -> list[Alternative]:
    if len(found) > _MAX_ALTERNATIVES:
        raise Unknown("too many alternatives")
    return found


def nullable(items: list[Item]) -> bool:
    """Whether ``items`` may match the empty string."""
    return not any(_consumes(op, av) for op, av in items)


def _consumes(op: Any, av: Any) -> bool:
    """Whether the node always takes at least one character."""
    if op in (sre.LITERAL, sre.NOT_LITERAL, sre.IN, sre.ANY):
        return True
    if op is sre.SUBPATTERN:
        return not nullable(list(av[3]))
    if op is sre.BRANCH:
        return not any(nullable(list(branch)) for branch in av[1])
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        return av[0] > 0 and not nullable(list(av[2]))
    if op is sre.ATOMIC_GROUP:
        return not nullable(list(av))
    return False  # zero width, or a back reference that may be empty


def moved_checks(alternative: Alternative, ascii_text: bool = False) -> str:
    """The alternative's starting checks, written to follow its head: ``(?<!X)H`` holds where
    ``H(?<!XH)`` does, and ``\\b`` before a word character is ``(?<!\\w)``."""
    head = write(alternative.head, ascii_text)
    word_class = _ASCII_CATEGORY[sre.CATEGORY_WORD] if ascii_text else r"\w"
    moved = []
    for op, av in alternative.checks:
        if op is sre.AT:
            word = starts_with_word(alternative.head)
            if word is None:
                raise Unknown("\\b before a class of word and other characters")
            after_word = (av is sre.AT_BOUNDARY) != word
            moved.append(f"(?<{'=' if after_word else '!'}[{word_class}]{head})")
        else:
            sign = "=" if op is sre.ASSERT else "!"
            moved.append(f"(?<{sign}{write(list(av[1]), ascii_text)}{head})")
    return "".join(moved)


def starts_with_word(head: list[Item]) -> bool | None:
    """Whether the first character ``head`` consumes is a word character (``\\w``), is not,
    or may be either (None)."""
    op, av = head[0]
    if op is sre.LITERAL:
        return _is_word(av)
    if op is not sre.IN:
        return None
    kinds: set[bool] = set()
    for item_op, item in av:
        if item_op is sre.LITERAL:
            kinds.add(_is_word(item))
        elif item_op is sre.RANGE and item[1] - item[0] < 0x100:
            kinds.update(_is_word(code) for code in range(item[0], item[1] + 1))
        elif item_op is sre.CATEGORY and item in _WORD_CATEGORIES:
            kinds.add(_WORD_CATEGORIES[item])
        else:
            return None
    return kinds.pop() if len(kinds) == 1 else None


def _is_word(code: int) -> bool | None:
    character = chr(code)
    if not character.isascii():
        return None  # \w differs between str patterns and re.ASCII there
    return character.isalnum() or character == "_"


def first_class(head: list[Item], ascii_text: bool = False) -> str:
    """What the first character ``head`` consumes may be, as the inside of ``[…]``."""
    op, av = head[0]
    if op is sre.LITERAL:
        return _char(av)
    if op is sre.IN and not any(item_op is sre.NEGATE for item_op, _ in av):
        return write_class(av, ascii_text)
    raise Unknown("a negated first character")


def has_letters(class_inside: str) -> bool:
    """Whether ``[class_inside]`` takes ASCII letters: a class that does is tried at almost
    every position of a text."""
    return re.search(f"[{class_inside}]", string.ascii_letters) is not None


# --- Literals a match starts with, or holds ---------------------------------------------------


class Prefixes(msgspec.Struct, frozen=True):
    texts: list[str]
    """Each match starts with one of these."""
    folded: bool
    """Compared without case (under ``(?i)``): the texts are lowercase."""


def prefixes(parsed: Parsed) -> Prefixes:
    """The literal texts one of which starts every match (zero-width checks skipped)."""
    folded = bool(parsed.flags & re.IGNORECASE)
    found, _, folded = _prefixes(parsed.items, folded)
    if not found or "" in found:
        raise Unknown("a match may start with anything")
    if folded:
        found = [text.lower() for text in found]
    shortest = sorted(set(found), key=len)
    kept = [
        text for index, text in enumerate(shortest) if not text.startswith(tuple(shortest[:index]))
    ]
    return Prefixes(sorted(kept), folded)


def _prefixes(items: list[Item], folded: bool) -> tuple[list[str], bool, bool]:
    """(the texts, whether all of ``items`` was literal, whether case is folded anywhere)."""
    found = [""]
    any_folded = False
    for op, av in items:
        if op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
            continue
        if op is sre.LITERAL:
            found = [text + chr(av) for text in found]
            any_folded = any_folded or folded
            continue
        if op is sre.SUBPATTERN:
            inner_folded = (folded or bool(av[1] & re.IGNORECASE)) and not av[2] & re.IGNORECASE
            ends, whole, inner = _prefixes(list(av[3]), inner_folded)
        elif op is sre.BRANCH:
            spread = [_prefixes(list(branch), folded) for branch in av[1]]
            ends = [text for branch_texts, _, _ in spread for text in branch_texts]
            whole = all(whole for _, whole, _ in spread)
            inner = any(inner for _, _, inner in spread)
        elif op is sre.IN and (characters := _few_characters(av, found)) is not None:
            ends, whole, inner = characters, True, folded
        else:
            return found, False, any_folded
        found = [text + end for text in found for end in ends]
        any_folded = any_folded or inner
        if len(found) > _MAX_PREFIXES:
            raise Unknown("too many prefixes")
        if not whole:
            return found, False, any_folded
    return found, True, any_folded


def _few_characters(items: list[Item], before: list[str]) -> list[str] | None:
    """A small class's characters, to spread a prefix that is still short (``[sr]k_``); after
    ``xox``, ``xox[abposr]-`` is better found by ``xox`` alone."""
    if min(map(len, before)) >= _SPREAD_BELOW:
        return None
    if len(items) > _MAX_CLASS_EXPANSION or any(op is not sre.LITERAL for op, _ in items):
        return None
    return [chr(code) for _, code in items]


def required_literal(parsed: Parsed) -> str:
    """The longest literal text every match holds (in the pattern's own sequence)."""
    runs = [""]
    for op, av in parsed.items:
        if op is sre.LITERAL and not parsed.flags & re.IGNORECASE:
            runs[-1] += chr(av)
        elif runs[-1]:
            runs.append("")
    longest = max(runs, key=len)
    if not longest:
        raise Unknown("no literal every match holds")
    return longest


def stays_on_its_line(parsed: Parsed) -> bool:
    """Whether no part of a match, nor anything it looks at ahead, can be a line break, and no
    ``$`` or ``\\Z`` needs the text's true end: then the match is the same when the text is
    cut just after its line."""
    return not _may_cross(parsed.items, bool(parsed.flags & re.DOTALL))


def _may_cross(items: list[Item], dotall: bool) -> bool:
    for op, av in items:
        if op is sre.LITERAL:
            crosses = av == ord("\n")
        elif op is sre.NOT_LITERAL:
            crosses = av != ord("\n")
        elif op is sre.ANY:
            crosses = dotall
        elif op is sre.IN:
            crosses = re.fullmatch(f"[{write_class(av)}]", "\n") is not None
        elif op is sre.AT:
            crosses = av not in _ZERO_WIDTH_AT and av not in (
                sre.AT_BEGINNING,
                sre.AT_BEGINNING_STRING,
            )
        elif op is sre.SUBPATTERN:
            inner_dotall = (dotall or bool(av[1] & re.DOTALL)) and not av[2] & re.DOTALL
            crosses = _may_cross(list(av[3]), inner_dotall)
        elif op is sre.BRANCH:
            crosses = any(_may_cross(list(branch), dotall) for branch in av[1])
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            crosses = _may_cross(list(av[2]), dotall)
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            crosses = av[0] != _LOOKBEHIND and _may_cross(list(av[1]), dotall)
        else:
            crosses = True  # a back reference: whatever its group took
        if crosses:
            return True
    return False
