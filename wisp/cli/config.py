"""``wisp config``: list, get, set and unset settings in config.json."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, get_origin

import msgspec

from wisp.audit import AuditLog, open_sink
from wisp.audit.kinds import ConfigChange
from wisp.cli.context import Context, audit_settings
from wisp.config import (
    MISSING,
    SETTINGS,
    Change,
    Config,
    is_unknown,
    join_path,
    locked_config,
    near_key,
    problem_with,
    save_config,
    set_value,
    setting_for,
    shell_word,
    split_path,
    unknown_keys_in,
    unset_value,
)
from wisp.config.secrets import SET_IN_FILE, is_secret, redacted, shown_secret
from wisp.errors import ConfigValueError, WispError

EPILOG = """\
examples:
  wisp config list
  wisp config get audit.keepFiles
  wisp config set audit.keepFiles 3          VALUE is JSON when it parses: 3, true, [1, 2]
  wisp config set model ollama:qwen3         ...and a string when it does not
  wisp config set ollama.baseURL '"http://gpu-box:11434"'
  wisp config set 'local.models."SmolLM2-135M-Instruct.Q4_1".capabilities' '["toolCalling"]'
  wisp config unset audit.keepFiles

Settings live in $WISP_HOME/config.json as nested objects: audit.keepFiles is
{"audit": {"keepFiles": 3}}. A name that holds a dot, as model names do, goes in double
quotes inside the path, and the whole path in single quotes for the shell; config list
prints every key that way. A key one edit away from a known one is refused with the one
meant (--force keeps it). Every set and unset that changes something is recorded in the
audit log as config.change.

API keys (openai.apiKey, llamacpp.apiKey, lmstudio.apiKey) are shown only as
"set (config.json)", or "set (WISP_OPENAI_API_KEY)" when that variable stands in for
it, and recorded as "[redacted]"; VALUE is taken as typed."""

KEY_HELP = 'a dotted path, such as audit.keepFiles or local.models."NAME.Q4_1".think'
UNKNOWN = "is not a setting this wisp knows"


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
    listing.add_argument(
        "--json",
        action="store_true",
        help="One JSON array of {key, value, note}, each value as the list shows it "
        "(a secret only as where it is set).",
    )
    listing.set_defaults(handler=run_list)

    get = actions.add_parser("get", help="Print one setting's value (its default when unset).")
    get.add_argument("key", metavar="KEY", help=KEY_HELP)
    get.set_defaults(handler=run_get)

    set_ = actions.add_parser("set", help="Set a setting; VALUE is JSON when it parses.")
    set_.add_argument("key", metavar="KEY", help=KEY_HELP)
    set_.add_argument("value", metavar="VALUE", help='JSON (3, true, ["a"]) or a plain string')
    set_.add_argument(
        "--force",
        action="store_true",
        help="Keep a key wisp does not know even when it is one edit from one it knows.",
    )
    set_.set_defaults(handler=run_set)

    unset = actions.add_parser("unset", help="Remove a setting, so its default applies again.")
    unset.add_argument("key", metavar="KEY", help=KEY_HELP)
    unset.set_defaults(handler=run_unset)


def parse_value(text: str, *, is_key: bool = False) -> Any:
    """VALUE as JSON when it parses (``3``, ``true``, ``[1]``), else the text itself.

    An API key (``is_key``) is a string whatever it looks like: a JSON string is unquoted,
    anything else is the text as typed, so a key of digits is not refused as a number.
    """
    try:
        value = msgspec.json.decode(text)
    except msgspec.DecodeError:
        return text
    return text if is_key and not isinstance(value, str) else value


def show(value: Any) -> str:
    """A value as the person would type it back: strings bare, everything else as JSON."""
    if isinstance(value, str):
        return value
    return msgspec.json.encode(value).decode()


def shown(key: str | tuple[str, ...], value: Any) -> str:
    """A stored value as ``show`` gives it, each secret in it hidden: a key itself is
    ``set (config.json)``, a key inside an object ``"[redacted]"``."""
    if is_secret(key):
        return SET_IN_FILE
    return show(redacted(key, value))


class ListedSetting(msgspec.Struct, frozen=True):
    """One row of ``wisp config list``: ``--json`` writes these, and ``wisp mcp`` serves them as
    ``wisp://config`` (docs/mcp.md)."""

    key: str
    """As typed at a shell."""
    value: str
    """As the list shows it: strings bare, the rest as JSON, a secret only as where it is set,
    ``-`` when unset."""
    note: str
    """``(default)``, ``(not set)``, why a stored value is invalid or unknown; or empty."""


def run_list(args: argparse.Namespace, context: Context) -> int:
    """Every known setting, then every other key in the file; each key as typed at a shell."""
    rows = listed_rows(context)
    if args.json:
        print(msgspec.json.encode(rows).decode(), file=context.stdout)
        return 0
    key_width = max(len(row.key) for row in rows)
    value_width = max(len(row.value) for row in rows)
    for row in rows:
        line = f"{row.key:<{key_width}}  {row.value:<{value_width}}  {row.note}"
        print(line.rstrip(), file=context.stdout)
    return 0


def listed_rows(context: Context) -> list[ListedSetting]:
    """``wisp config list``'s rows, secrets never shown: every known setting, then every other
    key in the file."""
    config = context.load_config()
    rows = [_setting_row(config, key, context) for key in SETTINGS]
    rows += [_stored_row(key, value) for key, value in config.leaves() if key not in SETTINGS]
    return [ListedSetting(key, value, note) for key, value, note in rows]


