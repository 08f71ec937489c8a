"""The deny list's judge of what a command does (docs/policy.md, "What the deny list stops").

The built-in deny list stops six kinds of command outright, judged by what the shell will run,
never by how a line spells it: running as another user, removing ``/`` (or the home folder, or a
system folder) recursively, running downloaded content with an interpreter, making a file system,
writing a block device, and running wisp itself. Each simple command is read through its facts
(``SimpleCommand.facts``: its words, what feeds its words and stdin, where it redirects), with the
program behind wrappers, ``uv run``-style launchers and ``find -exec`` named (``program``), the
working folder followed across ``cd``, and a device judged by its real path (``devices``).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

import msgspec

from wisp.policy.devices import is_block_device
from wisp.policy.interpreters import code_words, is_interpreter, reads_code_on_stdin
from wisp.policy.program import launched, program_name, resolve
from wisp.policy.types import CommandFacts, SimpleCommand

__all__ = ["CATEGORIES", "Effect", "effect_of"]

CATEGORIES: dict[str, str] = {
    "another-user": "runs as another user",
    "removes-root": "removes /, the home folder or a system folder recursively",
    "download-runs": "runs downloaded content with an interpreter",
    "makes-filesystem": "makes a file system",
    "writes-device": "writes a block device",
    "runs-wisp": "runs wisp itself",
}
"""Each kind of command the built-in deny list stops, and what it is said to do."""

OTHER_USER = frozenset(
    [
        "sudo", "sudoedit", "su", "doas", "pkexec", "run0", "runuser", "setpriv", "sg", "newgrp",
        "ksu", "calife"
    ]
)  # fmt: skip
# Options by which a wrapper that is no `sudo` still runs its program as another user.
_USER_OPTIONS = {
    "chroot": ("--userspec",),
    "nsenter": ("-S", "--setuid"),
    "unshare": ("-S", "--setuid"),
    "systemd-run": ("--uid", "-p User=", "--property=User=", "-pUser="),
}
DOWNLOADERS = frozenset(
    [
        "curl", "wget", "fetch", "aria2c", "axel", "http", "https", "xh", "xhs", "httpie",
        "curlie", "wcurl", "lwp-request", "lwp-download", "GET", "nc", "ncat", "netcat", "socat",
        "ftp", "tftp", "lftp", "ssh"
    ]
)  # fmt: skip
# The family by name: `mkfs`, `mkfs.*`, any `mk…fs` (mke2fs, mkntfs, mkdosfs, mksquashfs …),
# `newfs*`, and the tools that make or unmake a volume without that name.
_FILESYSTEM_MAKERS = re.compile(
    r"mk[\w+-]*fs(?:\..+)?|mkexfat|newfs\w*|mkswap|mformat|wipefs|blkdiscard"
)
_VOLUME_MAKERS = frozenset({"luksFormat", "erase", "luksErase", "open", "reencrypt"})
# What writes the files its operands name: the program → which operands (`all`, `last`).
_WRITERS = {"tee": "all", "shred": "all", "sponge": "all", "truncate": "all", "cp": "last",
            "install": "last", "rsync": "last", "ddrescue": "last", "bmaptool": "last"}  # fmt: skip
# Options that name the file a program writes (a downloader's own are read apart).
_OUTPUT_OPTIONS = {"sort": ("-o", "--output"), "pv": ("-o", "--output")}  # fmt: skip
_DD = frozenset({"dd", "dcfldd", "dc3dd", "sg_dd"})
_WISP_PROGRAMS = frozenset({"wisp", "wisp-tui", "wisp_tui"})
_WISP_HARMLESS = frozenset({"--version", "-V", "--help", "-h", "help"})
_WISP_MODULE = re.compile(r"wisp(?:_tui)?(?:\..*)?")
_IMPORTS_WISP = re.compile(r"\b(?:import|from)\s+wisp(?:_tui)?\b|run_module\(\s*['\"]wisp")
_RECURSIVE = re.compile(r"-[A-Za-z]*[rR][A-Za-z]*|--recursive")
_SYSTEM_FOLDERS = frozenset(
    [
        "bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64", "libx32", "opt", "proc",
        "root", "sbin", "srv", "sys", "usr", "var", "snap"
    ]
)  # fmt: skip
_MATCH_ALL = re.compile(r"[.*?]*[*?][.*?]*|\.\[!.\]\*|\.\[\^.\]\*")
_HOME_WORD = re.compile(r"""^(?:~|["']?\$(?:HOME|\{HOME\})["']?)(?=/|$)""")
# A downloader's option naming where it saves: `-o f`, `-qO f`, `-sSLo f`; or attached, `-of`.
_SAVE_OPTION = re.compile(r"-[A-Za-z]*[oO]")
_SAVE_ATTACHED = re.compile(r"-[A-Za-z]*?[oO](.+)")
_FIND_ACTIONS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


class Effect(msgspec.Struct, frozen=True):
    """One command the built-in deny list stops, and why."""

    category: str
    """A key of ``CATEGORIES``."""
    command: str
    """The simple command that does it."""

    @property
    def reason(self) -> str:
        return f"the command {CATEGORIES[self.category]}: {self.command}"


class Run(msgspec.Struct, frozen=True):
    """A program a command runs, with its arguments and the wrappers it runs through."""

    name: str
    args: list[str]
    wrappers: list[tuple[str, list[str]]]
    """Each wrapper looked through, with its own options."""
    feeds: list[tuple[str, ...]]
    """For each argument, the programs whose output it holds."""


class _Line(msgspec.Struct):
    """What the walk over a line's commands has learnt so far."""

    directory: str | None = None
    """The working folder, followed across ``cd``; None: the one wisp runs in, unknown here."""
    visited: set[str] = msgspec.field(default_factory=set)
    """Every folder the line has ``cd``'d to."""
    downloaded: set[str] = msgspec.field(default_factory=set)
    """The files a download was saved to (``curl -o i.sh x``, ``wget -qO- x > i.sh``)."""

    def path(self, word: str) -> str:
        return _absolute(word, self.directory) or posixpath.normpath(word)


def effect_of(parts: Sequence[SimpleCommand]) -> Effect | None:
    """The first thing the line's commands do that the built-in deny list stops, or None."""
    line = _Line()
    for part in parts:
        facts = part.facts
        if facts is None:
            continue
        if any(is_block_device(path, line.directory) for path in facts.writes):
            return Effect("writes-device", part.text)
        runs = runs_of(facts)
        for run in runs:
            if category := _judge(run, facts, line):
                return Effect(category, part.text)
            line.downloaded.update(line.path(saved) for saved in _saved_download(run, facts))
        if runs and runs[0].name in ("cd", "pushd"):
            line.directory = _changed_directory(runs[0].args, line.directory)
            if line.directory is not None:
                line.visited.add(line.directory)
    return _group_writing_a_device(parts, line.visited)


def _group_writing_a_device(parts: Sequence[SimpleCommand], visited: set[str]) -> Effect | None:
    """A redirection tree-sitter-bash gives a whole list (``cd /dev && cat x > sda``) is judged
    in every folder under ``/dev`` the line visits."""
    devices = [where for where in visited if where == "/dev" or where.startswith("/dev/")]
    for part in parts:
        if part.executable is not None or part.facts is None or not devices:
            continue
        if any(is_block_device(path, where) for path in part.facts.writes for where in devices):
            return Effect("writes-device", part.text)
    return None


def runs_of(facts: CommandFacts) -> list[Run]:
    """The programs a command runs: the one behind its wrappers, the one a launcher starts
    (``uv run X``), and each a ``find -exec`` starts."""
    words = list(facts.words)
    if not words:
        return []
    feeds = list(facts.word_feeds) or [()] * len(words)
    program = resolve(list(words))
    if program.index >= len(words) or program.name is None:
        return []
    bounds = [index for index, _ in program.layers] + [program.index]
    wrappers = [
        (name, words[index + 1 : bounds[number + 1]])
        for number, (index, name) in enumerate(program.layers)
    ]
    first = Run(program.name, words[program.index + 1 :], wrappers, feeds[program.index + 1 :])
    runs = [first]
    if (inner := launched(words[program.index :])) is not None:
        start = len(words) - len(inner)
        runs += runs_of(CommandFacts(tuple(inner), tuple(feeds[start:])))
    if first.name == "find":
        for command in _find_commands(first.args):
            runs += runs_of(CommandFacts(tuple(command)))
    return runs


def _judge(run: Run, facts: CommandFacts, line: _Line) -> str | None:
    directory = line.directory
    names = [name for name, _ in run.wrappers] + [run.name]
    if any(program_name(name) in OTHER_USER for name in names) or _switches_user(run):
        return "another-user"
    if any(_FILESYSTEM_MAKERS.fullmatch(name) for name in names) or (
        run.name == "cryptsetup" and _VOLUME_MAKERS.intersection(run.args)
    ):
        return "makes-filesystem"
    if _removes_everything(run, directory):
        return "removes-root"
    if _runs_download(run, facts, line):
        return "download-runs"
    if any(is_block_device(target, directory) for target in _written_operands(run)):
        return "writes-device"
    if _runs_wisp(run):
        return "runs-wisp"
    return None


# -- another user ------------------------------------------------------------------------------


def _switches_user(run: Run) -> bool:
    for name, options in [*run.wrappers, (run.name, run.args)]:
        marks = _USER_OPTIONS.get(name, ())
        joined = " ".join(options)
        # `--uid=0`, `--uid 0`, `-S 0`; a mark ending in `=` takes its value attached
        ends = {mark: "" if mark.endswith("=") else r"(?:[=\s]|$)" for mark in marks}
        if any(re.search(rf"(?:^|\s){re.escape(m)}{ends[m]}", joined) for m in marks):
            return True
    return False


# -- removing everything -----------------------------------------------------------------------


def _removes_everything(run: Run, directory: str | None) -> bool:
    if run.name == "rm":
        options, operands = _split_options(run.args)
        recursive = any(_RECURSIVE.fullmatch(option) for option in options)
        return recursive and any(_is_everything(path, directory) for path in operands)
    if run.name == "find":
        starts = _find_starts(run.args)
        deletes = "-delete" in run.args or any(
            program_name(resolve(list(command)).name or "") in ("rm", "shred", "unlink")
            for command in _find_commands(run.args)
        )
        return deletes and any(_is_everything(path, directory) for path in starts or ["."])
    if run.name == "rsync" and any(arg.startswith("--delete") for arg in run.args):
        _, operands = _split_options(run.args)  # what the source lacks goes from the target
        return len(operands) >= 2 and _is_everything(operands[-1], directory)
    return False


def _is_everything(word: str, directory: str | None) -> bool:
    """Whether ``word`` names ``/``, the home folder, a system folder, or everything in one."""
    path = _absolute(word, directory)
    if path is None:
        return False
    if _is_protected(path):
        return True
    parent, last = posixpath.split(path)
    if parent == "/" and re.search(r"[*?[]", last):
        return True  # `/*`, `/u*`, `/[a-z]*`: system folders by a pattern
    return _is_protected(parent) and _MATCH_ALL.fullmatch(last) is not None


def _is_protected(path: str) -> bool:
    home = posixpath.normpath(str(Path.home()))
    top = path.strip("/")
    return path in ("/", home) or ("/" not in top and top in _SYSTEM_FOLDERS)


def _absolute(word: str, directory: str | None) -> str | None:
    """The path a word names, ``~`` and ``$HOME`` read, relative to ``directory`` when known;
    a glob's last part is kept as written."""
    home = _HOME_WORD.match(word)
    if home:
        word = str(Path.home()) + word[home.end() :]
    if "$" in word or "`" in word:
        return None
    if not word.startswith("/"):
        if directory is None:
            return None
        word = f"{directory}/{word}"
    normal = posixpath.normpath(re.sub(r"^/+", "/", word))
    return "/" if normal in ("//", "") else normal


def _changed_directory(args: list[str], directory: str | None) -> str | None:
    operands = [arg for arg in args if not arg.startswith("-") or arg == "-"]
    if not operands:
        return posixpath.normpath(str(Path.home()))
    if operands[0] == "-":
        return None
    return _absolute(operands[0], directory)


def _find_starts(args: list[str]) -> list[str]:
    starts: list[str] = []
    for arg in args:
        if arg in ("-H", "-L", "-P") and not starts:
            continue
        if arg.startswith("-") or arg in ("(", "!", ","):
            break
        starts.append(arg)
    return starts


def _find_commands(args: list[str]) -> Iterable[list[str]]:
    index = 0
    while index < len(args):
        if args[index] in _FIND_ACTIONS:
            end = next(
                (at for at in range(index + 1, len(args)) if args[at] in (";", "+", "\\;")),
                len(args),
            )
            if end > index + 1:
                yield args[index + 1 : end]
            index = end
        index += 1


def _split_options(args: list[str]) -> tuple[list[str], list[str]]:
    options: list[str] = []
    operands: list[str] = []
    for index, arg in enumerate(args):
        if arg == "--":
            return options, operands + args[index + 1 :]
        (options if arg.startswith("-") and arg != "-" else operands).append(arg)
    return options, operands


# -- downloads, devices, wisp ------------------------------------------------------------------


def _runs_download(run: Run, facts: CommandFacts, line: _Line) -> bool:
    """Whether an interpreter runs what a download fetched: on its stdin, in its code word, or
    from a file a download was saved to earlier in the line."""
    if not is_interpreter(run.name):
        return False
    saved = {line.path(word) for word in facts.reads} & line.downloaded
    fed = _downloads(facts.stdin_feeds)
    if reads_code_on_stdin(run.name, run.args) and (fed or saved):
        return True
    if fed and any(name == "xargs" for name, _ in run.wrappers):
        return True  # xargs hands what it reads to the interpreter as words
    # A substitution in the code word shares the interpreter's stdin: `bash -c "$(cat)"`.
    return any(
        _downloads(run.feeds[index])
        or (fed and run.feeds[index])
        or line.path(run.args[index]) in line.downloaded
        for index in code_words(run.name, run.args)
    )


def _saved_download(run: Run, facts: CommandFacts) -> list[str]:
    """Where a download is saved: ``curl -o f``, ``wget -O f``, ``curl x > f``, ``| tee f``."""
    if program_name(run.name) in DOWNLOADERS:
        return [*_download_outputs(run), *facts.writes]
    if not _downloads(facts.stdin_feeds):
        return []
    _, operands = _split_options(run.args)
    return [*facts.writes, *(operands if run.name == "tee" else [])]


def _downloads(programs: Iterable[str]) -> bool:
    return any(program_name(name) in DOWNLOADERS for name in programs)


def _download_outputs(run: Run) -> list[str]:
    """The files a downloader's options save to: ``-o f``, ``-sSLo f``, ``-of``, ``--output=f``."""
    saved = [
        value for option, value in zip(run.args, run.args[1:], strict=False)
        if option in ("--output", "--output-document") or _SAVE_OPTION.fullmatch(option)
    ]  # fmt: skip
    saved += [arg.split("=", 1)[1] for arg in run.args if arg.startswith("--output")]
    saved += [m.group(1) for arg in run.args if (m := _SAVE_ATTACHED.fullmatch(arg))]
    return [path for path in saved if path not in ("-", "")]


def _written_operands(run: Run) -> list[str]:
    if program_name(run.name) in DOWNLOADERS:
        return _download_outputs(run)
    if run.name in _DD:
        return [arg.removeprefix("of=") for arg in run.args if arg.startswith("of=")]
    options = _OUTPUT_OPTIONS.get(run.name, ())
    targets = [
        value for option, value in zip(run.args, run.args[1:], strict=False) if option in options
    ]
    targets += [
        arg.split("=", 1)[1] for arg in run.args
        if "=" in arg and arg.split("=", 1)[0] in options
    ]  # fmt: skip
    _, operands = _split_options(run.args)
    match _WRITERS.get(run.name):
        case "all":
            return targets + operands
        case "last" if len(operands) >= 2:
            return [*targets, operands[-1]]
    return targets


def _runs_wisp(run: Run) -> bool:
    if program_name(run.name) in _WISP_PROGRAMS:
        return not (len(run.args) == 1 and run.args[0] in _WISP_HARMLESS)
    if not run.name.startswith(("python", "pypy")):
        return False
    for option, value in zip(run.args, run.args[1:], strict=False):
        if option == "-m" and _WISP_MODULE.fullmatch(value):
            at = run.args.index(option)
            rest = run.args[at + 2 :]
            return not (len(rest) == 1 and rest[0] in _WISP_HARMLESS)
        if option == "-c" and _IMPORTS_WISP.search(value):
            return True
    return any(arg.startswith("-m") and _WISP_MODULE.fullmatch(arg[2:]) for arg in run.args)
