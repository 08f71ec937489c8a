"""The trained classifier on commands the rules do not know: how often it is right, and what
one verdict costs (docs/performance.md, "The command classifier: `bench/classifier.py`").

    python bench/classifier.py             # trains on the bundled set (~15 s), 5 timing rounds
    python bench/classifier.py --rounds 2  # fewer timing rounds
    python bench/classifier.py --json      # one JSON document on stdout

**Accuracy.** The model is trained, as `wisp classifier train` trains it, on the bundled set's
`train` split; it is measured on the `heldout` split (never learnt from), on the commands there
the rules do not know: those they rate the flat `moderate` of "not in the rules" (no rule
matched, no known-safe form). For each true level: the share the trained label gets right, the
share the gate then rates right (with `commandPolicy.classifier.mayLower` off, the default, and
on), and the share the rules' flat `moderate` gets right (all of the moderate ones, none of the
others). The gate's level is the real one: `SecondOpinion.review` over the written model.

**Time.** For each of those commands, rated by the rules alone (`assess`) and by the rules then
the second opinion (`assess`, then `review`, as the runner does), alternately, in rounds; the
median µs of each per command over the rounds, then the median over the commands, and the
difference: what one verdict adds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from wisp.policy.classifier.examples import Example, bundled_examples
from wisp.policy.classifier.opinion import SecondOpinion
from wisp.policy.classifier.scorer import TrainedModel
from wisp.policy.classifier.trained_judge import TrainedJudge
from wisp.policy.classifier.training import train
from wisp.policy.rules import NO_RULE_REASON, assess
from wisp.policy.split import split_line
from wisp.policy.types import SimpleCommand

LEVELS = ("safe", "moderate", "dangerous")


def unknown_to_the_rules(examples: list[Example]) -> list[tuple[SimpleCommand, Example]]:
    found = []
    for example in examples:
        part = split_line(example.command)[0]
        if assess(part).reasons == [NO_RULE_REASON]:
            found.append((part, example))
    return found


async def gate_levels(
    path: Path, cases: list[tuple[SimpleCommand, Example]], *, may_lower: bool
) -> list[str]:
    opinion = SecondOpinion(TrainedJudge(path), may_lower=may_lower)
    levels = []
    for part, _ in cases:
        reviewed = await opinion.review([part], [assess(part)], path.parent)
        levels.append(reviewed.assessments[0].level)
    return levels


def shares(cases: list[tuple[SimpleCommand, Example]], said: list[str]) -> dict[str, float]:
    right: Counter[str] = Counter()
    count: Counter[str] = Counter()
    for (_, example), level in zip(cases, said, strict=True):
        count[example.label] += 1
        right[example.label] += level == example.label
    table = {level: right[level] / count[level] for level in LEVELS if count[level]}
    table["all"] = sum(right.values()) / sum(count.values())
    return table


async def timings(
    path: Path, cases: list[tuple[SimpleCommand, Example]], rounds: int
) -> dict[str, float]:
    opinion = SecondOpinion(TrainedJudge(path), may_lower=False)
    await opinion.review([cases[0][0]], [assess(cases[0][0])], path.parent)  # loads the model
    alone: list[list[float]] = [[] for _ in cases]
    both: list[list[float]] = [[] for _ in cases]
    for round_ in range(rounds):
        for index, (part, _) in enumerate(cases):
            order = (False, True) if (index + round_) % 2 else (True, False)
            for with_opinion in order:
                started = time.perf_counter()
                assessment = assess(part)
                if with_opinion:
                    await opinion.review([part], [assessment], path.parent)
                took = (time.perf_counter() - started) * 1e6
                (both if with_opinion else alone)[index].append(took)
    rules = statistics.median(statistics.median(times) for times in alone)
    with_classifier = statistics.median(statistics.median(times) for times in both)
    return {"rules": rules, "rulesAndClassifier": with_classifier, "added": with_classifier - rules}


def measure(rounds: int) -> dict[str, object]:
    examples = bundled_examples()
    learnt = [e for e in examples if e.split == "train"]
    trained = train(learnt, "bundled")
    cases = unknown_to_the_rules([e for e in examples if e.split == "heldout"])
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "model.json"
        path.write_bytes(msgspec.json.encode(trained.model))
        scorer = TrainedModel.load(path)
        labels = [scorer.predict(part).label for part, _ in cases]
        kept = asyncio.run(gate_levels(path, cases, may_lower=False))
        lowered = asyncio.run(gate_levels(path, cases, may_lower=True))
        times = asyncio.run(timings(path, cases, rounds))
        model_bytes = path.stat().st_size
    return {
        "trainingExamples": len(learnt),
        "trainingSeconds": trained.seconds,
        "modelBytes": model_bytes,
        "features": len(trained.model.vocabulary),
        "heldOutUnknown": dict(Counter(example.label for _, example in cases)),
        "label": shares(cases, labels),
        "gate": shares(cases, kept),
        "gateMayLower": shares(cases, lowered),
        "flatModerate": shares(cases, ["moderate"] * len(cases)),
        "microseconds": times,
    }


def report(result: dict[str, object]) -> None:
    counts = result["heldOutUnknown"]
    assert isinstance(counts, dict)
    print(
        f"trained on {result['trainingExamples']:,} examples in {result['trainingSeconds']} s: "
        f"{result['features']:,} features, {result['modelBytes']:,} bytes"
    )
    print(f"held out, unknown to the rules: {sum(counts.values()):,} commands {counts}")
    print("| level | trained label | gate (mayLower off) | gate (mayLower on) | flat moderate |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for level in (*LEVELS, "all"):
        cells = [result[key][level] for key in ("label", "gate", "gateMayLower", "flatModerate")]
        print(f"| {level} | " + " | ".join(f"{cell:.1%}" for cell in cells) + " |")
    times = result["microseconds"]
    assert isinstance(times, dict)
    print(
        f"median µs a verdict: rules {times['rules']:.0f}, rules and classifier "
        f"{times['rulesAndClassifier']:.0f}, added {times['added']:.0f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="timing rounds (5)")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    args = parser.parse_args()
    result = measure(args.rounds)
    if args.json:
        print(json.dumps(result))
    else:
        report(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