def _setting_row(config: Config, key: str, context: Context) -> tuple[str, str, str]:
    stored = config.get(key)
    if SETTINGS[key].secret:
        return _secret_row(key, stored, context)
    if stored is not MISSING:
        return _stored_row(key, stored)
    default = SETTINGS[key].default
    if default is None:
        return key, "-", "(not set)"
    return key, _listed(key, default), "(default)"


def _secret_row(key: str, stored: Any, context: Context) -> tuple[str, str, str]:
    """A key: where it is set, the file's marked invalid; never its value."""
    where = shown_secret(key, stored is not MISSING, context.environ)
    if where is None:
        return key, "-", "(not set)"
    problem = None if stored is MISSING else problem_with(key, stored)
    return key, where, f"(invalid: {problem})" if problem else ""


def _stored_row(key: str, value: Any) -> tuple[str, str, str]:
    """A stored key: marked invalid with the reason, or unknown, or plain when it is fine."""
    if problem := problem_with(key, value):
        note = f"(invalid: {problem})"
    elif is_unknown(key):
        note = f"(not a setting this wisp knows; kept{_did_you_mean(key, '; ')})"
    else:
        note = ""
    return shell_word(key), _listed(key, value), note


def _listed(key: str, value: Any) -> str:
    """As ``shown``, but an empty string stays visible in a column."""
    return '""' if value == "" and not is_secret(key) else shown(key, value)


def run_get(args: argparse.Namespace, context: Context) -> int:
    names = split_path(args.key)
    config = context.load_config()
    stored = config.get(names)
    setting = setting_for(names)
    if stored is MISSING and setting is None:
        raise WispError(
            f"{join_path(names)} is not set in {config.path}, and is not a known setting"
            + _did_you_mean(names, "; ")
        )
    if setting is not None and setting.secret:
        where = shown_secret(names, stored is not MISSING, context.environ)
        print(where or "not set", file=context.stdout)
        return 0
    print(shown(names, setting.default if stored is MISSING else stored), file=context.stdout)
    return 0


def run_set(args: argparse.Namespace, context: Context) -> int:
    """An unknown key one edit from a known one is refused: the setting meant would not change."""
    names = split_path(args.key)
    setting = setting_for(names)
    # An API key is a string whatever it looks like; a secret object (a server's env) is JSON.
    is_key = setting is not None and setting.secret and get_origin(setting.type) is not dict
    value = parse_value(args.value, is_key=is_key)
    warnings: list[str] = []
    for unknown in unknown_keys_in(names, value):
        near = near_key(unknown)
        if near and not args.force:
            raise WispError(
                f"{unknown} {UNKNOWN}; did you mean {shell_word(near)}? "
                "(nothing was saved; --force keeps it as given)"
            )
        meant = f" (did you mean {shell_word(near)}?)" if near else ""
        warnings.append(f"warning: {unknown} {UNKNOWN}; kept as given{meant}")
    return _change(context, lambda config: set_value(config, names, value), warnings)


def run_unset(args: argparse.Namespace, context: Context) -> int:
    names = split_path(args.key)
    return _change(context, lambda config: unset_value(config, names), [])


def _did_you_mean(key: str | tuple[str, ...], lead: str) -> str:
    """``lead`` and ``did you mean KEY?`` when an unknown ``key`` is one edit from a known one."""
    if not is_unknown(key):
        return ""
    near = near_key(key)
    return f"{lead}did you mean {shell_word(near)}?" if near else ""


def _change(context: Context, apply: Callable[[Config], Change], warnings: list[str]) -> int:
    """Apply one change under the lock, save and record it; then say what was done."""
    with locked_config(context.home.config_file) as config:
        was_recording = _is_recording(config)
        change = apply(config)
        if not change.changed:
            hint = _did_you_mean(change.key, "; ") if change.old is MISSING else ""
            print(f"unchanged: {_describe(change.key, change.old)}{hint}", file=context.stdout)
            return 0
        after = audit_settings(config)
        save_config(config)
        _record(context, config, change, log_it=was_recording or after.enabled)
    for warning in warnings:
        context.warn(warning)
    print(_describe_change(change), file=context.stdout)
    return 0


def _is_recording(config: Config) -> bool:
    """Whether the log is on; a bad stored audit.enabled counts as on, so its repair is recorded.

    Only audit.enabled is checked here: any other bad audit setting must still be repairable
    with ``wisp config set``, and is checked once the change is made.
    """
    try:
        return config.audit_enabled()
    except ConfigValueError:
        return True


def _record(context: Context, config: Config, change: Change, *, log_it: bool) -> None:
    """config.change, in the log that was or is now enabled (turning it off is recorded too)."""
    if not log_it:
        return
    settings = msgspec.structs.replace(audit_settings(config), enabled=True)
    log = AuditLog(open_sink(settings, context.home.audit_file))
    try:
        log.record(
            ConfigChange(
                path=change.key,
                # A key is never recorded, only that it changed (docs/logging.md).
                old=None if change.old is MISSING else redacted(change.key, change.old),
                new=None if change.new is MISSING else redacted(change.key, change.new),
                source="cli",
                approval=None,
            )
        )
    finally:
        log.close()


def _describe(key: str, value: Any) -> str:
    return f"{key} is not set" if value is MISSING else f"{key} is {shown(key, value)}"


def _describe_change(change: Change) -> str:
    if change.new is MISSING:
        return f"unset {change.key} (was {shown(change.key, change.old)})"
    if change.old is MISSING:
        was = ""
    elif is_secret(change.key):
        was = " (replacing the key set before)"
    else:
        was = f" (was {shown(change.key, change.old)})"
    return f"{change.key} = {shown(change.key, change.new)}{was}"
