"""Which program a simple command runs, read from its words: wrappers looked through, verbs named.

``sudo -u bob nice -n 5 rm -rf x`` runs ``rm``: ``sudo`` and ``nice`` are wrappers, and their own
options (with the values they take) are skipped. A multiplexer's first plain word is its verb
(``git -C dir push`` → ``push``), so approvals can be kept per verb. Some programs are approved
only by their exact text, never by a ``name *`` pattern: shells, interpreters, shell keywords, a
program named by a path with unusual characters, and anything run through ``exec`` or ``xargs``.
"""

from __future__ import annotations

import re

import msgspec

__all__ = ["Program", "launched", "program_name", "resolve"]


def _names(words: str) -> frozenset[str]:
    return frozenset(words.split())


WRAPPERS = _names(
    "sudo doas env nice nohup time timeout xargs command exec builtin stdbuf ionice chronic setsid "
    "busybox runuser setpriv pkexec run0 unbuffer fakeroot taskset chrt chroot unshare nsenter"
)
# Options whose value is the next word, for a wrapper not in OWN_VALUE_OPTIONS: the value belongs
# to the wrapper (`nice -n 5`, `sudo -u bob`), not to the program it runs.
WRAPPER_VALUE_OPTIONS = _names("-n -u -g -s -k -C -i -p -P -I -L -a -c")
# Each wrapper's own options that take the next word as their value; every other option is a
# flag. A flag read as taking a value would hide the program (`env -i rm` runs rm, `setsid -c rm`
# runs rm), and a value read as the program would too (`timeout --signal KILL 5 rm`). Options
# whose value may only be attached (`xargs -i{}`, `--eof=x`) are flags here.
OWN_VALUE_OPTIONS = {
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": _names("-a"),
    "time": _names("-f -o --format --output"),
    "sudo": _names(
        "-u -g -C -D -h -p -r -t -T -U --user --group --close-from --chdir --host --prompt "
        "--role --type --command-timeout --other-user"
    ),
    "doas": _names("-u -C"),
    "env": _names("-u -C --unset --chdir"),
    "nice": _names("-n --adjustment"),
    "nohup": frozenset(),
    "timeout": _names("-s -k --signal --kill-after"),
    "xargs": _names(
        "-a -d -E -I -L -n -P -s --arg-file --delimiter --max-args --max-procs --max-chars "
        "--process-slot-var"
    ),
    "stdbuf": _names("-i -o -e --input --output --error"),
    "ionice": _names("-c -n -p -P -u --class --classdata --pid --pgid --uid"),
    "chronic": frozenset(),
    "setsid": frozenset(),
    "busybox": frozenset(),
    "runuser": _names("-u -g -G -s -w --user --group --supp-group --shell --whitelist-environment"),
    "setpriv": _names(
        "--ruid --euid --rgid --egid --reuid --regid --groups --inh-caps --ambient-caps "
        "--bounding-set --securebits --pdeathsig --selinux-label --apparmor-profile "
        "--landlock-access --landlock-rule"
    ),
    "pkexec": _names("--user"),
    "run0": _names(
        "-u -g -D --user --group --chdir --unit --property --description --slice --nice "
        "--setenv --background -p"
    ),
    "unbuffer": frozenset(),
    "fakeroot": _names("-l -s -i --lib --faked"),
    "taskset": frozenset(),
    "chrt": frozenset(),
    "chroot": _names("--userspec --groups"),
    "unshare": _names("-S -G -R -w --setuid --setgid --root --wd --map-user --map-group"),
    "nsenter": _names("-t -S -G -r -w --target --setuid --setgid --root --wd"),
}
# Operands a wrapper takes before the program it runs: `timeout 5 rm`, `taskset 3 rm`,
# `chrt 10 rm`, `chroot /srv rm`.
LEADING_OPERANDS = {"timeout": 1, "taskset": 1, "chrt": 1, "chroot": 1}
# A command run through these is approved by its exact text only.
EXACT_WRAPPERS = frozenset({"exec", "xargs"})

MULTIPLEXERS = _names(
    "git cargo swift npm pnpm yarn docker podman kubectl go gh pip pip3 uv apt apt-get dnf "
    "systemctl journalctl brew"
)
# Options of a multiplexer whose value is the next word: `git -C dir status`, `kubectl -n ns get`.
VERB_VALUE_OPTIONS = frozenset(
    [*WRAPPER_VALUE_OPTIONS, "-H", "-R", "-f", "--git-dir", "--work-tree", "--namespace",
     "--context", "--kubeconfig", "--prefix", "--directory", "--project", "--manifest-path",
     "--host", "--repo", "--config", "--file"]
)  # fmt: skip

# Programs whose approval key is their exact text: what they do lies in the rest of the line.
SHELL_WORDS = _names(
    "do done if then else elif fi for while until case esac in select function coproc { } ! "
    "[[ ]] (( )) . source eval exec trap"
)
INTERPRETERS = _names(
    "sh bash zsh dash ksh csh tcsh fish node deno bun ruby perl php lua xargs pwsh tclsh expect"
)

