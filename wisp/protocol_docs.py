"""The field tables of docs/protocol.md, rendered from ``wisp.protocol``.

Each line type's section in the doc holds a block between ``<!-- fields out:TYPE -->`` (or
``in:TYPE``, or ``shape:NAME`` for a nested object) and ``<!-- /fields -->``. Only the table inside
is generated: its rows are the Struct's fields, with their JSON names and types, whether they are
always written, what a reader takes when one is missing, and the field's docstring as its meaning.
``python -m wisp.protocol_docs`` rewrites the blocks, ``--check`` fails when one is out of date,
and ``tests/test_protocol.py`` compares them, so the doc cannot drift from the module.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import itertools
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import msgspec
import msgspec.inspect as mi

from wisp import protocol

PROTOCOL_DOC = Path(__file__).resolve().parents[1] / "docs" / "protocol.md"
"""The repository's docs/protocol.md."""

BLOCK = re.compile(r"(<!-- fields (\S+) -->\n)(.*?)(<!-- /fields -->)", re.DOTALL)
"""A generated block: its opening marker, its key (``out:hello``), its table, its end."""


def render_protocol_tables() -> dict[str, str]:
    """Every block's table by key: ``out:TYPE``, ``in:TYPE``, then ``shape:NAME``."""
    docs = _field_docs()
    tables: dict[str, str] = {}
    for direction, types in (("out", protocol.OUTBOUND_TYPES), ("in", protocol.INBOUND_TYPES)):
        for tag, cls in types.items():
            tables[f"{direction}:{tag}"] = _render_table(cls, docs)
    for shape in _shapes():
        tables[f"shape:{shape.__name__}"] = _render_table(shape, docs)
    return tables


def with_tables(text: str, path: Path = PROTOCOL_DOC) -> str:
    """``text`` with every block's table rendered afresh; an error names a missing or extra one."""
    tables = render_protocol_tables()
    found = [match[2] for match in BLOCK.finditer(text)]
    missing = [key for key in tables if key not in found]
    unknown = [key for key in found if key not in tables]
    if missing or unknown:
        raise ValueError(
            f"{path}: field blocks missing {missing or 'none'}, unknown {unknown or 'none'}"
        )
    # A blank line either side keeps the markers out of the table around them.
    return BLOCK.sub(lambda m: f"{m[1]}\n{tables[m[2]]}\n{m[4]}", text)


def update_protocol_doc(path: Path = PROTOCOL_DOC) -> bool:
    """Rewrite the field tables of ``path``; True if it changed."""
    text = path.read_text(encoding="utf-8")
    updated = with_tables(text, path)
    if updated == text:
        return False
    path.write_text(updated, encoding="utf-8")
    return True


def _render_table(cls: type[msgspec.Struct], docs: dict[str, dict[str, str]]) -> str:
    infos = msgspec.structs.fields(cls)
    if not infos:
        return "No fields.\n"
    lines = [
        "| field | type | presence | if missing | meaning |",
        "| --- | --- | --- | --- | --- |",
    ]
    struct = cast(mi.StructType, mi.type_info(cls))
    computed = getattr(cls, "computed_defaults", {})
    for info, field in zip(infos, struct.fields, strict=True):
        meaning = docs.get(cls.__name__, {}).get(info.name)
        if meaning is None:
            raise ValueError(f"wisp/protocol.py: {cls.__name__}.{info.name} has no docstring")
        cells = (
            f"`{info.encode_name}`",
            _type_name(field.type),
            "optional" if info.default is msgspec.UNSET and info.name not in computed else "always",
            computed.get(info.name) or _missing(info),
            meaning,
        )
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines) + "\n"


def _missing(info: msgspec.structs.FieldInfo) -> str:
    """What a reader takes for the field when a line leaves it out."""
    if info.default is msgspec.UNSET:
        return "absent"
    if info.default_factory is not msgspec.NODEFAULT:
        return f"`{msgspec.json.encode(info.default_factory()).decode()}`"
    if info.default is not msgspec.NODEFAULT:
        return f"`{msgspec.json.encode(info.default).decode()}`"
    return "required"


def _type_name(t: mi.Type) -> str:
    """The field's JSON type as the doc spells it: `string`, `int[]`, `EventOutput or null`."""
    match t:
        case mi.StrType():
            return "string"
        case mi.IntType():
            return "int"
        case mi.FloatType():
            return "number"
        case mi.BoolType():
            return "bool"
        case mi.NoneType():
            return "null"
        case mi.AnyType():
            return "any"
        case mi.DictType():
            return "object"
        case mi.ListType(item_type=item):
            return f"{_type_name(item)}[]"
        case mi.StructType(cls=cls):
            return f"[{cls.__name__}](#{cls.__name__.lower()})"
        case mi.LiteralType(values=values):
            return " or ".join(f'`"{value}"`' for value in values)
        case mi.UnionType(types=types):
            # null goes last, whatever order the annotation used.
            names = [_type_name(u) for u in types if not isinstance(u, mi.NoneType)]
            return " or ".join(names + ["null"] * (len(names) < len(types)))
    raise TypeError(f"no doc name for the protocol field type {t!r}")


def _shapes() -> list[type[msgspec.Struct]]:
    """The nested objects the lines use, in the order the lines first name them."""
    found: dict[type[msgspec.Struct], None] = {}
    for cls in (*protocol.OUTBOUND_TYPES.values(), *protocol.INBOUND_TYPES.values()):
        for field in cast(mi.StructType, mi.type_info(cls)).fields:
            found.update(dict.fromkeys(_structs_in(field.type)))
    return list(found)


def _structs_in(t: mi.Type) -> Iterator[type[msgspec.Struct]]:
    match t:
        case mi.StructType(cls=cls):
            yield cls
        case mi.ListType(item_type=item):
            yield from _structs_in(item)
        case mi.UnionType(types=types):
            for member in types:
                yield from _structs_in(member)


def _field_docs() -> dict[str, dict[str, str]]:
    """Each class's field docstrings (the string under a field), read from the module's source."""
    tree = ast.parse(inspect.getsource(protocol))
    docs: dict[str, dict[str, str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            docs[node.name] = dict(_attribute_docs(node.body))
    return docs


def _attribute_docs(body: list[ast.stmt]) -> Iterator[tuple[str, str]]:
    for field, after in itertools.pairwise(body):
        if not (isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name)):
            continue
        if isinstance(after, ast.Expr) and isinstance(value := _constant(after.value), str):
            yield field.target.id, " ".join(inspect.cleandoc(value).split())


def _constant(node: ast.expr) -> Any:
    return node.value if isinstance(node, ast.Constant) else None


def main(argv: list[str] | None = None) -> int:
    """Update docs/protocol.md's field tables, or check that they are current."""
    parser = argparse.ArgumentParser(
        prog="python -m wisp.protocol_docs",
        description="Regenerate the field tables of docs/protocol.md from wisp/protocol.py.",
    )
    parser.add_argument(
        "--check", action="store_true", help="Exit 1 if a table is out of date; change nothing."
    )
    args = parser.parse_args(argv)
    try:
        if args.check:
            text = PROTOCOL_DOC.read_text(encoding="utf-8")
            if with_tables(text) != text:
                print(
                    f"{PROTOCOL_DOC}: the field tables are out of date; "
                    "run python -m wisp.protocol_docs",
                    file=sys.stderr,
                )
                return 1
            return 0
        changed = update_protocol_doc()
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"{PROTOCOL_DOC}: {'updated' if changed else 'already up to date'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
