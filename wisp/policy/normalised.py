"""A readable command's normalised forms: the words the shell will pass, for the deny list.

Quotes and backslashes are removed, the program is named by its basename, and each run of short
options is joined (``-r -f`` → ``-rf``). There is one form per wrapper looked through
(``sudo rm -rf /`` → ``sudo rm -rf /``, ``rm -rf /``), and ``| `` stands in front of a command
that reads a pipe, so ``curl x | "/bin/sh"`` has the form ``| sh``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from wisp.policy.program import Program, program_name
from wisp.policy.shell_words import quoted

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["normalised_forms", "reads_pipe"]

# A word the normalised form must quote so that it stays one word and adds no structure.
_NEEDS_QUOTES = re.compile(r"""[\s;&|()<>'"\\$`]""")
_SHORT_OPTIONS = re.compile(r"-[A-Za-z]+")
# What hands its input on to the commands inside it. Loops do too, but `… | while read f; do
# bash build.sh "$f"; done` is a common way to run a script per line, not a pipe into a shell.
_SHARES_INPUT = frozenset(
    {"subshell", "compound_statement", "redirected_statement", "list", "negated_command"}
)


def normalised_forms(words: list[str], program: Program, *, reads_pipe: bool) -> tuple[str, ...]:
    """The command as the shell runs it, once from each wrapper looked through, outermost first.

    A command after ``xargs`` reads no pipe (xargs does), so it loses the ``| `` mark."""
    starts = dict(program.layers)
    starts[program.index] = program.name or ""
    words = list(words)
    for start in starts:
        words[start] = program_name(words[start])
    forms: list[str] = []
    for start, name in starts.items():
        form = _normalised(words[start:])
        forms.append(f"| {form}" if reads_pipe else form)
        reads_pipe = reads_pipe and name != "xargs"
    return tuple(forms)


def reads_pipe(statement: Node) -> bool:
    """Whether the command's input is the pipe from the command before it, directly or through
    the groups and loops around it (``curl x | { cd /tmp; sh; }``)."""
    node = statement
    while (parent := node.parent) is not None:
        if parent.type == "pipeline":
            return node.prev_named_sibling is not None
        if parent.type not in _SHARES_INPUT:
            return False
        node = parent
    return False


def _normalised(words: list[str]) -> str:
    """``rm -r -f 'a b'`` → ``rm -rf 'a b'``: each run of short options joined (up to ``--``),
    each word quoted only when it would not stay one plain word."""
    shown = [words[0]]
    is_joining = True
    was_short = False
    for word in words[1:]:
        is_joining = is_joining and word != "--"
        is_short = is_joining and word[:1] == "-" and _SHORT_OPTIONS.fullmatch(word) is not None
        if is_short and was_short:
            shown[-1] += word[1:]
        else:
            shown.append(word)
        was_short = is_short
    return " ".join(
        word if word and not _NEEDS_QUOTES.search(word) else quoted(word) for word in shown
    )
