"""``wisp models``' table (docs/models.md, "The catalog"): fitted to a terminal, tab-separated
when piped.

Both start with the column headings. On a terminal, a column no shown row has a value for is
left out, and columns are dropped in rank order until the last one (CAPABILITIES) has at least
20 cells; it wraps under itself. A model that cannot be used is followed by a muted
``not usable: …`` line. Piped, each model is one tab-separated line with every column, then a
``not usable: …`` field where one applies. The CAPABILITIES cell is also the picker's.

Under it, the routed tasks: where each task's next call would go, and why (docs/models.md,
"Routed tasks"). On a terminal, under a ``routed tasks`` line, the reason wraps under itself;
piped, after an empty line, one tab-separated line a task under its headings.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import msgspec

from wisp.agent.types import CAPABILITY_WORDS, capability_words

if TYPE_CHECKING:
    from wisp.models.catalog import ModelRow, Unreachable
    from wisp.routing.router import TaskRoute

ROUTE_HEADINGS = ("TASK", "MODEL", "WHY")
LAST_COLUMN_CELLS = 20
GAP = "  "
MUTED, PLAIN = "\x1b[2m", "\x1b[0m"


def capabilities_cell(row: ModelRow) -> str:
    """``text only, structured replies``; after a check ``(verified)``, saying which of them
    the check did not pass: those were declared by hand (kept though it failed them, or never
    asked, as thinking is)."""
    if row.capabilities_from is None:
        return ""  # not resolved: nothing is known
    text = ", ".join(capability_words(row.capabilities))
    if not row.capabilities_from.startswith("verified"):
        return text
    by_hand = [
        word
        for name, word in CAPABILITY_WORDS.items()
        if name in row.capabilities and name not in row.capabilities_verified
    ]
    if not by_hand:
        return f"{text} (verified)"
    return f"{text} (verified, except {_and(by_hand)}: declared by hand)"


def context_cell(row: ModelRow) -> str:
    """``32,768``; ``?`` for a window no one reports (FROM says ``unknown``)."""
    if row.context_length:
        return f"{row.context_length:,}"
    return "?" if row.context_from == "unknown" else ""


def _and(words: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return " and ".join([", ".join(words[:-1]), words[-1]]) if len(words) > 1 else words[0]


class Column(msgspec.Struct, frozen=True):
    heading: str
    drop: int
    """Dropped in this order on a narrow terminal (1 first); 0 is never dropped."""
    cell: Callable[[ModelRow], str]


COLUMNS: tuple[Column, ...] = (
    Column("MODEL", 0, lambda row: ("* " if row.in_use else "  ") + row.selection),
    Column("RUNTIME", 2, lambda row: row.runtime),
    Column("PARAMS", 5, lambda row: row.parameters or ""),
    Column("SIZE", 6, lambda row: row.size or ""),
    Column("FORMAT", 1, lambda row: row.format or ""),
    Column("CONTEXT", 7, lambda row: context_cell(row)),
    Column("FROM", 3, lambda row: row.context_from or ""),
    Column("WHERE", 4, lambda row: row.location or ""),
    Column("ENABLED", 0, lambda row: "yes" if row.enabled else "no"),
    Column("CAPABILITIES", 0, capabilities_cell),
)


def piped_lines(rows: Sequence[ModelRow]) -> list[str]:
    """The headings, then one tab-separated line per model, every column in order, empty or
    not."""
    lines = ["\t".join(column.heading for column in COLUMNS)]
    for row in rows:
        cells = [column.cell(row) for column in COLUMNS]
        if row.problem:
            cells.append(f"not usable: {row.problem}")
        lines.append("\t".join(cell.replace("\t", " ") for cell in cells))
    return lines


def terminal_lines(rows: Sequence[ModelRow], width: int, *, color: bool) -> list[str]:
    """The table fitted to ``width`` cells, headings first."""
    table = {column: [column.cell(row) for row in rows] for column in COLUMNS}
    shown = [column for column in COLUMNS if any(table[column])]
    widths = {c: max(len(c.heading), *map(len, table[c])) for c in shown}
    while _room_for_last(shown, widths, width) < LAST_COLUMN_CELLS:
        droppable = [column for column in shown[:-1] if column.drop]
        if not droppable:
            break
        shown.remove(min(droppable, key=lambda column: column.drop))
    last_width = max(_room_for_last(shown, widths, width), LAST_COLUMN_CELLS)
    indent = sum(widths[column] + len(GAP) for column in shown[:-1])
    lines = [_joined(shown, widths, [column.heading for column in shown]).rstrip()]
    for index, row in enumerate(rows):
        cells = [table[column][index] for column in shown]
        wrapped = textwrap.wrap(cells[-1], last_width) or [""]
        lines.append(_joined(shown, widths, [*cells[:-1], wrapped[0]]).rstrip())
        lines += [" " * indent + more for more in wrapped[1:]]
        if row.problem:
            lines += [
                muted(line, color)
                for line in textwrap.wrap(
                    f"not usable: {row.problem}",
                    max(width - 4, LAST_COLUMN_CELLS),
                    initial_indent="    ",
                    subsequent_indent="      ",
                )
            ]
    return lines


def piped_route_lines(routes: Sequence[TaskRoute]) -> list[str]:
    """An empty line, the headings, then one tab-separated line a task."""
    rows = [(route.task, route.model, route.reason) for route in routes]
    return [
        "",
        *("\t".join(cell.replace("\t", " ") for cell in row) for row in [ROUTE_HEADINGS, *rows]),
    ]


def terminal_route_lines(routes: Sequence[TaskRoute], width: int, *, color: bool) -> list[str]:
    """``routed tasks``, then the headings and a line a task, its reason wrapped under itself."""
    rows = [ROUTE_HEADINGS, *((route.task, route.model, route.reason) for route in routes)]
    task_width = max(len(row[0]) for row in rows)
    model_width = max(len(row[1]) for row in rows)
    indent = " " * (task_width + model_width + 2 * len(GAP))
    room = max(width - len(indent), LAST_COLUMN_CELLS)
    lines = ["", muted("routed tasks", color)]
    for task, model, reason in rows:
        wrapped = textwrap.wrap(reason, room) or [""]
        lines.append(GAP.join([task.ljust(task_width), model.ljust(model_width), wrapped[0]]))
        lines += [indent + more for more in wrapped[1:]]
    return lines


def unreachable_line(runtime: Unreachable) -> str:
    """``LM Studio at http://127.0.0.1:1234 is unreachable: connection refused``."""
    where = f" at {runtime.base_url}" if runtime.base_url else ""
    return f"{runtime.runtime}{where} is unreachable: {runtime.reason}"


def muted(text: str, color: bool) -> str:
    return f"{MUTED}{text}{PLAIN}" if color else text


def _room_for_last(shown: list[Column], widths: dict[Column, int], width: int) -> int:
    return width - sum(widths[column] + len(GAP) for column in shown[:-1])


def _joined(columns: Sequence[Column], widths: dict[Column, int], cells: Sequence[str]) -> str:
    padded = [
        cell if index == len(columns) - 1 else cell.ljust(widths[column])
        for index, (column, cell) in enumerate(zip(columns, cells, strict=True))
    ]
    return GAP.join(padded)
