"""current_date: the time in the local zone or a named one, and how it is written."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from wisp.agent.types import ToolContext
from wisp.tools.current_date import CurrentDateTool

SUMMER = datetime(2026, 10, 4, 13, 5, 12, tzinfo=UTC)


@pytest.fixture
def utc_machine(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The C library's zone set to UTC, whatever the machine running the tests uses."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def etc_with_localtime(tmp_path: Path, zone: str) -> Path:
    etc = tmp_path / "etc"
    etc.mkdir()
    os.symlink(f"/usr/share/zoneinfo/{zone}", etc / "localtime")
    return etc


async def test_a_named_zone_gives_its_offset_and_id(context: ToolContext) -> None:
    tool = CurrentDateTool(clock=lambda: SUMMER)
    result = await tool.run({"timeZone": "Europe/London"}, context)
    assert result == "2026-10-04T14:05:12+01:00 (Europe/London)"


async def test_a_zero_offset_is_written_z(context: ToolContext) -> None:
    tool = CurrentDateTool(clock=lambda: SUMMER)
    assert await tool.run({"timeZone": "UTC"}, context) == "2026-10-04T13:05:12Z (UTC)"


async def test_a_negative_offset_keeps_its_sign(context: ToolContext) -> None:
    tool = CurrentDateTool(clock=lambda: SUMMER)
    result = await tool.run({"timeZone": "America/New_York"}, context)
    assert result == "2026-10-04T09:05:12-04:00 (America/New_York)"


async def test_an_unknown_zone_is_an_error(context: ToolContext) -> None:
    result = await CurrentDateTool(clock=lambda: SUMMER).run({"timeZone": "Mars/Base"}, context)
    assert result == (
        "error: unknown time zone 'Mars/Base'; use an IANA id such as Europe/London or UTC"
    )


async def test_bad_arguments_are_an_error_result(context: ToolContext) -> None:
    result = await CurrentDateTool(clock=lambda: SUMMER).run({"timeZone": 5}, context)
    assert result.startswith("error: bad arguments for current_date: Expected `str`")


async def test_the_local_zone_is_named_from_etc_localtime(
    context: ToolContext, tmp_path: Path, utc_machine: None
) -> None:
    tool = CurrentDateTool(clock=lambda: SUMMER, etc=etc_with_localtime(tmp_path, "Etc/UTC"))
    assert await tool.run({}, context) == "2026-10-04T13:05:12Z (Etc/UTC)"


async def test_a_local_zone_name_that_disagrees_with_the_clock_is_not_trusted(
    context: ToolContext, tmp_path: Path, utc_machine: None
) -> None:
    # TZ says UTC while /etc/localtime says Tokyo: the offset in force wins, named as TZ names it.
    tool = CurrentDateTool(clock=lambda: SUMMER, etc=etc_with_localtime(tmp_path, "Asia/Tokyo"))
    assert await tool.run({}, context) == "2026-10-04T13:05:12Z (UTC)"
