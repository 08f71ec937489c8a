"""``wisp models pull hf:OWNER/REPO[/FILE.gguf]``: one GGUF from the Hugging Face Hub, cached.

``huggingface_hub`` speaks the Hub's protocol and owns the cache's layout (``HF_HOME``,
``HF_HUB_CACHE``): ``model_info`` lists the repository's files and its author, a ``HEAD`` of the
file's ``resolve`` URL gives its commit, its LFS ``ETag`` (the file's SHA-256) and where to fetch
it, and ``http_get`` fetches it with ``Range``, resuming by itself when a connection breaks.

What wisp adds: the file is fetched into ``blobs/<sha256>.incomplete`` beside the cache's blobs,
which outlives an interrupt (the library's own partial files do not), so the next pull resumes
from it; it enters the cache as ``blobs/<sha256>`` only once its SHA-256 matches the Hub's, so a
file that arrived wrong is never in the cache and never loaded. ``hf_hub_download`` then finds
the blob and makes the snapshot's link, as for any file it fetched itself.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, TypeVar

import msgspec

from wisp.agent.types import ModelError, ModelUnavailable
from wisp.models.local_files import sha256_of

if TYPE_CHECKING:
    from huggingface_hub.hf_api import ModelInfo

_T = TypeVar("_T")

SCHEME = "hf"
PREFERRED_QUANT = "Q4_K_M"
"""The usual balance of size and quality for a small model on a CPU; chosen when there is one."""
SHA256 = re.compile(r"[0-9a-f]{64}")
_SHARD = re.compile(r"-\d{5}-of-\d{5}\.gguf$", re.IGNORECASE)

NEEDS_HUB = (
    "pulling from the Hugging Face Hub needs huggingface_hub: "
    "pip install -e '.[local]' (or pip install huggingface_hub)"
)


class ChecksumMismatch(ModelError):
    """The file that arrived is not the one the Hub describes."""


class HubRef(msgspec.Struct, frozen=True):
    """What ``hf:`` names: a repository, and perhaps one file in it."""

    repository: str
    filename: str | None
    revision: str = "main"

    @classmethod
    def parse(cls, name: str) -> HubRef:
        """``OWNER/REPO`` or ``OWNER/REPO/PATH/FILE.gguf``, optionally ``@REVISION`` at the end
        of the repository (``OWNER/REPO@v2/FILE.gguf``)."""
        parts = name.strip("/").split("/")
        if len(parts) < 2 or not all(parts):
            raise ModelUnavailable(f"hf:{name}: expected hf:OWNER/REPO or hf:OWNER/REPO/FILE.gguf")
        repository, _, revision = f"{parts[0]}/{parts[1]}".partition("@")
        filename = "/".join(parts[2:]) or None
        if filename is not None and not filename.lower().endswith(".gguf"):
            raise ModelUnavailable(f"hf:{name}: wisp runs GGUF files; name one ending in .gguf")
        return cls(repository, filename, revision or "main")


class Plan(msgspec.Struct, frozen=True):
    """The file a pull will fetch, and what the Hub says of it and of its repository."""

    repository: str
    filename: str
    revision: str
    publisher: str
    licence: str | None
    size: int | None
    why: str
    """Why this file: named, or how it was chosen from the repository's list."""

    @property
    def stem(self) -> str:
        """The model's name in wisp: ``local:<stem>``, ``local.models."<stem>"``."""
        return Path(self.filename).name[: -len(".gguf")]


class Pulled(msgspec.Struct, frozen=True):
    """A verified file in the cache."""

    path: Path
    """The snapshot's link to the blob: what ``local:<stem>`` loads."""
    sha256: str
    size: int
    commit: str
    fetched: int
    """Bytes downloaded by this run (a resumed part and a reused blob are not)."""
    reused: bool
    """The blob was in the cache already, and still matched its checksum."""


Progress = Callable[[int, int], None]
"""Called with (bytes in the file so far, its size) as the file arrives."""


