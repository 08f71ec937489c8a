"""``edit_file``: write, append to, or change one place in a text file.

Every write is atomic (a temporary file beside the target, renamed over it) and confined: the
real target must lie inside the working directory or a configured writable root, and never
inside ``WISP_HOME`` (checked as real paths, so a symlink cannot lead out). The path is resolved
once, and the edit made through descriptors opened beneath the root with no symlink followed,
so a folder swapped for a link after the check is refused, never followed (``beneath.py``).
An edit that lands is recorded as ``file.write``.
"""

from __future__ import annotations

import asyncio
import io
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import msgspec
from msgspec import UNSET, UnsetType

from wisp.agent.types import ToolContext
from wisp.audit.kinds import FileWrite
from wisp.home import replace_in_folder
from wisp.sandbox.writable import holds_home
from wisp.tools.arguments import nul_path_refusal, parse_arguments, resolve_path, schema_of
from wisp.tools.beneath import (
    FOLDER_FLAGS,
    SwapRefused,
    make_folders_beneath,
    open_beneath,
    open_root,
    real_path_of,
    resolved,
)
from wisp.tools.file_syntax import broken_by
from wisp.tools.home_guard import is_within, opened_inside_home
from wisp.tools.read_file import numbered_page
from wisp.tools.regular_file import NotRegularFile, open_regular
from wisp.tools.text_edits import (
    EditRefused,
    LineEdit,
    closest_edit,
    replace_line,
    replace_text,
)

MODES = ("write", "append", "replace")
NEEDS_PLACE = "replace needs line (a line number) or find (the exact text to replace)"
WHOLE_LINES, WHOLE_BYTES = 40, 2048
"""A refused ``replace`` that missed its place shows a file this small whole, numbered as
``read_file`` numbers it: small models write ``replace`` with no ``find`` without reading the
file first, and given the lines they can name one (docs/turn.md, "Tool arguments")."""
REPLACE_MAX_BYTES = 1 << 20
"""``replace`` reads the whole file to edit it: larger files are refused."""


class EditFileArgs(msgspec.Struct, kw_only=True, rename="camel"):
    path: Annotated[str, msgspec.Meta(description="Relative to the working folder")]
    mode: str
    content: str
    find: str | UnsetType = UNSET
    line: int | UnsetType = UNSET


def _parameters() -> dict[str, Any]:
    schema = schema_of(EditFileArgs)
    # Checked by hand for the tool's own error text, but offered to the model as the enum it is.
    schema["properties"]["mode"]["enum"] = list(MODES)
    return schema


class _Landed(msgspec.Struct, frozen=True):
    """An edit that landed: what to tell the model and what to record."""

    result: str
    record: FileWrite


class EditFileTool:
    """Writes a text file: the whole of it, at its end, or one line or text in it."""

    name = "edit_file"
    description = (
        "Change a text file (read it first): write the whole file, append to it, or replace one "
        "line (by number) or one exact text (find) with content."
    )
    parameters = _parameters()
    read_only = False

    def __init__(self, writable_roots: Sequence[Path] = (), *, allow_home: bool = False) -> None:
        self.writable_roots = list(writable_roots)
        """``tools.editFile.writableRoots``: writable besides the working directory (a relative
        one within it)."""
        self.allow_home = allow_home
        """``commandPolicy.sandbox.allowHome``: the working directory is writable even when it
        is the home folder or ``/``, as for commands (docs/sandbox.md, "What is confined")."""

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> str:
        args = parse_arguments(self.name, arguments, EditFileArgs, context.notes)
        if isinstance(args, str):
            return args
        if args.mode not in MODES:
            return "error: mode must be write, append, or replace"
        find = "" if args.find is UNSET else args.find
        line = None if args.line is UNSET else args.line
        refusal = nul_path_refusal("path", args.path)
        if refusal:
            return refusal
        path = resolve_path(args.path, context.working_directory)
        # A relative configured root is the conversation's, not the process's.
        here = context.working_directory
        home_like = not self.allow_home and holds_home(here, os.path.expanduser("~"))
        roots = [*([] if home_like else [here]), *(here / root for root in self.writable_roots)]
        edit = _Edit(args.mode, args.content, find, line)
        home = context.conversation.home
        landed = await asyncio.to_thread(
            edit_confined, path, roots, home, edit, home_like=here if home_like else None
        )
        if isinstance(landed, str):
            return landed
        context.record(landed.record)  # after the edit lands
        return landed.result


