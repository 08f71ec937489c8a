"""The claims of actions a reply makes: "I ran the tests", "I've updated config.ini".

A claim is a past or perfect action with the speaker as its subject (``I ran``, ``we've
updated``, ``I have just executed``), a past verb opening a sentence or a list item
(``Updated config.ini``), a passive with ``has been``/``was`` (``config.ini has been updated``,
``the tests were run``; with ``is`` for a change to a file: ``the line is removed from the
file``), or ``the tests passed``. What is not one, by construction: a negation
(``I did not run``, ``I haven't run``, ``I never ran``: only the adverbs in ``_ADVERBS`` may
stand between subject and verb), the future and the hypothetical (``I will run``, ``you can
run``, ``let me run``, ``to run the tests, type…``: no past verb after I or we), imperatives,
questions, clauses under ``if``/``once``/``unless``, and code blocks. File claims (edited,
wrote, created, deleted, read…) need a file: a path, or the word "file" near the verb; "I've
created a function" is the reply's own text, not an action on disk. See docs/turn.md, "Lines
under a reply".
"""

from __future__ import annotations

import re
from itertools import islice
from typing import Literal

import msgspec

Family = Literal[
    "command", "tests", "tested", "install", "build", "commit", "push", "edit", "delete", "read"
]
"""What kind of call would have done the claimed action; each has one reader."""

QUOTE_CAP = 80

_ADVERBS = (
    r"(?:just|also|already|successfully|then|now|first|finally|again|quickly|manually|"
    r"automatically|recently|actually|carefully|both|since)"
)
_VERBS = (
    r"re-?ran|ran|run|re-?executed|executed|tested|re-?installed|installed|re-?built|built|"
    r"compiled|committed|pushed|edited|updated|modified|changed|over-?wrote|overwritten|"
    r"re-?wrote|re-?written|wrote|written|created|saved|deleted|removed|erased|read|opened|"
    r"viewed|inspected|examined|checked|looked\s+(?:at|into|through)"
)
# Every verb a claim can stand on is found by plain substring search (much faster than a
# pattern of forty words); what stands before each (I or we, has been, the tests, a sentence's
# start) is then read on a short slice ending at the verb. A 4 KB reply is read in well under
# a millisecond (bench/verification.py).
_ACTION = re.compile(rf"\b(?P<verb>{_VERBS}|passed|succeeded|worked)\b", re.IGNORECASE)
_ACTION_NAMES = """
    ran run executed tested installed built compiled committed pushed edited updated modified
    changed overwrote overwritten rewrote rewritten wrote written created saved deleted removed
    erased read opened viewed inspected examined checked looked passed succeeded worked"""
_ACTION_WORDS = tuple(_ACTION_NAMES.split())
"""Each verb's stem as found in lower-cased text ("reran" and "re-ran" hold "ran")."""
BEFORE = 64
"""Characters before a verb read for its subject."""
# "I", "we", then only have/'ve/had and harmless adverbs: "not", "never", "will", "can",
# "'ll", "would" cannot stand there, so negations and the future never match.
_FIRST_PERSON = re.compile(
    rf"\b(?:I|we)(?P<aux>(?:\s*['’]ve|\s+have|\s+had|\s+{_ADVERBS})*)\s+\Z", re.IGNORECASE
)
# A sentence or list item that opens with a past verb: "Updated config.ini." (never "read" or
# "run", which open imperatives too).
_OPENING_VERBS = frozenset(
    {"Re-ran", "Reran", "Ran", "Executed", "Tested", "Installed", "Built", "Compiled",
     "Committed", "Pushed", "Edited", "Updated", "Modified", "Changed", "Wrote", "Created",
     "Saved", "Deleted", "Removed", "Opened"}
)  # fmt: skip
_OPENER = re.compile(r"[ \t]*(?:[-*•+][ \t]+|\d+[.)][ \t]+)?(?:\*\*)?(?:✅[ \t]*)?\Z")
"""What may stand between a sentence's start and its opening verb: a bullet, a number, bold."""
_PASSIVE = re.compile(
    rf"\b(?:(?:has|have|had)\s+(?:{_ADVERBS}\s+)*been|was|were)\s+(?:{_ADVERBS}\s+)*\Z",
    re.IGNORECASE,
)
_PRESENT_PASSIVE = re.compile(rf"\b(?:is|are)\s+(?:now\s+)?(?:{_ADVERBS}\s+)*\Z", re.IGNORECASE)
"""``is removed``, ``are now updated``: a change told as the state it left, a passive only for
the verbs of ``_CHANGED``: "the file is read in pages", "data is written to it" tell how."""
_CHANGED = frozenset({"edited", "updated", "modified", "changed", "deleted", "removed"})
_PARTICIPLE_NAMES = """
    run executed tested installed built compiled committed pushed edited updated modified
    changed written created saved deleted removed read opened"""
