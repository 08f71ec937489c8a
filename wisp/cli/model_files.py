"""The checksums of the GGUF files ``local:PATH`` loads, kept in config.json beside each model's
entry (issue 12): ``local.models."NAME".sha256``, with ``sha256Path`` (the real path it was
taken of) and ``sha256Stamp`` (the file's stat then, so an unchanged file is not hashed again).

A new or accepted checksum is recorded as ``config.change``; a refreshed stamp is not (the file
is the same).
"""

from __future__ import annotations

from typing import Any

from wisp.audit.kinds import ConfigChange
from wisp.cli.context import Context
from wisp.cli.models_session import Record
from wisp.config import Config, locked_config, model_path, save_config
from wisp.errors import ConfigError
from wisp.models.local_files import FileRecord, FileStamp
from wisp.models.selection import LOCAL


class ConfigModelFiles:
    """``ModelFiles`` in config.json, read fresh each time (another wisp may have recorded)."""

    def __init__(
        self, context: Context, *, source: str, record: Record, trusts_changes: bool = False
    ) -> None:
        self.context = context
        self.source = source
        self.record_event = record
        self.trusts_changes = trusts_changes

    def recorded(self, name: str) -> FileRecord | None:
        section = model_section(self.context.load_config(), LOCAL, name)
        sha256 = section.get("sha256")
        if sha256 is None:
            return None
        path = section.get("sha256Path")
        return FileRecord(
            path=path if isinstance(path, str) else "",
            # A malformed checksum matches no file: refused, never ignored.
            sha256=sha256 if isinstance(sha256, str) else "",
            stamp=FileStamp.from_list(section.get("sha256Stamp")),
        )

    def record(self, name: str, record: FileRecord) -> None:
        with locked_config(self.context.home.config_file) as config:
            section = model_section(config, LOCAL, name)
            old = section.get("sha256")
            section["sha256"] = record.sha256
            section["sha256Path"] = record.path
            if record.stamp is not None:
                section["sha256Stamp"] = record.stamp.as_list()
            store_model_section(config, LOCAL, name, section)
            save_config(config)
        if old != record.sha256:
            self.record_event(
                ConfigChange(
                    path=model_path(LOCAL, name, "sha256"),
                    old=old,
                    new=record.sha256,
                    source=self.source,
                    approval=None,
                )
            )


def model_section(config: Config, scheme: str, name: str) -> dict[str, Any]:
    """``<scheme>.models."<name>"``, a copy, read by hand: the name may hold dots."""
    models = config.get(f"{scheme}.models")
    section = models.get(name) if isinstance(models, dict) else None
    return dict(section) if isinstance(section, dict) else {}


def store_model_section(config: Config, scheme: str, name: str, section: dict[str, Any]) -> None:
    """Put ``section`` at ``<scheme>.models."<name>"``, making the objects on the way."""
    node: Any = config.data
    for part in (scheme, "models"):
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise ConfigError(
                f"{config.path}: {scheme}.models cannot hold {name}: {part} is not an object"
            )
        node = child
    node[name] = section
