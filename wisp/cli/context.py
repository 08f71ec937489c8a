"""What every command is handed: the home, the environment and the two output streams."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TextIO

import msgspec

from wisp.audit import AuditSettings
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
