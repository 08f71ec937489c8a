"""``current_date``: the current local date and time, with its zone."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Annotated, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import msgspec
from msgspec import UNSET, UnsetType

from wisp.agent.types import ToolContext
from wisp.tools.arguments import parse_arguments, schema_of


class CurrentDateArgs(msgspec.Struct, kw_only=True, rename="camel"):
    time_zone: (
        Annotated[
            str,
            msgspec.Meta(description="An IANA zone such as Asia/Tokyo; default: the local zone"),
        ]
        | UnsetType
    ) = UNSET


def _now() -> datetime:
    return datetime.now(UTC)


class CurrentDateTool:
    """Returns the current date and time as ``2026-10-04T14:05:12+01:00 (Europe/London)``."""

    name = "current_date"
    description = "Today's date and the time now."
    parameters = schema_of(CurrentDateArgs)
    extra_parameters = ("timeZone",)
    read_only = True

    def __init__(self, clock: Callable[[], datetime] = _now, etc: Path = Path("/etc")) -> None:
        self._clock = clock
        self._etc = etc

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> str:
        args = parse_arguments(self.name, arguments, CurrentDateArgs, context.notes)
        if isinstance(args, str):
            return args
        now = self._clock()
        if args.time_zone is UNSET or not args.time_zone.strip():
            zone, zone_name = local_zone(now, self._etc)
        else:
            zone_name = args.time_zone.strip()
            try:
                zone = ZoneInfo(zone_name)
            except (ZoneInfoNotFoundError, ValueError):
                return (
                    f"error: unknown time zone {zone_name!r}; "
                    "use an IANA id such as Europe/London or UTC"
                )
        return f"{format_time(now.astimezone(zone))} ({zone_name})"


def format_time(moment: datetime) -> str:
    """ISO 8601 to the second, the offset as ``+01:00``, and ``Z`` when it is zero."""
    offset = moment.utcoffset()
    if not offset:
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    text = moment.strftime("%Y-%m-%dT%H:%M:%S%z")
    return f"{text[:-2]}:{text[-2:]}"


def local_zone(now: datetime, etc: Path) -> tuple[tzinfo, str]:
    """The machine's zone and its IANA id, or the C library's zone and its abbreviation.

    The id comes from ``/etc/localtime`` (a link into zoneinfo) or ``/etc/timezone``; it is
    trusted only when its offset now matches the C library's, which ``TZ`` may have changed.
    """
    system = now.astimezone()
    for name in _configured_zone_names(etc):
        try:
            zone = ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            continue
        if now.astimezone(zone).utcoffset() == system.utcoffset():
            return zone, name
    fallback = system.tzinfo or UTC
    return fallback, system.tzname() or "UTC"


def _configured_zone_names(etc: Path) -> list[str]:
    names: list[str] = []
    try:
        target = str((etc / "localtime").readlink())
    except OSError:
        target = ""
    if "zoneinfo/" in target:
        names.append(target.split("zoneinfo/", 1)[1])
    try:
        text = (etc / "timezone").read_text().strip()
    except OSError:
        text = ""
    if text:
        names.append(text)
    return names
