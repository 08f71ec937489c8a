"""Split a command line into the simple commands it would run (policy.md §7).

The parser is tree-sitter-bash, not bashlex. Both were tried on the lines a model writes;
bashlex 0.18 (2023) raises on ``case``, ``[[ … ]]``, ``time`` and ``$((…))``, cannot read a
quoted heredoc delimiter (``cat <<'EOF'``, the usual way a model writes a file), misreads
``$'…'`` as a parameter, and never looks inside ``${X:-$(…)}``: the first group would make
common lines unreadable, the last hides a command. tree-sitter-bash reads the whole bash grammar,
including heredoc bodies and nested expansions, and is kept up to date; its prebuilt wheels need
no compiler. Its error recovery always yields a tree, so the splitter fails closed by hand: a
tree with an ERROR or MISSING node, or one that stops short of the end (a NUL byte), makes the
whole text one unreadable command; any ``$(`` or backtick left in a word the grammar did not
structure is kept as unreadable too; and so is a command whose program bash would rewrite before
running it (a glob or brace expansion, a backslash-newline inside the word, ``coproc``).

Scripts given to a shell (``bash -lc '…'``, a heredoc or here-string into ``sh``), to ``eval``
and to ``trap`` are parsed in turn, as are backtick bodies (bash unescapes them first), at most
``MAX_LEVELS`` deep. A script built only when the line runs (``sh -c "$X"``) cannot be read, so
the command that runs it is unreadable; so is a program named only when the line runs (``$X``,
``$(…)``), unless only its folder is (``"$VENV/bin/pytest"`` runs a program named ``pytest``).

Each readable command also carries its normalised forms (issue 12.4), the words the shell will
pass, read from the same tree: quotes and backslashes removed, the program by name, each run of
short options joined (``-r -f`` → ``-rf``); one form per wrapper looked through (``sudo rm -rf /``
→ ``sudo rm -rf /``, ``rm -rf /``), and ``| `` in front of a command that reads a pipe, so
``curl x | "/bin/sh"`` has the form ``| sh``. The deny list is matched against them.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import tree_sitter_bash
from tree_sitter import Language, Parser

from wisp.policy.types import SimpleCommand

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["MAX_LEVELS", "read_ansi_c", "split_line"]

MAX_LEVELS = 8
"""How deep substitutions, subshells and nested scripts are followed; deeper text is one command."""


def _names(words: str) -> frozenset[str]:
    return frozenset(words.split())


WRAPPERS = _names(
    "sudo doas env nice nohup time timeout xargs command exec builtin stdbuf ionice chronic setsid "
    "busybox"
)
# §7: the value after these options belongs to the wrapper (`nice -n 5`, `sudo -u bob`).
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
}
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

SHELLS = _names("sh bash zsh dash ksh fish")
SHELL_VALUE_OPTIONS = _names("-o +o -O +O --rcfile --init-file")
# §7: a program whose approval key is its exact text.
SHELL_WORDS = _names(
    "do done if then else elif fi for while until case esac in select function coproc { } ! "
    "[[ ]] (( )) . source eval exec trap"
)
INTERPRETERS = _names(
    "sh bash zsh dash ksh csh tcsh fish node deno bun ruby perl php lua xargs pwsh tclsh expect"
)

_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")
_VERB = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
# A `$(` or backtick not escaped by a backslash: a substitution the grammar left unread.
_UNREAD = re.compile(r"(?:^|[^\\])(?:\\\\)*(?:\$\(|`)")
_EXPANSIONS = frozenset(
    {"simple_expansion", "expansion", "command_substitution", "process_substitution",
     "arithmetic_expansion"}
)  # fmt: skip
# What a heredoc redirect holds of its own; anything else there (`cat <<EOF | sh`) is a command.
_HEREDOC_OWN = frozenset(
    {"<<", "<<-", "heredoc_start", "heredoc_body", "heredoc_end", "file_redirect",
     "herestring_redirect"}
)  # fmt: skip
# Where an assignment is part of something else, not a statement of its own.
_HOLDS_ASSIGNMENTS = frozenset(
    {"variable_assignments", "c_style_for_statement", "command", "declaration_command"}
)
# A word the normalised form must quote so that it stays one word and adds no structure.
_NEEDS_QUOTES = re.compile(r"""[\s;&|()<>'"\\$`]""")
_SHORT_OPTIONS = re.compile(r"-[A-Za-z]+")
# What hands its input on to the commands inside it. Loops do too, but `… | while read f; do
# bash build.sh "$f"; done` is a common way to run a script per line, not a pipe into a shell.
_SHARES_INPUT = frozenset(
    {"subshell", "compound_statement", "redirected_statement", "list", "negated_command"}
)
_WRITING_REDIRECTS = frozenset({">", ">>", "&>", "&>>", ">|", "<>"})
_HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})

