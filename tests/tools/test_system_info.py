"""system_info: each topic read from /proc, /sys and /etc, its limits and errors.

Most tests give the tool a machine of their own: real files under tmp_path laid out as Linux
lays out /proc and /sys. One runs every topic on the real machine with external programs
made impossible, since the tool must work on a bare machine.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from wisp.agent.types import ToolContext
from wisp.tools.system_info import Machine, SystemInfoTool, table

TCP_HEADER = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"  # noqa: E501


def tcp_line(local: str, state: str, inode: int) -> str:
    return f"   0: {local} 00000000:0000 {state} 00000000:00000000 00:00000000 00000000  1000  0 {inode} 1 0 100 0 0 10 0\n"  # noqa: E501


def add_process(
    proc: Path,
    pid: int,
    name: str,
    *,
    ticks: int = 0,
    rss_pages: int = 10,
    cmdline: str = "",
    sockets: tuple[int, ...] = (),
) -> None:
    folder = proc / str(pid)
    (folder / "fd").mkdir(parents=True)
    fields = ["S", "1"] + ["0"] * 9 + [str(ticks), "0"] + ["0"] * 6 + ["100", "0"]
    fields += [str(rss_pages)]
    (folder / "stat").write_text(f"{pid} ({name}) {' '.join(fields)}\n")
    (folder / "status").write_text(f"Name:\t{name}\nUid:\t0\t0\t0\t0\n")
    (folder / "cmdline").write_bytes(cmdline.replace(" ", "\0").encode())
    for number, inode in enumerate(sockets, start=3):
        os.symlink(f"socket:[{inode}]", folder / "fd" / str(number))


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    """An empty machine under tmp_path; each test adds what its topic reads."""
    root = tmp_path / "machine"
    for folder in ("proc/net", "proc/self", "sys/class/power_supply", "sys/class/net", "etc"):
        (root / folder).mkdir(parents=True)
    (root / "proc/uptime").write_text("3725.5 100.0\n")
    home = tmp_path / "user"
    home.mkdir()
    return Machine(
        proc=root / "proc", sysfs=root / "sys", etc=root / "etc", home=home, sample_seconds=0
    )


async def info(machine: Machine, context: ToolContext, **arguments: Any) -> str:
    arguments.setdefault("process", "")
    return await SystemInfoTool(machine).run(dict(arguments), context)


# -- ports -------------------------------------------------------------------------------------


def listen_on_8080(machine: Machine) -> None:
    (machine.proc / "net/tcp").write_text(
        TCP_HEADER
        + tcp_line("0100007F:1F90", "0A", 4242)  # 127.0.0.1:8080, listening
        + tcp_line("0100007F:A000", "01", 4343)  # an established connection
    )
    (machine.proc / "net/tcp6").write_text(
        TCP_HEADER + tcp_line("00000000000000000000000000000000:0016", "0A", 5151)  # [::]:22
    )
    add_process(machine.proc, 700, "python3", sockets=(4242,))


async def test_ports_lists_listening_sockets_and_their_processes(
    machine: Machine, context: ToolContext
) -> None:
    listen_on_8080(machine)
    result = await info(machine, context, topic="ports")
    assert result.splitlines() == [
        "PROTO  ADDRESS    PORT  PID  PROCESS",
        "tcp6   ::         22    -    -",
        "tcp    127.0.0.1  8080  700  python3",
        "(-: a process whose files wisp may not read)",
    ]


async def test_ports_can_ask_about_one_port(machine: Machine, context: ToolContext) -> None:
    listen_on_8080(machine)
    result = await info(machine, context, topic="ports", port=8080)
    assert result == "PROTO  ADDRESS    PORT  PID  PROCESS\ntcp    127.0.0.1  8080  700  python3"


async def test_a_port_nothing_listens_on_says_so(machine: Machine, context: ToolContext) -> None:
    listen_on_8080(machine)
    assert await info(machine, context, topic="ports", port=9) == "nothing listens on TCP port 9"


@pytest.mark.parametrize("port", [0, 65536])
async def test_a_port_out_of_range_is_an_error(
    machine: Machine, context: ToolContext, port: int
) -> None:
    result = await info(machine, context, topic="ports", port=port)
    assert result == f"error: port must be from 1 to 65535, got {port}"


# -- processes ---------------------------------------------------------------------------------


async def test_the_process_topic_needs_a_name(machine: Machine, context: ToolContext) -> None:
    result = await info(machine, context, topic="process")
    assert result == "error: the process topic needs a process name or id in process"


async def test_process_finds_processes_by_name(machine: Machine, context: ToolContext) -> None:
    add_process(machine.proc, 700, "python3", cmdline="python3 -m http.server")
    add_process(machine.proc, 701, "bash", cmdline="bash")
    lines = (await info(machine, context, topic="process", process="HTTP")).splitlines()
    assert lines[0].split() == [
        "PID",
        "PPID",
        "USER",
        "STATE",
        "MEMORY",
        "CPU",
        "TIME",
        "RUNNING",
        "COMMAND",
    ]
    assert len(lines) == 2 and lines[1].split()[0] == "700"
    assert lines[1].endswith("python3 -m http.server")


async def test_process_with_no_match_says_so(machine: Machine, context: ToolContext) -> None:
    add_process(machine.proc, 700, "bash")
    assert await info(machine, context, topic="process", process="nginx") == (
        "no process matches 'nginx'"
    )


async def test_processes_shows_at_most_fifteen_rows(machine: Machine, context: ToolContext) -> None:
    for pid in range(100, 120):
        add_process(machine.proc, pid, f"worker{pid}", rss_pages=pid)
    lines = (await info(machine, context, topic="processes")).splitlines()
    # The sample's length is measured, so a busy machine may take longer over reading /proc.
    assert re.fullmatch(
        r"20 processes; the busiest by CPU over \d+\.\d\d s, then by memory:", lines[0]
    )
    assert len(lines) == 1 + 1 + 15 + 1
    assert lines[2].split()[0] == "119"  # the most memory, with no CPU measured
    assert lines[-1] == "(5 more processes not shown)"


# -- memory, battery, system -------------------------------------------------------------------


async def test_memory_reads_meminfo(machine: Machine, context: ToolContext) -> None:
    (machine.proc / "meminfo").write_text(
        "MemTotal:       16777216 kB\nMemFree:         2097152 kB\nMemAvailable:    8388608 kB\n"
        "Buffers:          1048576 kB\nCached:          3145728 kB\nSwapTotal:             0 kB\n"
        "SwapFree:              0 kB\n"
    )
    assert await info(machine, context, topic="memory") == (
        "memory: 16 GiB in all, 8.0 GiB used, 8.0 GiB available\n"
        "free: 2.0 GiB; buffers and cache: 4.0 GiB\n"
        "swap: none"
    )


def add_supply(machine: Machine, name: str, **values: str) -> None:
    folder = machine.sysfs / "class/power_supply" / name
    folder.mkdir()
    for key, value in values.items():
        (folder / key).write_text(value + "\n")


async def test_battery_reports_charge_and_mains(machine: Machine, context: ToolContext) -> None:
    add_supply(machine, "AC", type="Mains", online="1")
    add_supply(machine, "BAT0", type="Battery", capacity="87", status="Discharging")
    assert await info(machine, context, topic="battery") == (
        "AC (mains): plugged in\nBAT0: 87%, discharging"
    )


async def test_no_battery_says_so(machine: Machine, context: ToolContext) -> None:
    assert await info(machine, context, topic="battery") == (
        "no battery: /sys/class/power_supply lists none on this machine"
    )


async def test_system_reads_os_release_and_uptime(machine: Machine, context: ToolContext) -> None:
    (machine.etc / "os-release").write_text('NAME="Debian"\nPRETTY_NAME="Debian GNU/Linux 12"\n')
    result = await info(machine, context, topic="system")
    assert result.splitlines()[0] == "os: Debian GNU/Linux 12"
    assert "uptime: 1h 02m" in result.splitlines()


# -- disks and folders -------------------------------------------------------------------------


async def test_free_space_shows_each_filesystem_once(
    machine: Machine, context: ToolContext, tmp_path: Path
) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    (machine.proc / "self/mounts").write_text(
        f"/dev/sda1 {first} ext4 rw 0 0\n/dev/sda1 {second} ext4 rw 0 0\nproc /proc proc rw 0 0\n"
    )
    lines = (await info(machine, context, topic="freeSpace")).splitlines()
    assert lines[0].split() == ["MOUNTED", "ON", "SIZE", "USED", "FREE", "USE%", "TYPE"]
    assert len(lines) == 2 and lines[1].startswith(str(first))


async def test_folder_sizes_lists_the_biggest_entries_first(
    machine: Machine, context: ToolContext, workdir: Path
) -> None:
    (workdir / "big").mkdir()
    (workdir / "big/data.bin").write_bytes(os.urandom(64 * 1024))
    (workdir / "small.txt").write_text("x")
    lines = (await info(machine, context, topic="folderSizes", path=".")).splitlines()
    assert lines[0].startswith(f"{workdir}: ")
    assert lines[1].split() == ["SIZE", "NAME"]
    assert lines[2].endswith("big/") and lines[3].endswith("small.txt")


async def test_folder_sizes_defaults_to_home(machine: Machine, context: ToolContext) -> None:
    result = await info(machine, context, topic="folderSizes")
    assert result == f"{machine.home}: 0 B on disk in 0 entries"


async def test_folder_sizes_of_a_file_is_an_error(
    machine: Machine, context: ToolContext, workdir: Path
) -> None:
    (workdir / "a.txt").write_text("x")
    result = await info(machine, context, topic="folderSizes", path="a.txt")
    assert result == f"error: not a folder: {workdir / 'a.txt'}"


async def test_folder_sizes_that_run_out_of_time_say_they_are_partial(
    machine: Machine, context: ToolContext, workdir: Path
) -> None:
    (workdir / "sub").mkdir()
    (workdir / "sub/a").write_text("x")
    hurried = Machine(proc=machine.proc, home=workdir, search_seconds=-1)
    result = await info(hurried, context, topic="folderSizes")
    assert result.splitlines()[-1] == "(timed out; sizes are partial)"


# -- shape -------------------------------------------------------------------------------------


def test_a_table_holds_fifteen_rows_and_counts_the_rest() -> None:
    text = table(["N"], [[str(n)] for n in range(20)])
    assert text.splitlines()[-2:] == ["14", "(5 more rows not shown)"]


async def test_an_unknown_topic_is_an_error(machine: Machine, context: ToolContext) -> None:
    result = await info(machine, context, topic="weather")
    assert result.startswith("error: bad arguments for system_info: Invalid enum value 'weather'")


async def test_every_result_fits_4_kib(machine: Machine, context: ToolContext) -> None:
    for pid in range(100, 120):
        add_process(machine.proc, pid, "w", cmdline="x" * 500)
    result = await info(machine, context, topic="process", process="w")
    assert len(result.encode()) <= 4096


TOPICS = ["ports", "freeSpace", "folderSizes", "processes", "memory", "process", "battery",
          "system", "network"]  # fmt: skip


@pytest.mark.parametrize("topic", TOPICS)
async def test_every_topic_works_without_running_a_program(
    context: ToolContext, workdir: Path, monkeypatch: pytest.MonkeyPatch, topic: str
) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("system_info ran an external program")

    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)
    for name in ("execv", "execve", "execvp", "execvpe", "posix_spawn", "posix_spawnp", "system"):
        monkeypatch.setattr(os, name, refuse)
    machine = Machine(home=workdir, sample_seconds=0.01)
    result = await SystemInfoTool(machine).run({"topic": topic, "process": "python"}, context)
    assert not result.startswith("error:"), result
