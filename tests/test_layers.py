"""The folder map's import rules (STYLE.md §3), checked with ast so they cannot erode."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# What each part may import from wisp, besides itself and what ANYWHERE allows.
ALLOWED: dict[str, set[str]] = {
    "wisp": set(),  # the package itself: its version
    "wisp.__main__": {"wisp.cli"},  # python -m wisp runs the CLI
    "wisp.errors": set(),
    "wisp.home": set(),
    "wisp.diagnostics": set(),
    "wisp.spelling": set(),
    "wisp.config": set(),
    "wisp.audit": {"wisp"},  # the version it stamps
    # The agent is handed its backend, tools, store and audit log; it knows their data only.
    "wisp.agent": {"wisp.audit.kinds", "wisp.store", "wisp.protocol"},
    "wisp.store": {"wisp.agent.types"},
    # The one path syntax (stdlib only), for the config paths backends name in notes and errors.
    "wisp.models": {"wisp.agent.types", "wisp.config.paths"},
    "wisp.tools": {
        "wisp",  # inspect reports the version
        "wisp.agent.types",
        "wisp.agent.text",
        "wisp.audit",  # the kinds tools record, and inspect's view of the log
        "wisp.config",
        "wisp.store",
        "wisp.policy",  # run_command: patterns, rules and the gate
        "wisp.sandbox",  # run_command: confinement, the process, the refusal check
    },
    "wisp.chat": {"wisp", "wisp.agent", "wisp.store", "wisp.protocol", "wisp.policy"},
    "wisp.protocol": set(),  # D1: the front end imports it, so it imports nothing of wisp
    "wisp.protocol_docs": {"wisp", "wisp.protocol"},
    # Pure decisions; the gate records its own events (the seed's kinds).
    "wisp.policy": {"wisp.agent.types", "wisp.audit.kinds"},
    "wisp.sandbox": set(),
    "wisp.cli": {"*"},  # the one place that wires everything
    "wisp_tui": {"wisp.protocol"},  # D1: the front end knows the backend only by its protocol
}
# The logger is the one global; spelling is one pure function every "did you mean" shares.
ANYWHERE = {"wisp.errors", "wisp.home", "wisp.diagnostics", "wisp.spelling"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def wisp_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return {name for name in names if name == "wisp" or name.startswith(("wisp.", "wisp_tui"))}


def part_of(module: str) -> str:
    for part in sorted(ALLOWED, key=len, reverse=True):
        if module == part or (part != "wisp" and module.startswith(part + ".")):
            return part
    return module


def sources() -> list[Path]:
    return sorted([*ROOT.joinpath("wisp").rglob("*.py"), *ROOT.joinpath("wisp_tui").rglob("*.py")])


# Parsed once, while the tests are collected: CPython 3.11's ast can fail with "AST constructor
# recursion depth mismatch" when it parses after other tests have run deep in the same worker.
IMPORTS = {path: wisp_imports(path) for path in sources()}


@pytest.mark.parametrize("path", sources(), ids=lambda path: str(path.relative_to(ROOT)))
def test_modules_import_only_what_their_layer_allows(path: Path) -> None:
    module = module_name(path)
    part = part_of(module)
    allowed = ALLOWED.get(part)
    assert allowed is not None, f"{module}: add its part to ALLOWED in {Path(__file__).name}"
    if "*" in allowed:
        return
    for imported in IMPORTS[path]:
        target = part_of(imported)
        ok = target in (part, *allowed, *ANYWHERE) or imported in allowed
        assert ok, f"{module} imports {imported}, which {part} may not"


def test_nothing_imports_the_cli() -> None:
    for path in sources():
        module = module_name(path)
        if part_of(module) in ("wisp.cli", "wisp.__main__"):
            continue
        assert not any(part_of(name) == "wisp.cli" for name in IMPORTS[path]), module
