"""config.json: load it, read and change settings by dotted path, write it back atomically.

The file is nested JSON objects (``{"audit": {"keepFiles": 3}}``) addressed by dotted paths
(``audit.keepFiles``, ``local.models."SmolLM2.Q4_1".think``: the syntax is ``wisp.config.paths``);
every key is taken as such a path or as the tuple of its names. Known keys are checked against
``SETTINGS`` and the model entries' fields; unknown ones are kept as they are. A file that does
not parse is an error naming its line and column, and is never overwritten. Changes are
read-modify-write under a lock, written to a temporary file and renamed over the old one, so
concurrent wisps neither lose a change nor see half a file.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from wisp.config.model_entry import ModelEntries, ModelEntry
from wisp.config.paths import join_path
from wisp.config.secrets import redacted
from wisp.config.sections import ModelChoices, Settings
from wisp.config.settings import Names, Setting, is_section, names_of, setting_for
from wisp.diagnostics import logger
from wisp.errors import ConfigError, ConfigValueError
from wisp.home import ensure_private_dir, locked, open_lock, replace_atomically


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""The value of a key that is not in the file."""


Key = str | Names
"""A path (``audit.keepFiles``) or the names it splits into (``("audit", "keepFiles")``)."""

NESTS = "expected an object (settings nest in it)"


class Config:
    """The settings in one config.json (missing file: no settings)."""

    __slots__ = ("_settings", "data", "path")

    def __init__(self, path: Path, data: dict[str, Any]) -> None:
        self.path = path
        self.data = data
        self._settings: Settings | None = None

    def __repr__(self) -> str:
        return f"Config(path={self.path!r}, data={self.data!r})"

    @property
    def settings(self) -> Settings:
        """The typed view of these settings (``settings.ollama.base_url``), built once; ``set``
        and ``unset`` drop it, and a reload is a new ``Config``, so it is never stale."""
        if self._settings is None:
            self._settings = Settings(self.checked_value, self._stored, self.path)
        return self._settings

    def _stored(self, key: str) -> Any:
        stored = self.get(key)
        return None if stored is MISSING else stored

    def audit_enabled(self) -> bool:
        """``audit.enabled`` alone, checked: whether the log is on, asked without the rest of
        the audit section, so that a bad ``audit.keepFiles`` is still repaired on the record."""
        return self.checked_value("audit.enabled")  # type: ignore[no-any-return]

    def model_choices(self) -> ModelChoices:
        """``model`` and the ``models`` lists as stored, unchecked (``ModelChoices``)."""
        return ModelChoices.read(self._stored)

    def model_entries(self, scheme: str) -> ModelEntries:
        """``<scheme>.models`` as stored (a copy), read without checking the rest of the
        runtime's section: a model's entry is read and rewritten whatever else is set."""
        return ModelEntries.read(self.path, scheme, self._stored(f"{scheme}.models"))

    def get(self, key: Key) -> Any:
        """The value stored at ``key``, or ``MISSING``."""
        node: Any = self.data
        for name in names_of(key):
            if not isinstance(node, dict) or name not in node:
                return MISSING
            node = node[name]
        return node

    def value(self, key: Key) -> Any:
        """The value in force: the stored one, or the known setting's default."""
        stored = self.get(key)
        if stored is MISSING:
            return _known(key).default
        return stored

    def leaves(self) -> Iterator[tuple[str, Any]]:
        """Every stored (path, value) that is not an object, in file order; each path is as
        ``join_path`` writes it, so ``split_path`` gives its names back."""
        for names, value in _leaves(self.data, ()):
            yield join_path(names), value

    def unknown_keys(self) -> list[str]:
        return [key for key, _ in self.leaves() if is_unknown(key)]

    def checked_value(self, key: Key) -> Any:
        """The value in force, after checking a stored one against its setting."""
        stored = self.get(key)
        if stored is MISSING:
            return _known(key).default
        return check_value(_known(key), stored, where=str(self.path))


def _known(key: Key) -> Setting:
    setting = setting_for(key)
    if setting is None:
        raise KeyError(key)  # a caller's mistake: only known keys have defaults
    return setting


def is_known(key: Key) -> bool:
    """Whether ``key`` is a setting: one of ``SETTINGS``, or a field of a model entry."""
    return setting_for(key) is not None


def is_unknown(key: Key) -> bool:
    """Whether ``key`` is neither a setting nor an object settings nest in (``audit``)."""
    return setting_for(key) is None and not is_section(key)


