"""No module of wisp or wisp_tui imports itself round a circle (docs/design.md, "Layers").

Package ``__init__`` files count, and so do imports inside functions: deferring an import into a
function makes a circle load, and hides it. Imports under ``if TYPE_CHECKING:`` never run and do
not count; a back-reference wanted only for a type reads better as a ``Protocol``.
"""

from __future__ import annotations

from pathlib import Path

from tests.import_graph import Import, circles, graph, imports_in, module_name, read_imports

# Parsed once, while the tests are collected (see tests/test_layers.py on CPython 3.11's ast).
IMPORTS = read_imports()


def test_no_module_imports_itself_round_a_circle() -> None:
    found = circles(graph(IMPORTS))
    assert found == [], "import circles:\n" + "\n".join(" ⇄ ".join(group) for group in found)


def modules(sources: dict[str, str]) -> dict[str, list[Import]]:
    """Made-up modules, by the path of their file, with the imports in each."""
    found = {}
    for path, source in sources.items():
        module = module_name(Path(path), Path())
        found[module] = imports_in(source, module, is_package=path.endswith("__init__.py"))
    return found


def test_an_import_inside_a_function_joins_a_circle() -> None:
    found = modules(
        {
            "wisp/cli/models.py": "def run():\n    from wisp.cli.models_check import check\n",
            "wisp/cli/models_check.py": "from wisp.cli.models import Record\n",
        }
    )
    assert circles(graph(found)) == [("wisp.cli.models", "wisp.cli.models_check")]


def test_an_import_for_type_checking_does_not() -> None:
    found = modules(
        {
            "wisp/chat/loop.py": "from wisp.chat.slash import SlashCommands\n",
            "wisp/chat/slash.py": "if TYPE_CHECKING:\n    from wisp.chat.loop import ChatLoop\n",
        }
    )
    assert circles(graph(found)) == []


def test_a_package_init_joins_a_circle() -> None:
    """Importing ``wisp.agent.types`` runs ``wisp/agent/__init__.py`` first, and so whatever
    that imports."""
    found = modules(
        {
            "wisp/agent/__init__.py": "from .loop import Conversation\n",
            "wisp/agent/loop.py": "from wisp.store import Entry\n",
            "wisp/agent/types.py": "",
            "wisp/store/__init__.py": "from wisp.store.entries import Entry\n",
            "wisp/store/entries.py": "from importlib import import_module\n"
            "TYPES = import_module('wisp.agent.types')\n",
        }
    )
    assert circles(graph(found)) == [
        ("wisp.agent", "wisp.agent.loop", "wisp.store", "wisp.store.entries")
    ]


def test_a_package_importing_its_own_modules_is_no_circle() -> None:
    found = modules(
        {
            "wisp/store/__init__.py": "from wisp.store.store import ConversationStore\n",
            "wisp/store/store.py": "from wisp.store.entries import Entry\n",
            "wisp/store/entries.py": "",
        }
    )
    assert circles(graph(found)) == []
