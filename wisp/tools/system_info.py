"""``system_info``: this machine's ports, disks, folders, processes, memory, battery, system and
network, as short tables.

Everything is read from ``/proc``, ``/sys`` and ``/etc`` with the standard library; no external
program runs, so it works on a bare machine and needs no sandbox or gate. Tables hold at most 15
rows and 4 KiB, cut at a line end with a note. Slow topics are bounded in time; what they could
not finish says ``(timed out; …)``.
"""

from __future__ import annotations

import asyncio
import math
import os
import pwd
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, UnsetType

from wisp.agent.types import ToolContext
from wisp.tools import proc
from wisp.tools.arguments import nul_path_refusal, parse_arguments, resolve_path, schema_of

Topic = Literal[
    "ports", "freeSpace", "folderSizes", "processes", "memory", "process", "battery", "system",
    "network",
]  # fmt: skip
MAX_ROWS = 15
CAP = 4096
TIMED_OUT = "(timed out; partial)"
SIZES_PARTIAL = "(timed out; sizes are partial)"
_PSEUDO_FILESYSTEMS = frozenset((
    "autofs", "binfmt_misc", "bpf", "cgroup", "cgroup2", "configfs", "debugfs", "devpts",
    "devtmpfs", "efivarfs", "fusectl", "hugetlbfs", "mqueue", "nsfs", "proc", "pstore", "ramfs",
    "rpc_pipefs", "securityfs", "selinuxfs", "squashfs", "sysfs", "tracefs",
))  # fmt: skip
"""Filesystems that hold no one's files (and squashfs: read-only images, always full)."""


class SystemInfoArgs(msgspec.Struct, kw_only=True):
    topic: Topic
    process: Annotated[
        str, msgspec.Meta(description="For topic process: a name or id; else empty")
    ] = ""
    port: Annotated[int, msgspec.Meta(description="ports: only this TCP port")] | UnsetType = UNSET
    path: (
        Annotated[str, msgspec.Meta(description="folderSizes: the folder; default: home")]
        | UnsetType
    ) = UNSET


def _parameters() -> dict[str, Any]:
    schema = schema_of(SystemInfoArgs)
    # ``process`` is marked required (empty except for topic process), which some models need in
    # order to send it at all; a call without it is still accepted.
    schema["required"] = ["topic", "process"]
    return schema


class Machine(msgspec.Struct, frozen=True):
    """Where the machine is read from, and how long the slow topics may take."""

    proc: Path = Path("/proc")
    sysfs: Path = Path("/sys")
    etc: Path = Path("/etc")
    home: Path = msgspec.field(default_factory=Path.home)
    sample_seconds: float = 0.25
    """processes: CPU use is measured over this long."""
    search_seconds: float = 10.0
    """folderSizes and ports: stop after this long and say the result is partial."""
    max_entries: int = 500_000
    """folderSizes: stop after this many entries and say the sizes are partial."""


class SystemInfoTool:
    """Reports on this machine from /proc and /sys, read-only."""

    name = "system_info"
    description = (
        "Facts about this machine, better than commands for them: topic ports, freeSpace "
        "(disks), folderSizes, processes, memory (RAM), process, battery, system (OS), network."
    )
    parameters = _parameters()
    extra_parameters = ("port", "path")
    read_only = True

    def __init__(self, machine: Machine | None = None) -> None:
        self.machine = machine or Machine()

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> str:
        args = parse_arguments(self.name, arguments, SystemInfoArgs, context.notes)
        if isinstance(args, str):
            return args
        if args.port is not UNSET and not 1 <= args.port <= 65535:
            return f"error: port must be from 1 to 65535, got {args.port}"
        if args.topic == "process" and not args.process.strip():
            return "error: the process topic needs a process name or id in process"
        report = _TOPICS[args.topic]
        text = await asyncio.to_thread(report, self.machine, args, context.working_directory)
        return cap(text)


