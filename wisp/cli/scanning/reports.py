"""How ``wisp scan`` reports its findings: a line each, JSON Lines, or SARIF 2.1.0. A report
shows at most the first four characters of a value, and the audit log none."""

from __future__ import annotations

import msgspec

from wisp import __version__
from wisp.scan import KINDS

PREVIEW = 4
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


class Reported(msgspec.Struct, frozen=True):
    """One finding as reported: where (its line in the file scanned), its kind, and the value,
    which only the preview shows a start of."""

    file: str
    line: int
    column: int
    kind: str
    value: str


def preview(value: str) -> str:
    """At most the first four characters of ``value`` (fewer for a short one), then ``…``."""
    return value[: min(PREVIEW, len(value) // 2)] + "…"


def text_line(found: Reported) -> str:
    return f"{found.file}:{found.line}:{found.column}: {found.kind}  {preview(found.value)}"


def json_line(found: Reported) -> str:
    shown = {"file": found.file, "line": found.line, "column": found.column, "kind": found.kind}
    return msgspec.json.encode(shown).decode()


def sarif(findings: list[Reported]) -> str:
    """The findings as one SARIF 2.1.0 log, as code scanning services take it in."""
    # The rules' kinds, and any the thorough pass's model named besides.
    kinds = dict.fromkeys([*KINDS, *(found.kind for found in findings)])
    rules = [
        {"id": kind, "name": kind, "shortDescription": {"text": f"A value of kind {kind}"}}
        for kind in kinds
    ]
    results = [
        {
            "ruleId": found.kind,
            "level": "error",
            "message": {"text": f"{found.kind} found"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": found.file},
                        "region": {"startLine": found.line, "startColumn": found.column},
                    }
                }
            ],
        }
        for found in findings
    ]
    driver = {"name": "wisp", "version": __version__, "rules": rules}
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "results": results}],
    }
    return msgspec.json.encode(log).decode()
