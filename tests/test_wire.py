"""One wire from a turn to its face (docs/design.md, "From a turn to its face"): a face
subscribes to a conversation (``conversation.subscribe(emit)``) and never sets the recorder's
slots by hand. Read from the sources: no module outside ``wisp/agent/`` assigns an attribute
of a recorder."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("wisp", "wisp_tui", "bench")
AGENT = ROOT / "wisp" / "agent"


def _names_a_recorder(node: ast.expr) -> bool:
    """``recorder``, ``self.recorder``, ``session.recorder``, ``thread_recorder``…"""
    if isinstance(node, ast.Name):
        return "recorder" in node.id.lower()
    if isinstance(node, ast.Attribute):
        return "recorder" in node.attr.lower()
    return False


def _targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        found: list[ast.expr] = []
        for target in node.targets:
            found += list(target.elts) if isinstance(target, ast.Tuple | ast.List) else [target]
        return found
    if isinstance(node, ast.AugAssign | ast.AnnAssign):
        return [node.target]
    return []


def recorder_assignments(source: str) -> list[int]:
    """The lines of ``source`` that assign an attribute of a recorder (``recorder.emit = …``,
    ``setattr(session.recorder, …)``)."""
    lines: list[int] = []
    for node in ast.walk(ast.parse(source)):
        for target in _targets(node):
            if isinstance(target, ast.Attribute) and _names_a_recorder(target.value):
                lines.append(target.lineno)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in {"setattr", "delattr"}
            and node.args
            and _names_a_recorder(node.args[0])
        ):
            lines.append(node.lineno)
    return sorted(lines)


def test_the_check_finds_each_way_of_setting_a_recorder_slot() -> None:
    source = (
        "session.recorder.emit = show\n"
        "previous, recorder.emit = recorder.emit, follow\n"
        "self.recorder._face = show\n"
        "setattr(thread.recorder, 'emit', show)\n"
        "self.recorder = Recorder(log)\n"  # naming the recorder is not setting its slots
        "with conversation.subscribe(show):\n    pass\n"
    )
    assert recorder_assignments(source) == [1, 2, 3, 4]


def test_no_module_outside_the_agent_assigns_an_attribute_of_a_recorder() -> None:
    found = []
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.is_relative_to(AGENT):
                continue
            for line in recorder_assignments(path.read_text(encoding="utf-8")):
                found.append(f"{path.relative_to(ROOT)}:{line}")
    assert found == [], "subscribe to the conversation instead (conversation.subscribe(emit))"
