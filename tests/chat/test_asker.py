"""Plain chat's asker: what it shows, what each typed line means; then a whole chat turn."""

from __future__ import annotations

import io
from pathlib import Path

from wisp.agent.loop import Conversation
from wisp.agent.prompt import system_prompt
from wisp.agent.recorder import Recorder
from wisp.audit import AuditLog, MemorySink
from wisp.chat.asker import TerminalAsker
from wisp.config import Config
from wisp.models.script import resolve as resolve_script
from wisp.policy.types import QuestionAnswer
from wisp.store import ConversationStore, PendingEntry
from wisp.tools.ask import AskTool

OPTIONS = ["staging", "production"]


class Terminal:
    """Typed lines, read one at a time (None at the end), and every line written."""

    def __init__(self, *typed: str) -> None:
        self.typed = list(typed)
        self.shown: list[str] = []

    async def readline(self) -> str | None:
        return self.typed.pop(0) if self.typed else None

    def asker(self) -> TerminalAsker:
        return TerminalAsker(self.readline, self.shown.append)


async def ask(terminal: Terminal, options: list[str], timeout: float | None = None):  # type: ignore[no-untyped-def]
    return await terminal.asker().ask("Which environment?", options, timeout)


# -- what is shown ------------------------------------------------------------------------


async def test_the_question_is_shown_with_numbered_options() -> None:
    terminal = Terminal("1")
    await ask(terminal, OPTIONS)
    assert terminal.shown == [
        "? Which environment?",
        "  1. staging",
        "  2. production",
        "  (type a number or an option's text; an empty line skips, /decline declines)",
    ]


async def test_a_free_text_question_says_to_type_the_answer_and_the_deadline() -> None:
    terminal = Terminal("Aurora")
    await terminal.asker().ask("What should the release be called?", [], 120.0)
    assert terminal.shown[-1] == (
        "  (type your answer within 120 s; an empty line skips, /decline declines)"
    )


async def test_control_characters_in_the_question_are_shown_escaped() -> None:
    terminal = Terminal("")
    await terminal.asker().ask("Go?\x1b[2J\r\u202eevil", ["a\tb"], None)
    assert terminal.shown[:2] == ["? Go?\\e[2J\\r\\u{202E}evil", "  1. a\\tb"]


# -- what each line means -----------------------------------------------------------------


async def test_a_number_picks_that_option() -> None:
    assert await ask(Terminal("2"), OPTIONS) == QuestionAnswer(text="production")


async def test_an_options_text_in_any_case_picks_it() -> None:
    assert await ask(Terminal(" Staging "), OPTIONS) == QuestionAnswer(text="staging")


async def test_a_text_that_is_not_an_option_is_asked_again() -> None:
    terminal = Terminal("qa", "3", "production")
    assert await ask(terminal, OPTIONS) == QuestionAnswer(text="production")
    notes = [line for line in terminal.shown if "is not one of the options" in line]
    assert notes == [
        '"qa" is not one of the options; type 1–2, an option\'s text, or /decline',
        '"3" is not one of the options; type 1–2, an option\'s text, or /decline',
    ]


async def test_without_options_any_text_is_the_answer() -> None:
    assert await ask(Terminal("  call it Aurora "), []) == QuestionAnswer(text="call it Aurora")


async def test_an_empty_line_is_no_answer() -> None:
    assert await ask(Terminal("   "), OPTIONS) == QuestionAnswer(text="")


async def test_slash_decline_declines() -> None:
    assert await ask(Terminal("/decline"), OPTIONS) == QuestionAnswer(declined=True)


async def test_the_end_of_input_declines() -> None:
    assert await ask(Terminal(), []) == QuestionAnswer(declined=True)


def test_the_terminal_asker_says_how_it_asks() -> None:
    asker = Terminal().asker()
    assert (asker.can_ask, asker.ways, asker.via) == (True, ["terminal"], "terminal")


# A whole turn in plain chat, answered on its input: tests/cli/test_commands.py.


def chat_say(out: io.StringIO):  # type: ignore[no-untyped-def]
    return lambda text: print(text, file=out)


class Host:
    """Just enough of the CLI's chat session for one conversation."""

    def __init__(self, conversation: Conversation) -> None:
        self.conversation = conversation

    async def switch_model(self, name: str) -> list[str]:
        raise AssertionError("not in this test")

    def new_conversation(self) -> None:
        raise AssertionError("not in this test")

    def save(self, name: str) -> Path:
        raise AssertionError("not in this test")


async def conversation(
    tmp_path: Path, script: Path, tool: AskTool, sink: MemorySink
) -> Conversation:
    instructions = system_prompt(
        has_tools=True, has_memory=False, extension=None, instructions=None
    )
    store = ConversationStore()
    store.add(PendingEntry("instructions", instructions), turn=None, origin="carried", time=None)
    return Conversation(
        model=await resolve_script(str(script)),
        tools=[tool],
        store=store,
        recorder=Recorder(AuditLog(sink, session="5e55105e5e55105e")),
        instructions=instructions,
        home=tmp_path / "home",
        config=Config(tmp_path / "config.json", {}),
        working_directory=tmp_path,
        audit_file=None,
    )
