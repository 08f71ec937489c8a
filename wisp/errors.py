"""Errors meant for people, in one tree.

    WispError                 anything wisp reports as one line, without a traceback
    ├── UsageError            the command line is wrong (exit 2)
    ├── ConfigError           config.json or a setting is wrong; names the file, key or line:column
    │   └── ConfigValueError  a known key's value has the wrong type or range
    └── AuditError            the audit log cannot be written or read

Foreign exceptions (OSError, msgspec errors) are translated where they happen, with
``raise ... from exc`` so the cause stays in a debug log.
"""

from __future__ import annotations


class WispError(Exception):
    """An error whose message is written for the person at the terminal."""

    exit_code: int = 1


class UsageError(WispError):
    """The command line asked for something wisp cannot do as written."""

    exit_code = 2


class ConfigError(WispError):
    """config.json cannot be read, or a setting is not one wisp can use."""


class ConfigValueError(ConfigError):
    """A known setting was given a value of the wrong type or out of range."""


class AuditError(WispError):
    """The audit log could not be written or read."""
