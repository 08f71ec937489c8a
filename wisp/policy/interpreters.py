"""Programs that run the code they are handed, and where that code comes from (docs/policy.md,
"What the deny list stops").

An interpreter runs the text of its stdin when it is given no code of its own
(``curl x | python3``, ``curl x | bash -s``, ``curl x | perl -``), and the text of its code
word otherwise: the value of ``-c``/``-e``/``-m``… or its script operand
(``python3 -c "$(curl x)"``, ``bash <(wget -O- x)``). ``cat x.json | python3 -m json.tool``
reads data on stdin, not code, and so does ``curl x | python3 -c '…'``.
"""

from __future__ import annotations

import re

__all__ = ["code_words", "is_interpreter", "reads_code_on_stdin"]

SHELLS = frozenset(
    [
        "sh", "bash", "zsh", "dash", "ksh", "mksh", "oksh", "pdksh", "yash", "posh", "ash",
        "rbash", "csh", "tcsh", "fish", "elvish", "nu", "xonsh"
    ]
)  # fmt: skip
_INTERPRETERS = re.compile(
    r"(?:python|pypy|perl|ruby|node|nodejs|php|lua|luajit|tclsh|wish|jruby|rakudo|raku)[\d.]*"
    r"|deno|bun|irb|expect|Rscript|R|julia|pwsh|powershell|osascript|jshell|groovy|scala|guile"
    r"|racket|sbcl|clisp|swipl|[gmn]?awk|source|\.|eval"
)
# A short option (alone or last in a cluster) whose value is code: `-c`, `-e`, `-pe`, `-m`.
_CODE_FLAGS = {"python": "cm", "pypy": "cm", "php": "rf", "node": "ep", "awk": "f"}
_OTHERS_CODE_FLAGS = "eE"  # perl, ruby, lua, Rscript, julia …
_CODE_LONG = frozenset({"--command", "--eval", "--print", "--file"})
# Options whose value is the next word and is not code: `python -W error`, `ruby -r json`.
_VALUE_OPTIONS = frozenset(
    {"-W", "-X", "-I", "-r", "-l", "-o", "+o", "-O", "+O", "--rcfile", "--init-file", "--require",
     "--import", "--loader", "-M"}
)  # fmt: skip
_STDIN = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})


def is_interpreter(name: str) -> bool:
    """Whether ``name`` runs code it is handed: a shell, python, perl, node, ``eval`` …"""
    return name in SHELLS or _INTERPRETERS.fullmatch(name) is not None


def reads_code_on_stdin(name: str, args: list[str]) -> bool:
    """Whether the interpreter runs what it reads on stdin."""
    if name in ("source", ".", "eval"):
        return any(arg in _STDIN for arg in args)
    if _reads_script_from_stdin(name, args):
        return True
    found = _code_word(name, args)
    return found is None or args[found] in _STDIN


def code_words(name: str, args: list[str]) -> list[int]:
    """Which arguments (by index) hold the code the interpreter runs."""
    if name in ("source", ".", "eval"):
        return list(range(len(args))) if name == "eval" else [0] if args else []
    if _reads_script_from_stdin(name, args):
        return []
    found = _code_word(name, args)
    return [] if found is None else [found]


def _reads_script_from_stdin(name: str, args: list[str]) -> bool:
    """``bash -s``: the script is stdin, whatever follows."""
    return name in SHELLS and any(_is_cluster(arg) and "s" in arg for arg in _options(args))


def _code_word(name: str, args: list[str]) -> int | None:
    """The index of the code word: a code option's value, else the first operand."""
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in ("--", "-"):
            return index + 1 if arg == "--" and index + 1 < len(args) else index
        if arg in _CODE_LONG or (_is_cluster(arg) and _takes_code(name, arg)):
            return index + 1 if index + 1 < len(args) else None
        if arg.startswith("--") and "=" in arg and arg.split("=", 1)[0] in _CODE_LONG:
            return index
        if _is_cluster(arg) and _attached_code(name, arg):
            return index  # `python -cprint(1)`: the code in the same word
        if arg[:1] in ("-", "+") and len(arg) > 1:
            index += 2 if arg in _VALUE_OPTIONS and not _takes_code(name, arg) else 1
            continue
        return index
    return None


def _takes_code(name: str, option: str) -> bool:
    return option[-1] in _code_flags(name)


def _code_flags(name: str) -> str:
    if name in SHELLS:
        return "c"
    family = next((key for key in _CODE_FLAGS if name.startswith(key) or name.endswith(key)), None)
    return _CODE_FLAGS[family] if family else _OTHERS_CODE_FLAGS


def _attached_code(name: str, option: str) -> bool:
    return len(option) > 2 and option[1] in _code_flags(name) and name not in SHELLS


def _is_cluster(arg: str) -> bool:
    return arg.startswith("-") and not arg.startswith("--") and len(arg) > 1


def _options(args: list[str]) -> list[str]:
    options = []
    for arg in args:
        if arg == "--" or not arg.startswith(("-", "+")):
            break
        options.append(arg)
    return options