_LANGUAGE = Language(tree_sitter_bash.language())


def split_line(line: str) -> list[SimpleCommand]:
    """The simple commands ``line`` runs, outermost first; unreadable text is kept, never dropped.

    >>> [part.text for part in split_line("ls && curl -s x | sh")]
    ['ls', 'curl -s x', 'sh']
    """
    splitter = _Splitter(Parser(_LANGUAGE))
    try:
        splitter.split(line, level=0)
    except RecursionError:  # nesting deeper than Python's stack: fail closed
        return [_unreadable(line)]
    return splitter.parts


def read_ansi_c(body: str) -> str:
    r"""The text of a ``$'…'`` string's body: ``a\nb`` → a newline between a and b."""
    return _ANSI_C_ESCAPE.sub(_ansi_c_char, body)


# -- the walk ------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Splitter:
    parser: Parser
    parts: list[SimpleCommand] = field(default_factory=list)

    def split(self, script: str, level: int) -> None:
        source = script.encode("utf-8", "surrogateescape")
        root = self.parser.parse(source).root_node
        # The grammar stops quietly at a NUL byte; anything it did not reach is unread.
        is_whole = b"\0" not in source and root.end_byte >= len(source.rstrip())
        if is_whole and not root.has_error:
            self._walk(root, level)
            return
        # Error recovery guessed at part of the text: the whole of it is unreadable, and what
        # parsed cleanly is judged as well (more parts can only make the gate more careful).
        self.parts.append(_unreadable(script))
        for child in root.named_children:
            if not child.has_error:
                self._walk(child, level)

    def _walk(self, node: Node, level: int) -> None:
        match node.type:
            case "comment" | "raw_string" | "ansi_c_string" | "extglob_pattern" | "regex":
                return
            case "command":
                self._command(node, node, level)
            case "redirected_statement":
                self._redirected(node, level)
            case "declaration_command" | "unset_command" | "test_command":
                self._builtin(node, node, level)
            case "variable_assignment" | "variable_assignments":
                self._assignment(node, level)
            case "compound_statement" if node.children and node.children[0].type == "((":
                self._builtin(node, node, level)
            case "command_substitution" if node.children and node.children[0].type == "`":
                self._backticks(node, level)
            case "command_substitution" | "process_substitution" | "subshell":
                self._nested(node, level)
            case "function_definition":
                # Defining a function runs nothing; its body runs where it is called.
                if (body := node.child_by_field_name("body")) is not None:
                    self._walk(body, level)
            case "heredoc_redirect":
                self._heredoc(node, level)
            case "word" | "string_content" | "heredoc_content":
                self._check_leaf(node)
            case _:
                self._walk_children(node, level)

    def _walk_children(self, node: Node, level: int) -> None:
        for child in node.named_children:
            self._walk(child, level)

    def _nested(self, node: Node, level: int) -> None:
        if level >= MAX_LEVELS:
            self.parts.append(_unreadable(_text(node)))
            return
        self._walk_children(node, level + 1)

    def _reparse(self, script: str, level: int) -> None:
        if level >= MAX_LEVELS:
            self.parts.append(_unreadable(script))
            return
        self.split(script, level + 1)

    def _backticks(self, node: Node, level: int) -> None:
        # Inside backticks bash removes one level of backslashes before parsing the body, so
        # `a \`b\`` nests; the grammar reads the body as it stands, so parse it again here.
        body = _text(node)[1:-1]
        body = re.sub(r"\\([\\`$])", r"\1", body)
        if _inside_string(node):
            body = body.replace('\\"', '"')
        self._reparse(body, level)

    def _check_leaf(self, node: Node) -> None:
        if _UNREAD.search(_text(node)):
            self.parts.append(_unreadable(_text(node)))

    def _heredoc(self, node: Node, level: int) -> None:
        start = next((c for c in node.children if c.type == "heredoc_start"), None)
        is_quoted = start is not None and any(ch in _text(start) for ch in "'\"\\")
        for child in node.named_children:
            if child.type == "heredoc_body":
                if is_quoted:
                    continue  # a quoted delimiter: the body is data, nothing in it runs
                if child.named_child_count:
                    self._walk_children(child, level)
                else:
                    self._check_leaf(child)
            elif child.type not in ("heredoc_start", "heredoc_end"):
                self._walk(child, level)

    # -- statements --------------------------------------------------------------------------

    def _redirected(self, node: Node, level: int) -> None:
        body = node.child_by_field_name("body")
        redirects = node.children_by_field_name("redirect")
        match body.type if body is not None else None:
            case "command":
                self._command(body, node, level)
            case "declaration_command" | "unset_command" | "test_command":
                self._builtin(body, node, level)
            case _:
                # A group or loop whose output goes to a file: that write is a command's worth
                # of risk of its own, which the commands inside do not show.
                if body is None or _writes_file(redirects):
                    self.parts.append(_command_part(_statement_text(node), None, is_exact=True))
                if body is not None:
                    self._walk(body, level)
        for redirect in redirects:
            self._walk(redirect, level)

    def _assignment(self, node: Node, level: int) -> None:
        # Only an assignment standing alone reaches here (`FOO=1`, `a=(1 2)`): it has no program.
        if node.parent is None or node.parent.type not in _HOLDS_ASSIGNMENTS:
            self.parts.append(_command_part(_text(node), None, is_exact=True))
        self._walk_children(node, level)

    def _builtin(self, node: Node, statement: Node, level: int) -> None:
        """`export`, `unset`, `[[ … ]]`, `[ … ]`, `(( … ))`: the first token is the program."""
        program = _text(node.children[0]) if node.children else None
        self.parts.append(_command_part(_statement_text(statement), program, is_exact=True))
        self._walk_children(node, level)

    def _command(self, node: Node, statement: Node, level: int) -> None:
        name = node.child_by_field_name("name")
        words = [name, *node.children_by_field_name("argument")] if name is not None else []
        text = _statement_text(statement)
        if not words:  # only assignments and redirections
            self.parts.append(_command_part(text, None, is_exact=True))
            self._walk_children(node, level)
            return
        values = [_literal(word) for word in words]
        resolved = _resolve(values)
        has_computed_folder = False
        if resolved.is_dynamic and (tail := _named_tail(words[resolved.index])) is not None:
            values[resolved.index] = tail  # `"$VENV/bin/pytest"`: only the folder is computed
            resolved = _resolve(values)
            has_computed_folder = True
        redirects = [*node.children_by_field_name("redirect")]
        if statement is not node:
            redirects += statement.children_by_field_name("redirect")
        script = _split_string(values, resolved) or _script_of(resolved, redirects)
        readable = not (
            resolved.is_dynamic
            or (script is not None and script.text is None)
            or _is_pattern_word(_text(words[resolved.index]))  # `/bin/r?`, `{rm,-rf,x}`
            or _has_joined_words(node)
            or resolved.name == "coproc"  # the grammar does not know it: its body is unread
            or _defines_alias(resolved)  # later names on the line are no longer what they say
        )
        first = words[resolved.index + 1] if resolved.index + 1 < len(words) else None
        is_exact = resolved.is_exact or has_computed_folder or _text(first).startswith("(")
        forms: tuple[str, ...] = ()
        if readable:
            shown = [_text(w) if v is None else v for w, v in zip(words, values, strict=True)]
            forms = _normalised_forms(shown, resolved, reads_pipe=_reads_pipe(statement))
        part = _command_part(
            text, resolved.name, resolved.verb, is_exact=is_exact, readable=readable,
            normalised=forms,
        )  # fmt: skip
        self.parts.append(part)
        self._walk_children(node, level)
        if script is not None and script.text is not None:
            self._reparse(script.text, level)


