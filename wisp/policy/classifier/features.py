"""What a classifier sees of a simple command: one list of feature names, made here alone.

Training (``training.py``, with scikit-learn) and the scorer at run time (``scorer.py``, pure
Python) both call ``command_features``, so a command is featurised the same way on both sides;
``FEATURES_VERSION`` is written into every trained model, and a model made by another version is
not used. The features are names, each present or not:

* ``p:rm``: the program (wrappers looked through), and ``pc:^rm``, ``pc:rm$``: its letters in
  threes, so an unseen ``mkfs.xfs`` is near a seen ``mkfs.ext4``;
* ``v:git push``: its verb, and ``a1:tar xzf``: its first plain word;
* ``o:-r`` and ``po:rm -r``: each option (a run of short ones split, a long one without its
  value), alone and with its program; ``ow:delete``: each word of a long option;
* ``w:install``: each plain word that reads as a word, whatever the program;
* shapes of the other words (``s:root``, ``s:sys``, ``s:dev``, ``s:home``, ``s:glob``, ``s:url``,
  ``s:remote``, ``s:secret``, ``s:var``, ``x:sql`` …), of ``key=value`` words (``kv:dd of``),
  the wrappers around the program (``wrap:sudo``) and of the command's redirections
  (``r:write``, ``r:dev``) and its input (``r:pipe``).
"""

from __future__ import annotations

import re

from wisp.policy.types import SimpleCommand

__all__ = ["FEATURES_VERSION", "command_features"]

FEATURES_VERSION = 1
"""Raised whenever a feature changes: a model trained on other features is refused."""

_WORDLIKE = re.compile(r"[a-z][a-z0-9_-]{0,23}")
_SHORT = re.compile(r"-[A-Za-z]+")
_LONG = re.compile(r"--([A-Za-z][\w-]*)")
_KEY_VALUE = re.compile(r"([a-z][a-z0-9_]{0,11})=")
_REMOTE = re.compile(r"^(?:[\w.-]+@)?[\w-]+(?:\.[\w-]+)*:(?!//)")
_SYSTEM = re.compile(r"^/(?:etc|usr|boot|bin|sbin|lib|lib64|var|opt|root|sys|proc|srv)(?:/|$)")
_SECRET = re.compile(
    r"\.ssh|id_(?:rsa|dsa|ecdsa|ed25519)|\.env\b|secret|token|passw|credential|\.pem$|\.key$|"
    r"shadow|\.gnupg|\.netrc|keyring|\.kube/config|\.aws",
    re.IGNORECASE,
)
_EXTENSION = re.compile(r"\.([a-z0-9]{1,5})$")
_WRAPPERS = frozenset([
    "sudo", "doas", "su", "pkexec", "run0", "runuser", "setpriv", "env", "nice", "nohup", "time",
    "timeout", "xargs", "ionice", "setsid", "chroot", "unshare", "nsenter", "busybox", "stdbuf",
    "exec", "command",
])  # fmt: skip
_EVERYTHING = frozenset({"/", "/*", "~", "~/", "~/*", "$HOME", "${HOME}", "*", ".*", "./*"})


def command_features(command: SimpleCommand) -> list[str]:
    """The command's features, sorted, each once."""
    words = list(command.facts.words) if command.facts and command.facts.words else []
    words = words or command.text.split()
    program = command.executable or "?"
    at = _program_index(words, program)
    found = {f"p:{program}", *_letters(program)}
    found.update(f"wrap:{_base(word)}" for word in words[:at] if _base(word) in _WRAPPERS)
    if command.subcommand:
        found.add(f"v:{program} {command.subcommand}")
    args = words[at + 1 :]
    first = next((arg for arg in args if not arg.startswith("-")), None)
    if first is not None and _WORDLIKE.fullmatch(first):
        found.add(f"a1:{program} {first}")
    for arg in args:
        found.update(_option(program, arg) if arg[:1] == "-" and len(arg) > 1 else _word(arg))
    found.update(_redirections(command))
    return sorted(found)


def _program_index(words: list[str], program: str) -> int:
    for index, word in enumerate(words):
        if _base(word) == program:
            return index
    return 0


def _base(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def _letters(program: str) -> set[str]:
    marked = f"^{program}$"
    return {f"pc:{marked[i : i + 3]}" for i in range(max(len(marked) - 2, 1))}


def _option(program: str, arg: str) -> set[str]:
    if _SHORT.fullmatch(arg):
        return {f for letter in arg[1:] for f in (f"o:-{letter}", f"po:{program} -{letter}")}
    match = _LONG.match(arg)
    if match is None:
        return {f"o:{arg[:3]}"}  # `-1`, `-9`: a signal or a count
    name = match.group(1).lower()
    parts = {f"ow:{part}" for part in name.split("-") if part}
    return {f"o:--{name}", f"po:{program} --{name}", *parts}


def _word(arg: str) -> set[str]:
    found: set[str] = set()
    lower = arg.lower()
    if _WORDLIKE.fullmatch(lower):
        found.add(f"w:{lower}")
    if (key := _KEY_VALUE.match(arg)) is not None:
        found.add(f"kv:{key.group(1)}")
        arg = arg[key.end() :]  # `of=/dev/sda`: the value's shape
    found.update(_shapes(arg))
    return found


def _shapes(arg: str) -> set[str]:
    shapes: set[str] = set()
    if arg in _EVERYTHING:
        shapes.add("s:everything")
    if arg.startswith("/"):
        shapes.add("s:abs")
    if _SYSTEM.match(arg):
        shapes.add("s:sys")
    if arg.startswith("/dev/"):
        shapes.add("s:null" if arg in ("/dev/null", "/dev/stdout", "/dev/stderr") else "s:dev")
    if arg.startswith(("~", "$HOME", "${HOME}")):
        shapes.add("s:home")
    if "*" in arg or "?" in arg:
        shapes.add("s:glob")
    if "://" in arg:
        shapes.add("s:url")
    elif _REMOTE.match(arg):
        shapes.add("s:remote")
    if arg.startswith("@") or "=@" in arg:
        shapes.add("s:at-file")
    if _SECRET.search(arg):
        shapes.add("s:secret")
    if "$" in arg or "`" in arg:
        shapes.add("s:var")
    if (extension := _EXTENSION.search(arg.lower())) is not None and "://" not in arg:
        shapes.add(f"x:{extension.group(1)}")
    return shapes


def _redirections(command: SimpleCommand) -> set[str]:
    found: set[str] = set()
    writes = command.facts.writes if command.facts else ()
    for target in writes:
        if target in ("/dev/null", "/dev/stdout", "/dev/stderr"):
            found.add("r:null")
        else:
            found.add("r:write")
            found.update(f"r{shape}" for shape in _shapes(target) & {"s:dev", "s:sys", "s:home"})
    if any(form.startswith("| ") for form in command.normalised):
        found.add("r:pipe")
    return found
