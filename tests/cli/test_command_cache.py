"""The model's commands' own cache, end to end (docs/sandbox.md, "The cache"): the real
script, a script: model, the real sandbox, a real pip download from a real index on 127.0.0.1."""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
import sys
import tempfile
import threading
import zipfile
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.cli.test_commands import commands_script, outcomes, runner

WHEEL = "tiny_cached-1.0-py3-none-any.whl"


@pytest.fixture
def person(wisp_env: dict[str, str], wisp_home: Path) -> Iterator[Path]:
    """The person's home, outside /tmp (a root of its own) so that only the cache's rules
    decide what a command may write in ``~/.cache``; the network on, as pip needs it."""
    holder = Path(tempfile.mkdtemp(dir="/var/tmp"))
    home = holder / "user"
    (home / ".cache").mkdir(parents=True)
    wisp_env["HOME"] = str(home)
    for name in ("XDG_CACHE_HOME", "PIP_CACHE_DIR", "PIP_NO_CACHE_DIR"):
        wisp_env.pop(name, None)
    wisp_home.mkdir(mode=0o700)
    config = {"commandPolicy": {"sandbox": {"network": "on"}}}
    (wisp_home / "config.json").write_text(json.dumps(config))
    yield home
    shutil.rmtree(holder)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


def own_cache(home: Path, workdir: Path) -> Path:
    digest = hashlib.sha256(str(workdir.resolve()).encode()).hexdigest()
    return home / ".cache/wisp/sandbox" / digest


def build_wheel(folder: Path) -> None:
    """A wheel is a zip: the smallest one pip accepts, a module and its metadata."""
    info = "tiny_cached-1.0.dist-info"
    files = {
        "tiny_cached.py": "VALUE = 1\n",
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: tiny-cached\nVersion: 1.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    record = "".join(f"{name},,\n" for name in files) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(folder / WHEEL, "w") as wheel:
        for name, text in {**files, f"{info}/RECORD": record}.items():
            wheel.writestr(name, text)


class CachingHandler(SimpleHTTPRequestHandler):
    """A plain file server whose answers may be cached, as an index's are."""

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "max-age=3600")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass  # not on the test's stderr


@pytest.fixture
def index(tmp_path: Path) -> Iterator[str]:
    """A real HTTP server on 127.0.0.1 listing one wheel, for pip's --find-links."""
    folder = tmp_path / "index"
    folder.mkdir()
    build_wheel(folder)
    handler = functools.partial(CachingHandler, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_a_models_pip_download_caches_in_the_folders_own_cache(
    wisp_script: Path,
    wisp_env: dict[str, str],
    person: Path,
    workdir: Path,
    index: str,
    tmp_path: Path,
    audit_lines,
) -> None:
    download = (
        f"{sys.executable} -m pip download --disable-pip-version-check --no-deps --no-index "
        # pip caches plain HTTP only from a host it is told to trust.
        f"--trusted-host 127.0.0.1 --find-links {index} --dest wheels tiny-cached"
    )
    script = commands_script(tmp_path / "s.json", download, "echo $PIP_CACHE_DIR")
    wisp = runner([str(wisp_script)], wisp_env, workdir)
    result = wisp("--yes", "-m", f"script:{script}", "fetch tiny-cached")
    assert result.returncode == 0, result.stderr
    pip, echo = outcomes(audit_lines)
    assert pip["exitStatus"] == 0, pip["stderr"]
    assert (workdir / "wheels" / WHEEL).is_file()
    cache = own_cache(person, workdir)
    assert echo["stdout"].strip() == f"{cache}/pip"
    cached = [path for path in (cache / "pip").rglob("*") if path.is_file()]
    assert cached, "pip's HTTP cache is empty"
    assert "cache" not in pip["stderr"].lower()  # no "cache folder is not writable" warning
    # Nothing landed in the person's cache outside wisp's own folder.
    assert [path.name for path in (person / ".cache").iterdir()] == ["wisp"]


def test_the_persons_cache_is_not_writable_to_a_models_command(
    wisp_script: Path,
    wisp_env: dict[str, str],
    person: Path,
    workdir: Path,
    tmp_path: Path,
    audit_lines,
) -> None:
    script = commands_script(tmp_path / "s.json", "touch ~/.cache/x")
    wisp = runner([str(wisp_script)], wisp_env, workdir)
    result = wisp("--yes", "-m", f"script:{script}", "touch it")
    assert result.returncode == 0, result.stderr
    assert outcomes(audit_lines)[0]["exitStatus"] != 0
    assert not (person / ".cache/x").exists()


def test_a_typed_command_keeps_the_persons_cache(
    wisp_script: Path, wisp_env: dict[str, str], person: Path, workdir: Path, tmp_path: Path
) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"responses": []}))
    wisp = runner([str(wisp_script)], wisp_env, workdir)
    typed = "!touch ~/.cache/x && echo XDG=$XDG_CACHE_HOME.\n/quit\n"
    result = wisp("chat", "--plain", "-m", f"script:{script}", input=typed)
    assert result.returncode == 0, result.stderr
    assert (person / ".cache/x").exists(), result.stderr
    assert "XDG=." in result.stderr  # the person's environment, no cache of wisp's


def test_the_folders_cache_is_made_at_start_and_marked(
    wisp_script: Path, wisp_env: dict[str, str], person: Path, workdir: Path, tmp_path: Path
) -> None:
    script = commands_script(tmp_path / "s.json", "true")
    wisp = runner([str(wisp_script)], wisp_env, workdir)
    assert wisp("--yes", "-m", f"script:{script}", "go").returncode == 0
    cache = own_cache(person, workdir)
    assert cache.is_dir() and (cache.stat().st_mode & 0o777) == 0o700
    assert (cache.parent / (cache.name + ".used")).is_file()


def test_a_link_on_the_way_to_the_cache_is_refused_and_said(
    wisp_script: Path,
    wisp_env: dict[str, str],
    person: Path,
    workdir: Path,
    tmp_path: Path,
    audit_lines,
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (person / ".cache/wisp").mkdir()
    (person / ".cache/wisp/sandbox").symlink_to(elsewhere)
    script = commands_script(tmp_path / "s.json", "echo ran")
    wisp = runner([str(wisp_script)], wisp_env, workdir)
    result = wisp("--yes", "-m", f"script:{script}", "go")
    assert result.returncode == 0, result.stderr
    assert "sandbox: cannot make the commands' cache" in result.stderr
    assert outcomes(audit_lines)[0]["stdout"] == "ran\n"  # the commands run, without a cache
    assert list(elsewhere.iterdir()) == []
