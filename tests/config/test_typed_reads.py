"""Settings are read typed outside ``wisp.config``: ``config.settings.<section>.<field>``, a model's
``ModelEntry``, never a dotted key (``config.get("models.disabled")``) handed to the store, nor a
model entry's field picked out of its object by name (``entry.get("contextLength")``).

The store reads by key only for keys a person types (``wisp config get KEY``): those are names,
not literals, and pass. The sources are read with ``ast``, so a read is caught however it is
laid out.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("wisp", "wisp_tui")
OUTSIDE = ROOT / "wisp" / "config"

ACCESSORS = frozenset({"get", "value", "checked_value"})
"""``Config``'s reads by key (``wisp.config.store``)."""

ENTRY_FIELDS = frozenset({"contextLength", "sha256", "sha256Path", "sha256Stamp", "verified"})
"""Fields of a model entry no other object of wisp's has (``capabilities``, ``think`` and
``file`` are other protocols' words too): read as ``ModelEntry`` fields."""


def _is_config(node: ast.expr) -> bool:
    """Whether ``node`` names a config object: ``config``, ``self.config``, ``load_config()``."""
    match node:
        case ast.Name(id=name) | ast.Attribute(attr=name):
            return "config" in name.lower()
        case ast.Call(func=func):
            return _is_config(func)
    return False


def _constants(tree: ast.Module) -> dict[str, str]:
    """The module's ``NAME = "text"`` assignments, for a key held in a constant."""
    found: dict[str, str] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Constant):
            for target in statement.targets:
                if isinstance(target, ast.Name) and isinstance(statement.value.value, str):
                    found[target.id] = statement.value.value
    return found


def _is_dotted_key(node: ast.expr, constants: dict[str, str]) -> bool:
    """A literal key into nested settings: ``"a.b"``, ``f"{x}.b"``, ``("a", "b")``, or a
    module constant holding one."""
    match node:
        case ast.Constant(value=str(text)):
            return "." in text
        case ast.JoinedStr(values=parts):
            return any(isinstance(p, ast.Constant) and "." in str(p.value) for p in parts)
        case ast.Tuple(elts=names):
            return len(names) > 1 and all(isinstance(n, ast.Constant) for n in names)
        case ast.Name(id=name):
            return "." in constants.get(name, "")
    return False


def dotted_reads(source: str) -> list[int]:
    """The lines of ``source`` that read a setting from a config object by a dotted key."""
    tree = ast.parse(source)
    constants = _constants(tree)
    lines = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr not in ACCESSORS or not _is_config(node.func.value):
            continue
        if node.args and _is_dotted_key(node.args[0], constants):
            lines.append(node.lineno)
    return lines


def entry_field_reads(source: str) -> list[int]:
    """The lines of ``source`` that pick a model entry's field out of an object by name."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        match node:
            case ast.Call(func=ast.Attribute(attr="get"), args=[ast.Constant(value=key), *_]):
                pass
            case ast.Subscript(slice=ast.Constant(value=key)):
                pass
            case _:
                continue
        if key in ENTRY_FIELDS:
            lines.append(node.lineno)
    return lines


def _sources() -> list[Path]:
    files = [path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))]
    return [path for path in files if OUTSIDE not in path.parents]


@pytest.mark.parametrize(
    "source",
    [
        'config.get("models.disabled")',
        'self.config.checked_value("audit.enabled")',
        'context.load_config().value("approval.threshold")',
        'config.get(f"{scheme}.models")',
        'config.get(("audit", "enabled"))',
        'KEY = "models.trustedPublishers"\nconfig.get(KEY)',
    ],
)
def test_a_dotted_read_is_caught(source: str) -> None:
    assert dotted_reads(source) != []


@pytest.mark.parametrize(
    "source", ['entry.get("contextLength")', 'section["sha256"]', 'models[name]["verified"]']
)
def test_an_entry_field_read_by_name_is_caught(source: str) -> None:
    assert entry_field_reads(source) != []


@pytest.mark.parametrize(
    "source",
    [
        "config.get(names)",  # the key a person typed: wisp config get KEY
        "config.settings.models.disabled",
        'headers.get("content.type")',  # not a config object
        'config.model_entries("local").entry("SmolLM2.Q4_1")',  # a model's name may hold dots
    ],
)
def test_a_typed_or_typed_in_read_passes(source: str) -> None:
    assert dotted_reads(source) == []


def test_no_setting_is_read_by_a_dotted_key_outside_wisp_config() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in _sources()
        for line in dotted_reads(path.read_text(encoding="utf-8"))
    ]
    assert found == [], "read these through config.settings or a ModelEntry"


def test_no_model_entry_field_is_read_by_name_outside_wisp_config() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in _sources()
        for line in entry_field_reads(path.read_text(encoding="utf-8"))
    ]
    assert found == [], "read these as ModelEntry fields (wisp.config.model_entry)"