def plan(ref: HubRef) -> Plan:
    """Ask the Hub about ``ref``'s repository and choose its file."""
    from huggingface_hub import HfApi

    info = _hub_call(lambda: HfApi().model_info(ref.repository, revision=ref.revision,
                                                 files_metadata=True), ref)  # fmt: skip
    sizes = {s.rfilename: s.size for s in info.siblings or []}
    if ref.filename is not None:
        if ref.filename not in sizes:
            raise ModelUnavailable(f"hf:{ref.repository} has no file {ref.filename}")
        filename, why = ref.filename, "named"
    else:
        filename, why = choose_gguf(ref.repository, sizes)
    return Plan(
        repository=ref.repository,
        filename=filename,
        revision=info.sha or ref.revision,
        publisher=_publisher(info, ref.repository),
        licence=_licence(info),
        size=sizes.get(filename),
        why=why,
    )


def choose_gguf(repository: str, sizes: dict[str, int | None]) -> tuple[str, str]:
    """One GGUF of the repository's files, and why; ``ModelUnavailable`` listing them when the
    choice is not clear. Split files and vision projectors (``mmproj``) are not models to load."""
    ggufs = sorted(
        name
        for name in sizes
        if name.lower().endswith(".gguf")
        and not _SHARD.search(name)
        and "mmproj" not in Path(name).name.lower()
    )
    if not ggufs:
        raise ModelUnavailable(f"hf:{repository} holds no single-file GGUF model; wisp runs GGUF")
    if len(ggufs) == 1:
        return ggufs[0], "the repository's only GGUF file"
    preferred = [name for name in ggufs if PREFERRED_QUANT.lower() in name.lower()]
    if len(preferred) == 1:
        return preferred[0], (
            f"{PREFERRED_QUANT} of {len(ggufs)} GGUF files: the usual balance of size and quality"
        )
    listing = "\n".join(f"  hf:{repository}/{name}{_size_note(sizes[name])}" for name in ggufs)
    return _ambiguous(repository, listing)


def _ambiguous(repository: str, listing: str) -> tuple[str, str]:
    raise ModelUnavailable(
        f"hf:{repository} holds several GGUF files and none is clearly the one to choose "
        f"(wisp prefers one {PREFERRED_QUANT}); name one:\n{listing}"
    )


def fetch(plan: Plan, on_progress: Progress) -> Pulled:
    """Fetch ``plan``'s file into the Hub's cache (or find it there), checked; the path the
    snapshot links it by. ``ChecksumMismatch`` when what arrived is not the Hub's file."""
    from huggingface_hub import constants, get_hf_file_metadata, hf_hub_download, hf_hub_url

    url = hf_hub_url(plan.repository, plan.filename, revision=plan.revision)
    ref = HubRef(plan.repository, plan.filename, plan.revision)
    meta = _hub_call(lambda: get_hf_file_metadata(url), ref)
    sha256 = (meta.etag or "").lower()
    if not SHA256.fullmatch(sha256) or meta.commit_hash is None:
        raise ModelError(
            f"hf:{plan.repository}/{plan.filename}: the Hub gave no SHA-256 for it (not an LFS "
            "file), so wisp cannot check what arrives"
        )
    blobs = Path(constants.HF_HUB_CACHE) / _repo_folder(plan.repository) / "blobs"
    blob = blobs / sha256
    fetched, reused = 0, blob.exists() and _matches(blob, sha256)
    if not reused:
        blob.unlink(missing_ok=True)  # rewritten since it arrived: fetched anew
        blobs.mkdir(parents=True, exist_ok=True)
        label = f"hf:{plan.repository}/{plan.filename}"
        fetched = _fetch_blob(meta.location, blob, sha256, meta.size, on_progress, label)
    commit = meta.commit_hash
    link = _hub_call(lambda: hf_hub_download(plan.repository, plan.filename, revision=commit), ref)
    size = blob.stat().st_size
    on_progress(size, size)
    return Pulled(Path(link), sha256, size, meta.commit_hash, fetched, reused)


def cache_folder() -> Path:
    """Where the Hub's files are kept: ``HF_HUB_CACHE``, else ``HF_HOME``/hub."""
    from huggingface_hub import constants

    return Path(constants.HF_HUB_CACHE)


