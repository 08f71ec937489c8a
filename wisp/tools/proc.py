"""Reading this machine from Linux's ``/proc`` and ``/sys``, for ``system_info``.

Standard library only, and no external program: ``system_info`` must work on a bare machine.
Each reader takes the root it reads (``/proc``, ``/sys``, ``/etc``) so tests can give it a
tree of their own. What another user's process hides (its fds, its cmdline) is skipped, never
an error.
"""

from __future__ import annotations

import contextlib
import fcntl
import ipaddress
import os
import socket
import stat
import struct
import time
from pathlib import Path

import msgspec

LISTEN = "0A"
"""The TCP state ``LISTEN`` in /proc/net/tcp."""
_SIOCGIFADDR = 0x8915
_SIOCGIFNETMASK = 0x891B


def read_text(path: Path) -> str:
    """The file's text, or "" when it cannot be read (gone, not ours, not there)."""
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


# -- processes --------------------------------------------------------------------------------


class ProcessStat(msgspec.Struct, frozen=True):
    pid: int
    name: str
    """The kernel's short name (``comm``)."""
    state: str
    ppid: int
    ticks: int
    """CPU time used, user and system, in clock ticks."""
    start_ticks: int
    """When it started, in clock ticks after boot."""
    rss: int
    """Resident memory in bytes."""
    uid: int


def process_ids(proc: Path) -> list[int]:
    try:
        return sorted(int(entry.name) for entry in os.scandir(proc) if entry.name.isdigit())
    except OSError:
        return []


def read_process(proc: Path, pid: int) -> ProcessStat | None:
    """One process's ``stat``, or None when it has gone."""
    text = read_text(proc / str(pid) / "stat")
    # The name is in parentheses and may itself hold spaces and parentheses: split at the last.
    open_at, close_at = text.find("("), text.rfind(")")
    if open_at < 0 or close_at < 0:
        return None
    fields = text[close_at + 2 :].split()
    try:
        stat = ProcessStat(
            pid=pid,
            name=text[open_at + 1 : close_at],
            state=fields[0],
            ppid=int(fields[1]),
            ticks=int(fields[11]) + int(fields[12]),
            start_ticks=int(fields[19]),
            rss=int(fields[21]) * os.sysconf("SC_PAGE_SIZE"),
            uid=_uid(proc, pid),
        )
    except (IndexError, ValueError):
        return None
    return stat


def read_processes(proc: Path) -> dict[int, ProcessStat]:
    stats = (read_process(proc, pid) for pid in process_ids(proc))
    return {stat.pid: stat for stat in stats if stat is not None}


def _uid(proc: Path, pid: int) -> int:
    for line in read_text(proc / str(pid) / "status").splitlines():
        if line.startswith("Uid:"):
            return int(line.split()[1])
    return -1


def command_line(proc: Path, pid: int, name: str) -> str:
    """The process's command line, or ``[name]`` for a kernel thread or a hidden one."""
    try:
        raw = (proc / str(pid) / "cmdline").read_bytes()
    except OSError:
        raw = b""
    text = raw.rstrip(b"\0").replace(b"\0", b" ").decode(errors="replace")
    return text or f"[{name}]"


def clock_ticks() -> int:
    return os.sysconf("SC_CLK_TCK")


def boot_time(proc: Path) -> float | None:
    for line in read_text(proc / "stat").splitlines():
        if line.startswith("btime "):
            return float(line.split()[1])
    return None


def uptime_seconds(proc: Path) -> float | None:
    text = read_text(proc / "uptime").split()
    return float(text[0]) if text else None


# -- sockets ----------------------------------------------------------------------------------


class Socket(msgspec.Struct, frozen=True):
    protocol: str
    address: str
    port: int
    inode: int


def listening_sockets(proc: Path) -> list[Socket]:
    """Every listening TCP socket, IPv4 then IPv6, from ``/proc/net/tcp{,6}``."""
    sockets: list[Socket] = []
    for protocol, name in (("tcp", "tcp"), ("tcp6", "tcp6")):
        for line in read_text(proc / "net" / name).splitlines()[1:]:
            fields = line.split()
            if len(fields) < 10 or fields[3] != LISTEN:
                continue
            address, port = fields[1].split(":")
            sockets.append(Socket(protocol, _address(address), int(port, 16), int(fields[9])))
    return sockets


def _address(hexed: str) -> str:
    """An address as /proc/net/tcp writes it: 32-bit words in the host's (little) endianness."""
    raw = bytes.fromhex(hexed)
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    return str(ipaddress.ip_address(words))


def socket_owners(proc: Path, inodes: set[int], deadline: float) -> tuple[dict[int, int], bool]:
    """Which process holds each socket inode (only processes whose fds we may read), and
    whether the search finished before ``deadline`` (a ``time.monotonic`` value)."""
    owners: dict[int, int] = {}
    for pid in process_ids(proc):
        if time.monotonic() > deadline:
            return owners, False
        with contextlib.suppress(OSError):
            for entry in os.scandir(proc / str(pid) / "fd"):
                with contextlib.suppress(OSError):
                    target = os.readlink(entry.path)
                    if target.startswith("socket:["):
                        inode = int(target[8:-1])
                        if inode in inodes:
                            owners.setdefault(inode, pid)
        if len(owners) == len(inodes):
            break
    return owners, True


# -- folders -----------------------------------------------------------------------------------


