"""What every command is handed: the home, the environment and the two output streams."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator, Mapping
from typing import TextIO

import msgspec

from wisp.audit import AuditLog, AuditSettings, open_sink
from wisp.audit.kinds import SessionStart
from wisp.config import Config, load_config
from wisp.home import Home


class Context(msgspec.Struct):
    home: Home
    environ: Mapping[str, str]
    stdout: TextIO = msgspec.field(default_factory=lambda: sys.stdout)
    stderr: TextIO = msgspec.field(default_factory=lambda: sys.stderr)

    def warn(self, message: str) -> None:
        """One line on stderr, never stdout (which may be a pipe of events or JSON)."""
        print(f"wisp: {message}", file=self.stderr, flush=True)

    def load_config(self) -> Config:
        return load_config(self.home.config_file)


def audit_settings(config: Config) -> AuditSettings:
    """The ``audit`` settings in force, each checked (an error names the file and key)."""
    audit = config.settings.audit
    return AuditSettings(
        enabled=audit.enabled, max_file_bytes=audit.max_file_bytes, keep_files=audit.keep_files
    )


@contextlib.contextmanager
def command_session(context: Context, entry_point: str, *, model: str = "") -> Iterator[AuditLog]:
    """A command's audited session of its own: ``session.start`` naming ``entry_point`` now,
    the log closed at the end."""
    config = context.load_config()
    log = AuditLog(open_sink(audit_settings(config), context.home.audit_file))
    try:
        log.record(SessionStart(entry_point=entry_point, tools=[], model=model))
        yield log
    finally:
        log.close()
