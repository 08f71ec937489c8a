"""``models.disabled``: the models that are off, hidden from ``/model`` and refused until enabled.

``wisp models enable|disable``, the capability check that enables a model, and chat's
``/models`` picker all change the list through ``toggle``, which never disables the default.
"""

from __future__ import annotations

from collections.abc import Iterable

from wisp.audit.kinds import ConfigChange
from wisp.cli.context import Context
from wisp.cli.models.session import Origin, Record
from wisp.config import MISSING, Config, locked_config, save_config, set_value, unset_value
from wisp.errors import WispError
from wisp.models.selection import canonical_selection, parse_selection

DISABLED_KEY = "models.disabled"


def default_refusal(selection: str) -> WispError:
    """Why the default cannot be disabled, and how to make another model the default."""
    return WispError(
        f"{selection} is the default model, so it cannot be disabled; make another model the "
        "default first (config.json's model: wisp config set model <name>, or /config set "
        "model in chat)"
    )


def canonical(selection: str) -> str:
    """The spelling every comparison uses; a malformed one compares as written."""
    try:
        return canonical_selection(selection)
    except WispError:
        return selection


def set_disabled(
    context: Context, selections_off: set[str], *, source: str, record: Record
) -> list[str]:
    """Make ``selections_off`` the whole of ``models.disabled`` (chat's picker); its notes.

    Models in the list but not in ``selections_off`` are enabled; spellings already in the
    file are kept. Notes are for changes only (none: nothing changed). Disabling the default
    is refused and nothing is written. Capability checks are the caller's
    (``wisp.cli.models.check.check_and_record``).
    """
    check_names(selections_off)
    with locked_config(context.home.config_file) as config:
        off = {canonical(selection) for selection in selections_off}
        current = disabled_list(config)
        was_off = {canonical(selection) for selection in current}
        enable = [s for s in current if canonical(s) not in off]
        disable = sorted(s for s in selections_off if canonical(s) not in was_off)
        return toggle(config, enable=enable, disable=disable, record=record, origin=Origin(source))


def check_names(selections: Iterable[str]) -> None:
    """Every name parses, or nothing is written (``unknown model 'x': …``)."""
    for selection in selections:
        parse_selection(selection)


def disabled_list(config: Config) -> list[str]:
    """The list as stored: the command that puts a malformed one right is not stopped by it."""
    return config.model_choices().disabled


def toggle(
    config: Config,
    *,
    enable: Iterable[str],
    disable: Iterable[str],
    record: Record,
    origin: Origin,
    hold: frozenset[str] = frozenset(),
) -> list[str]:
    """Enable and disable on a locked config: write, record ``config.change`` (from
    ``origin``), say what.

    A name in both lists counts as enabled. ``hold`` (canonical) stays disabled for now: a
    check decides. The caller holds the lock; this saves.
    """
    enabling = {canonical(s): s for s in enable}
    disabling = {canonical(s): s for s in disable if canonical(s) not in enabling}
    default = canonical(config.settings.model)
    if default in disabling:
        raise default_refusal(disabling[default])
    old = disabled_list(config)
    held = {canonical(s) for s in old}
    new = [s for s in old if canonical(s) not in enabling or canonical(s) in hold]
    new += [s for key, s in disabling.items() if key not in held]
    notes = [_enabled_note(s, key in held) for key, s in enabling.items() if key not in hold]
    notes += [_disabled_note(s, key in held) for key, s in disabling.items()]
    if new != old:
        _write_disabled(config, new, record=record, origin=origin)
    return notes


def _enabled_note(selection: str, was_disabled: bool) -> str:
    return f"enabled {selection}" if was_disabled else f"{selection} is enabled"


def _disabled_note(selection: str, was_disabled: bool) -> str:
    if was_disabled:
        return f"{selection} is disabled"
    return f"disabled {selection}: hidden from /model and refused until enabled"


def _write_disabled(config: Config, new: list[str], *, record: Record, origin: Origin) -> None:
    change = set_value(config, DISABLED_KEY, new) if new else unset_value(config, DISABLED_KEY)
    save_config(config)
    record(
        ConfigChange(
            path=DISABLED_KEY,
            old=None if change.old is MISSING else change.old,
            new=None if change.new is MISSING else change.new,
            source=origin.source,
            approval=origin.approval,
        )
    )
