"""Which modules of wisp and wisp_tui each module imports, read with ast (no module is run).

Counted: ``import a.b``, ``from a import b``, relative imports (``from . import x``,
``from .mod import y``), and string imports (``importlib.import_module("wisp.x")``,
``__import__("wisp.x")``; an f-string counts as its constant head, ``f"wisp.sandbox.{name}"`` as
``wisp.sandbox``), at module level and inside functions alike: an import deferred into a
function still joins two modules, and is how a circle hides. Imports under
``if TYPE_CHECKING:`` never run: they are marked ``typing_only``, so the layer map still sees
them (a type is knowledge of a part) while the circles do not.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("wisp", "wisp_tui")


@dataclass(frozen=True)
class Import:
    """One imported module, and the names taken from it (``from module import names``)."""

    module: str
    names: tuple[str, ...] = ()
    typing_only: bool = False
    """Under ``if TYPE_CHECKING:``: read by type checkers, never run."""

    def targets(self, modules: Iterable[str]) -> set[str]:
        """The modules this names: ``from wisp import protocol`` is ``wisp.protocol`` when
        that is a module of ``modules``, ``from wisp.store import Entry`` is ``wisp.store``."""
        known = set(modules)
        found = {f"{self.module}.{name}" for name in self.names} & known
        if not self.names or len(found) < len(self.names):
            found.add(self.module)
        return found


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def sources(root: Path = ROOT) -> list[Path]:
    return sorted(path for package in PACKAGES for path in root.joinpath(package).rglob("*.py"))


def is_ours(module: str) -> bool:
    return any(module == package or module.startswith(package + ".") for package in PACKAGES)


def imports_in(source: str, module: str, *, is_package: bool = False) -> list[Import]:
    """Every import of wisp or wisp_tui in ``source``, the text of ``module``."""
    tree = ast.parse(source)
    found = [*_imports(tree.body, _Where(module, is_package, typing_only=False))]
    return [item for item in found if is_ours(item.module)]


@dataclass(frozen=True)
class _Where:
    module: str
    is_package: bool
    typing_only: bool


def _imports(body: Iterable[ast.stmt], where: _Where) -> Iterator[Import]:
    for statement in body:
        if isinstance(statement, ast.If) and _is_type_checking(statement.test):
            typing = _Where(where.module, where.is_package, typing_only=True)
            yield from _imports(statement.body, typing)
            yield from _imports(statement.orelse, where)
            continue
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                yield Import(alias.name, typing_only=where.typing_only)
        elif isinstance(statement, ast.ImportFrom):
            base = _absolute(statement, where.module, where.is_package)
            names = tuple(alias.name for alias in statement.names)
            yield Import(base, names, typing_only=where.typing_only)
        for node in ast.iter_child_nodes(statement):
            yield from _nested(node, where)


def _nested(node: ast.AST, where: _Where) -> Iterator[Import]:
    """Imports in a statement's parts: bodies of functions, classes, loops, and string imports."""
    if isinstance(node, ast.stmt):
        yield from _imports([node], where)
        return
    if isinstance(node, ast.Call) and (target := _string_import(node)) is not None:
        yield Import(target, typing_only=where.typing_only)
    for child in ast.iter_child_nodes(node):
        yield from _nested(child, where)


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _absolute(statement: ast.ImportFrom, module: str, is_package: bool) -> str:
    if statement.level == 0:
        return statement.module or ""
    parts = module.split(".")
    # A package's own module is its __init__: ``from . import x`` there means the package itself.
    keep = len(parts) - statement.level + (1 if is_package else 0)
    base = ".".join(parts[:keep])
    return f"{base}.{statement.module}" if statement.module else base


def _string_import(call: ast.Call) -> str | None:
    """The module a call to ``importlib.import_module`` or ``__import__`` names, if it is ours."""
    function = call.func
    name = function.id if isinstance(function, ast.Name) else getattr(function, "attr", None)
    if name not in ("import_module", "__import__") or not call.args:
        return None
    argument = call.args[0]
    if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
        return argument.value
    if isinstance(argument, ast.JoinedStr) and argument.values:
        head = argument.values[0]
        if isinstance(head, ast.Constant) and isinstance(head.value, str):
            return head.value.rpartition(".")[0] or head.value
    return None


def read_imports(root: Path = ROOT) -> dict[str, list[Import]]:
    """Each module of wisp and wisp_tui, by dotted name, with the imports in it."""
    found: dict[str, list[Import]] = {}
    for path in sources(root):
        module = module_name(path, root)
        found[module] = imports_in(path.read_text(), module, is_package=path.stem == "__init__")
    return found


def edges(module: str, imported: Import, modules: Iterable[str]) -> set[str]:
    """The modules that run when ``module`` runs ``imported``: the module, each package above it
    that ``module`` is not itself inside (those run first), and, for ``from package import name``,
    the submodule ``name`` if there is one."""
    known = set(modules)
    targets = {imported.module} | {f"{imported.module}.{name}" for name in imported.names}
    parts = imported.module.split(".")
    targets |= {".".join(parts[:end]) for end in range(1, len(parts))}
    own_packages = {".".join(module.split(".")[:end]) for end in range(1, module.count(".") + 1)}
    return {target for target in targets & known if target != module} - own_packages


def graph(imports: Mapping[str, list[Import]]) -> dict[str, set[str]]:
    """Which modules each module runs when it runs; ``TYPE_CHECKING`` imports left out."""
    return {
        module: set().union(
            *(edges(module, item, imports) for item in items if not item.typing_only)
        )
        for module, items in imports.items()
    }


def circles(graph: Mapping[str, set[str]]) -> list[tuple[str, ...]]:
    """Each group of modules that import one another, round some path (Tarjan's components of
    more than one module), sorted, as sorted tuples."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[tuple[str, ...]] = []

    def visit(start: str) -> None:
        # Iterative, so a long chain of imports cannot reach Python's recursion limit.
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(tuple(sorted(group)))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(groups)