# -- formatting -------------------------------------------------------------------------------


def table(header: list[str], rows: list[list[str]], noun: str = "rows") -> str:
    """Left-aligned columns, at most 15 rows, and a note of how many more there were."""
    shown = [header, *rows[:MAX_ROWS]]
    widths = [max(len(row[column]) for row in shown) for column in range(len(header))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in shown
    ]
    if len(rows) > MAX_ROWS:
        lines.append(f"({len(rows) - MAX_ROWS} more {noun} not shown)")
    return "\n".join(lines)


def cap(text: str) -> str:
    """``text`` within 4 KiB, cut at a line end with a note saying how many lines were cut."""
    if len(text.encode()) <= CAP:
        return text
    lines = text.split("\n")
    kept: list[str] = []
    used = 0
    for line in lines:
        used += len(line.encode()) + 1
        if used > CAP - 64:
            break
        kept.append(line)
    return "\n".join([*kept, f"(cut at 4 KiB; {len(lines) - len(kept)} more lines)"])


def human(size: float) -> str:
    """``512 B``, ``1.5 KiB``, ``12 MiB``, ``9.8 GiB``: one decimal below 10."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            if unit == "B":
                return f"{int(size)} B"
            return f"{size:.1f} {unit}" if size < 10 else f"{size:.0f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


def duration(seconds: float) -> str:
    """``4.2s``, ``12m``, ``3h 05m``, ``2d 3h 05m``."""
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes = int(seconds) // 60
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    if days:
        return f"{days}d {hours}h {minutes:02d}m"
    return f"{hours}h {minutes:02d}m" if hours else f"{minutes}m"


def _user(uid: int, names: dict[int, str]) -> str:
    if uid not in names:
        try:
            names[uid] = pwd.getpwuid(uid).pw_name
        except KeyError:
            names[uid] = str(uid) if uid >= 0 else "?"
    return names[uid]


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- topics -----------------------------------------------------------------------------------

Report = Callable[[Machine, SystemInfoArgs, Path], str]


def _ports(machine: Machine, args: SystemInfoArgs, cwd: Path) -> str:
    sockets = proc.listening_sockets(machine.proc)
    if args.port is not UNSET:
        sockets = [entry for entry in sockets if entry.port == args.port]
        if not sockets:
            return f"nothing listens on TCP port {args.port}"
    if not sockets:
        return "no TCP port is listening"
    deadline = time.monotonic() + machine.search_seconds
    owners, finished = proc.socket_owners(machine.proc, {s.inode for s in sockets}, deadline)
    rows: list[list[str]] = []
    for entry in sorted(sockets, key=lambda s: (s.port, s.protocol, s.address)):
        pid = owners.get(entry.inode)
        stat_ = proc.read_process(machine.proc, pid) if pid else None
        name = stat_.name if stat_ else "-"
        rows.append([entry.protocol, entry.address, str(entry.port), str(pid or "-"), name])
    text = table(["PROTO", "ADDRESS", "PORT", "PID", "PROCESS"], rows)
    if any(row[3] == "-" for row in rows):
        text += "\n(-: a process whose files wisp may not read)"
    return text if finished else f"{text}\n{TIMED_OUT}"


def _free_space(machine: Machine, args: SystemInfoArgs, cwd: Path) -> str:
    rows: list[list[str]] = []
    devices: set[int] = set()
    mounts = sorted(proc.mounts(machine.proc), key=lambda mount: (len(mount.point), mount.point))
    for mount in mounts:
        if mount.fstype in _PSEUDO_FILESYSTEMS:
            continue
        try:
            device = os.stat(mount.point).st_dev
            info = os.statvfs(mount.point)
        except OSError:
            continue
        if info.f_blocks == 0 or device in devices:
            continue  # empty, or a filesystem already shown under a shorter mount point
        devices.add(device)
        used = (info.f_blocks - info.f_bfree) * info.f_frsize
        free = info.f_bavail * info.f_frsize
        percent = math.ceil(used * 100 / (used + free)) if used + free else 0
        size = info.f_blocks * info.f_frsize
        rows.append(
            [mount.point, human(size), human(used), human(free), f"{percent}%", mount.fstype]
        )
    if not rows:
        return "no filesystems found in /proc/self/mounts"
    rows.sort(key=lambda row: row[0])
    return table(["MOUNTED ON", "SIZE", "USED", "FREE", "USE%", "TYPE"], rows, "filesystems")


def _folder_sizes(machine: Machine, args: SystemInfoArgs, cwd: Path) -> str:
    if args.path is not UNSET and (refusal := nul_path_refusal("path", args.path)):
        return refusal
    folder = machine.home if args.path is UNSET else resolve_path(args.path, cwd)
    if not folder.is_dir():
        return f"error: not a folder: {folder}"
    sizer = proc.FolderSizer(
        os.stat(folder).st_dev, time.monotonic() + machine.search_seconds, machine.max_entries
    )
    try:
        entries = list(os.scandir(folder))
    except OSError as exc:
        return f"error: cannot read {folder}: {exc.strerror or exc}"
    sizes = [
        (sizer.size(entry), entry.name + ("/" if proc.is_dir(entry) else "")) for entry in entries
    ]
    sizes.sort(key=lambda pair: (-pair[0], pair[1]))
    total = sum(size for size, _ in sizes)
    lines = [f"{folder}: {human(total)} on disk in {sizer.count:,} entries"]
    if sizes:
        lines.append(table(["SIZE", "NAME"], [[human(s), name] for s, name in sizes], "entries"))
    if sizer.unreadable:
        lines.append(f"({sizer.unreadable} folders could not be read and count as empty)")
    if sizer.stopped:
        lines.append(SIZES_PARTIAL)
    return "\n".join(lines)


def _processes(machine: Machine, args: SystemInfoArgs, cwd: Path) -> str:
    before = proc.read_processes(machine.proc)
    started = time.monotonic()
    time.sleep(machine.sample_seconds)
    after = proc.read_processes(machine.proc)
    elapsed = max(time.monotonic() - started, 1e-3)
    ticks = proc.clock_ticks()
    names: dict[int, str] = {}
    measured = []
    for pid, stat_ in after.items():
        used = stat_.ticks - before[pid].ticks if pid in before else 0
        measured.append((used * 100 / (ticks * elapsed), stat_))
    measured.sort(key=lambda pair: (-pair[0], -pair[1].rss))
    rows = [
        [
            str(s.pid),
            _user(s.uid, names),
            f"{cpu:.1f}",
            human(s.rss),
            _cut(proc.command_line(machine.proc, s.pid, s.name), 60),
        ]
        for cpu, s in measured[:MAX_ROWS]
    ]
    heading = f"{len(after)} processes; the busiest by CPU over {elapsed:.2f} s, then by memory:"
    table_text = table(["PID", "USER", "CPU%", "MEMORY", "COMMAND"], rows)
    more = len(measured) - len(rows)
    return f"{heading}\n{table_text}" + (f"\n({more} more processes not shown)" if more else "")


def _process(machine: Machine, args: SystemInfoArgs, cwd: Path) -> str:
    wanted = args.process.strip()
    ticks = proc.clock_ticks()
    uptime = proc.uptime_seconds(machine.proc)
    names: dict[int, str] = {}
    rows: list[list[str]] = []
    for pid, stat_ in proc.read_processes(machine.proc).items():
        command = proc.command_line(machine.proc, pid, stat_.name)
        if not (
            str(pid) == wanted
            or wanted.lower() in command.lower()
            or wanted.lower() in stat_.name.lower()
        ):
            continue
        running = duration(uptime - stat_.start_ticks / ticks) if uptime is not None else "?"
        rows.append(
            [
                str(pid),
                str(stat_.ppid),
                _user(stat_.uid, names),
                stat_.state,
                human(stat_.rss),
                duration(stat_.ticks / ticks),
                running,
                _cut(command, 60),
            ]
        )
    if not rows:
        return f"no process matches {wanted!r}"
    header = ["PID", "PPID", "USER", "STATE", "MEMORY", "CPU TIME", "RUNNING", "COMMAND"]
    return table(header, rows, "processes")


def _memory(machine: Machine, args: SystemInfoArgs, cwd: Path) -> str:
    info = proc.meminfo(machine.proc)
    total = info.get("MemTotal")
    if total is None:
        return "error: /proc/meminfo cannot be read"
    available = info.get("MemAvailable", info.get("MemFree", 0))
    cache = info.get("Buffers", 0) + info.get("Cached", 0) + info.get("SReclaimable", 0)
    swap_total, swap_free = info.get("SwapTotal", 0), info.get("SwapFree", 0)
    swap = (
        f"swap: {human(swap_total)} in all, {human(swap_total - swap_free)} used"
        if swap_total
        else "swap: none"
    )
    return "\n".join(
        [
            f"memory: {human(total)} in all, {human(total - available)} used, "
            f"{human(available)} available",
            f"free: {human(info.get('MemFree', 0))}; buffers and cache: {human(cache)}",
            swap,
        ]
    )


def _battery(machine: Machine, args: SystemInfoArgs, cwd: Path) -> str:
    lines: list[str] = []
    for supply in proc.power_supplies(machine.sysfs):
        values = supply.values
        if supply.type == "Battery":
            charge = f"{values['capacity']}%" if "capacity" in values else "charge unknown"
            status = values.get("status", "status unknown").lower()
            lines.append(f"{supply.name}: {charge}, {status}")
        elif supply.type == "Mains":
            plugged = "plugged in" if values.get("online") == "1" else "not plugged in"
            lines.append(f"{supply.name} (mains): {plugged}")
    if not any("mains" not in line for line in lines):
        lines.insert(0, "no battery: /sys/class/power_supply lists none on this machine")
    return "\n".join(lines)


def _system(machine: Machine, args: SystemInfoArgs, cwd: Path) -> str:
    release = proc.os_release(machine.etc)
    uname = os.uname()
    uptime = proc.uptime_seconds(machine.proc)
    load = proc.read_text(machine.proc / "loadavg").split()[:3]
    model = proc.cpu_model(machine.proc)
    memory = proc.meminfo(machine.proc).get("MemTotal")
    lines = [
        f"os: {release.get('PRETTY_NAME') or release.get('NAME') or 'unknown'}",
        f"kernel: {uname.sysname} {uname.release} ({uname.machine})",
        f"hostname: {uname.nodename}",
        f"cpus: {os.cpu_count() or '?'}" + (f" ({model})" if model else ""),
    ]
    if memory is not None:
        lines.append(f"memory: {human(memory)}")
    if uptime is not None:
        lines.append(f"uptime: {duration(uptime)}")
    if load:
        lines.append(f"load: {' '.join(load)} (1, 5, 15 minutes)")
    return "\n".join(lines)


def _network(machine: Machine, args: SystemInfoArgs, cwd: Path) -> str:
    found = proc.interfaces(machine.sysfs, machine.proc)
    if not found:
        return "no network interfaces found"
    rows = [[i.name, i.state, ", ".join(i.addresses) or "-", i.mac or "-"] for i in found]
    return table(["INTERFACE", "STATE", "ADDRESSES", "MAC"], rows, "interfaces")


_TOPICS: dict[str, Report] = {
    "ports": _ports,
    "freeSpace": _free_space,
    "folderSizes": _folder_sizes,
    "processes": _processes,
    "memory": _memory,
    "process": _process,
    "battery": _battery,
    "system": _system,
    "network": _network,
}
