"""``wisp config``: list, get, set and unset settings in config.json."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from typing import Any

import msgspec

from wisp.audit import AuditLog, open_sink
from wisp.audit.kinds import ConfigChange
from wisp.cli.context import Context, audit_settings
from wisp.config import (
    MISSING,
    SETTINGS,
    Change,
    Config,
    locked_config,
    save_config,
    set_value,
    unknown_keys_in,
    unset_value,
)
from wisp.errors import ConfigValueError, WispError

EPILOG = """\
examples:
  wisp config list
  wisp config get audit.keepFiles
  wisp config set audit.keepFiles 3          VALUE is JSON when it parses: 3, true, [1, 2]
  wisp config set model ollama:qwen3         ...and a string when it does not
  wisp config set ollama.baseURL '"http://gpu-box:11434"'
  wisp config unset audit.keepFiles

Settings live in $WISP_HOME/config.json as nested objects: audit.keepFiles is
{"audit": {"keepFiles": 3}}. Every set and unset that changes something is recorded in the
audit log as config.change."""


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "config",
        help="Show and change settings in config.json.",
        description="Show and change settings in config.json.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(title="actions", metavar="ACTION", dest="action")
    actions.required = True

    listing = actions.add_parser(
        "list", help="List every known setting's value, then any other keys in the file."
    )
    listing.set_defaults(handler=run_list)

    get = actions.add_parser("get", help="Print one setting's value (its default when unset).")
    get.add_argument("key", metavar="KEY", help="a dotted path, such as audit.keepFiles")
    get.set_defaults(handler=run_get)

    set_ = actions.add_parser("set", help="Set a setting; VALUE is JSON when it parses.")
    set_.add_argument("key", metavar="KEY", help="a dotted path, such as audit.keepFiles")
    set_.add_argument("value", metavar="VALUE", help='JSON (3, true, ["a"]) or a plain string')
    set_.set_defaults(handler=run_set)

    unset = actions.add_parser("unset", help="Remove a setting, so its default applies again.")
    unset.add_argument("key", metavar="KEY", help="a dotted path, such as audit.keepFiles")
    unset.set_defaults(handler=run_unset)


def parse_value(text: str) -> Any:
    """VALUE as JSON when it parses (``3``, ``true``, ``[1]``), else the text itself."""
    try:
        return msgspec.json.decode(text)
    except msgspec.DecodeError:
        return text


def show(value: Any) -> str:
    """A value as the person would type it back: strings bare, everything else as JSON."""
    if isinstance(value, str):
        return value
    return msgspec.json.encode(value).decode()


def run_list(args: argparse.Namespace, context: Context) -> int:
    config = context.load_config()
    rows: list[tuple[str, str, str]] = []
    for key, setting in SETTINGS.items():
        stored = config.get(key)
        if stored is not MISSING:
            rows.append((key, _listed(stored), ""))
        elif setting.default is None:
            rows.append((key, "-", "(not set)"))
        else:
            rows.append((key, _listed(setting.default), "(default)"))
    for key in config.unknown_keys():
        rows.append((key, _listed(config.get(key)), "(not a setting this wisp knows; kept)"))
    key_width = max(len(key) for key, _, _ in rows)
    value_width = max(len(value) for _, value, _ in rows)
    for key, value, note in rows:
        print(f"{key:<{key_width}}  {value:<{value_width}}  {note}".rstrip(), file=context.stdout)
    return 0


def _listed(value: Any) -> str:
    """As ``show``, but an empty string stays visible in a column."""
    return '""' if value == "" else show(value)


def run_get(args: argparse.Namespace, context: Context) -> int:
    config = context.load_config()
    stored = config.get(args.key)
    if stored is MISSING and args.key not in SETTINGS:
        raise WispError(f"{args.key} is not set in {config.path}, and is not a known setting")
    print(show(config.value(args.key)), file=context.stdout)
    return 0


def run_set(args: argparse.Namespace, context: Context) -> int:
    value = parse_value(args.value)
    return _change(context, args.key, lambda config: set_value(config, args.key, value))


def run_unset(args: argparse.Namespace, context: Context) -> int:
    return _change(context, args.key, lambda config: unset_value(config, args.key))


def _change(context: Context, key: str, apply: Callable[[Config], Change]) -> int:
    with locked_config(context.home.config_file) as config:
        was_recording = _is_recording(config)
        change = apply(config)
        if not change.changed:
            print(f"unchanged: {_describe(key, change.old)}", file=context.stdout)
            return 0
        after = audit_settings(config)
        save_config(config)
        _record(context, config, change, log_it=was_recording or after.enabled)
    if change.new is not MISSING:
        for unknown in unknown_keys_in(key, change.new):
            context.warn(f"warning: {unknown} is not a setting this wisp knows; kept as given")
    print(_describe_change(change), file=context.stdout)
    return 0


def _is_recording(config: Config) -> bool:
    """Whether the log is on; a bad stored audit.enabled counts as on, so its repair is recorded.

    Only audit.enabled is checked here: any other bad audit setting must still be repairable
    with ``wisp config set``, and is checked once the change is made.
    """
    try:
        return config.checked_value("audit.enabled")
    except ConfigValueError:
        return True


def _record(context: Context, config: Config, change: Change, *, log_it: bool) -> None:
    """config.change, in the log that was or is now enabled (turning it off is recorded too)."""
    if not log_it:
        return
    settings = dataclasses.replace(audit_settings(config), enabled=True)
    log = AuditLog(open_sink(settings, context.home.audit_file))
    try:
        log.record(
            ConfigChange(
                path=change.key,
                old=None if change.old is MISSING else change.old,
                new=None if change.new is MISSING else change.new,
                source="cli",
                approval=None,
            )
        )
    finally:
        log.close()


def _describe(key: str, value: Any) -> str:
    return f"{key} is not set" if value is MISSING else f"{key} is {show(value)}"


def _describe_change(change: Change) -> str:
    if change.new is MISSING:
        return f"unset {change.key} (was {show(change.old)})"
    was = "" if change.old is MISSING else f" (was {show(change.old)})"
    return f"{change.key} = {show(change.new)}{was}"