_PARTICIPLES = frozenset(_PARTICIPLE_NAMES.split())
SUBJECT_WORDS = 4
"""The words before ``has been``/``was`` read as a passive's subject."""
_RESULTS = frozenset({"passed", "ran", "succeeded", "executed", "worked"})
_TESTS_BEFORE = re.compile(
    r"(?:\ball(?:\s+of)?(?:\s+the|\s+\d+)?|\bthe|\b\d+)(?:\s+unit)?\s+tests?\s+"
    r"(?:have\s+|all\s+)*\Z",
    re.IGNORECASE,
)
"""Before ``passed``: all, the, or a number, then tests ("all 12 unit tests have passed")."""
_THING_BEFORE = re.compile(r"\bthe\s+(?P<thing>command|script|program|build)\s+\Z", re.I)

# The rest of a clause after its verb: up to punctuation that ends it (a dot inside a file
# name does not), a conjunction, or a code span's end.
_OBJECT = re.compile(r"(?:`[^`\n]*`|[^.!?;:\n,`]|[.:](?=[\w/\\~]))*")
_CUT = re.compile(
    r"\s(?:and|but|so|which|that|because|while|then|since|where|who|if|when|until|once|"
    r"or|as|before|after)\b",
    re.IGNORECASE,
)
_AND_THEN = re.compile(
    rf"\s*(?:,\s*)?(?:and|then|,)\s+(?:(?:then|also|finally|successfully)\s+)*"
    rf"(?P<verb>{_VERBS})\b",
    re.IGNORECASE,
)
_CODE_BLOCK = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_CONDITION = re.compile(
    r"\b(?:if|unless|whether|once|until|in\s+case|before|should|would|could)\b", re.IGNORECASE
)
_EARLIER = re.compile(
    r"\b(?:earlier|previously|last\s+time|in\s+(?:the|my|a)\s+(?:previous|last|earlier)\s+"
    r"(?:turn|message|reply|answer|step))\b",
    re.IGNORECASE,
)
"""An action of an earlier turn: this turn's calls cannot tell whether it happened."""
_NEGATION = re.compile(r"\b(?:no|not|nothing|none|never|neither|nor)\b|n['’]t\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?](?=\s|\Z)|\n")
_LAST_CLAUSE_START = re.compile(r".*(?:[.!?:,](?=\s)|[;\n]|\s[-–—]\s)", re.DOTALL)
"""Up to the last place a clause starts (greedy: one match finds the last)."""