def confinement_error(
    path: Path, roots: Sequence[Path], home: Path, *, real: Path | None = None
) -> str | None:
    """Why ``path`` (whose real target is ``real``) may not be written, or None: its real
    target must be inside a root and outside ``home``. ``realpath`` resolves the longest
    existing prefix, so a path through a symlink is judged by where it leads."""
    target = os.fspath(real) if real is not None else os.path.realpath(path)
    protected = os.path.realpath(home)
    if is_within(target, protected):
        return f"error: cannot write {path}: inside WISP_HOME ({home}), which wisp protects"
    if any(is_within(target, os.path.realpath(root)) for root in roots):
        return None
    shown = ", ".join(str(root) for root in roots)
    return f"error: cannot write {path}: outside the writable directories ({shown})"


class _Edit(msgspec.Struct, frozen=True):
    """What the model asked to change."""

    mode: str
    content: str
    find: str
    line: int | None


def edit_confined(
    path: Path, roots: Sequence[Path], home: Path, edit: _Edit, *, home_like: Path | None = None
) -> _Landed | str:
    """The edit as the worker runs it: ``path`` resolved once and judged by its real path, then
    edited through descriptors beneath the root that holds it, so what is written is what was
    judged (docs/sandbox.md, "Threat model"). ``home_like``: the working folder, when it is no
    root for being the home folder or ``/``."""
    try:
        return _edit_resolved(path, roots, home, edit, home_like)
    except SwapRefused:
        return (
            f"error: cannot write {path}: it changed while wisp was writing it (a symlink "
            "appeared on the way): refused"
        )
    except _InsideHome:
        return f"error: cannot write {path}: inside WISP_HOME ({home}), which wisp protects"


def _edit_resolved(
    path: Path, roots: Sequence[Path], home: Path, edit: _Edit, home_like: Path | None
) -> _Landed | str:
    real = Path(resolved(path))
    refusal = confinement_error(path, roots, home, real=real)
    if refusal and home_like and is_within(os.fspath(real), os.path.realpath(home_like)):
        return (
            f"error: cannot write {path}: the working folder {home_like} is the home folder or / "
            "(or holds the home folder), where wisp writes nothing unless "
            "commandPolicy.sandbox.allowHome is set"
        )
    if refusal:
        return refusal
    parent = os.fspath(real.parent)
    root = next((held for held in map(os.path.realpath, roots) if is_within(parent, held)), None)
    if root is None:  # the real path is a root itself
        return f"error: cannot write {path}: it is a folder"
    return _edit(path, real, _Place(root, os.path.relpath(parent, root), home), edit)


class _Place(msgspec.Struct, frozen=True):
    """Where an edit goes: a writable root (canonical), the folder beneath it, and
    ``WISP_HOME``, which the folder opened must not lie in."""

    root: str
    rest: str
    home: Path

    def open_folder(self, *, make: bool) -> int | None:
        """The folder, opened beneath the root with no link followed (``make``: its missing
        folders made; else None when it is missing), and judged again by where it is now."""
        root = open_root(self.root)
        try:
            if make:
                folder = make_folders_beneath(root, self.rest)
            else:
                try:
                    folder = open_beneath(root, self.rest, FOLDER_FLAGS)
                except (FileNotFoundError, NotADirectoryError):  # the write says more
                    return None
        finally:
            os.close(root)
        try:
            self._judge(folder)
        except BaseException:
            os.close(folder)
            raise
        return folder

    def _judge(self, folder: int) -> None:
        if opened_inside_home(folder, self.home):
            raise _InsideHome
        try:
            where = real_path_of(folder)
        except OSError:  # no /proc: the open beneath the root stands alone
            return
        if not is_within(where, self.root):
            raise SwapRefused(f"{self.rest} is no longer beneath {self.root}")


class _InsideHome(Exception):
    """The folder opened lies in ``WISP_HOME``."""