# -- the program -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Program:
    name: str | None
    """The program by basename; None when it is built at run time (``$CMD``)."""
    index: int
    """Where the program stands among the words."""
    rest: list[str | None]
    verb: str | None = None
    is_exact: bool = False
    """Whether the approval key is the exact text (§7)."""
    layers: tuple[tuple[int, str], ...] = ()
    """Where each wrapper looked through stands, and its name, outermost first."""

    @property
    def is_dynamic(self) -> bool:
        return self.name is None


def _resolve(words: list[str | None]) -> _Program:
    """Unwrap wrappers (§7) and name the program and, for a multiplexer, its verb."""
    index, unwrapped = _unwrap(words)
    if index >= len(words):  # only wrappers (`env`, `sudo -i`): the last one is the program
        index = max(i for i, _ in unwrapped)
        unwrapped = unwrapped[:-1]
    word = words[index]
    if word is None:
        return _Program(None, index, words[index + 1 :], is_exact=True, layers=tuple(unwrapped))
    name = _program_name(word)
    rest = words[index + 1 :]
    verb = _verb(rest) if name in MULTIPLEXERS else None
    is_exact = (
        name in SHELL_WORDS
        or name in INTERPRETERS
        or name.startswith("python")
        or not _PLAIN_NAME.fullmatch(name)
        or any(wrapper in EXACT_WRAPPERS for _, wrapper in unwrapped)
    )
    return _Program(name, index, rest, verb, is_exact, tuple(unwrapped))


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
    if wrapper == "timeout" and index < len(words):
        index += 1  # the duration
    return index


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