PATH = re.compile(
    r"(?<![\w@/.:-])(?:"
    r"(?:~|\.{1,2})?/?(?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,9}"
    r"|(?:~|\.{1,2})?/[\w.-]+(?:/[\w.-]+)*/?"
    r"|[\w.-]+/[\w.-]+(?:/[\w.-]+)*/?"
    r"|(?i:Makefile|Dockerfile|README|LICENSE|Justfile|Procfile|Gemfile|Rakefile)"
    r")(?![\w/-]|\.\w)"
)
_NOT_PATHS = frozenset({"e.g", "i.e", "etc", "vs", "a.m", "p.m"})
_ARTICLES = frozenset(
    {"the", "a", "an", "your", "my", "our", "this", "that", "these", "those", "new", "some",
     "all", "of", "both", "existing", "following", "its", "their", "whole", "entire"}
)  # fmt: skip
_FILE_WORDS = frozenset({"file", "files"})
_PREPOSITION = re.compile(
    r"\b(?:to|into|in|from|at|inside|under|of)\s+(?:the\s+)?(?:file\s+)?(?=\S)", re.IGNORECASE
)
_TESTS = frozenset({"test", "tests", "testsuite", "pytest", "unittest", "unittests", "tox", "nox"})
_NOT_RUN = re.compile(r"(?:into|out|across|over|through|away|up|down|short|late)\b", re.IGNORECASE)
_BY_OTHERS = re.compile(r"\s*by\s+(?!me\b|us\b)", re.IGNORECASE)
_BUILT_WITH = re.compile(r"\s*(?:with|using|on|for|by|around|upon|from)\b", re.IGNORECASE)
_PROGRAM_SKIP = frozenset({"sudo", "env", "time", "nohup", "exec", "command", "doas"})
_PROGRAM_NAMES = """
    pytest python python3 pip pip3 pipx uv poetry npm npx node yarn pnpm bun deno cargo go
    make cmake ninja git ls cat grep rg find echo pwd df du ps top htop free uname whoami date
    curl wget docker kubectl ruff mypy black flake8 pylint tox nox apt apt-get brew bash sh zsh
    gcc clang javac java rustc tsc jest mocha ping tree wc head tail sed awk sort diff which
    hostname uptime lsblk ip ifconfig netstat ss systemctl journalctl mkdir rm touch cp mv chmod
    chown stat less nproc lscpu printenv groups history"""
PROGRAMS = frozenset(_PROGRAM_NAMES.split())
"""Programs a reply may name bare: "I ran ls in the folder"."""

_FAMILY_OF_VERB: dict[str, Family] = {
    "ran": "command", "run": "command", "reran": "command", "re-ran": "command",
    "executed": "command", "reexecuted": "command", "re-executed": "command",
    "tested": "tested",
    "installed": "install", "reinstalled": "install", "re-installed": "install",
    "built": "build", "rebuilt": "build", "re-built": "build", "compiled": "build",
    "committed": "commit", "pushed": "push",
    "deleted": "delete", "removed": "delete", "erased": "delete",
    "read": "read", "opened": "read", "viewed": "read", "inspected": "read",
    "examined": "read", "checked": "read", "looked": "read",
}  # fmt: skip
"""Every other verb of ``_VERBS`` is an edit."""


class Claim(msgspec.Struct, frozen=True):
    """One action the reply says happened."""

    family: Family
    quote: str
    """As it stands in the reply: the verb and what it acts on (``ran the tests``)."""
    program: str | None = None
    """The command a ``command`` claim names (``pytest``, ``main.py``), or None for any."""
    path: str | None = None
    """The file a file claim names, as written, or None for any file."""

    @property
    def key(self) -> tuple[str, str | None, str | None]:
        return (self.family, self.program, self.path)


_Seen = dict[tuple[str, str, str], "Claim | None"]
"""Each (verb, object, quote) classified so far in one reply."""


def find_claims(reply: str) -> list[Claim]:
    """The claims of actions in ``reply``, in order, each once."""
    text = _without_code_blocks(reply)
    found: dict[tuple[int, int], Claim] = {}
    seen: _Seen = {}
    read_to = counted = 0  # where the claims read so far end: each starts at or before its verb
    for match in _actions(text):
        start, verb = match.start(), match.group("verb")
        if start < read_to:
            continue  # part of a claim already read ("ran the tests and committed them")
        before = text[max(0, start - BEFORE) : start]
        if (first := _FIRST_PERSON.search(before)) is not None:
            _first_person(text, start, verb, first.group("aux"), found, seen)
        elif verb in _OPENING_VERBS and _opens_sentence(text, start):
            if not _question(text, match.end()):
                _claim_chain(text, start, verb, found, seen)
        elif verb.lower() in _PARTICIPLES and (aux := _passive_aux(verb, before)) is not None:
            _passive(text, start - len(before) + aux.start(), match, found)
        elif verb.lower() in _RESULTS:
            _passed(text, before, match, found)
        if len(found) != counted:  # a claim was read: it may reach further
            added = islice(reversed(found), len(found) - counted)  # the newest, in O(added)
            read_to = max(read_to, *(end for _, end in added))
            counted = len(found)
    claims: dict[tuple[str, str | None, str | None], Claim] = {}
    for _, claim in sorted(found.items()):
        claims.setdefault(claim.key, claim)
    return list(claims.values())


