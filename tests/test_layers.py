"""The layer map that docs/design.md draws ("Layers"), read from its table and checked with ast.

The table is the one statement of the rule: each row names a part, what it may import, and why.
Every import counts here, relative ones, string ones (``importlib.import_module``), those inside
functions and those under ``if TYPE_CHECKING:`` alike (tests/import_graph.py reads them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.import_graph import ROOT, Import, circles, imports_in, module_name, sources

DESIGN = ROOT / "docs" / "design.md"
EVERYTHING = "*"


@dataclass(frozen=True)
class LayerMap:
    allowed: Mapping[str, frozenset[str]]
    """Each part, and the modules it may import besides its own (``*``: any)."""
    base: frozenset[str]
    """What every part of ``wisp`` but the base itself may import."""

    def part_of(self, module: str) -> str | None:
        """The part ``module`` belongs to: the longest part that is it or holds it."""
        holders = [part for part in self.allowed if covers(part, module)]
        return max(holders, key=len, default=None)

    def may_import(self, module: str) -> frozenset[str]:
        part = self.part_of(module)
        if part is None:
            return frozenset()
        allowed = self.allowed[part] | {part}
        if is_wisp(part) and part not in self.base:
            allowed |= self.base
        return allowed


def covers(name: str, module: str) -> bool:
    """A name in the map stands for that module and the modules under it; ``wisp`` for its
    ``__init__`` only (its version), not for the whole package."""
    return module == name or (name != "wisp" and module.startswith(name + "."))


def is_wisp(part: str) -> bool:
    return part == "wisp" or part.startswith("wisp.")


def read_map(markdown: str) -> LayerMap:
    """The map from the "Layers" section's table: ``| part | may import | why |`` rows."""
    section = markdown.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")][1:]
    allowed: dict[str, frozenset[str]] = {}
    base: frozenset[str] = frozenset()
    for row in rows:
        part_cell, imports_cell, _why = (cell.strip() for cell in row.strip("|").split("|"))
        names = frozenset(re.findall(r"`([\w.]+)`", imports_cell))
        if imports_cell == "everything":
            names = frozenset({EVERYTHING})
        if part_cell.startswith("every other part of"):
            base = names
            continue
        for part in re.findall(r"`([\w.]+)`", part_cell):
            allowed[part] = names
    return LayerMap(allowed, base)


def forbidden(module: str, imported: Iterable[str], layers: LayerMap) -> list[str]:
    """What ``module`` imports that its part may not, sorted."""
    allowed = layers.may_import(module)
    if EVERYTHING in allowed:
        return []
    return sorted(name for name in set(imported) if not any(covers(ok, name) for ok in allowed))


def imported_modules(items: Iterable[Import], modules: Iterable[str]) -> set[str]:
    known = set(modules)
    return set().union(*(item.targets(known) for item in items))


LAYERS = read_map(DESIGN.read_text())
MODULES = {path: module_name(path) for path in sources()}
# Parsed once, while the tests are collected: CPython 3.11's ast can fail with "AST constructor
# recursion depth mismatch" when it parses after other tests have run deep in the same worker.
IMPORTS = {
    path: imported_modules(
        imports_in(path.read_text(), MODULES[path], is_package=path.stem == "__init__"),
        MODULES.values(),
    )
    for path in sources()
}


@pytest.mark.parametrize("path", sources(), ids=lambda path: str(path.relative_to(ROOT)))
def test_modules_import_only_what_their_layer_allows(path: Path) -> None:
    module = MODULES[path]
    assert LAYERS.part_of(module), f"{module}: give its part a row in docs/design.md's Layers"
    bad = forbidden(module, IMPORTS[path], LAYERS)
    assert not bad, f"{module} imports {', '.join(bad)}, which docs/design.md's Layers forbid"


def test_nothing_but_python_m_wisp_imports_the_cli() -> None:
    for path, module in MODULES.items():
        part = LAYERS.part_of(module)
        if part is not None and (part == "wisp.__main__" or covers("wisp.cli", part)):
            continue
        assert not any(covers("wisp.cli", name) for name in IMPORTS[path]), module


