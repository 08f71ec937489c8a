"""The capability check as ``wisp models check|enable`` (and chat) run it: resolve, ask, record.

``check_and_record`` resolves a model, asks it the three questions (``wisp.models.check``) and
records ``model.verified``, then the declaration under ``<scheme>.models.<name>`` with its
``config.change`` (docs/models.md, "The capability check"). ``enable_checked`` enables with
the checks: a model with nothing declared stays disabled until its check says it can hold a
conversation.
"""

from __future__ import annotations

import contextlib
import datetime
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from wisp.agent.types import CAPABILITY_WORDS
from wisp.audit.kinds import CapabilityCheck, ConfigChange, ModelVerified
from wisp.cli.context import Context
from wisp.cli.models.disabled import canonical, disabled_list, toggle
from wisp.cli.models.files import ConfigModelFiles
from wisp.cli.models.session import CLI, Origin, Record, Say
from wisp.config import (
    Config,
    locked_config,
    model_path,
    save_config,
    shell_word,
    store_model_entry,
)
from wisp.config.model_entry import ModelEntry
from wisp.errors import WispError
from wisp.models.catalog import human_bytes
from wisp.models.check import (
    CHECKED_SCHEMES,
    UNCHECKED,
    CheckResult,
    Declaration,
    Limits,
    check_model,
    declaration_key,
    settle_declaration,
)
from wisp.models.registry import resolve_model
from wisp.models.selection import LOCAL, parse_selection

if TYPE_CHECKING:
    import httpx

Key = tuple[str, str]


class Uncheckable(WispError):
    """The model could not be resolved, so nothing could be asked."""


async def check_and_record(
    context: Context,
    selection: str,
    *,
    trigger: str,
    origin: Origin,
    record: Record,
    say: Say,
    client: httpx.AsyncClient,
    limits: Limits | None = None,
) -> CheckResult:
    """Check one model, saying each step; ``Uncheckable`` when it cannot be resolved."""
    config = context.load_config()
    # The check is the person's word on a local:PATH file: its checksum is recorded anew.
    files = ConfigModelFiles(
        context, source=origin.source, record=record, trusts_changes=True,
        approval=origin.approval,
    )  # fmt: skip
    try:
        model = await resolve_model(
            selection, config=config, environ=context.environ, client=client, model_files=files
        )
    except WispError as exc:
        raise Uncheckable(str(exc)) from exc
    say(_announcement(model.selection, model.asset if model.backend_name == LOCAL else None))
    try:
        result = await check_model(model, limits=limits, on_question=lambda q: say(q.line()))
    finally:
        await model.backend.aclose()
    key = declaration_key(model.selection, model.asset)
    declaration = _record(context, result, key, trigger=trigger, origin=origin, record=record)
    if key is not None and declaration is not None:
        for line in _recorded_lines(model.selection, key, declaration):
            say(line)
    return result


def needs_check(config: Config, selection: str) -> bool:
    """Whether ``enable`` checks it first: capabilities from config, and none declared."""
    try:
        key = declaration_key(selection)
    except WispError:
        return True  # the check will say why it cannot be resolved
    return key is not None and config.model_entries(key[0]).entry(key[1]).capabilities is None


def outcome_message(selection: str, result: CheckResult) -> str:
    match result.outcome:
        case "refused":
            return f"{selection} cannot hold a conversation ({result.detail_of('reply')})"
        case "text only":
            tools_off = (
                "its conversations open with no tools"
                if parse_selection(selection).scheme == LOCAL
                else "--no-tools, or tools: [] over MCP"
            )
            return (
                f"{selection} holds a conversation but did not call a tool; it is usable only "
                f"with tools off: {tools_off}"
            )
    return f"{selection} is usable: it holds a conversation and calls tools"


async def check_all(context: Context, selections: list[str], *, record: Record, say: Say) -> int:
    """``wisp models check``: exit 1 when a model could not be checked or cannot reply."""
    import httpx

    code = 0
    async with httpx.AsyncClient() as client:
        for selection in selections:
            if parse_selection(selection).scheme not in CHECKED_SCHEMES:
                say(f"{selection}: its runtime reports what it can do; there is nothing to check")
                continue
            try:
                result = await check_and_record(
                    context, selection, trigger="check", origin=CLI, record=record, say=say,
                    client=client,
                )  # fmt: skip
            except Uncheckable as exc:
                context.warn(f"{selection} cannot be checked: {exc}")
                code = 1
                continue
            say(outcome_message(selection, result))
            code = code or int(result.outcome == "refused")
    return code


async def enable_checked(
    context: Context,
    selections: list[str],
    *,
    record: Record,
    say: Say,
    origin: Origin = CLI,
) -> int:
    """``wisp models enable`` (and the models tool's): enable, then the checks; exit 1 when
    one stays disabled."""
    import httpx

    checks = [s for s in selections if needs_check(context.load_config(), s)]
    with locked_config(context.home.config_file) as config:
        hold = frozenset(canonical(s) for s in checks)
        notes = toggle(
            config, enable=selections, disable=[], record=record, origin=origin, hold=hold
        )
    _say_all(say, notes)
    code = 0
    async with httpx.AsyncClient() as client:
        for selection in checks:
            if not await _enable_one(context, selection, client, record, say, origin):
                code = 1
    return code