def _edit(path: Path, real: Path, place: _Place, edit: _Edit) -> _Landed | str:
    try:
        before = _read_before(place, real.name)
    except NotRegularFile as exc:
        if exc.what == "a folder":
            return f"error: cannot write {path}: it is a folder"
        return (
            f"error: cannot edit {path}: it is {exc.what}, not a regular file; edit_file edits "
            "files only"
        )
    except OSError as exc:
        return f"error: cannot read {path}: {exc.strerror or exc}"
    try:
        data, line_edit = _apply(path, before, edit.mode, edit.content, edit.find, edit.line)
        if (broken := broken_by(real.name, before, data)) is not None:
            raise EditRefused(
                f"the edit would leave {path.name} no longer valid {broken}", shows_file=True
            )
    except EditRefused as exc:
        shown = _shown_lines(path, before) if exc.shows_file and before else ""
        way = _way_to(edit, before) if exc.shows_file else ""
        return f"error: {exc}{shown}{way}"
    try:
        _write(place, real.name, data)
    except OSError as exc:
        return f"error: cannot write {path}: {exc.strerror or exc}"
    size = f"now {len(data)} byte" + ("" if len(data) == 1 else "s")
    if line_edit is not None:
        result = line_edit.describe(path, size)
    elif before is None:
        result = f"created {path}; {size}"
    else:
        appended = edit.mode == "append"
        result = f"appended to {path}; {size}" if appended else f"wrote {path}; {size}"
    record = FileWrite(
        path=str(real),
        mode=edit.mode,
        created=before is None,
        bytes_before=0 if before is None else len(before),
        bytes_after=len(data),
    )
    return _Landed(result, record)


def _read_before(place: _Place, name: str) -> bytes | None:
    """The file's bytes before the edit, None when there is no file yet; ``NotRegularFile`` for
    anything but a regular file (a command may have made it a FIFO, which would block the read)."""
    folder = place.open_folder(make=False)
    if folder is None:
        return None
    try:
        with open_regular(name, folder=folder) as file:
            return file.read()
    except FileNotFoundError:  # nothing there yet: the write says more
        return None
    finally:
        os.close(folder)


def _write(place: _Place, name: str, data: bytes) -> None:
    folder = place.open_folder(make=True)
    if folder is None:  # only a folder opened without making it may be missing
        raise FileNotFoundError(place.rest)
    try:
        write_atomically(folder, name, data)
    finally:
        os.close(folder)


def _way_to(edit: _Edit, before: bytes | None) -> str:
    """After a ``replace`` refused for its place (none named, a ``find`` not in the file, a line
    whose new content would break it), the call that makes the edit the model meant, when one
    line of the file is plainly the one (``closest_edit``); else nothing."""
    if edit.mode != "replace" or not before or len(before) > WHOLE_BYTES:
        return ""
    try:
        text = before.decode()
    except UnicodeDecodeError:
        return ""
    way = closest_edit(text, edit.find, edit.content, edit.line)
    return f"\n{way}" if way else ""


def _shown_lines(path: Path, before: bytes) -> str:
    """``; nothing was changed. settings.json reads:`` and its numbered lines, for a file of
    at most ``WHOLE_LINES`` lines and ``WHOLE_BYTES`` bytes; else only that nothing changed."""
    if len(before) > WHOLE_BYTES or before.count(b"\n") > WHOLE_LINES:
        return "; nothing was changed"
    page = numbered_page(io.BytesIO(before), 1, WHOLE_LINES, WHOLE_BYTES * 2)
    return f"; nothing was changed. {path.name} reads:\n{page}"


def _apply(
    path: Path, before: bytes | None, mode: str, content: str, find: str, line: int | None
) -> tuple[bytes, LineEdit | None]:
    """The file's new bytes, and for ``replace`` what changed; ``EditRefused`` says why not."""
    if mode == "write":
        return content.encode(), None
    if mode == "append":
        return (before or b"") + content.encode(), None
    if before is None:
        raise EditRefused(f"cannot replace in {path}: no such file; use mode write to create it")
    if len(before) > REPLACE_MAX_BYTES:
        raise EditRefused(
            f"cannot replace in {path}: it is {len(before)} bytes, and replace edits files up "
            "to 1 MiB; use mode write to replace the whole file"
        )
    try:
        text = before.decode()
    except UnicodeDecodeError as exc:
        raise EditRefused(f"cannot replace in {path}: it is not UTF-8 text") from exc
    if line is None and not find:
        raise EditRefused(NEEDS_PLACE, shows_file=True)
    if line is not None:
        new_text, line_edit = replace_line(text, line, content, find, path)
    else:
        new_text, line_edit = replace_text(text, find, content)
    return new_text.encode(), line_edit


def write_atomically(folder: int, name: str, data: bytes) -> None:
    """Write ``data`` to a temporary file in the folder open as ``folder`` and rename it over
    ``name`` there, keeping an existing file's mode (a new file gets the usual
    ``0666 & ~umask``)."""
    try:
        mode = stat.S_IMODE(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    replace_in_folder(folder, name, data, mode)


def _umask() -> int:
    # os.umask() can only be read by setting it, which races with other threads: Linux shows it.
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022
