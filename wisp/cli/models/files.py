"""The checksums of the GGUF files ``local:PATH`` loads, kept in each model's entry in config.json
(docs/models.md, "Local GGUF checksums"): ``local.models."NAME".sha256``, with ``sha256Path``
(the real path it was taken of) and ``sha256Stamp`` (the file's stat then, so an unchanged file
is not hashed again), read and written as ``ModelEntry`` fields.

A new or accepted checksum is recorded as ``config.change``; a refreshed stamp is not (the file
is the same).
"""

from __future__ import annotations

from wisp.audit.kinds import ConfigChange
from wisp.cli.context import Context
from wisp.cli.models.session import Record
from wisp.config import locked_config, model_path, save_config, store_model_entry
from wisp.config.model_entry import as_stored
from wisp.models.local_files import FileRecord, FileStamp
from wisp.models.selection import LOCAL


class ConfigModelFiles:
    """``ModelFiles`` in config.json, read fresh each time (another wisp may have recorded)."""

    def __init__(
        self,
        context: Context,
        *,
        source: str,
        record: Record,
        trusts_changes: bool = False,
        approval: str | None = None,
    ) -> None:
        self.context = context
        self.source = source
        self.approval = approval
        """The id of the approval the change was made under (the models tool's); None for the
        person's own command."""
        self.record_event = record
        self.trusts_changes = trusts_changes

    def recorded(self, name: str) -> FileRecord | None:
        entry = self.context.load_config().model_entries(LOCAL).entry(name)
        if as_stored(entry.sha256) is None:
            return None
        return FileRecord(
            path=entry.sha256_path if isinstance(entry.sha256_path, str) else "",
            # A malformed checksum matches no file: refused, never ignored.
            sha256=entry.sha256 if isinstance(entry.sha256, str) else "",
            stamp=FileStamp.from_list(as_stored(entry.sha256_stamp)),
        )

    def record(self, name: str, record: FileRecord) -> None:
        with locked_config(self.context.home.config_file) as config:
            entry = config.model_entries(LOCAL).entry(name)
            old = as_stored(entry.sha256)
            entry = entry.with_fields(sha256=record.sha256, sha256_path=record.path)
            if record.stamp is not None:
                entry = entry.with_fields(sha256_stamp=record.stamp.as_list())
            store_model_entry(config, LOCAL, name, entry)
            save_config(config)
        if old != record.sha256:
            self.record_event(
                ConfigChange(
                    path=model_path(LOCAL, name, "sha256"),
                    old=old,
                    new=record.sha256,
                    source=self.source,
                    approval=self.approval,
                )
            )