def _passive_aux(verb: str, before: str) -> re.Match[str] | None:
    """Where ``has been``/``was`` (or, for a change to a file, ``is``) stands before ``verb``."""
    found = _PASSIVE.search(before)
    if found is None and verb.lower() in _CHANGED:
        found = _PRESENT_PASSIVE.search(before)
    return found


def _actions(text: str) -> list[re.Match[str]]:
    """Each verb a claim can stand on, in order."""
    lowered = text.lower()
    if len(lowered) != len(text):  # a letter whose lower case is longer: places would shift
        return list(_ACTION.finditer(text))
    places: set[int] = set()
    for word in _ACTION_WORDS:
        place = lowered.find(word)
        while place != -1:
            for prefix in ("re-", "re", "over-", "over"):  # re-ran, reran, overwrote
                if lowered[max(0, place - len(prefix)) : place] == prefix:
                    places.add(place - len(prefix))
            places.add(place)
            place = lowered.find(word, place + len(word))
    found = (_ACTION.match(text, place) for place in sorted(places) if _starts_word(text, place))
    return [match for match in found if match is not None]


def _starts_word(text: str, place: int) -> bool:
    return place == 0 or not (text[place - 1].isalnum() or text[place - 1] == "_")


def _first_person(
    text: str, start: int, verb: str, aux: str, found: dict[tuple[int, int], Claim], seen: _Seen
) -> None:
    """ "I ran the tests", "we've updated config.ini"."""
    if not _stated(text, start):
        return
    if verb.lower() == "run" and not _has_aux(aux):
        return  # "I run": present tense; "I've run" claims
    _claim_chain(text, start, verb, found, seen)


def _opens_sentence(text: str, start: int) -> bool:
    """Whether only a bullet, a number or bold stand between a sentence's start and ``start``."""
    line_start = text.rfind("\n", 0, start) + 1
    low = max(line_start, start - 16)
    before = text[low:start]
    opener = _OPENER.search(before)
    if opener is None:
        return False
    head = before[: opener.start()]
    if not head:
        return low == line_start
    return head[-1] in ".!?" and opener.group()[:1] in (" ", "\t")


def _without_code_blocks(text: str) -> str:
    """Fenced code is what the reply shows, not what it says it did; blanked to keep places."""
    if "```" not in text:
        return text
    return _CODE_BLOCK.sub(lambda block: " " * len(block.group()), text)


def _has_aux(aux: str) -> bool:
    return bool(re.search(r"['’]ve|\bhave\b|\bhad\b", aux, re.IGNORECASE))


def _clause_before(text: str, start: int) -> str:
    """The text from the start of the clause up to ``start`` (at most 80 characters back)."""
    window = text[max(0, start - 80) : start]
    last = _LAST_CLAUSE_START.match(window)
    return window[last.end() :] if last else window


def _question(text: str, end: int) -> bool:
    """Whether the sentence from ``end`` on closes with a question mark."""
    closing = _SENTENCE_END.search(text, end)
    return closing is not None and closing.group() == "?"


def _stated(text: str, start: int) -> bool:
    """A claim stands as said: not under a condition, not asked."""
    clause = _clause_before(text, start)
    return not (_CONDITION.search(clause) or _EARLIER.search(clause) or _question(text, start))


