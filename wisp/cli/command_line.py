"""Reading the command line's words before the real parse: a prompt or a command's name, and a
lone word that is a command mistyped.

argparse cannot parse ``wisp [options] PROMPT...`` and ``wisp [options] COMMAND ...`` with one
parser (a prompt's first word would be taken for a command's name), so ``main`` first asks
which it is. The options are read here by argparse itself, from the same definitions, so that
``-m local``, ``--model=local``, ``--mod local`` and ``-ym local`` all read as they will later.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Collection, Sequence

import msgspec

from wisp.spelling import meant

AddOptions = Callable[[argparse.ArgumentParser], None]


class Words(msgspec.Struct, frozen=True):
    """The words of a command line that are neither options nor an option's value."""

    words: list[str]
    """In order: a command's name and its words, or a prompt."""
    first: int | None
    """Where the first of them stands in the command line; None when there are none."""
    dashed: bool
    """Whether they all come after ``--``: a prompt, whatever they say."""


class WordReader:
    """Reads a command line with the options that may come before a prompt or a command."""

    def __init__(self, add_options: AddOptions) -> None:
        # exit_on_error=False: an option without its value is left for the real parse to
        # report, in its own words.
        self._parser = argparse.ArgumentParser(prog="wisp", add_help=False, exit_on_error=False)
        add_options(self._parser)
        self._parser.add_argument("words", nargs="*")

    def read(self, argv: Sequence[str]) -> Words | None:
        """The command line's words; None when its options cannot be read."""
        try:
            words = self._words(argv)
            dashed = "--" in argv and not self._words(argv[: argv.index("--")])
        except argparse.ArgumentError:
            return None
        if dashed or not words:
            return Words(words, None, dashed)
        return Words(words, self._first(argv), dashed)

    def _words(self, argv: Sequence[str]) -> list[str]:
        namespace, _ = self._parser.parse_known_intermixed_args(list(argv))
        return namespace.words

    def _first(self, argv: Sequence[str]) -> int:
        """Where the first word stands: the shortest start of the line that has a word ends
        with it (a word equal to an option's value is not mistaken for it)."""
        for end in range(1, len(argv)):
            try:
                if self._words(argv[:end]):
                    return end - 1
            except argparse.ArgumentError:
                continue  # `-m` without the value that follows it
        return len(argv) - 1


def near_command(word: str, commands: Collection[str]) -> str | None:
    """The command ``word`` is one slip from (``wisp modles``), if any."""
    if any(character.isspace() for character in word):
        return None  # a phrase in quotes is a prompt, not a slip of the keyboard
    return meant(word, commands)