def _fetch_blob(
    url: str, blob: Path, sha256: str, size: int | None, on_progress: Progress, label: str
) -> int:
    """Download to ``<blob>.incomplete`` (resuming what is there), check it, move it in."""
    import httpx2
    from huggingface_hub.file_download import http_get
    from huggingface_hub.utils import build_hf_headers, disable_progress_bars

    disable_progress_bars()  # wisp draws its own line
    partial = blob.with_name(blob.name + ".incomplete")
    with _locked_append(partial) as file:
        if size is not None and file.tell() > size:
            file.truncate(0)  # longer than the file can be: not a part of it
            file.seek(0)
        already = file.tell()
        counting = _Counting(file, already, size or 0, on_progress)
        on_progress(already, size or 0)
        try:
            http_get(url, counting, resume_size=already, headers=build_hf_headers(),
                     expected_size=size)  # fmt: skip
        except httpx2.HTTPError as exc:  # the library resumed a few times, then gave up
            raise ModelError(
                f"{label}: the download broke off at {counting.written:,} bytes: "
                f"{_first_line(exc)}; what arrived is kept: pull again to resume from it"
            ) from exc
        file.flush()
        if not _matches(partial, sha256):
            partial.unlink(missing_ok=True)
            raise ChecksumMismatch(
                f"{label}: the file that arrived does not have the SHA-256 the Hub gives for it "
                f"({sha256[:12]}…); wisp deleted it and kept nothing. Try again; if it happens "
                "again, the file or the connection has been tampered with"
            )
        partial.chmod(0o644)
        os.replace(partial, blob)
    return counting.written - already


class _Counting:
    """The partial file as ``http_get`` writes it, reporting each chunk. A restart from zero
    (a server that ignored ``Range``) comes as ``seek`` and ``truncate``, passed through."""

    def __init__(self, file: BinaryIO, already: int, size: int, on_progress: Progress) -> None:
        self.file, self.written, self.size, self.on_progress = file, already, size, on_progress

    def write(self, chunk: bytes) -> int:
        written = self.file.write(chunk)
        self.written += written
        self.on_progress(self.written, self.size)
        return written

    def tell(self) -> int:
        return self.file.tell()

    def seek(self, offset: int, whence: int = 0) -> int:
        return self.file.seek(offset, whence)

    def truncate(self, size: int | None = None) -> int:
        result = self.file.truncate(size)
        self.written = self.file.tell()
        return result


@contextlib.contextmanager
def _locked_append(path: Path) -> Iterator[BinaryIO]:
    """``path`` open for appending, held against a second pull of the same file."""
    with open(path, "ab") as file:
        try:
            fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise ModelError(f"{path} is being fetched by another pull; wait for it") from exc
        file.seek(0, os.SEEK_END)
        yield file


def _matches(path: Path, sha256: str) -> bool:
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        return sha256_of(fd) == sha256
    finally:
        os.close(fd)


def _hub_call(call: Callable[[], _T], ref: HubRef) -> _T:
    """``call``, with the Hub's errors as wisp's: what was asked, and what the Hub said."""
    import httpx2
    from huggingface_hub import errors

    try:
        return call()
    except errors.GatedRepoError as exc:
        raise ModelUnavailable(
            f"hf:{ref.repository} is gated: accept its terms on the Hub and log in (hf auth login)"
        ) from exc
    except errors.RepositoryNotFoundError as exc:
        raise ModelUnavailable(f"hf:{ref.repository}: no such repository on the Hub") from exc
    except errors.RevisionNotFoundError as exc:
        raise ModelUnavailable(f"hf:{ref.repository}: no revision {ref.revision}") from exc
    except errors.RemoteEntryNotFoundError as exc:
        raise ModelUnavailable(f"hf:{ref.repository} has no file {ref.filename}") from exc
    except errors.HfHubHTTPError as exc:
        raise ModelError(f"hf:{ref.repository}: the Hub refused: {_first_line(exc)}") from exc
    except (httpx2.HTTPError, OSError) as exc:
        raise ModelUnavailable(f"hf:{ref.repository}: cannot reach the Hub: {exc}") from exc


def _publisher(info: ModelInfo, repository: str) -> str:
    """The repository's author as the Hub reports it, else its owner's name."""
    author = getattr(info, "author", None)
    return author if isinstance(author, str) and author else repository.split("/")[0]


def _licence(info: ModelInfo) -> str | None:
    card = getattr(info, "card_data", None)
    licence = card.get("license") if card is not None else None
    return licence if isinstance(licence, str) else None


def _repo_folder(repository: str) -> str:
    from huggingface_hub.file_download import repo_folder_name

    return repo_folder_name(repo_id=repository, repo_type="model")


def _size_note(size: int | None) -> str:
    from wisp.models.catalog import human_bytes

    return f" ({human_bytes(size)})" if size else ""


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