def _claim_chain(
    text: str, verb_start: int, verb: str, found: dict[tuple[int, int], Claim], seen: _Seen
) -> None:
    """The claim at ``verb_start``, then each verb joined to it: "ran the tests and committed"."""
    while True:
        verb_end = verb_start + len(verb)
        object_text, object_end = _object(text, verb_end)
        span = text[verb_start:object_end]
        key = (verb, object_text, span)
        # A small model repeats itself: the same sentence is classified once per reply.
        claim = seen[key] if key in seen else seen.setdefault(key, _classify(*key))
        if claim is not None:
            found[(verb_start, object_end)] = claim
        joined = _AND_THEN.match(text, object_end)
        if joined is None or claim is None:
            return
        verb_start, verb = joined.start("verb"), joined.group("verb")


def _object(text: str, start: int) -> tuple[str, int]:
    """What the verb acts on, and where it ends."""
    match = _OBJECT.match(text, start)
    end = match.end() if match else start
    cut = _CUT.search(text, start, end)
    if cut is not None:
        end = cut.start()
    return text[start:end], end


_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]")


def _quote(text: str) -> str:
    """The claim as every face shows it: on one line, no control character (a reply may hold
    escape sequences meant for the person's terminal), at most ``QUOTE_CAP`` characters."""
    text = " ".join(_CONTROLS.sub(" ", text).split())
    return text if len(text) <= QUOTE_CAP else text[: QUOTE_CAP - 1].rstrip() + "…"


def _words(text: str) -> list[str]:
    return [word.strip("`*'\"()[]") for word in text.split()]


def _head(object_text: str, count: int = 4) -> list[str]:
    """The object's first words past its articles: "the new config file" → config, file."""
    words = [word for word in _words(object_text) if word]
    while words and words[0].lower() in _ARTICLES:
        words.pop(0)
    return words[:count]


def _classify(verb: str, object_text: str, span: str) -> Claim | None:
    """The claim a verb and its object make, or None when they make none."""
    family = _FAMILY_OF_VERB.get(verb.lower().split()[0], "edit")
    quote = _quote(span)
    head = _head(object_text)
    if object_text.strip() and _NEGATION.match(object_text.strip()):
        return None  # "I ran nothing", "I ran no commands"
    if _EARLIER.search(object_text):
        return None  # "I ran the tests earlier": another turn's calls
    if family == "command":
        return _command_claim(object_text, head, quote)
    if family == "tested":
        return Claim("tested", quote)
    if family == "install":
        return Claim("install", quote) if head else None
    if family == "build":
        return _build_claim(object_text, quote)
    if family == "commit":
        return None if object_text.lstrip().lower().startswith("to ") else Claim("commit", quote)
    if family == "push":
        return Claim("push", quote)
    return _file_claim(family, object_text, head, quote)


def _command_claim(object_text: str, head: list[str], quote: str) -> Claim | None:
    if _NOT_RUN.match(object_text.lstrip()):
        return None  # "I ran into a problem", "ran out of time"
    if any(word.lower() in _TESTS or word.lower().startswith("test") for word in head[:3]):
        return Claim("tests", quote, program=_program(object_text))
    program = _program(object_text)
    if program is not None and program in ("pytest", "tox", "nox"):
        return Claim("tests", quote, program=program)
    return Claim("command", quote, program=program)


def _build_claim(object_text: str, quote: str) -> Claim | None:
    words = _words(object_text)
    if (words and words[0].lower() in ("a", "an")) or _BUILT_WITH.match(object_text):
        return None  # "I built a small calculator": the reply's own code
    return Claim("build", quote)


def _program(object_text: str) -> str | None:
    """The program a run names: a code span's first word, a path, or a known program."""
    code = re.search(r"`([^`\n]+)`", object_text)
    if code is not None:
        words = [w for w in code.group(1).split() if "=" not in w and w not in _PROGRAM_SKIP]
        return _program_name(words[0]) if words else None
    for word in _head(object_text, 3):
        if word.lower() in PROGRAMS:
            return word.lower()
        if PATH.fullmatch(word) and word.lower() not in _NOT_PATHS:
            return _program_name(word)
    return None


