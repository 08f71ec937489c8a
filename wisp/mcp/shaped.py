"""A shaped reply (``respond``'s ``schema``): the model is asked in words, and a model with
``guidedGeneration`` has its reply held to the schema too, on the requests that offer no tools
(docs/mcp.md, "Shaped replies"). Either way the reply is parsed and validated, and asked once
more when it does not fit; a second miss is the call's error."""

from __future__ import annotations

import json
import re
from typing import Any

from wisp.agent.types import ResolvedModel

_FENCE = re.compile(r"^```[A-Za-z]*\s*\n?(.*?)\n?```$", re.DOTALL)


class ShapeError(Exception):
    """The reply is not JSON fitting the schema; the message says how it misses."""


def held_to(model: ResolvedModel, schema: dict[str, Any] | None) -> dict[str, Any] | None:
    """The schema to send with the turn's requests: only to a model that can hold a reply to
    it; any other is asked in words alone."""
    return schema if "guidedGeneration" in model.capabilities else None


def asked_for(prompt: str, schema: dict[str, Any]) -> str:
    """The prompt, with the shape the reply must take said in words."""
    return (
        f"{prompt}\n\nReply with one JSON value and nothing else (no prose, no code fence); "
        f"it must fit this JSON Schema:\n{json.dumps(schema)}"
    )


def asked_again(reason: str, schema: dict[str, Any]) -> str:
    return (
        f"Your reply did not fit the JSON Schema ({reason}). Reply again with one JSON value "
        f"and nothing else, fitting:\n{json.dumps(schema)}"
    )


def check_schema(schema: Any) -> str | None:
    """Why ``schema`` is not a JSON Schema this server can hold a reply to, or None."""
    from jsonschema import SchemaError, validators

    if not isinstance(schema, dict):
        return "schema must be a JSON Schema object"
    try:
        validators.validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        return f"schema is not a valid JSON Schema: {exc.message}"
    return None


def parsed(text: str, schema: dict[str, Any]) -> Any:
    """The reply's value; ``ShapeError`` when it is not JSON or does not fit."""
    from jsonschema import ValidationError, validate

    body = text.strip()
    if fenced := _FENCE.match(body):
        body = fenced.group(1).strip()
    try:
        value = json.loads(body)
    except json.JSONDecodeError as exc:
        raise ShapeError(f"not JSON: {exc.msg} at character {exc.pos}") from exc
    try:
        validate(value, schema)
    except ValidationError as exc:
        where = "/".join(str(step) for step in exc.absolute_path) or "the value"
        raise ShapeError(f"{where}: {exc.message}") from exc
    return value
