"""What the shell hands one simple command, read from tree-sitter-bash's tree: its words, which
programs' output reaches its words and its stdin, and where its redirections write.

The splitter records these with each command (``SimpleCommand.facts``); the deny list's judge of
what a command does (``effects``) reads them, so ``curl x | python3``, ``bash <(wget -O- x)``,
``python3 -c "$(curl x)"`` and ``cat img > /dev/sda`` are judged by where the data goes, not by
how the line is spelled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from wisp.policy.program import resolve
from wisp.policy.shell_words import literal, node_text
from wisp.policy.types import CommandFacts

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["Pipelines", "facts_of", "programs_in", "writes_of"]

# What hands its input on to the commands inside it, as normalised.reads_pipe reads it; loops
# too here, since `curl x | while read l; do python3; done` feeds python3 all the same.
_PASSES_INPUT = frozenset(
    {"subshell", "compound_statement", "redirected_statement", "list", "negated_command",
     "pipeline", "while_statement", "do_group", "if_statement", "else_clause", "elif_clause"}
)  # fmt: skip
_SUBSTITUTIONS = frozenset({"command_substitution", "process_substitution"})
_WRITING = frozenset({">", ">>", "&>", "&>>", ">|", "<>"})


class Pipelines(msgspec.Struct):
    """What each stage of the pipelines met so far reads from the stages before it, kept so that
    a pipeline of thousands of stages is read in linear time (docs/policy.md, "The approval
    gate"), not each stage's prefix again."""

    prefixes: dict[int, tuple[str, ...]] = msgspec.field(default_factory=dict)
    """By a stage's node id: the programs of the stages before it in its pipeline."""

    def before(self, pipeline: Node, stage: Node) -> tuple[str, ...]:
        """The programs of ``pipeline``'s stages before ``stage``."""
        if stage.id not in self.prefixes:
            seen: dict[str, None] = {}
            prefix: tuple[str, ...] = ()
            for child in pipeline.named_children:
                self.prefixes[child.id] = prefix
                count = len(seen)
                seen.update(dict.fromkeys(_all_programs(child)))
                if len(seen) != count:  # a new program: a new tuple, else the same one shared
                    prefix = tuple(seen)
        return self.prefixes.get(stage.id, ())


def facts_of(
    words: list[Node],
    values: list[str | None],
    statement: Node,
    redirects: list[Node],
    inherited: tuple[str, ...],
    pipelines: Pipelines,
) -> CommandFacts:
    """The facts of a command whose words are ``words`` (their values ``values``), standing in
    ``statement`` with ``redirects``; ``inherited`` feeds the shell whose script it is part of."""
    stdin = [*_upstream(statement, pipelines), *inherited]
    reads: list[str] = []
    for redirect in redirects:
        if redirect.type != "file_redirect" or _operator(redirect) in ("<", "<&", "<>"):
            stdin += programs_in(redirect)  # `< <(curl x)`, `<<< "$(curl x)"`, a heredoc's
        destination = redirect.child_by_field_name("destination")
        if redirect.type == "file_redirect" and _operator(redirect) == "<" and destination:
            reads.append(literal(destination) or node_text(destination))
    return CommandFacts(
        words=tuple(node_text(w) if v is None else v for w, v in zip(words, values, strict=True)),
        word_feeds=tuple(programs_in(word) for word in words),
        stdin_feeds=tuple(dict.fromkeys(stdin)),
        writes=writes_of(redirects),
        reads=tuple(reads),
    )  # fmt: skip


def writes_of(redirects: list[Node]) -> tuple[str, ...]:
    """Where the redirections write: each target's value, or its text where it is computed."""
    targets = []
    for redirect in redirects:
        destination = redirect.child_by_field_name("destination")
        if redirect.type == "file_redirect" and _operator(redirect) in _WRITING and destination:
            value = literal(destination)
            targets.append(node_text(destination) if value is None else value)
    return tuple(targets)


def programs_in(node: Node) -> tuple[str, ...]:
    """Each program run by the substitutions within ``node`` (the node itself included), with
    the wrappers it runs through: ``"$(busybox wget -O- x)"`` → ``busybox``, ``wget``."""
    names: list[str] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "command" and _inside_substitution(current, node):
            names += _program_names(current)
        stack.extend(current.named_children)
    return tuple(dict.fromkeys(names))


def _program_names(command: Node) -> list[str]:
    name = command.child_by_field_name("name")
    if name is None:
        return []
    words = [name, *command.children_by_field_name("argument")]
    program = resolve([literal(word) for word in words])
    return [*(wrapper for _, wrapper in program.layers), program.name or "$"]


def _inside_substitution(command: Node, top: Node) -> bool:
    node = command.parent
    while node is not None:
        if node.type in _SUBSTITUTIONS:
            return True
        if node == top:
            return False
        node = node.parent
    return False


def _upstream(statement: Node, pipelines: Pipelines) -> list[str]:
    """The programs earlier in each pipeline the statement's input comes through."""
    names: list[str] = []
    node = statement
    while (parent := node.parent) is not None:
        if parent.type == "process_substitution" and node_text(parent).startswith(">("):
            writer = _enclosing_command(parent)  # `curl x > >(sh)`, `curl x | tee >(sh)`
            if writer is not None:
                names += _program_names(writer) + _upstream(writer, pipelines)
            return names
        if parent.type not in _PASSES_INPUT:
            return names
        if parent.type == "pipeline":
            names += pipelines.before(parent, node)
        node = parent
    return names


def _enclosing_command(node: Node) -> Node | None:
    while (node := node.parent) is not None:  # type: ignore[assignment]
        if node.type == "command":
            return node
        if node.type == "redirected_statement":
            body = node.child_by_field_name("body")
            return body if body is not None and body.type == "command" else None
    return None


def _all_programs(node: Node) -> list[str]:
    names: list[str] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "command":
            names += _program_names(current)
        stack.extend(current.named_children)
    return names


def _operator(redirect: Node) -> str:
    return next((child.type for child in redirect.children if not child.is_named), "")
