"""A writer process for the concurrency test: COUNT events through the real audit writer.

    python concurrent_writer.py LOG_FILE WRITER COUNT MAX_FILE_BYTES KEEP_FILES

Each event is an ``error`` whose message is ``WRITER:INDEX``, so the test can check that every
writer's events are all there and in order.
"""

from __future__ import annotations

import sys
from pathlib import Path

from wisp.audit import AuditLog, FileSink
from wisp.audit.kinds import Error


def main(log_file: str, writer: str, count: str, max_file_bytes: str, keep_files: str) -> None:
    sink = FileSink(Path(log_file), max_file_bytes=int(max_file_bytes), keep_files=int(keep_files))
    log = AuditLog(sink, session=f"writer-{writer}")
    for index in range(int(count)):
        log.record(Error(message=f"{writer}:{index}", context="concurrency test"))
    log.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
