"""wisp's and wisp-tui's value types are msgspec Structs, and wisp-tui's messages plain classes
(docs/design.md, "Choices and why").

On Python 3.11 a frozen, slotted dataclass takes about 0.9 ms to define, since its methods are
compiled from source, and a Struct about 20 µs: wisp once defined 85 dataclasses before its first
`status`, a third of its start.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted([*(ROOT / "wisp").rglob("*.py"), *(ROOT / "wisp_tui").rglob("*.py")])


def dataclasses_in(source: str) -> list[str]:
    """The classes a module decorates with ``dataclass``, by name and line."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                if ast.unparse(target).split(".")[-1] == "dataclass":
                    found.append(f"{node.name} (line {node.lineno})")
    return found


def test_wisp_and_wisp_tui_define_no_dataclasses() -> None:
    found = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in SOURCES
        for name in dataclasses_in(path.read_text())
    ]
    assert not found, "make these msgspec Structs: " + "; ".join(found)


def test_the_check_finds_a_dataclass() -> None:
    source = "from dataclasses import dataclass\n@dataclass(frozen=True)\nclass P:\n    x: int\n"
    assert dataclasses_in(source) == ["P (line 3)"]
    assert dataclasses_in("import dataclasses\n@dataclasses.dataclass\nclass A:\n    x: int\n")
