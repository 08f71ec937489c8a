"""config.json: load it, read and change settings by dotted path, write it back atomically.

The file is nested JSON objects (``{"audit": {"keepFiles": 3}}``) addressed by dotted paths
(``audit.keepFiles``). Known keys are checked against ``SETTINGS``; unknown ones are kept as
they are. A file that does not parse is an error naming its line and column, and is never
overwritten. Changes are read-modify-write under a lock, written to a temporary file and
renamed over the old one, so concurrent wisps neither lose a change nor see half a file.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from wisp.config.settings import SETTINGS, Setting
from wisp.diagnostics import logger
from wisp.errors import ConfigError, ConfigValueError, UsageError
from wisp.home import ensure_private_dir, open_private, replace_atomically


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""The value of a key that is not in the file."""


def split_path(path: str) -> list[str]:
    """``audit.keepFiles`` → ``["audit", "keepFiles"]``; an empty part is a usage error."""
    parts = path.split(".")
    if not path or any(not part for part in parts):
        raise UsageError(f"{path!r} is not a setting's path: use dotted names like audit.keepFiles")
    return parts


@dataclass(slots=True)
class Config:
    """The settings in one config.json (missing file: no settings)."""

    path: Path
    data: dict[str, Any]

    def get(self, key: str) -> Any:
        """The value stored at ``key``, or ``MISSING``."""
        node: Any = self.data
        for part in split_path(key):
            if not isinstance(node, dict) or part not in node:
                return MISSING
            node = node[part]
        return node

    def value(self, key: str) -> Any:
        """The value in force: the stored one, or the known setting's default."""
        stored = self.get(key)
        if stored is MISSING:
            return SETTINGS[key].default
        return stored

    def leaves(self) -> Iterator[tuple[str, Any]]:
        """Every stored (dotted path, value) that is not an object, in file order."""
        yield from _leaves(self.data, "")

    def unknown_keys(self) -> list[str]:
        return [key for key, _ in self.leaves() if not is_known(key)]

    def checked_value(self, key: str) -> Any:
        """The value in force, after checking a stored one against its setting."""
        stored = self.get(key)
        if stored is MISSING:
            return SETTINGS[key].default
        return check_value(SETTINGS[key], stored, where=str(self.path))


def is_known(key: str) -> bool:
    return key in SETTINGS


def unknown_keys_in(key: str, value: Any) -> list[str]:
    """The keys storing ``value`` at ``key`` writes that are not settings: an object's leaves."""
    return [leaf for leaf, _ in _leaves({key: value}, "") if not is_known(leaf)]


def check_value(setting: Setting, value: Any, *, where: str | None = None) -> Any:
    """The value, checked; the error names ``where`` (the file) when it came from one."""
    try:
        return setting.check(value)
    except ValueError as exc:
        shown = msgspec.json.encode(value).decode()
        place = f"{where}: " if where else ""
        raise ConfigValueError(f"{place}{setting.path}: {exc}, got {shown}") from exc


def _leaves(node: dict[str, Any], prefix: str) -> Iterator[tuple[str, Any]]:
    for name, value in node.items():
        key = f"{prefix}{name}"
        if isinstance(value, dict) and value and not is_known(key):
            yield from _leaves(value, key + ".")
        else:
            yield key, value


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


@dataclass(frozen=True, slots=True)
class Change:
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
        lock_fd = open_private(
            path.with_name(".config.lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC
        )
    except OSError as exc:
        raise _cannot_write(path, exc) from exc
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX)
        yield load_config(path)
    finally:
        os.close(lock_fd)


def set_value(config: Config, key: str, value: Any) -> Change:
    """Store ``value`` at ``key`` in ``config.data`` (checked if known); the caller saves."""
    parts = split_path(key)
    _check_not_beneath_setting(parts)
    if is_known(key):
        value = check_value(SETTINGS[key], value)
    _check_subtree(key, value)
    node = _parent(config, parts, create=True)
    old = node.get(parts[-1], MISSING)
    node[parts[-1]] = value
    return Change(key, old, value)


def unset_value(config: Config, key: str) -> Change:
    """Remove ``key`` (and objects it leaves empty) from ``config.data``; the caller saves."""
    parts = split_path(key)
    old = config.get(key)
    if old is MISSING:
        return Change(key, MISSING, MISSING)
    trail: list[tuple[dict[str, Any], str]] = []
    node = config.data
    for part in parts:
        trail.append((node, part))
        node = node[part]
    for parent, part in reversed(trail):
        del parent[part]
        if parent:
            break
    return Change(key, old, MISSING)


def _check_not_beneath_setting(parts: list[str]) -> None:
    """``audit.keepFiles.x`` would turn the setting ``audit.keepFiles`` into an object."""
    for depth in range(1, len(parts)):
        above = ".".join(parts[:depth])
        if is_known(above):
            setting = SETTINGS[above]
            raise ConfigValueError(
                f"{'.'.join(parts)}: {above} is a setting ({setting.expected}), not an object"
            )


def _check_subtree(key: str, value: Any) -> None:
    """A whole object set at once (``audit`` = {...}) has its known keys checked too."""
    if not isinstance(value, dict):
        return
    for leaf, leaf_value in _leaves(value, key + "."):
        if is_known(leaf):
            check_value(SETTINGS[leaf], leaf_value)


def _parent(config: Config, parts: list[str], *, create: bool) -> dict[str, Any]:
    node = config.data
    for depth, part in enumerate(parts[:-1]):
        child = node.get(part, MISSING)
        if child is MISSING and create:
            child = node[part] = {}
        if not isinstance(child, dict):
            here = ".".join(parts[: depth + 1])
            shown = msgspec.json.encode(child).decode()
            raise ConfigError(
                f"{config.path}: {here} is {shown}, not an object, so it cannot hold "
                f"{'.'.join(parts)}; unset {here} first"
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
