"""``wisp facts``: the permanent facts every conversation carries, listed and deleted from the
shell, and the facts proposed to keep, answered (docs/turn.md, "Facts")."""

from __future__ import annotations

import argparse

import msgspec

from wisp.audit import AuditLog, open_sink
from wisp.audit.kinds import FactDeleted, SessionStart
from wisp.cli.answering.terminal import Record, run_answering
from wisp.cli.context import Context, audit_settings
from wisp.desk.fact import FACT, FactDecision, FactProposal, apply_handed_over
from wisp.facts.book import Fact, FactBook, FactError
from wisp.facts.shared import SharedFacts

EPILOG = """\
examples:
  wisp facts                       the permanent facts in force
  wisp facts list --all            every one ever kept, deleted and replaced ones too
  wisp facts list --json           as JSON, one object a fact
  wisp facts delete p3             left out of every conversation from now on (kept, marked)
  wisp facts pending               facts a wisp mcp caller (or its model) asks you to keep
  wisp facts keep 3f9a1c2e         keep that one for every conversation
  wisp facts drop 3f9a1c2e         leave it to the thread that proposed it

Permanent facts live in $WISP_HOME/facts.json. Only you make one: with /fact ID permanent
in chat or wisp-tui, /facts keep in chat, or keep here; a caller or a model only proposes.
pending, keep and drop need a terminal on stdin. Each run is a session of its own in the
audit log (entryPoint facts): fact.deleted, approval.answered, and for a proposal whose
server has stopped, fact.scope.changed and approval.settled. See docs/turn.md, "Facts"."""


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "facts",
        help="List and delete the permanent facts; keep or drop those proposed.",
        description="List and delete the permanent facts every conversation carries, and "
        "keep or drop the facts a wisp mcp caller (or its model) proposes to keep.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(title="actions", metavar="ACTION", dest="action")
    listing = actions.add_parser("list", help="The permanent facts in force (the default).")
    listing.add_argument("--all", action="store_true", help="deleted and replaced ones too")
    listing.add_argument("--json", action="store_true", help="one JSON object a fact")
    listing.set_defaults(handler=run_list)
    deleting = actions.add_parser("delete", help="Delete a permanent fact (it stays, marked).")
    deleting.add_argument("id", metavar="ID", help="the fact's id, such as p3")
    deleting.set_defaults(handler=run_delete)
    actions.add_parser("pending", help="The facts proposed to keep, waiting for you.")
    verbs = (
        ("keep", "keep a proposed fact for every conversation"),
        ("drop", "leave a proposed fact to the thread that proposed it"),
    )
    for verb, text in verbs:
        answering = actions.add_parser(verb, help=text.capitalize() + ".")
        answering.add_argument("id", metavar="ID", help="the proposal's id (wisp facts pending)")
    parser.set_defaults(handler=run_list, all=False, json=False)
    for action in ("pending", "keep", "drop"):
        actions.choices[action].set_defaults(handler=run_proposals)


def run_proposals(args: argparse.Namespace, context: Context) -> int:
    """``pending``, ``keep ID`` or ``drop ID``: the desk's proposals, answered at a terminal."""
    if args.action == "pending":
        return run_answering(context, FACT, "list proposals", None, None)
    home = context.home.root

    def applied(proposal: FactProposal, answer: FactDecision, record: Record) -> str | None:
        return apply_handed_over(home, proposal, answer, record)

    return run_answering(context, FACT, args.action, args.id, args.action, then=applied)


def run_list(args: argparse.Namespace, context: Context) -> int:
    book = FactBook(_read(context))
    facts = list(book) if args.all else book.in_force()
    if not facts and not args.json:
        print("no permanent facts (keep one with /fact ID permanent in chat)", file=context.stderr)
    for fact in facts:
        line = msgspec.json.encode(_shown(fact)).decode() if args.json else _line(fact)
        print(line, file=context.stdout)
    return 0


def run_delete(args: argparse.Namespace, context: Context) -> int:
    shared = SharedFacts(context.home.root)
    book = FactBook(_read(context))
    if args.id not in {fact.id for fact in book}:
        raise FactError(f"no permanent fact {args.id!r} (wisp facts list --all lists them)")
    fact = book.get(args.id)
    if fact.deleted:
        raise FactError(f"fact {fact.id} is already deleted")
    shared.mark(fact.id, deleted=True)
    config = context.load_config()
    log = AuditLog(open_sink(audit_settings(config), context.home.audit_file))
    try:
        log.record(SessionStart(entry_point="facts", tools=[], model=""))
        log.record(
            FactDeleted(
                id=fact.id, subject=fact.subject, name=fact.name, source=fact.source,
                value=fact.value, by="person",
            )
        )  # fmt: skip
    finally:
        log.close()
    print(f"fact {fact.id} deleted: no conversation carries it from now on", file=context.stdout)
    return 0


def _read(context: Context) -> list[Fact]:
    return SharedFacts(context.home.root).read()


def _line(fact: Fact) -> str:
    standing = "deleted" if fact.deleted else ""
    if fact.superseded_by is not None:
        standing = f"replaced by {fact.superseded_by}"
    said = f"{fact.id:<4} {fact.subject} {fact.name} = {fact.value}  ({fact.source}"
    return said + (f", {standing})" if standing else ")")


def _shown(fact: Fact) -> dict[str, object]:
    return {
        "id": fact.id, "subject": fact.subject, "name": fact.name, "value": fact.value,
        "source": fact.source, "deleted": fact.deleted, "supersededBy": fact.superseded_by,
    }  # fmt: skip
