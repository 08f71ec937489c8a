"""A session's guidance: used when accepted, waiting when new or changed, refused kept, and
the layer and the record (docs/turn.md, "Guidance files"), against a temporary WISP_HOME."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from wisp.guidance import GuidanceFile, KeptAnswers, SessionGuidance


def session(folder: Path, home: Path) -> SessionGuidance:
    return SessionGuidance.read(folder, home)


async def answering(answer: bool | None, asked: list[str]):
    async def ask(file: GuidanceFile, reason: str) -> bool | None:
        asked.append(reason)
        return answer

    return ask


def test_a_new_file_waits_and_without_asking_is_left_out_saying_why(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("Be brief.\n")
    guidance = session(tmp_path, tmp_path / "home")
    assert guidance.layer() is None and not guidance.settled
    assert guidance.unasked() == [
        f"guidance left out: {tmp_path / 'AGENTS.md'}: not accepted yet "
        "(wisp chat in this folder shows it and asks)"
    ]
    assert guidance.settled and not (tmp_path / "home" / "guidance.json").exists()


def test_a_yes_is_kept_and_the_same_bytes_are_used_without_asking(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (tmp_path / "AGENTS.md").write_text("Be brief.\n")
    asked: list[str] = []
    first = session(tmp_path, home)
    assert asyncio.run(_settle(first, True, asked)) is True
    assert asked == ["not accepted yet"]
    assert first.layer() == f"Guidance from {tmp_path / 'AGENTS.md'}:\nBe brief."
    again = session(tmp_path, home)
    assert again.settled and again.layer() == first.layer()
    stored = json.loads((home / "guidance.json").read_text())
    assert stored["answers"] == [
        {"path": str(tmp_path / "AGENTS.md"), "sha256": first.used[0].sha256, "accepted": True}
    ]


def test_a_changed_file_is_asked_again_and_a_no_is_kept(tmp_path: Path) -> None:
    home = tmp_path / "home"
    guidance_file = tmp_path / "AGENTS.md"
    guidance_file.write_text("Be brief.\n")
    asyncio.run(_settle(session(tmp_path, home), True, []))
    guidance_file.write_text("Be verbose.\n")
    asked: list[str] = []
    changed = session(tmp_path, home)
    assert asyncio.run(_settle(changed, False, asked)) is False
    assert asked == ["changed since accepted"] and changed.layer() is None
    refused = session(tmp_path, home)
    assert refused.settled and refused.layer() is None
    assert refused.left_out_lines() == [
        f"guidance left out: {guidance_file}: refused when it was shown"
    ]


def test_no_answer_keeps_nothing_and_leaves_the_file_out(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (tmp_path / "AGENTS.md").write_text("Be brief.\n")
    guidance = session(tmp_path, home)
    assert asyncio.run(_settle(guidance, None, [])) is False
    assert KeptAnswers(home).read() == []
    assert session(tmp_path, home).waiting  # asked again next time


def test_the_record_holds_the_operators_layer_then_each_file_with_its_sha256(
    tmp_path: Path,
) -> None:
    (tmp_path / "AGENTS.md").write_text("Be brief.\n")
    guidance = session(tmp_path, tmp_path / "home")
    asyncio.run(_settle(guidance, True, []))
    sha = guidance.used[0].sha256
    assert guidance.recorded("Use metric units.") == (
        f"Use metric units.\n\nGuidance from {tmp_path / 'AGENTS.md'} (sha256 {sha}):\nBe brief."
    )
    assert guidance.recorded(None) == (
        f"Guidance from {tmp_path / 'AGENTS.md'} (sha256 {sha}):\nBe brief."
    )


async def _settle(guidance: SessionGuidance, answer: bool | None, asked: list[str]) -> bool:
    return await guidance.settle(await answering(answer, asked))
