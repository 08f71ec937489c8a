"""The `wisp-tui` console script's own arguments (docs/tui.md, "Process and start-up")."""

from __future__ import annotations

from importlib.metadata import version

import pytest

from wisp_tui.__main__ import main


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_as_the_sole_argument_prints_it(flag, capsys):
    assert main([flag]) == 0
    assert capsys.readouterr().out == f"wisp-tui {version('wisp')}\n"


def test_help_as_the_sole_argument_prints_usage(capsys):
    assert main(["--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: wisp-tui [wisp chat arguments]")
