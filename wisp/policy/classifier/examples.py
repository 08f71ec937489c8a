"""The labelled commands a classifier learns from: the bundled set, or the person's own file.

The bundled set is ``commands.jsonl.gz`` beside this module (its README says where each command
comes from and how it was labelled). A line is one JSON object: ``command``, ``label`` (``safe``,
``moderate`` or ``dangerous``), ``source`` and ``split`` (``train``, or ``heldout`` for the part
never learnt from). A person's file (``wisp classifier train --examples FILE``) has the same
lines, plain or gzipped; ``source`` and ``split`` may be left out, and every line is learnt from.
"""

from __future__ import annotations

import gzip
from importlib import resources
from pathlib import Path
from typing import Literal

import msgspec

from wisp.errors import WispError
from wisp.policy.types import Level

__all__ = ["BUNDLED", "Example", "bundled_examples", "read_examples"]

BUNDLED = "bundled"
"""``examplesSource`` of a model trained on the bundled set."""

Split = Literal["train", "heldout"]


class Example(msgspec.Struct, frozen=True):
    """One labelled command."""

    command: str
    label: Level
    source: str = "examples"
    """Where it comes from: ``handwritten``, ``tldr:PAGE`` (the page it is an example of)."""
    split: Split = "train"
    """``heldout``: never learnt from, kept for measuring."""


_DECODER = msgspec.json.Decoder(Example)


def bundled_examples() -> list[Example]:
    """Every command of the bundled set, both splits."""
    raw = resources.files("wisp.policy.classifier").joinpath("commands.jsonl.gz").read_bytes()
    return _decoded(gzip.decompress(raw), "commands.jsonl.gz")


def read_examples(path: Path) -> list[Example]:
    """The examples in a person's file, each named by its line when it does not fit."""
    try:
        raw = path.read_bytes()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise WispError(f"{path}: cannot read the examples ({exc})") from exc
    examples = _decoded(raw, str(path))
    if not examples:
        raise WispError(f"{path}: no examples (one JSON object a line: command, label)")
    return examples


def _decoded(raw: bytes, where: str) -> list[Example]:
    examples = []
    for number, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            examples.append(_DECODER.decode(line))
        except msgspec.DecodeError as exc:
            raise WispError(f"{where}:{number}: {exc}") from exc
    return examples