def _command_part(
    text: str,
    name: str | None,
    verb: str | None = None,
    *,
    is_exact: bool,
    readable: bool = True,
    normalised: tuple[str, ...] = (),
) -> SimpleCommand:
    text = text.strip()
    if not readable or name is None or is_exact:
        return SimpleCommand(text, name, verb, text, None, readable, normalised)
    if verb is not None:
        return SimpleCommand(text, name, verb, f"{name} {verb} *", f"{name} *", True, normalised)
    return SimpleCommand(text, name, None, f"{name} *", None, True, normalised)


# -- the normalised forms --------------------------------------------------------------------


def _normalised_forms(words: list[str], program: _Program, *, reads_pipe: bool) -> tuple[str, ...]:
    """The command as the shell runs it, once from each wrapper looked through, outermost first.

    A command after ``xargs`` reads no pipe (xargs does), so it loses the ``| `` mark."""
    starts = dict(program.layers)
    starts[program.index] = program.name or ""
    words = list(words)
    for start in starts:
        words[start] = _program_name(words[start])
    forms: list[str] = []
    for start, name in starts.items():
        form = _normalised(words[start:])
        forms.append(f"| {form}" if reads_pipe else form)
        reads_pipe = reads_pipe and name != "xargs"
    return tuple(forms)


def _normalised(words: list[str]) -> str:
    """``rm -r -f 'a b'`` → ``rm -rf 'a b'``: each run of short options joined (up to ``--``),
    each word quoted only when it would not stay one plain word."""
    shown = [words[0]]
    is_joining = True
    was_short = False
    for word in words[1:]:
        is_joining = is_joining and word != "--"
        is_short = is_joining and word[:1] == "-" and _SHORT_OPTIONS.fullmatch(word) is not None
        if is_short and was_short:
            shown[-1] += word[1:]
        else:
            shown.append(word)
        was_short = is_short
    return " ".join(
        word if word and not _NEEDS_QUOTES.search(word) else _quoted(word) for word in shown
    )


def _program_name(word: str) -> str:
    return word.rsplit("/", 1)[-1] if "/" in word.rstrip("/") else word


