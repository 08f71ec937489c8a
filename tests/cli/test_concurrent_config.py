"""Eight shells each running fifty `wisp config set` at once: every change is recorded."""

from __future__ import annotations

import subprocess
from collections import defaultdict
from pathlib import Path

import msgspec

from tests.hang import bytes_under, wait_while_progressing

SHELLS, SETS = 8, 50


def test_concurrent_config_sets_are_all_recorded_in_order(
    run_wisp, wisp_script: Path, wisp_env: dict[str, str], wisp_home: Path, audit_lines
) -> None:
    assert run_wisp("config", "set", "audit.maxFileBytes", "65536").returncode == 0
    assert run_wisp("config", "set", "audit.keepFiles", "1000").returncode == 0
    # $0 is the wisp script, $1 the shell's number.
    loop = f'for i in $(seq {SETS}); do "$0" config set load.shell$1 $i >/dev/null || exit 1; done'
    shells = [
        subprocess.Popen(["bash", "-c", loop, str(wisp_script), str(n)], env=wisp_env)
        for n in range(SHELLS)
    ]
    # Progress: the audit log grows with every change.
    statuses = wait_while_progressing(shells, lambda: bytes_under(wisp_home / "logs"))
    assert statuses == [0] * SHELLS

    events = audit_lines()
    assert len({event["id"] for event in events}) == len(events)
    values: dict[str, list[int]] = defaultdict(list)
    for event in events[2:]:
        assert event["kind"] == "config.change"
        values[event["details"]["path"]].append(event["details"]["new"])
    # Every shell's fifty changes, each once, in the order it made them.
    assert values == {f"load.shell{n}": list(range(1, SETS + 1)) for n in range(SHELLS)}
    # And the config file ends with every shell's last value: no change was lost.
    config = msgspec.json.decode((wisp_home / "config.json").read_bytes())
    assert config["load"] == {f"shell{n}": SETS for n in range(SHELLS)}
    assert len(list((wisp_home / "logs").glob("audit.*.jsonl"))) >= 1  # it rotated
