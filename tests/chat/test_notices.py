"""The chat's `notify` lines (wisp/chat/notices.py): when they are added, their words, their
bounds and their rate; the waiting ones through the chat's notifier, to the front end alone."""

from __future__ import annotations

import asyncio

import msgspec

from wisp import protocol as p
from wisp.audit.kinds import Notification
from wisp.chat.notices import BURST, WINDOW_SECONDS, Notices, first_words, protocol_host
from wisp.config.sections import Notify
from wisp.notify.notice import BODY_CHARS, TITLE_CHARS, bounded
from wisp.notify.notifier import Notifier
from wisp.notify.routes import PROTOCOL_OUTPUT, Unavailable

PER_MINUTE = 5


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def approval(command: str = "git push", **fields: object) -> p.Approval:
    return p.Approval(
        id="a1", command=command, line=command, pattern="git push *", directory="/w",
        level="moderate", **fields,
    )  # fmt: skip


def notices_with(*effects: str) -> tuple[Notices, list[p.Outbound], list[Notification], Clock]:
    written: list[p.Outbound] = []
    recorded: list[Notification] = []
    clock = Clock()
    declared = list(effects)
    settings = Notify(enabled=False, routes=["host", "terminal"], per_minute=PER_MINUTE, per_turn=2)
    notifier = Notifier(
        {
            "host": protocol_host(written.append, lambda: declared),
            "terminal": Unavailable("terminal", PROTOCOL_OUTPUT),
        },
        record=recorded.append,
        settings=lambda: settings,
        clock=clock,
    )
    notices = Notices(written.append, notifier=notifier, clock=clock)
    notices.declare(declared)
    return notices, written, recorded, clock


async def posted(notices: Notices) -> None:
    """Until the waiting notices handed to the notifier are through."""
    while notices._posting:
        await asyncio.gather(*notices._posting)


def turn(notices: Notices, *deltas: str, outcome: str = "ok", seconds: float = 12.4) -> None:
    notices(p.Turn(phase="start", turn=3))
    for text in deltas:
        notices(p.Delta(text=text))
    notices(p.Turn(phase="end", turn=3, seconds=seconds, outcome=outcome))


def sent(written: list[p.Outbound]) -> list[tuple[str, str | None, str, bool]]:
    return [(n.title, n.subtitle, n.body, n.sound) for n in written if isinstance(n, p.Notify)]


async def test_nothing_is_added_without_the_effect() -> None:
    notices, written, recorded, _ = notices_with("approve", "ask")
    turn(notices, "hello")
    notices(approval())
    await posted(notices)
    assert not sent(written) and not recorded
    assert len(written) == 4  # the lines themselves still pass


async def test_a_later_hello_without_notify_turns_them_off() -> None:
    notices, written, _, _ = notices_with("notify")
    notices.declare(["approve"])
    notices(approval())
    await posted(notices)
    assert not sent(written)


def test_a_turns_end_tells_its_first_words_or_how_it_ended() -> None:
    notices, written, recorded, clock = notices_with("notify")
    turn(notices, "\n  Pushed  main", " to origin.\nThen I ", "checked.")
    clock.now += WINDOW_SECONDS
    turn(notices)
    turn(notices, "partial", outcome="error", seconds=3.04)
    clock.now += WINDOW_SECONDS
    turn(notices, outcome="stopped")
    assert sent(written) == [
        ("wisp: turn finished", None, "Pushed main to origin.", False),
        ("wisp: turn finished", None, "turn 3 finished in 12 s", False),
        ("wisp: turn failed", None, "turn 3 failed after 3.0 s", False),
        ("wisp: turn stopped", None, "turn 3 stopped after 12 s", False),
    ]
    assert not recorded  # no source of the notification kind is a turn's end
    # Each notice comes right after the turn's end it tells of.
    ends = [i for i, line in enumerate(written) if isinstance(line, p.Turn) and line.phase == "end"]
    assert all(isinstance(written[i + 1], p.Notify) for i in ends)


async def test_waiting_approvals_and_questions_are_posted_and_recorded() -> None:
    notices, written, recorded, _ = notices_with("notify")
    notices(approval())
    notices(approval("rm -r build", source="mcp", client="editor"))
    notices(approval("branch is main", kind="fact"))
    notices(p.Question(id="q1", question="Which environment?", options=["a", "b"]))
    await posted(notices)
    assert sent(written) == [
        ("wisp: approval waiting", None, "[moderate] git push", True),
        ("wisp: approval waiting", "from editor", "[moderate] rm -r build", True),
        ("wisp: fact to keep", None, "branch is main", True),
        ("wisp: question waiting", None, "Which environment?", True),
    ]
    assert [(r.source, r.route, r.outcome) for r in recorded] == [
        ("approval", "host", "posted")
    ] * 3 + [("inquiry", "host", "posted")]
    # To the front end alone: the terminal route is not even tried.
    assert all(r.skipped is msgspec.UNSET for r in recorded)


async def test_notices_are_bounded() -> None:
    notices, written, _, _ = notices_with("notify")
    notices(approval("x" * 1000))
    notices(p.Question(id="q", question="?" * 1000))
    await posted(notices)
    for title, _, body, _ in sent(written):
        assert len(title) <= TITLE_CHARS and len(body) <= BODY_CHARS
        assert body.endswith("…")
    assert len(bounded("y" * 500, TITLE_CHARS)) == TITLE_CHARS


async def test_waits_are_held_to_the_notifiers_rate_and_the_rest_recorded_as_refused() -> None:
    notices, written, recorded, clock = notices_with("notify")
    for _ in range(PER_MINUTE + 2):
        notices(approval())
    await posted(notices)
    assert len(sent(written)) == PER_MINUTE
    refused = [r for r in recorded if r.outcome == "refused"]
    assert [r.reason for r in refused] == [f"more than {PER_MINUTE} a minute"] * 2
    clock.now += 60
    notices(approval())
    await posted(notices)
    assert len(sent(written)) == PER_MINUTE + 1


async def test_quick_turns_leave_room_for_a_later_approval() -> None:
    notices, written, recorded, _ = notices_with("notify")
    for _ in range(BURST + 1):
        turn(notices, "done")
    notices(approval())
    await posted(notices)
    assert [title for title, *_ in sent(written)].count("wisp: turn finished") == BURST
    assert sent(written)[-1][0] == "wisp: approval waiting"
    assert [r.outcome for r in recorded] == ["posted"]


def test_first_words_cut_at_a_word_without_markdown_marks() -> None:
    words = first_words("word " * 100)
    assert words.endswith("word…") and len(words) <= 120
    assert first_words("\n\n   \n") == ""
    assert first_words("```python\nprint(1)\n```") == "print(1)"
    assert first_words("## Done\n") == "Done"
    assert first_words("> - quoted item") == "quoted item"
    assert first_words("-5 degrees in *Oslo*") == "-5 degrees in *Oslo*"