def _quoted(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


def _reads_pipe(statement: Node) -> bool:
    """Whether the command's input is the pipe from the command before it, directly or through
    the groups and loops around it (``curl x | { cd /tmp; sh; }``)."""
    node = statement
    while (parent := node.parent) is not None:
        if parent.type == "pipeline":
            return node.prev_named_sibling is not None
        if parent.type not in _SHARES_INPUT:
            return False
        node = parent
    return False


def _unreadable(text: str) -> SimpleCommand:
    text = text.strip() or repr(text)
    return SimpleCommand(text, None, None, text, None, readable=False)


# -- nested scripts --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Script:
    text: str | None
    """The script's text; None when it is only known when the line runs."""


def _split_string(words: list[str | None], program: _Program) -> _Script | None:
    """``env -S 'rm -rf /'``: env splits the string into the command it runs, so it is a script
    of its own (with the words after it)."""
    for index, name in [*program.layers, (program.index, program.name)]:
        if name != "env":
            continue
        end = program.index if index < program.index else len(words)
        for at in range(index + 1, end):
            option = words[at] or ""
            if option in ("-S", "--split-string") and at + 1 < len(words):
                value, rest = words[at + 1], words[at + 2 :]
            elif option.startswith("--split-string="):
                value, rest = option.removeprefix("--split-string="), words[at + 1 :]
            elif option.startswith("-S"):
                value, rest = option[2:], words[at + 1 :]
            else:
                continue
            if value is None or None in rest:
                return _Script(None)
            return _Script(" ".join([value, *(_quoted(word) for word in rest)]))  # type: ignore[arg-type]
    return None


def _script_of(program: _Program, redirects: list[Node]) -> _Script | None:
    """The script this command hands to a shell, ``eval`` or ``trap``, if it hands one."""
    match program.name:
        case name if name in SHELLS:
            return _shell_script(program.rest, redirects)
        case "eval" if program.rest:
            return _Script(None if None in program.rest else " ".join(program.rest))  # type: ignore[arg-type]
        case "trap" if len(program.rest) >= 2 and not (program.rest[0] or "-").startswith("-"):
            return _Script(program.rest[0])
        case "alias" if _defines_alias(program):
            # dash (/bin/sh) expands aliases in `sh -c` too: an alias's text runs where its name
            # is used, so it is judged as a script; the names it renames cannot be (below).
            bodies = [word.split("=", 1)[1] for word in program.rest if word and "=" in word]
            return _Script(None if None in program.rest else "\n".join(bodies))
    return None


def _defines_alias(program: _Program) -> bool:
    """``alias s=sudo``: after it, a command named ``s`` is not what its name says."""
    return program.name == "alias" and any(word is None or "=" in word for word in program.rest)


def _shell_script(args: list[str | None], redirects: list[Node]) -> _Script | None:
    """``-c SCRIPT`` (``-lc``, ``-o opt`` handled), else a heredoc or here-string on stdin."""
    has_c = False
    index = 0
    while index < len(args):
        arg = args[index]
        if arg is None:
            return _Script(None) if has_c else None
        if arg.startswith("--command="):  # fish
            return _Script(arg.removeprefix("--command="))
        if arg in ("--", "-"):
            index += 1
            break
        if arg[:1] in ("-", "+") and len(arg) > 1:
            is_cluster = not arg.startswith("--")
            has_c = has_c or arg == "--command" or (is_cluster and arg[0] == "-" and "c" in arg)
            takes_value = arg in SHELL_VALUE_OPTIONS or (
                is_cluster and len(arg) > 2 and arg[-1] in "oO"  # `-eo pipefail`
            )
            index += 2 if takes_value else 1
            continue
        break
    if has_c:
        return _Script(args[index]) if index < len(args) else None
    if index < len(args):
        return None  # a script file: its text is not on the line
    return _stdin_script(redirects)


def _stdin_script(redirects: list[Node]) -> _Script | None:
    for redirect in redirects:
        if redirect.type == "herestring_redirect":
            value = redirect.named_children[-1] if redirect.named_children else None
            return _Script(_literal(value) if value is not None else None)
        if redirect.type == "heredoc_redirect":
            return _Script(_heredoc_text(redirect))
    return None


def _heredoc_text(redirect: Node) -> str | None:
    start = next((c for c in redirect.children if c.type == "heredoc_start"), None)
    body = next((c for c in redirect.children if c.type == "heredoc_body"), None)
    if body is None:
        return ""
    if start is not None and any(ch in _text(start) for ch in "'\"\\"):
        return _text(body)
    if any(child.type in _EXPANSIONS for child in body.named_children):
        return None  # the body is filled in when the line runs
    return re.sub(r"\\(?:([\\`$])|\n)", lambda m: m.group(1) or "", _text(body))


# -- words -----------------------------------------------------------------------------------


def _literal(node: Node | None) -> str | None:
    """The word's value after quote removal; None when part of it is only known at run time."""
    if node is None:
        return None
    text = _text(node)
    match node.type:
        case "command_name":
            return _literal(node.named_children[0]) if node.named_child_count == 1 else None
        case "word" | "number":
            return re.sub(r"\\(\n|.)", lambda m: "" if m.group(1) == "\n" else m.group(1), text)
        case "raw_string":
            return text[1:-1]
        case "ansi_c_string":
            return read_ansi_c(text[2:-1])
        case "string":
            return _string_literal(node)
        case "translated_string":
            return _literal(node.named_children[0]) if node.named_child_count == 1 else None
        case "concatenation":
            pieces = [_literal(child) for child in node.named_children]
            return None if None in pieces else "".join(pieces)  # type: ignore[arg-type]
    return None


def _named_tail(node: Node) -> str | None:
    """The literal path after a program word's last expansion, when it names the program:
    ``"$VENV/bin/pytest"`` → ``/bin/pytest``; ``$X``, ``$D$N`` and ``${X}s`` → None."""
    pieces = _pieces(node)
    last = max((i for i, piece in enumerate(pieces) if piece is None), default=-1)
    tail = "".join(piece for piece in pieces[last + 1 :] if piece is not None)
    name = tail.rsplit("/", 1)[-1]
    return tail if "/" in tail and _PLAIN_NAME.fullmatch(name) else None


def _pieces(node: Node) -> list[str | None]:
    """A word's pieces in order: each literal text, or None for what is filled in at run time."""
    match node.type:
        case "command_name" | "concatenation":
            return [piece for child in node.named_children for piece in _pieces(child)]
        case "string":
            return [
                _string_content(child) if child.type == "string_content" else None
                for child in node.named_children
            ]
    return [_literal(node)]


def _string_literal(node: Node) -> str | None:
    pieces = [
        _string_content(child) if child.type == "string_content" else None
        for child in node.named_children
    ]
    return None if None in pieces else "".join(pieces)  # type: ignore[arg-type]


def _string_content(node: Node) -> str:
    return re.sub(r'\\(?:([\\"$`])|\n)', lambda m: m.group(1) or "", _text(node))


_ANSI_C_ESCAPE = re.compile(
    r"\\(?:x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})|([0-7]{1,3})|c(.)|(.))",
    re.DOTALL,
)
_ANSI_C_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n",
                  "r": "\r", "t": "\t", "v": "\v"}  # fmt: skip