def test_the_map_points_one_way() -> None:
    """No part reaches, through the rows, a part that reaches it (the CLI, which may import
    everything and which nothing imports, aside)."""
    arrows = {
        part: {LAYERS.part_of(name) or name for name in names} - {part}
        for part, names in LAYERS.allowed.items()
        if EVERYTHING not in names
    }
    assert circles(arrows) == []


def test_the_map_names_only_real_modules() -> None:
    named = {*LAYERS.allowed, *LAYERS.base}.union(*LAYERS.allowed.values()) - {EVERYTHING}
    real = {name for name in named if any(covers(name, module) for module in MODULES.values())}
    assert named - real == set()


# -- the checker itself, on sources made up for it ----------------------------------------------

SOURCE = """
import importlib
from typing import TYPE_CHECKING

import wisp.audit.kinds as kinds
from wisp import protocol
from . import entries
from .store import ConversationStore
from ..agent.types import ToolCall

if TYPE_CHECKING:
    from wisp.chat.loop import ChatLoop
else:
    from wisp.diagnostics import log


def later():
    from wisp.models import registry

    class Inner:
        def method(self):
            return importlib.import_module("wisp.policy.gate"), __import__("wisp.sandbox")


SCHEMES = {name: importlib.import_module(f"wisp.tools.{name}") for name in ("ask",)}
"""


def test_the_checker_sees_every_kind_of_import() -> None:
    found = imports_in(SOURCE, "wisp.store.transcripts")
    assert {item.module for item in found} == {
        "wisp.audit.kinds",
        "wisp",
        "wisp.store",
        "wisp.store.store",
        "wisp.agent.types",
        "wisp.chat.loop",
        "wisp.diagnostics",
        "wisp.models",
        "wisp.policy.gate",
        "wisp.sandbox",
        "wisp.tools",
    }
    assert [item.module for item in found if item.typing_only] == ["wisp.chat.loop"]
    modules = ["wisp.protocol", "wisp.store.entries", "wisp.models.registry"]
    targets = imported_modules(found, modules)
    assert {"wisp.protocol", "wisp.store.entries", "wisp.models.registry"} <= targets
    assert "wisp" not in targets  # ``from wisp import protocol`` is the protocol, not wisp


def test_a_relative_import_in_a_package_init_is_of_the_package() -> None:
    source = "from . import entries\nfrom .. import errors\n"
    found = imports_in(source, "wisp.store", is_package=True)
    assert [(item.module, item.names) for item in found] == [
        ("wisp.store", ("entries",)),
        ("wisp", ("errors",)),
    ]


def test_the_checker_refuses_what_the_map_forbids() -> None:
    layers = read_map(
        "# Design\n\n## Layers\n\n| part | may import | why |\n| --- | --- | --- |\n"
        "| `wisp.errors`, `wisp.home` | nothing | the base |\n"
        "| every other part of `wisp` | `wisp.errors`, `wisp.home` | shared |\n"
        "| `wisp.store` | nothing | a leaf |\n"
        "| `wisp.agent` | `wisp.store` | entries |\n"
        "| `wisp.cli` | everything | wiring |\n"
        "| `wisp_tui` | `wisp.protocol` | lines only |\n"
        "\n## Next\n\n| `wisp.store` | `wisp.agent` | not part of the map |\n"
    )
    assert layers.base == {"wisp.errors", "wisp.home"}
    assert layers.allowed["wisp.store"] == frozenset()
    assert forbidden("wisp.agent.loop", ["wisp.store.entries", "wisp.home"], layers) == []
    assert forbidden("wisp.store.entries", ["wisp.agent.types", "wisp.errors"], layers) == [
        "wisp.agent.types"
    ]
    assert forbidden("wisp.cli.main", ["wisp_tui.app", "wisp.agent"], layers) == []


def test_the_front_end_may_import_the_protocol_and_nothing_else() -> None:
    history = "from wisp.protocol import Hello\nfrom wisp.home import Home\n"
    imported = imported_modules(imports_in(history, "wisp_tui.history"), ["wisp.protocol"])
    assert forbidden("wisp_tui.history", imported, LAYERS) == ["wisp.home"]
    typed = "if TYPE_CHECKING:\n    from wisp.config import Config\n"
    imported = imported_modules(imports_in(typed, "wisp_tui.history"), [])
    assert forbidden("wisp_tui.history", imported, LAYERS) == ["wisp.config"]