# Launchers that run a program in a project's environment: `uv run X`, `poetry run X`, `uvx X`.
# Not wrappers (their approval key stays `uv run *`), but the deny list looks through them.
RUN_VERB_LAUNCHERS = _names("uv poetry pipenv pdm hatch rye pixi conda mamba micromamba npm pnpm")
DIRECT_LAUNCHERS = _names("uvx pipx npx pnpx bunx")
LAUNCHER_VALUE_OPTIONS = _names(
    "--with --python -p --project --directory --package --extra --group --env-file -n --name "
    "--prefix --from -e --env --spec --index --index-url"
)

_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")
_VERB = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


class Program(msgspec.Struct, frozen=True):
    name: str | None
    """The program by basename; None when it is built at run time (``$CMD``)."""
    index: int
    """Where the program stands among the words."""
    rest: list[str | None]
    verb: str | None = None
    is_exact: bool = False
    """Whether the approval key is the exact text rather than a ``name *`` pattern."""
    layers: tuple[tuple[int, str], ...] = ()
    """Where each wrapper looked through stands, and its name, outermost first."""

    @property
    def is_dynamic(self) -> bool:
        return self.name is None


def resolve(words: list[str | None]) -> Program:
    """Unwrap wrappers and name the program and, for a multiplexer, its verb.

    ``words`` are the command's words after quote removal, None where one is only known when the
    line runs."""
    index, unwrapped = _unwrap(words)
    if index >= len(words):  # only wrappers (`env`, `sudo -i`): the last one is the program
        index = max(i for i, _ in unwrapped)
        unwrapped = unwrapped[:-1]
    word = words[index]
    if word is None:
        return Program(None, index, words[index + 1 :], is_exact=True, layers=tuple(unwrapped))
    name = program_name(word)
    rest = words[index + 1 :]
    verb = _verb(rest) if name in MULTIPLEXERS else None
    is_exact = (
        name in SHELL_WORDS
        or name in INTERPRETERS
        or name.startswith("python")
        or not _PLAIN_NAME.fullmatch(name)
        or any(wrapper in EXACT_WRAPPERS for _, wrapper in unwrapped)
    )
    return Program(name, index, rest, verb, is_exact, tuple(unwrapped))


def program_name(word: str) -> str:
    """The program a word names: ``/usr/bin/rm`` → ``rm``; a word ending in ``/`` stays whole."""
    return word.rsplit("/", 1)[-1] if "/" in word.rstrip("/") else word


def _unwrap(words: list[str | None]) -> tuple[int, list[tuple[int, str]]]:
    index = 0
    unwrapped: list[tuple[int, str]] = []
    while index < len(words) and (word := words[index]) is not None:
        name = word.rsplit("/", 1)[-1]
        following = words[index + 1] if index + 1 < len(words) else None
        if name not in WRAPPERS or (name == "command" and following in ("-v", "-V")):
            break  # `command -v X` looks X up; it does not run it
        unwrapped.append((index, name))
        index = _skip_wrapper_options(words, index + 1, name)
    return index, unwrapped


def _skip_wrapper_options(words: list[str | None], index: int, wrapper: str) -> int:
    while index < len(words) and (word := words[index]) is not None:
        if word == "--":
            index += 1
            break
        if word == "-" and wrapper == "env":  # `env -` is `env -i`
            index += 1
            continue
        if word.startswith("-") and len(word) > 1:
            index += 2 if word in OWN_VALUE_OPTIONS.get(wrapper, WRAPPER_VALUE_OPTIONS) else 1
        elif _ASSIGNMENT.match(word):  # `env FOO=1 cmd`, `sudo FOO=1 cmd`
            index += 1
        else:
            break
    return min(index + LEADING_OPERANDS.get(wrapper, 0), len(words))


def _verb(rest: list[str | None]) -> str | None:
    """The first word not an option, an option's value or a ``+toolchain``, if verb-shaped."""
    index = 0
    while index < len(rest):
        word = rest[index]
        if word is None:
            return None
        if word.startswith("-") and len(word) > 1:
            index += 2 if word in VERB_VALUE_OPTIONS else 1
            continue
        if word.startswith("+"):
            index += 1
            continue
        return word if _VERB.fullmatch(word) else None
    return None


def launched(words: list[str]) -> list[str] | None:
    """The words of the program a launcher runs (``uv run --with x pytest -q`` → ``pytest -q``,
    ``pipx run wisp`` → ``wisp``), or None when ``words`` start no launcher."""
    name = program_name(words[0]) if words else ""
    rest = words[1:]
    if name == "pipx" and rest[:1] == ["run"]:
        rest = rest[1:]
    elif name in RUN_VERB_LAUNCHERS:
        at = next((i for i, word in enumerate(rest) if not word.startswith("-")), None)
        if at is None or rest[at] not in ("run", "exec"):
            return None
        rest = rest[at + 1 :]
    elif name not in DIRECT_LAUNCHERS:
        return None
    index = 0
    while index < len(rest) and rest[index].startswith("-"):
        if rest[index] == "--":
            index += 1
            break
        index += 2 if rest[index] in LAUNCHER_VALUE_OPTIONS else 1
    return rest[index:] or None