def unknown_keys_in(key: Key, value: Any) -> list[str]:
    """The keys storing ``value`` at ``key`` writes that wisp does not know: an object's leaves."""
    leaves = _leaves_below(names_of(key), value)
    return [join_path(names) for names, _ in leaves if is_unknown(names)]


def problem_with(key: Key, value: Any) -> str | None:
    """Why ``value`` cannot be stored at ``key`` (``expected …``), or None when it can."""
    setting = setting_for(key)
    if setting is not None:
        try:
            setting.check(value)
        except ValueError as exc:
            return str(exc)
        return None
    if is_section(key) and not isinstance(value, dict):
        return NESTS
    return None


def check_value(setting: Setting, value: Any, *, where: str | None = None) -> Any:
    """The value, checked; the error names ``where`` (the file) when it came from one."""
    try:
        return setting.check(value)
    except ValueError as exc:
        shown = msgspec.json.encode(redacted(setting.path, value)).decode()
        place = f"{where}: " if where else ""
        raise ConfigValueError(f"{place}{setting.path}: {exc}, got {shown}") from exc


def _leaves(node: dict[str, Any], above: Names) -> Iterator[tuple[Names, Any]]:
    """(names, value) of every non-object below ``node``, depth first in file order.

    An empty object is a leaf, and so is a setting's value whatever it holds. A stack, not
    recursion: a hand-made file may nest as deep as the JSON decoder allows.
    """
    stack = [(above, iter(node.items()))]
    while stack:
        prefix, items = stack[-1]
        item = next(items, None)
        if item is None:
            stack.pop()
            continue
        names = (*prefix, item[0])
        if isinstance(item[1], dict) and item[1] and not is_known(names):
            stack.append((names, iter(item[1].items())))
        else:
            yield names, item[1]


def _leaves_below(names: Names, value: Any) -> Iterator[tuple[Names, Any]]:
    """As ``_leaves``, for ``value`` stored at ``names``."""
    if isinstance(value, dict) and value and not is_known(names):
        yield from _leaves(value, names)
    else:
        yield names, value


def load_config(path: Path) -> Config:
    """Read config.json; a missing file is an empty config."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        logger.debug("no %s: every setting has its default", path)
        return Config(path, {})
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from exc
    config = Config(path, parse_config(raw, path))
    logger.debug("read %s (%d bytes)", path, len(raw))
    for key in config.unknown_keys():
        logger.info("%s: %s is not a setting this wisp knows; kept", path, key)
    return config


def parse_config(raw: bytes, path: Path) -> dict[str, Any]:
    if not raw.strip():
        return {}
    try:
        data = msgspec.json.decode(raw)
    except msgspec.DecodeError as exc:
        raise ConfigError(f"{path}:{_position(raw, str(exc))}: {_reason(str(exc))}") from exc
    except RecursionError as exc:  # msgspec's own limit, past some thousand levels
        raise ConfigError(
            f"{path}: objects nested too deeply to read; fix or remove the file, it was left "
            "as it is"
        ) from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a JSON object at the top, got {type(data).__name__}")
    return data


def _position(raw: bytes, message: str) -> str:
    """``line:column`` (1-based) of the error's byte offset, as editors count them."""
    before = raw[: _offset(raw, message)]
    line = before.count(b"\n") + 1
    column = len(before[before.rfind(b"\n") + 1 :].decode(errors="replace")) + 1
    return f"{line}:{column}"


def _offset(raw: bytes, message: str) -> int:
    """The byte msgspec names; two of its errors name none, so those are found here."""
    marker = "(byte "
    if marker in message:
        return int(message.rsplit(marker, 1)[1].rstrip(")"))
    try:
        raw.decode()
    except UnicodeDecodeError as exc:
        return exc.start  # "Invalid UTF-8 encoded string"
    if "truncated" in message:
        return len(raw.rstrip())  # the file ends where more JSON was due
    return 0


def _reason(message: str) -> str:
    reason = message.removeprefix("JSON is malformed: ").split(" (byte ")[0]
    return f"not valid JSON ({reason}); fix or remove the file, it was left as it is"


class Change(msgspec.Struct, frozen=True):
    """What one ``set`` or ``unset`` did: values are ``MISSING`` where the key was not set."""

    key: str
    old: Any
    new: Any

    @property
    def changed(self) -> bool:
        return _canonical(self.old) != _canonical(self.new)


