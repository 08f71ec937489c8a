"""Builds ``wisp/policy/classifier/commands.jsonl.gz``, the labelled commands the trained
classifier learns from (``wisp/policy/classifier/README.md`` says what is in it and how it is
labelled).

    python tools/classifier_data/build.py --tldr PAGES [--out FILE]

``PAGES`` is the ``pages/`` folder of a tldr-pages checkout (the bundled set was built from the
commit the README names). The hand-written examples (``handwritten.tsv``, beside this file) come
first and keep their labels; each tldr example is labelled by ``labelling.label``. Only a
command that wisp's splitter reads as one simple command, readable, is kept, each text once. A
fifth of the commands, chosen by a hash of their text, is held out: ``wisp classifier train``
never learns from them, and ``bench/classifier.py`` measures on them.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import shlex
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import msgspec

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(HERE), str(ROOT)]

from labelling import Level, label  # noqa: E402
from tldr import examples  # noqa: E402

from wisp.policy.classifier.examples import Example  # noqa: E402
from wisp.policy.split import split_line  # noqa: E402

OUT = ROOT / "wisp" / "policy" / "classifier" / "commands.jsonl.gz"
HELD_OUT_SHARE = 5
"""One command in this many is held out."""
LONGEST = 200
"""Longer example lines are mostly scripts, not commands a model types."""


def handwritten() -> Iterator[tuple[str, Level, str]]:
    for line in (HERE / "handwritten.tsv").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            level, command = line.split("\t", 1)
            yield command, level, "handwritten"  # type: ignore[misc]


def from_tldr(pages: Path) -> Iterator[tuple[str, Level, str]]:
    for example in examples(pages):
        try:
            words = shlex.split(example.command)
        except ValueError:
            continue
        if words[:1] == ["tldr"]:
            continue  # a page that only points to another
        level = label(words, example.description)
        if level is not None:
            yield example.command, level, f"tldr:{example.page}"


def is_one_command(text: str) -> bool:
    parts = split_line(text)
    return len(parts) == 1 and parts[0].readable and parts[0].text == text.strip()


def split_of(command: str) -> str:
    digest = hashlib.sha256(command.encode()).digest()
    return "heldout" if digest[0] % HELD_OUT_SHARE == 0 else "train"


def build(pages: Path) -> list[Example]:
    seen: set[str] = set()
    kept: list[Example] = []
    for command, level, source in [*handwritten(), *from_tldr(pages)]:
        if command in seen or len(command) > LONGEST or not is_one_command(command):
            continue
        seen.add(command)
        kept.append(Example(command, level, source, split_of(command)))
    return kept


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tldr", type=Path, required=True, help="tldr-pages' pages/ folder")
    parser.add_argument("--out", type=Path, default=OUT, help="the file to write")
    args = parser.parse_args()
    kept = build(args.tldr)
    lines = b"".join(msgspec.json.encode(example) + b"\n" for example in kept)
    args.out.write_bytes(gzip.compress(lines, mtime=0))
    levels = Counter(example.label for example in kept)
    sources = Counter(example.source.split(":")[0] for example in kept)
    held = sum(example.split == "heldout" for example in kept)
    print(f"{len(kept)} commands ({dict(levels)}; {dict(sources)}; {held} held out) -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
