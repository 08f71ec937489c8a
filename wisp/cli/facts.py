"""``wisp facts``: the permanent facts every conversation carries, listed and deleted from the
shell (docs/turn.md, "Facts")."""

from __future__ import annotations

import argparse

import msgspec

from wisp.audit import AuditLog, open_sink
from wisp.audit.kinds import FactDeleted, SessionStart
from wisp.cli.context import Context, audit_settings
from wisp.facts.book import Fact, FactBook, FactError
from wisp.facts.shared import SharedFacts

EPILOG = """\
examples:
  wisp facts                       the permanent facts in force
  wisp facts list --all            every one ever kept, deleted and replaced ones too
  wisp facts list --json           as JSON, one object a fact
  wisp facts delete p3             left out of every conversation from now on (kept, marked)

Permanent facts live in $WISP_HOME/facts.json. A conversation's own fact becomes one with
/fact ID permanent in chat or wisp-tui; the model can only propose one. Each delete is
recorded in the audit log as fact.deleted, in a session of its own (entryPoint facts)."""


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "facts",
        help="List and delete the permanent facts every conversation carries.",
        description="List and delete the permanent facts every conversation carries.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.set_defaults(handler=run_list, all=False, json=False)
    actions = parser.add_subparsers(title="actions", metavar="ACTION", dest="action")
    listing = actions.add_parser("list", help="The permanent facts in force (the default).")
    listing.add_argument("--all", action="store_true", help="deleted and replaced ones too")
    listing.add_argument("--json", action="store_true", help="one JSON object a fact")
    listing.set_defaults(handler=run_list)
    deleting = actions.add_parser("delete", help="Delete a permanent fact (it stays, marked).")
    deleting.add_argument("id", metavar="ID", help="the fact's id, such as p3")
    deleting.set_defaults(handler=run_delete)


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
