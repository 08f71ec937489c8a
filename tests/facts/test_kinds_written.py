"""Every fact kind of the audit log's contract is written, and every one of its fields: a
conversation's facts stated, versioned, in conflict, deleted, moved, proposed and kept through
the desk, recorded on a real audit log. The fields are read back from what was written and held
against the contract's list (``tests/audit/test_kinds.py``), so a field no flow ever writes
fails here."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import msgspec

from tests.audit.test_kinds import CONTRACT_FIELDS
from tests.hang import HANG
from wisp.agent.facts import ConversationFacts
from wisp.agent.recorder import Recorder
from wisp.audit import AuditLog
from wisp.audit.sinks import MemorySink
from wisp.desk.channel import list_waiting, write_answer
from wisp.desk.fact import FACT, FactKeeper
from wisp.facts.book import FactBook
from wisp.facts.shared import SharedFacts

FACT_KINDS = (
    "fact.recorded", "fact.superseded", "fact.deleted", "fact.scope.changed",
    "fact.conflict.raised", "fact.conflict.resolved",
)  # fmt: skip
COMMAND_ONLY = {
    "approval.pending": {
        "command",
        "pattern",
        "line",
        "directory",
        "level",
        "expiresAt",
        "alongside",
        "bannerDelaySeconds",
        "outsideSandbox",
    },
    "approval.settled": {"command"},
}
"""The fields of a command's request, which a fact's has in place of its own."""


async def written_events(home: Path) -> list[dict]:
    """One conversation's facts through every change the contract names; the events as the
    log wrote them, decoded."""
    sink = MemorySink()
    recorder = Recorder(AuditLog(sink))
    facts = ConversationFacts(FactBook(), recorder, lambda: None, shared=SharedFacts(home))
    facts.state("deploy", "branch", "main", source="model", method="noted", detail="memory")
    facts.state("deploy", "branch", "release", source="model", method="noted")  # a new version
    facts.state("deploy", "branch", "hotfix", source="person", method="stated")  # a conflict
    facts.delete("c3")  # the person's goes: the conflict resolves
    facts.move("c2", "session")
    keeper = FactKeeper(home, apply=lambda f, d: facts.answer_proposal(f, d, filed=True),
                        record=recorder.record, thread="git", client="zed")  # fmt: skip
    facts.keeper = keeper.propose
    facts.state("db", "port", "5433", source="caller", method="stated", fact_class="permanent")
    facts.state("db", "host", "pg-2", source="caller", method="stated", fact_class="permanent")
    async with asyncio.timeout(HANG):
        while len(waiting := list_waiting(home, FACT)) < 2:
            await asyncio.sleep(0.01)
    facts.delete("c5")  # changed after the person was asked: the keep fails
    for proposal in waiting:
        write_answer(home, FACT, proposal, "keep", "cli")
    await asyncio.wait_for(keeper.settled(), HANG)
    return [json.loads(msgspec.json.encode(event)) for event in sink.events]


async def test_every_fact_kind_is_written_with_every_field_the_contract_gives(
    tmp_path: Path,
) -> None:
    events = await written_events(tmp_path)
    for kind in FACT_KINDS + tuple(COMMAND_ONLY):
        written = [event["details"] for event in events if event["kind"] == kind]
        assert written, f"{kind} was never written"
        fields = set().union(*written)
        expected = CONTRACT_FIELDS[kind] - COMMAND_ONLY.get(kind, set())
        if kind == "approval.pending":
            expected -= {"reason"}  # only when the proposal could not be filed
        assert fields == expected, kind


async def test_the_written_values_say_what_happened(tmp_path: Path) -> None:
    events = await written_events(tmp_path)
    said = [(e["kind"], e["details"]) for e in events]
    recorded = [d for k, d in said if k == "fact.recorded"]
    assert [(d["id"], d["version"], d.get("supersedes")) for d in recorded] == [
        ("c1", 1, None), ("c2", 2, "c1"), ("c3", 1, None), ("c4", 1, None), ("c5", 1, None),
    ]  # fmt: skip
    raised = next(d for k, d in said if k == "fact.conflict.raised")
    assert (raised["winner"], raised["others"]) == ("c3", ["c2"])
    resolved = next(d for k, d in said if k == "fact.conflict.resolved")
    assert (resolved["winner"], resolved["others"]) == ("c3", [])
    moves = [d for k, d in said if k == "fact.scope.changed"]
    assert [(m["fact"], m["to"], m["by"], m.get("request")) for m in moves] == [
        ("c2", "session", "person", None), ("c4", "permanent", "person", "kept"),
    ]  # fmt: skip
    settled = {d["fact"]: d for k, d in said if k == "approval.settled"}
    kept, failed = settled["c4"], settled["c5"]
    assert (kept["decision"], kept["kept"], kept["via"]) == ("keep", "p1", "cli")
    assert failed["outcome"] == "failed" and "no longer proposed" in failed["reason"]
    assert [f.id for f in SharedFacts(tmp_path).read()] == ["p1"]
