"""No class in ``wisp/`` over 20 methods and no module over 500 lines, so each part is a room a
reader can hold at once (docs/design.md, "Choices and why"). The registries are excepted: each
is one long list of entries of one kind, read by name, never whole.

Methods are the functions defined in a class's own body (``__init__`` and properties count);
lines are the module's lines, as ``wc -l`` counts them.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "wisp").rglob("*.py"))
MAX_METHODS = 20
MAX_LINES = 500
REGISTRIES = {
    "wisp/audit/kinds.py": "every audit kind's Details Struct, one after another",
    "wisp/protocol.py": "every protocol line's Struct, one after another",
    "wisp/config/settings.py": "every setting's definition, one after another",
}
"""Modules allowed past ``MAX_LINES``, and why."""


def classes_over(source: str, limit: int = MAX_METHODS) -> list[str]:
    """Each class with more than ``limit`` methods, by name, count and line."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            methods = [
                item
                for item in node.body
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
            ]
            if len(methods) > limit:
                found.append(f"{node.name} ({len(methods)} methods, line {node.lineno})")
    return found


def line_count(source: str) -> int:
    return source.count("\n") + (0 if source.endswith("\n") or not source else 1)


def test_no_class_in_wisp_has_more_than_twenty_methods() -> None:
    found = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in SOURCES
        for name in classes_over(path.read_text())
    ]
    assert not found, f"split these (at most {MAX_METHODS} methods a class): " + "; ".join(found)


def test_no_module_in_wisp_has_more_than_five_hundred_lines() -> None:
    found = []
    for path in SOURCES:
        name = path.relative_to(ROOT).as_posix()
        lines = line_count(path.read_text())
        if lines > MAX_LINES and name not in REGISTRIES:
            found.append(f"{name} ({lines} lines)")
    assert not found, f"split these (at most {MAX_LINES} lines a module): " + "; ".join(found)


def test_each_excepted_registry_exists_and_needs_its_exception() -> None:
    for name in REGISTRIES:
        path = ROOT / name
        assert path.is_file(), f"{name} is excepted but gone: drop it from REGISTRIES"
        assert line_count(path.read_text()) > MAX_LINES, f"{name} fits now: drop its exception"


def test_the_checks_count_what_they_say() -> None:
    methods = "".join(f"    def m{n}(self) -> None: ...\n" for n in range(21))
    source = f"class Big:\n{methods}\nclass Small:\n    def m(self) -> None: ...\n"
    assert classes_over(source) == ["Big (21 methods, line 1)"]
    assert classes_over(source, limit=21) == []
    assert line_count("a\nb\n") == 2
    assert line_count("a\nb") == 2
    assert line_count("") == 0
