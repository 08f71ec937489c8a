"""Split a command line into the simple commands it would run, outermost first.

This module is the walk over tree-sitter-bash's tree; what a command's words mean is read by its
neighbours: ``shell_words`` (a word's value after quote removal), ``program`` (wrappers looked
through, the program and its verb), ``scripts`` (the script a command hands to a shell, ``eval``,
``trap``) and ``normalised`` (the forms the deny list matches).

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
"""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING

import msgspec
import tree_sitter_bash
from tree_sitter import Language, Parser

from wisp.policy.facts import Pipelines, facts_of, writes_of
from wisp.policy.normalised import normalised_forms, reads_pipe
from wisp.policy.program import resolve
from wisp.policy.scripts import defines_alias, has_quoted_delimiter, script_of, split_string
from wisp.policy.shell_words import literal, named_tail, node_text
from wisp.policy.types import CommandFacts, SimpleCommand

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["MAX_LEVELS", "split_line"]

MAX_LEVELS = 8
"""How deep substitutions, subshells and nested scripts are followed; deeper text is one command."""

# A `$(` or backtick not escaped by a backslash: a substitution the grammar left unread.
_UNREAD = re.compile(r"(?:^|[^\\])(?:\\\\)*(?:\$\(|`)")
# What a heredoc redirect holds of its own; anything else there (`cat <<EOF | sh`) is a command.
_HEREDOC_OWN = frozenset(
    {"<<", "<<-", "heredoc_start", "heredoc_body", "heredoc_end", "file_redirect",
     "herestring_redirect"}
)  # fmt: skip
# Where an assignment is part of something else, not a statement of its own.
_HOLDS_ASSIGNMENTS = frozenset(
    {"variable_assignments", "c_style_for_statement", "command", "declaration_command"}
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


# -- the walk ------------------------------------------------------------------------------------


class _Splitter(msgspec.Struct):
    parser: Parser
    parts: list[SimpleCommand] = msgspec.field(default_factory=list)
    inherited: tuple[str, ...] = ()
    """What feeds the stdin of the shell whose script is being read (``curl x | sh -c 'sh'``)."""
    pipelines: Pipelines = msgspec.field(default_factory=Pipelines)

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
            self.parts.append(_unreadable(node_text(node)))
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
        body = node_text(node)[1:-1]
        body = re.sub(r"\\([\\`$])", r"\1", body)
        if _inside_string(node):
            body = body.replace('\\"', '"')
        self._reparse(body, level)

    def _check_leaf(self, node: Node) -> None:
        if _UNREAD.search(node_text(node)):
            self.parts.append(_unreadable(node_text(node)))

    def _heredoc(self, node: Node, level: int) -> None:
        is_quoted = has_quoted_delimiter(node)
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
                    facts = CommandFacts(writes=writes_of(redirects))
                    text = _statement_text(node)
                    self.parts.append(_command_part(text, None, is_exact=True, facts=facts))
                if body is not None:
                    self._walk(body, level)
        for redirect in redirects:
            self._walk(redirect, level)

    def _assignment(self, node: Node, level: int) -> None:
        # Only an assignment standing alone reaches here (`FOO=1`, `a=(1 2)`): it has no program.
        if node.parent is None or node.parent.type not in _HOLDS_ASSIGNMENTS:
            self.parts.append(_command_part(node_text(node), None, is_exact=True))
        self._walk_children(node, level)

    def _builtin(self, node: Node, statement: Node, level: int) -> None:
        """`export`, `unset`, `[[ … ]]`, `[ … ]`, `(( … ))`: the first token is the program."""
        program = node_text(node.children[0]) if node.children else None
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
        values = [literal(word) for word in words]
        resolved = resolve(values)
        has_computed_folder = False
        if resolved.is_dynamic and (tail := named_tail(words[resolved.index])) is not None:
            values[resolved.index] = tail  # `"$VENV/bin/pytest"`: only the folder is computed
            resolved = resolve(values)
            has_computed_folder = True
        redirects = [*node.children_by_field_name("redirect")]
        if statement is not node:
            redirects += statement.children_by_field_name("redirect")
        script = split_string(values, resolved) or script_of(resolved, redirects)
        readable = not (
            resolved.is_dynamic
            or (script is not None and script.text is None)
            or _is_pattern_word(node_text(words[resolved.index]))  # `/bin/r?`, `{rm,-rf,x}`
            or _has_joined_words(node)
            or resolved.name == "coproc"  # the grammar does not know it: its body is unread
            or defines_alias(resolved)  # later names on the line are no longer what they say
        )
        first = words[resolved.index + 1] if resolved.index + 1 < len(words) else None
        is_exact = resolved.is_exact or has_computed_folder or node_text(first).startswith("(")
        forms: tuple[str, ...] = ()
        if readable:
            shown = [node_text(w) if v is None else v for w, v in zip(words, values, strict=True)]
            forms = normalised_forms(shown, resolved, reads_pipe=reads_pipe(statement))
        facts = facts_of(words, values, statement, redirects, self.inherited, self.pipelines)
        part = _command_part(
            text, resolved.name, resolved.verb, is_exact=is_exact, readable=readable,
            normalised=forms, facts=facts,
        )  # fmt: skip
        if has_computed_folder:
            part = msgspec.structs.replace(part, has_computed_folder=True)
        self.parts.append(part)
        self._walk_children(node, level)
        if script is not None and script.text is not None:
            outer, self.inherited = self.inherited, facts.stdin_feeds
            self._reparse(script.text, level)
            self.inherited = outer


def _command_part(
    text: str,
    name: str | None,
    verb: str | None = None,
    *,
    is_exact: bool,
    readable: bool = True,
    normalised: tuple[str, ...] = (),
    facts: CommandFacts | None = None,
) -> SimpleCommand:
    text = text.strip()
    if not readable or name is None or is_exact:
        return SimpleCommand(text, name, verb, text, None, readable, normalised, facts)
    if verb is not None:
        pattern, legacy = f"{name} {verb} *", f"{name} *"
        return SimpleCommand(text, name, verb, pattern, legacy, True, normalised, facts)
    return SimpleCommand(text, name, None, f"{name} *", None, True, normalised, facts)


def _unreadable(text: str) -> SimpleCommand:
    text = text.strip() or repr(text)
    return SimpleCommand(text, None, None, text, None, readable=False)


# -- the statement's text --------------------------------------------------------------------------


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
        target = node_text(destination)
        if operator in _WRITING_REDIRECTS and target not in _HARMLESS_TARGETS:
            return True
    return False
