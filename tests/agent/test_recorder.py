"""The one wire from a turn to its face: a face subscribed to a conversation gets the reply's
fragments and every recorded event, in order, for as long as it is subscribed."""

from __future__ import annotations

from wisp.agent.events import AgentEvent, TextFragment
from wisp.agent.recorder import Recorder
from wisp.audit import AuditLog, MemorySink
from wisp.audit.event import AuditEvent
from wisp.audit.kinds import SessionEnd


async def test_a_subscribed_face_gets_the_fragments_and_the_recorded_events(
    make_conversation, write_script, events
) -> None:
    conversation = await make_conversation(write_script({"text": "Hello there."}))
    face: list[AgentEvent] = []
    with conversation.subscribe(face.append):
        result = await conversation.run_turn("hi")
    assert result.outcome == "ok"
    texts = [event.text for event in face if isinstance(event, TextFragment)]
    assert "".join(texts) == "Hello there."
    recorded = [event.kind for event in face if isinstance(event, AuditEvent)]
    assert recorded == ["prompt", "response"]
    assert events == []  # the face the conversation was made with had nothing meanwhile


async def test_the_face_before_has_the_stream_again_after_the_subscription(
    make_conversation, write_script, events
) -> None:
    conversation = await make_conversation(write_script({"text": "one"}, {"text": "two"}))
    with conversation.subscribe(lambda event: None):
        await conversation.run_turn("first")
    assert events == []
    await conversation.run_turn("second")
    assert [event.text for event in events if isinstance(event, TextFragment)] == ["two"]


def test_a_recorder_with_no_face_records_and_shows_nothing() -> None:
    sink = MemorySink()
    recorder = Recorder(AuditLog(sink, session="5e55105e5e55105e"))
    recorder.record(SessionEnd(reason="closed"))
    shown: list[AgentEvent] = []
    with recorder.subscribe(shown.append):
        recorder.record(SessionEnd(reason="closed"))
        recorder.show(TextFragment("hi"))
    recorder.record(SessionEnd(reason="closed"))
    assert sink.kinds() == ["session.end"] * 3
    assert [type(event) for event in shown] == [AuditEvent, TextFragment]