def _canonical(value: Any) -> bytes | None:
    # JSON equality, not Python's: 1 and true are different settings.
    return None if value is MISSING else msgspec.json.encode(value, order="sorted")


@contextlib.contextmanager
def locked_config(path: Path) -> Iterator[Config]:
    """The config, read under an exclusive lock held until the block ends (read-modify-write)."""
    try:
        ensure_private_dir(path.parent)
        lock_fd = open_lock(path.with_name(".config.lock"))
    except OSError as exc:
        raise _cannot_write(path, exc) from exc
    with locked(lock_fd):
        yield load_config(path)


def set_value(config: Config, key: Key, value: Any) -> Change:
    """Store ``value`` at ``key`` in ``config.data`` (checked if known); the caller saves."""
    names = names_of(key)
    _check_not_beneath_setting(names)
    setting = setting_for(names)
    if setting is not None:
        value = check_value(setting, value)
    for leaf, leaf_value in _leaves_below(names, value):
        _check_leaf(leaf, leaf_value)
    node = _parent(config, names)
    old = node.get(names[-1], MISSING)
    node[names[-1]] = value
    config._settings = None  # the view was of the settings before
    return Change(join_path(names), old, value)


def unset_value(config: Config, key: Key) -> Change:
    """Remove ``key`` (and objects it leaves empty) from ``config.data``; the caller saves."""
    names = names_of(key)
    old = config.get(names)
    if old is MISSING:
        return Change(join_path(names), MISSING, MISSING)
    config._settings = None  # the view was of the settings before
    trail: list[tuple[dict[str, Any], str]] = []
    node = config.data
    for name in names:
        trail.append((node, name))
        node = node[name]
    for parent, name in reversed(trail):
        del parent[name]
        if parent:
            break
    return Change(join_path(names), old, MISSING)


def store_model_entry(config: Config, scheme: str, name: str, entry: ModelEntry) -> None:
    """Put ``entry`` (as stored) at ``<scheme>.models."<name>"``, making the objects on the way;
    the caller saves. It is stored as it is, unchecked, as a check or a pull wrote it."""
    node: Any = config.data
    for part in (scheme, "models"):
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise ConfigError(
                f"{config.path}: {scheme}.models cannot hold {name}: {part} is not an object"
            )
        node = child
    node[name] = entry.stored
    config._settings = None  # the view was of the settings before


def _check_not_beneath_setting(names: Names) -> None:
    """``audit.keepFiles.x`` would turn the setting ``audit.keepFiles`` into an object."""
    for depth in range(1, len(names)):
        setting = setting_for(names[:depth])
        if setting is not None:
            raise ConfigValueError(
                f"{join_path(names)}: {setting.path} is a setting ({setting.expected}), "
                "not an object"
            )


def _check_leaf(names: Names, value: Any) -> None:
    """One leaf of what ``set`` stores: a known key's value, or an object where settings nest.

    A whole object set at once (``audit`` = {...}) has each of its leaves checked so.
    """
    setting = setting_for(names)
    if setting is not None:
        check_value(setting, value)
    elif is_section(names) and not isinstance(value, dict):
        shown = msgspec.json.encode(redacted(names, value)).decode()
        raise ConfigValueError(f"{join_path(names)}: {NESTS}, got {shown}")


def _parent(config: Config, names: Names) -> dict[str, Any]:
    """The object that holds ``names[-1]``, made where missing."""
    node = config.data
    for depth, name in enumerate(names[:-1]):
        child = node.setdefault(name, {})
        if not isinstance(child, dict):
            here = join_path(names[: depth + 1])
            shown = msgspec.json.encode(redacted(names[: depth + 1], child)).decode()
            raise ConfigError(
                f"{config.path}: {here} is {shown}, not an object, so it cannot hold "
                f"{join_path(names)}; unset {here} first"
            )
        node = child
    return node


def save_config(config: Config) -> None:
    """Write atomically: a private temporary file beside config.json, renamed over it."""
    text = msgspec.json.format(msgspec.json.encode(config.data), indent=2) + b"\n"
    try:
        _replace(config.path, text)
    except OSError as exc:
        raise _cannot_write(config.path, exc) from exc


def _cannot_write(path: Path, exc: OSError) -> ConfigError:
    return ConfigError(f"{path}: cannot write: {exc.strerror}; the file was left as it was")


def _replace(path: Path, text: bytes) -> None:
    ensure_private_dir(path.parent)
    replace_atomically(path, text)
