"""The check against a labelled set of replies with their calls (labelled.toml): real model
output where there is some, written replies for the cases models seldom produce. Prints the
precision and recall of flagging a reply (`claimed but not done`), and holds them to their
targets: a flagged reply really claims what no call did (precision ≥ 0.95), and most such
replies are flagged (recall ≥ 0.8)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from tests.agent.verification.trail import command, file_call, trail
from tests.recorded import recorded
from wisp.agent.verification import verify
from wisp.audit.event import AuditEvent

LABELLED = Path(__file__).with_name("labelled.toml")
HERE = Path("/work/project")
"""The working directory every entry's paths are read against."""
PRECISION, RECALL = 0.95, 0.8
KINDS = {"true", "false", "none", "negation", "future", "relative", "absolute"}


def entries() -> list[dict[str, Any]]:
    return tomllib.loads(LABELLED.read_text())["reply"]


def events_of(calls: list[dict[str, Any]]) -> list[AuditEvent]:
    made: list[list[AuditEvent]] = []
    for number, call in enumerate(calls):
        outcome = call.get("outcome", "succeeded")
        if call["tool"] == "run_command":
            made.append(command(call["command"], outcome))
        elif call["tool"] in ("edit_file", "read_file"):
            made.append(file_call(call["tool"], call["path"], ok=outcome == "succeeded"))
        else:
            made.append(
                [
                    recorded("tool.call", f"o{number}", tool=call["tool"], arguments={}),
                    recorded("tool.result", f"o{number}", tool=call["tool"], output="ok"),
                ]
            )
    return trail(*made)


def flagged(entry: dict[str, Any]) -> bool:
    found = verify(entry["text"], events_of(entry["calls"]), HERE)
    return found is not None and found.details.status == "unsupported"


def test_the_set_is_large_and_covers_every_case() -> None:
    labelled = entries()
    assert len(labelled) >= 60
    assert len({entry["id"] for entry in labelled}) == len(labelled)
    covered = {kind for entry in labelled for kind in entry["kinds"]}
    assert covered == KINDS
    assert sum(entry["real"] for entry in labelled) >= 30
    assert all(entry["source"] for entry in labelled if entry["real"])


def figures(labelled: list[dict[str, Any]]) -> tuple[float, float, dict[str, int]]:
    """Precision and recall of flagging over ``labelled``, and the counts they come from."""
    counts = {"tp": 0, "fp": 0, "fn": 0, "tn": 0}
    for entry in labelled:
        said = flagged(entry)
        counts[("t" if said == entry["flagged"] else "f") + ("p" if said else "n")] += 1
    precision = counts["tp"] / max(counts["tp"] + counts["fp"], 1)
    recall = counts["tp"] / max(counts["tp"] + counts["fn"], 1)
    return precision, recall, counts


def summary(precision: float, recall: float, counts: dict[str, int]) -> str:
    tally = ", ".join(f"{key} {count}" for key, count in counts.items())
    return f"precision {precision:.2f}, recall {recall:.2f} ({tally})"


def test_precision_and_recall_of_flagging() -> None:
    labelled = entries()
    precision, recall, counts = figures(labelled)
    print(f"\nlabelled replies: {len(labelled)}; {summary(precision, recall, counts)}")
    real = [entry for entry in labelled if entry["real"]]
    print(f"  of them real model output: {len(real)}; {summary(*figures(real))}")
    for entry in labelled:
        if flagged(entry) != entry["flagged"]:
            print(f"  missed: {entry['id']} (labelled {entry['flagged']})")
    assert precision >= PRECISION
    assert recall >= RECALL