def is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


class FolderSizer(msgspec.Struct):
    """Disk use of entries, as ``du -x`` counts it: blocks, hard links once, one filesystem."""

    device: int
    deadline: float
    max_entries: int
    count: int = 0
    unreadable: int = 0
    stopped: bool = False
    seen: set[tuple[int, int]] = msgspec.field(default_factory=set)

    def size(self, top: os.DirEntry[str]) -> int:
        total = 0
        pending = [top]
        while pending and not self.stopped:
            entry = pending.pop()
            self.count += 1
            if self.count > self.max_entries or time.monotonic() > self.deadline:
                self.stopped = True
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if info.st_nlink > 1 and not stat.S_ISDIR(info.st_mode):
                if (info.st_dev, info.st_ino) in self.seen:
                    continue
                self.seen.add((info.st_dev, info.st_ino))
            total += info.st_blocks * 512
            if stat.S_ISDIR(info.st_mode) and info.st_dev == self.device:
                try:
                    pending.extend(os.scandir(entry.path))
                except OSError:
                    self.unreadable += 1
        return total


# -- memory, mounts, machine ------------------------------------------------------------------


def meminfo(proc: Path) -> dict[str, int]:
    """``/proc/meminfo`` in bytes, by name."""
    values: dict[str, int] = {}
    for line in read_text(proc / "meminfo").splitlines():
        name, _, rest = line.partition(":")
        parts = rest.split()
        if parts and parts[0].isdigit():
            values[name] = int(parts[0]) * (1024 if parts[1:] == ["kB"] else 1)
    return values


class Mount(msgspec.Struct, frozen=True):
    device: str
    point: str
    fstype: str


def mounts(proc: Path) -> list[Mount]:
    found: list[Mount] = []
    for line in read_text(proc / "self" / "mounts").splitlines():
        fields = line.split()
        if len(fields) >= 3:
            found.append(Mount(_unescape(fields[0]), _unescape(fields[1]), fields[2]))
    return found


def _unescape(field: str) -> str:
    """Mount fields escape space, tab, newline and backslash as octal: ``\\040``."""
    if "\\" not in field:
        return field
    return field.encode().decode("unicode_escape").encode("latin-1").decode(errors="replace")


def os_release(etc: Path) -> dict[str, str]:
    values: dict[str, str] = {}
    for line in read_text(etc / "os-release").splitlines():
        name, sep, value = line.partition("=")
        if sep:
            values[name.strip()] = value.strip().strip('"').strip("'")
    return values


def cpu_model(proc: Path) -> str | None:
    for line in read_text(proc / "cpuinfo").splitlines():
        name, _, value = line.partition(":")
        if name.strip() in ("model name", "Hardware", "Processor") and value.strip():
            return value.strip()
    return None


class PowerSupply(msgspec.Struct, frozen=True):
    name: str
    type: str
    values: dict[str, str]
    """Its attribute files, by name (``capacity``, ``status``, ``online`` …)."""


def power_supplies(sysfs: Path) -> list[PowerSupply]:
    folder = sysfs / "class" / "power_supply"
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:
        return []
    supplies: list[PowerSupply] = []
    for entry in entries:
        base = Path(entry.path)
        values = {
            name: read_text(base / name).strip()
            for name in (
                "type",
                "status",
                "capacity",
                "online",
                "energy_now",
                "energy_full",
                "charge_now",
                "charge_full",
                "power_now",
                "current_now",
                "model_name",
            )
            if (base / name).exists()
        }
        supplies.append(PowerSupply(entry.name, values.pop("type", "?"), values))
    return supplies


class Interface(msgspec.Struct, frozen=True):
    name: str
    state: str
    mac: str
    addresses: list[str]


def interfaces(sysfs: Path, proc: Path) -> list[Interface]:
    """Each network interface: its state, its MAC, its IPv4 (by ioctl) and IPv6 addresses."""
    folder = sysfs / "class" / "net"
    try:
        names = sorted(entry.name for entry in os.scandir(folder))
    except OSError:
        names = sorted(name for _, name in socket.if_nameindex())
    ipv6 = _ipv6_addresses(proc)
    found: list[Interface] = []
    for name in names:
        state = read_text(folder / name / "operstate").strip() or "?"
        mac = read_text(folder / name / "address").strip()
        ipv4 = _ipv4_address(name)
        addresses = ([ipv4] if ipv4 else []) + ipv6.get(name, [])
        found.append(Interface(name, state, mac, addresses))
    return found


def _ipv4_address(name: str) -> str | None:
    """The interface's IPv4 address and prefix, asked of the kernel; no packet is sent."""
    request = struct.pack("256s", name.encode()[:15])
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            address = fcntl.ioctl(probe.fileno(), _SIOCGIFADDR, request)[20:24]
            mask = fcntl.ioctl(probe.fileno(), _SIOCGIFNETMASK, request)[20:24]
    except OSError:
        return None
    prefix = bin(int.from_bytes(mask, "big")).count("1")
    return f"{socket.inet_ntoa(address)}/{prefix}"


def _ipv6_addresses(proc: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in read_text(proc / "net" / "if_inet6").splitlines():
        fields = line.split()
        if len(fields) >= 6:
            address = ipaddress.IPv6Address(bytes.fromhex(fields[0]))
            found.setdefault(fields[5], []).append(f"{address}/{int(fields[2], 16)}")
    return found