async def _enable_one(
    context: Context,
    selection: str,
    client: httpx.AsyncClient,
    record: Record,
    say: Say,
    origin: Origin,
) -> bool:
    try:
        result = await check_and_record(
            context, selection, trigger="enable", origin=origin, record=record, say=say,
            client=client,
        )  # fmt: skip
    except Uncheckable as exc:
        say(f"did not enable {selection}: it cannot be checked ({exc}); it stays disabled")
        return False
    with locked_config(context.home.config_file) as config:
        if result.outcome == "refused":
            why = outcome_message(selection, result)
            if canonical(config.settings.model) == canonical(selection):
                say(f"{why}; it is the default model, so it cannot be disabled")
                return False
            was_off = canonical(selection) in {canonical(s) for s in disabled_list(config)}
            toggle(config, enable=[], disable=[selection], record=record, origin=origin)
            say(f"{why}; it {'stays' if was_off else 'is now'} disabled")
            return False
        notes = toggle(config, enable=[selection], disable=[], record=record, origin=origin)
    if result.outcome == "text only":
        say(outcome_message(selection, result))
    _say_all(say, notes)
    return True


# -- recording ---------------------------------------------------------------------------------


def _record(
    context: Context,
    result: CheckResult,
    key: Key | None,
    *,
    trigger: str,
    origin: Origin,
    record: Record,
) -> Declaration | None:
    """``model.verified``, then the declaration and its ``config.change`` when one is made."""
    with locked_config(context.home.config_file) as config:
        previous = config.model_entries(key[0]).entry(key[1]) if key is not None else ModelEntry()
        declaration = (
            settle_declaration(previous, result, datetime.date.today()) if key is not None else None
        )
        record(_verified(result, declaration, trigger=trigger, origin=origin))
        if key is None or declaration is None:
            return None
        store_model_entry(config, *key, declaration.entry)
        save_config(config)
        record(
            ConfigChange(
                path=model_path(*key),
                old=previous.stored or None,
                new=declaration.entry.stored,
                source=origin.source,
                approval=origin.approval,
            )
        )
    return declaration


def _verified(
    result: CheckResult, declaration: Declaration | None, *, trigger: str, origin: Origin
) -> ModelVerified:
    return ModelVerified(
        model=result.selection,
        trigger=trigger,
        outcome=result.outcome,
        checks=[
            CapabilityCheck(check=q.check, passed=q.passed, detail=q.detail, seconds=q.seconds)
            for q in result.questions
        ],
        recorded=declaration.recorded if declaration else None,
        kept=declaration.kept if declaration else [],
        removed=declaration.removed if declaration else [],
        unchecked=list(UNCHECKED),
        seconds=result.seconds,
        source=origin.source,
        approval=origin.approval,
    )


# -- words -------------------------------------------------------------------------------------


def _announcement(selection: str, local_file: str | None) -> str:
    size = ""
    if local_file is not None:
        with contextlib.suppress(OSError):
            size = f" ({human_bytes(Path(local_file).stat().st_size)})"
    return (
        f"checking {selection}: loads the model{size} and asks three short questions (a reply, "
        "a tool call, a structured reply), allowing 3 min for the first, which loads it, and "
        "60 s for each of the others"
    )


def _recorded_lines(selection: str, key: Key, declaration: Declaration) -> list[str]:
    verified = declaration.date
    words = [CAPABILITY_WORDS[c] for c in declaration.recorded]
    if "toolCalling" in declaration.recorded:
        can = f"can do {', '.join(words)}"
    else:
        can = "is text only" + (f" and can do {', '.join(words)}" if words else "")
    lines = [f"recorded in config.json: {selection} {can} (verified {verified})"]
    if declaration.kept:
        lines.append(
            f"kept {_words(declaration.kept)}: declared by hand in config.json, though the "
            "check did not find it"
        )
    if declaration.removed:
        lines.append(
            f"took out {_words(declaration.removed)}: an earlier check found it, this one did not"
        )
    lines.append(
        f"not checked: {_words(UNCHECKED)}; declare them by hand ({_ids(UNCHECKED)}) in "
        f"{shell_word(model_path(*key, 'capabilities'))} if it has them"
    )
    return lines


def _words(capabilities: Iterable[str]) -> str:
    return ", ".join(CAPABILITY_WORDS[c] for c in capabilities)


def _ids(capabilities: Iterable[str]) -> str:
    """``"reasoning", "vision"``: as config.json takes them."""
    return ", ".join(f'"{c}"' for c in capabilities)


def _say_all(say: Say, notes: Iterable[str]) -> None:
    for note in notes:
        say(note)