def _program_name(word: str) -> str:
    return word.rstrip("/").rsplit("/", 1)[-1]


def paths_in(text: str) -> list[str]:
    """The file paths in ``text``, code spans included, as written."""
    found = [m.group() for m in PATH.finditer(text.replace("`", " "))]
    return [p for p in found if p.lower().rstrip(".") not in _NOT_PATHS and "://" not in p]


def _file_claim(family: Family, object_text: str, head: list[str], quote: str) -> Claim | None:
    """A claim on a file: a path as its first word ("updated config.ini"), "file" among its
    first three ("the settings file", "a new file called hello.py"), or a path or "the file"
    right after to/in/from/of ("saved the output to out.txt", "removed the import from
    main.py", "is removed from the file")."""
    named = paths_in(head[0]) if head else []
    if named:
        return Claim(family, quote, path=named[0])
    if any(word.lower() in _FILE_WORDS for word in head[:3]):
        paths = paths_in(object_text)
        return Claim(family, quote, path=paths[0] if paths else None)
    for preposition in _PREPOSITION.finditer(object_text):
        rest = object_text[preposition.end() :]
        first = rest.split(None, 1)[0] if rest.split() else ""
        after = paths_in(first) if first else []
        named_file = first.strip(".,;:!").lower() in _FILE_WORDS
        if after or named_file or "file" in preposition.group().lower():
            # Removing a line from a file edits it.
            path = after[0] if after else None
            return Claim("edit" if family == "delete" else family, quote, path=path)
    return None


def _passive(
    text: str, aux: int, match: re.Match[str], found: dict[tuple[int, int], Claim]
) -> None:
    """ "config.ini has been updated", "the tests were run"; ``aux`` is where has/was stands."""
    clause = _clause_before(text, aux)
    if _NEGATION.search(clause) or _CONDITION.search(clause) or _question(text, aux):
        return
    if _EARLIER.search(clause):
        return
    subject = " ".join(clause.split()[-SUBJECT_WORDS:])
    if not subject:
        return
    start = text.rfind(subject.split()[0], 0, aux)
    verb = match.group("verb")
    object_text, end = _object(text, match.end())
    if _BY_OTHERS.match(object_text) or (
        verb.lower() == "built" and _BUILT_WITH.match(object_text)
    ):
        return  # "was created by the installer", "was built with React": no action of ours
    family = _FAMILY_OF_VERB.get(verb.lower(), "edit")
    quote = _quote(text[start:end])
    words = [word.lower() for word in _words(subject)]
    claim: Claim | None
    if family == "command":
        is_tests = any(w in _TESTS or w.startswith("test") for w in words)
        claim = Claim("tests" if is_tests else "command", quote, program=_program(subject))
    elif family in ("tested", "install", "commit", "push"):
        claim = Claim(family, quote)
    elif family == "build":
        claim = Claim("build", quote)
    else:
        named = paths_in(subject)
        if named:
            claim = Claim(family, quote, path=named[-1])
        elif any(word in _FILE_WORDS for word in words):
            claim = Claim(family, quote)
        else:
            claim = _file_claim(family, object_text, [], quote)
    if claim is not None:
        found[(start, end)] = claim


def _passed(
    text: str, before: str, match: re.Match[str], found: dict[tuple[int, int], Claim]
) -> None:
    """ "All tests passed", "the command succeeded": a run is claimed."""
    verb = match.group("verb").lower()
    tests = _TESTS_BEFORE.search(before) if verb != "executed" else None
    thing = _THING_BEFORE.search(before) if tests is None else None
    lead = tests or thing
    if lead is None or (thing is not None and verb == "passed"):
        return
    start = match.start() - len(lead.group())
    clause = _clause_before(text, start)
    if _CONDITION.search(clause) or _NEGATION.search(clause) or _question(text, match.end()):
        return
    kind = thing.group("thing").lower() if thing is not None else ""
    family: Family = "build" if kind == "build" else "command" if kind else "tests"
    found[(start, match.end())] = Claim(family, _quote(text[start : match.end()]))