def _ansi_c_char(match: re.Match[str]) -> str:
    hex2, hex4, hex8, octal, control, other = match.groups()
    if number := hex2 or hex4 or hex8:
        return chr(min(int(number, 16), 0x10FFFF))
    if octal:
        return chr(int(octal, 8) & 0xFF)
    if control:
        return chr(ord(control) & 0x1F)
    return _ANSI_C_SIMPLE.get(other, other)


# -- text ------------------------------------------------------------------------------------


def _text(node: Node | None) -> str:
    if node is None:
        return ""
    return (node.text or b"").decode("utf-8", "surrogateescape")


def _statement_text(statement: Node) -> str:
    """The statement's text, redirections and heredoc bodies included, minus commands that a
    heredoc line carries after its delimiter (``cat <<EOF | sh``): those are parts of their own."""
    cut = [
        child
        for redirect in statement.children
        if redirect.type == "heredoc_redirect"
        for child in redirect.children
        if child.type not in _HEREDOC_OWN
    ]
    source = statement.text or b""
    base = statement.start_byte
    pieces: list[bytes] = []
    position = 0
    for child in cut:
        pieces.append(source[position : child.start_byte - base].rstrip(b" \t"))
        position = child.end_byte - base
    pieces.append(source[position:])
    return b"".join(pieces).decode("utf-8", "surrogateescape").strip()


def _is_pattern_word(raw: str) -> bool:
    """Whether a word's unquoted text holds a glob or a brace expansion, so bash rewrites it."""
    if raw in ("[", "[["):
        return False
    bare = _QUOTED_OR_ESCAPED.sub("", raw)
    return bool(re.search(r"[*?[]|\{[^{}]*(?:,|\.\.)[^{}]*\}", bare))


_QUOTED_OR_ESCAPED = re.compile(r"\\.|'[^']*'|" r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def _has_joined_words(command: Node) -> bool:
    """Whether a backslash-newline sits between two words with no space: bash joins them
    (``r\\<newline>m`` is ``rm``), the grammar does not."""
    source, base = command.text or b"", command.start_byte
    children = command.named_children
    return any(
        re.fullmatch(rb"(?:\\\n)+", source[left.end_byte - base : right.start_byte - base])
        for left, right in itertools.pairwise(children)
    )


def _inside_string(node: Node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type == "string":
            return True
        if parent.type in ("command", "program", "command_substitution"):
            return False
        parent = parent.parent
    return False


def _writes_file(redirects: list[Node]) -> bool:
    for redirect in redirects:
        if redirect.type != "file_redirect":
            continue
        operator = next((c.type for c in redirect.children if not c.is_named), "")
        destination = redirect.child_by_field_name("destination")
        target = _text(destination)
        if operator in _WRITING_REDIRECTS and target not in _HARMLESS_TARGETS:
            return True
    return False
