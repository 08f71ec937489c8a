"""The registry of audit kinds against the audit log's contract, and docs/logging.md against it."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import msgspec
import msgspec.inspect as mi
import pytest

from wisp.audit.details import REGISTRY, Details, field_names
from wisp.audit.docs import BEGIN, END, LOGGING_DOC, render_kinds_section, update_logging_doc

# The audit log's contract: every kind and the fields it may carry, kept here as data, by hand and
# apart from wisp/audit/kinds.py, in the order kinds are registered: the double entry is the point,
# so that renaming or dropping a field in the registry fails here.
CONTRACT_FIELDS: dict[str, set[str]] = {
    "session.start": {
        "entryPoint", "systemPromptExtension", "instructions", "tools", "model", "unsafe",
        "autoApprove", "resume", "carriedFrom", "parent", "commandTimeoutSeconds", "reason",
        "outputSweep",
        "mcpServers",  # wisp's own: the MCP servers its conversations start
    },
    "session.end": {"reason"},
    "model.resolved": {
        "model", "backend", "asset", "capabilities", "capabilitySource", "tools", "contextSize",
        "contextNote",
    },
    "model.fallback": {"model", "reason", "fallback"},
    "prompt": {"text", "schema", "think"},
    "turn.stopped": {"seconds", "killed"},
    "tools.withdrawn": {"tool", "arguments", "repeat"},  # added for models that loop
    "response": {"text", "condensed", "seconds", "usage"},
    "model.reasoning": {"phase", "text", "bytes", "tokens", "seconds"},
    "tool.call": {"tool", "arguments"},
    "tool.result": {"tool", "output", "bytes", "seconds", "repeat"},
    "output.kept": {"tool", "bytes", "lines", "sha256", "cut", "totalBytes"},
    "policy.decision": {
        "command", "workingDirectory", "verdict", "reason", "sandbox", "network", "nested",
        "origin", "outsideSandbox", "outsideSandboxIgnored",
        "networkCut",  # what turning the network off really cut
        "namespaces", "landlockAbi", "devpts",  # wisp's own: what the sandbox really applied
    },
    "command.outcome": {
        "command", "exitStatus", "timedOut", "truncated", "stdout", "stderr", "seconds", "origin",
        "stopped", "timeoutSource", "timeoutSeconds", "timeoutClamped", "sandboxRefusal",
        "sandboxPaths", "outsideSandbox",
    },
    # "denied with the policy's reason": reason is a field.
    "command.typed": {
        "command", "workingDirectory", "verdict", "reason", "output", "bytes", "seconds",
        "exitStatus", "timedOut", "truncated", "stopped", "sandboxRefused", "sandboxRefusal",
        "sandboxPaths", "stored", "failure", "outsideSandbox",
    },
    # "source (command and workingDirectory, path, or stdin)": workingDirectory goes with a command.
    "secrets.scan": {
        "source", "workingDirectory", "bytes", "diff", "thorough", "findings", "kinds",
        "failedChunks", "classifier",
    },
    "redaction": {
        "source", "bytes", "bytesOut", "truncated", "thorough", "replaced", "failedChunks",
    },
    "model.routed": {"task", "inputBytes", "model", "reason"},
    "model.pull": {
        "model", "repository", "directory", "cache", "files", "bytes", "reused", "seeded",
        "fetchedFiles", "fetched", "link", "outcome", "reason", "seconds", "source", "approval",
    },
    "model.publisher": {
        "repository", "publisher", "decision", "asked", "licence", "bytes", "reason", "source",
        "approval",
    },
    "model.verified": {
        "model", "trigger", "outcome", "checks", "recorded", "kept", "removed", "unchecked",
        "seconds", "source", "approval",
    },
    "watch.run": {
        "command", "run", "trigger", "exitStatus", "timedOut", "state", "previous", "changed",
        "seconds", "findings", "triageError", "notified",
    },
    "notification": {"title", "body", "source", "outcome", "route", "reason", "skipped"},
    "host.hello": {"effects", "client", "version"},
    "file.write": {"path", "mode", "created", "bytesBefore", "bytesAfter"},
    "context.condensation": {
        "turnsBefore", "turnsAfter", "contextSize", "tokenCount", "savedBefore", "savedAfter",
        "reason", "target", "fillBefore", "fillAfter", "headroom", "steps", "floor",
    },
    "context.cut": {
        "entry", "output", "tool", "response", "result", "bytes", "tokens", "words", "coverage",
    },
    "context.reference": {"entry", "tool", "result", "bytes", "referenceBytes", "tokens"},
    "context.distillation": {
        "turns", "entries", "bytes", "facts", "seconds", "model", "failure", "think",
    },
    "context.summary": {
        "version", "turns", "entries", "bytes", "covered", "summaryBytes", "seconds", "model",
        "combined", "failure", "think",
    },
    "context.memory": {
        "request", "action", "target", "output", "found", "entries", "facts", "summaries",
        "events", "from", "filter", "offset", "bytes", "summary", "chunks", "noted", "subject",
        "name", "value", "class", "failure",
    },
    "context.assessment": {
        "method", "tools", "ruleTools", "registered", "taskChanged", "task", "facts", "seconds",
        "bytes", "model", "intent", "failure", "think",
    },
    "response.verification": {
        "method", "status", "claims", "calls", "seconds", "bytes", "model", "think", "failure",
    },
    "fact.recorded": {
        "id", "scope", "subject", "name", "source", "version", "value", "class", "method",
        "detail", "entries", "sources", "supersedes",
    },
    "fact.superseded": {"id", "subject", "name", "source", "by"},
    "fact.deleted": {"id", "subject", "name", "source", "value", "by"},
    "fact.scope.changed": {
        "fact", "from", "to", "by", "now", "subject", "name", "source", "value", "proposed",
        "request",
    },
    # The contract gives both the same fields.
    "fact.conflict.raised": {"subject", "name", "winner", "others"},
    "fact.conflict.resolved": {"subject", "name", "winner", "others"},
    "mcp.request": {"tool", "arguments"},
    "mcp.result": {"tool", "isError", "text", "seconds"},
    "error": {"message", "context"},
    "classifier.verdict": {
        "command", "pattern", "line", "level", "reasons", "sources", "seconds", "metadata",
    },
    "classifier.train": {
        "path", "examplesSource", "examples", "perLevel", "trainingAccuracy", "seconds",
    },
    "config.change": {"path", "old", "new", "source", "approval"},
    "approval.requested": {"command", "pattern", "line", "level", "outsideSandbox"},
    # "failed with reason": reason is a field; a fact's request has kind, fact, subject, name,
    # value and source in place of command, pattern, line, directory and level.
    "approval.pending": {
        "request", "command", "pattern", "line", "directory", "level", "thread", "client",
        "expiresAt", "alongside", "bannerDelaySeconds", "outcome", "reason", "outsideSandbox",
        "kind", "fact", "subject", "name", "value", "source",
    },
    # Like inquiry.answered, with the decision and delivery approval.settled records.
    "approval.answered": {"request", "decision", "via", "delivery", "reason"},
    "approval.settled": {
        "request", "command", "thread", "outcome", "via", "decision", "reason", "seconds",
        "banner", "kind", "fact", "subject", "name", "value", "source", "kept",
    },
    "inquiry.requested": {
        "inquiry", "question", "options", "ways", "timeoutSeconds", "call", "thread",
    },
    "inquiry.parked": {"inquiry", "question", "waitedSeconds"},
    # "refused with reason": reason is a field.
    "inquiry.answered": {"inquiry", "via", "delivery", "reason"},
    "inquiry.settled": {
        "inquiry", "question", "thread", "outcome", "via", "delivered", "answer", "redacted",
        "reason", "seconds",
    },
    # "approved with scope": scope is a field.
    "approval.decided": {
        "command", "pattern", "line", "decision", "scope", "reason", "approvalID", "expiresAt",
        "downgradedFrom", "persistError", "outsideSandbox",
    },
}  # fmt: skip

# classifier.verdict's metadata is open (each classifier adds its own dotted keys); the keys
# wisp writes, kept here by hand as the fields are.
VERDICT_METADATA_KEYS = {
    "rules.knownSafe", "classifier.failure", "classifier.cached", "think",
    # wisp's own: the trained classifier (docs/policy.md, "The classifier")
    "trained.model", "trained.version", "trained.label", "trained.confidence", "trained.fallback",
}  # fmt: skip

KINDS = list(REGISTRY)


def sample(t: mi.Type) -> Any:
    """A value of type ``t``, the same every time, that survives a JSON round trip."""
    match t:
        case mi.StrType():
            return "sample"
        case mi.IntType():
            return 7
        case mi.FloatType():
            return 1.5
        case mi.BoolType():
            return True
        case mi.NoneType():
            return None
        case mi.AnyType():
            return {"any": ["json", 1, None]}
        case mi.ListType(item_type=item):
            return [sample(item)]
        case mi.DictType(key_type=key, value_type=value):
            return {sample(key): sample(value)}
        case mi.StructType(cls=cls, fields=fields):
            return cls(**{f.name: sample(f.type) for f in fields})
        case mi.UnionType(types=types):
            return sample(next(u for u in types if not isinstance(u, mi.NoneType)))
    raise TypeError(f"no sample for {t!r}")


def fields_of(cls: type[Details]) -> tuple[mi.Field, ...]:
    return cast(mi.StructType, mi.type_info(cls)).fields


def build(cls: type[Details], *, every_field: bool) -> Details:
    """An instance with its required fields (or every field) filled with samples."""
    return cls(**{f.name: sample(f.type) for f in fields_of(cls) if every_field or f.required})


def test_every_contract_kind_is_registered() -> None:
    assert set(CONTRACT_FIELDS) - set(REGISTRY) == set()


def test_no_registered_kind_is_missing_from_the_contract() -> None:
    assert set(REGISTRY) - set(CONTRACT_FIELDS) == set()


def test_registry_keeps_the_contract_order() -> None:
    assert list(REGISTRY) == list(CONTRACT_FIELDS)


@pytest.mark.parametrize("kind", KINDS)
def test_registered_fields_are_spelled_as_the_contract_spells_them(kind: str) -> None:
    assert set(field_names(REGISTRY[kind])) == CONTRACT_FIELDS[kind]


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_says_what_it_records_and_who_writes_it(kind: str) -> None:
    cls = REGISTRY[kind]
    assert cls.kind == kind
    assert cls.__doc__ and cls.__doc__.strip()
    assert cls.written_by.strip()


@pytest.mark.parametrize("kind", KINDS)
def test_details_with_required_fields_round_trip(kind: str) -> None:
    cls = REGISTRY[kind]
    details = build(cls, every_field=False)
    assert msgspec.json.decode(msgspec.json.encode(details), type=cls) == details


@pytest.mark.parametrize("kind", KINDS)
def test_unset_fields_are_left_out_and_nullable_fields_are_written_as_null(kind: str) -> None:
    cls = REGISTRY[kind]
    written = msgspec.json.decode(msgspec.json.encode(build(cls, every_field=False)))
    infos = msgspec.structs.fields(cls)
    unset = {f.encode_name for f in infos if f.default is msgspec.UNSET}
    nullable = {f.encode_name for f in infos if f.default is None}
    assert set(written) == set(CONTRACT_FIELDS[kind]) - unset
    assert {name for name in nullable if written[name] is None} == nullable


@pytest.mark.parametrize("kind", KINDS)
def test_details_with_every_field_round_trip_and_write_every_field(kind: str) -> None:
    cls = REGISTRY[kind]
    details = build(cls, every_field=True)
    data = msgspec.json.encode(details)
    assert set(msgspec.json.decode(data)) == CONTRACT_FIELDS[kind]
    assert msgspec.json.decode(data, type=cls) == details


def test_logging_doc_matches_the_registry() -> None:
    text = LOGGING_DOC.read_text(encoding="utf-8")
    assert BEGIN in text and END in text, f"{LOGGING_DOC} lacks the audit kinds markers"
    between = text.split(BEGIN, 1)[1].split(END, 1)[0]
    # Fails when a kind changed without `python -m wisp.audit.docs` being run.
    assert between.strip("\n") == render_kinds_section().strip("\n")


def test_updating_the_doc_rewrites_only_between_the_markers(tmp_path: Path) -> None:
    doc = tmp_path / "logging.md"
    doc.write_text(f"# Logging\n\nbefore\n{BEGIN}\nOLD SECTION\n{END}\nafter\n", encoding="utf-8")
    assert update_logging_doc(doc) is True
    assert update_logging_doc(doc) is False
    text = doc.read_text(encoding="utf-8")
    assert text.startswith(f"# Logging\n\nbefore\n{BEGIN}\n") and text.endswith(f"{END}\nafter\n")
    assert "OLD SECTION" not in text


def test_every_verdict_metadata_key_is_documented_with_the_kind() -> None:
    text = LOGGING_DOC.read_text(encoding="utf-8").split("### classifier.verdict", 1)[1]
    documented = text.split("\n### ", 1)[0]
    assert {key for key in VERDICT_METADATA_KEYS if f"`{key}`" not in documented} == set()
    own = documented.split("this wisp's own", 1)[1]
    assert all(f"`{key}`" in own for key in VERDICT_METADATA_KEYS if key.startswith("trained."))
