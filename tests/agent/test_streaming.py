"""One request's stream read for a turn, over the real `script:` backend: thinking recorded at
both edges and stored, never sent back (wisp/agent/streaming.py)."""

from __future__ import annotations

from wisp.agent.compose import compose
from wisp.audit.event import AuditEvent
from wisp.audit.kinds import ModelReasoning


async def test_thinking_is_recorded_at_both_edges_and_stored(
    make_conversation, write_script, sink, events
):
    script = write_script({"thinking": "Let me think about it.", "text": "Yes."})
    conversation = await make_conversation(script)
    result = await conversation.run_turn("well?")
    reasoning = [e.details for e in sink.events if e.kind == "model.reasoning"]
    assert [r.phase for r in reasoning] == ["start", "end"]
    assert reasoning[1].text == "Let me think about it."
    assert reasoning[1].tokens == 6  # one a streamed chunk (4 characters each)
    assert [e.kind for e in conversation.store][-2:] == ["reasoning", "response"]
    ends = [e for e in events if isinstance(e, AuditEvent) and e.details == reasoning[1]]
    assert len(ends) == 1 and isinstance(ends[0].details, ModelReasoning)
    assert result.outcome == "ok"
    # Reasoning is never sent back to the model.
    messages = compose("sys", conversation.store, [], memory=False)
    assert all("Let me think" not in m.content for m in messages)
