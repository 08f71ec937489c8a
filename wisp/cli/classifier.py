"""``wisp classifier train``: the command classifier learnt from labelled commands and written
under ``WISP_HOME`` for the gate (docs/policy.md, "The classifier"). Its own audited session,
entry point ``classifier``, recording one ``classifier.train``."""

from __future__ import annotations

import argparse
from pathlib import Path

import msgspec

from wisp.audit.kinds import ClassifierTrain
from wisp.cli.context import Context, command_session
from wisp.errors import WispError
from wisp.home import ensure_private_dir, replace_atomically
from wisp.policy.classifier.examples import BUNDLED, Example, bundled_examples, read_examples
from wisp.policy.classifier.trained_judge import model_path

EPILOG = """\
examples:
  wisp classifier train                       learn from the bundled labelled commands
  wisp classifier train --examples mine.jsonl learn from your own (one JSON object a line:
                                              {"command": "make deploy", "label": "dangerous"})

The model is written to $WISP_HOME/classifier/model.json (0600); the gate reads it when a
session starts, under commandPolicy.classifier.mode trained (the default). Lines whose split is
heldout are never learnt from. Training needs scikit-learn (pip install 'wisp[classifier]');
the gate does not. Recorded in the audit log as classifier.train (entryPoint classifier)."""


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "classifier",
        help="Train the classifier that rates commands the rules do not know.",
        description="Train the classifier that gives a second opinion on commands the rules "
        "do not know.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(title="actions", metavar="ACTION", dest="action")
    training = actions.add_parser(
        "train",
        help="Learn from labelled commands and write the model.",
        description="Learn from labelled commands and write the model the gate reads.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    training.add_argument(
        "--examples", type=Path, metavar="FILE", help="your own labelled commands (JSON lines)"
    )
    training.add_argument("--json", action="store_true", help="print the recorded event as JSON")
    training.set_defaults(handler=run_train)
    parser.set_defaults(handler=lambda args, context: _usage(parser, context))


def _usage(parser: argparse.ArgumentParser, context: Context) -> int:
    parser.print_help(context.stderr)
    return 2


def run_train(args: argparse.Namespace, context: Context) -> int:
    examples, source = _examples(args.examples)
    try:
        from wisp.policy.classifier.training import train
    except ImportError as exc:  # scikit-learn is an extra: only training needs it
        raise WispError(
            f"wisp classifier train needs scikit-learn ({exc.name} is missing): "
            "pip install 'wisp[classifier]'"
        ) from exc
    with command_session(context, "classifier") as log:
        trained = train(examples, source)
        path = model_path(context.home.root)
        ensure_private_dir(path.parent)
        replace_atomically(path, msgspec.json.encode(trained.model))
        event = ClassifierTrain(
            path=str(path),
            examples_source=source,
            examples=len(examples),
            per_level=trained.per_level,
            training_accuracy=trained.training_accuracy,
            seconds=trained.seconds,
        )
        log.record(event)
    if args.json:
        print(msgspec.json.encode(event).decode(), file=context.stdout, flush=True)
        return 0
    counts = ", ".join(f"{level} {count:,}" for level, count in trained.per_level.items())
    print(
        f"trained on {len(examples):,} examples ({source}: {counts}); it labels "
        f"{trained.training_accuracy:.1%} of them back\nmodel: {path} "
        f"({trained.model.version}, {len(trained.model.vocabulary):,} features)",
        file=context.stdout,
        flush=True,
    )
    return 0


def _examples(path: Path | None) -> tuple[list[Example], str]:
    """The examples to learn from, the held-out ones left out, and where they come from."""
    if path is None:
        examples, source = bundled_examples(), BUNDLED
    else:
        examples, source = read_examples(path), str(path.resolve())
    kept = [example for example in examples if example.split != "heldout"]
    if not kept:
        raise WispError(f"{source}: every example is held out; none to learn from")
    return kept, source
