"""The deny list's held-out report: each kind's row, shown at the end of a run that judged it."""

from __future__ import annotations

import pytest


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    from tests.policy.test_deny_held_out import ROWS

    rows = config.stash.get(ROWS, {})
    if rows:
        terminalreporter.section("deny list, held out by kind")
        for row in rows.values():
            terminalreporter.write_line(row)
