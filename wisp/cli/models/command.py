"""``wisp models``: list every model wisp can see; enable, disable, check or pull one.

``list`` asks every runtime at once and never waits long (``wisp.models.catalog``). ``enable``
and ``disable`` edit ``models.disabled``; ``check`` asks a model three short questions and
records what it can do under ``<scheme>.models.<name>``; ``pull`` fetches a GGUF from the
Hugging Face Hub (``models_pull_hf``) or has Ollama fetch a model (``models_pull``).
The commands that change something run as an audited session (``entryPoint: models``).

Chat's ``/models`` uses ``picker_rows`` from here, and ``canonical``, ``disabled_list`` and
``set_disabled`` (from ``wisp.cli.models.disabled``) through here. This module imports
neither httpx nor asyncio at startup (``wisp logs`` shares the parser); handlers import them.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgspec

from wisp.agent.types import CAPABILITY_WORDS
from wisp.cli.context import Context
from wisp.cli.models.disabled import canonical, check_names, disabled_list, set_disabled, toggle
from wisp.cli.models.session import audited_session, say_all, say_on
from wisp.cli.models.table import (
    muted,
    piped_lines,
    piped_route_lines,
    terminal_lines,
    terminal_route_lines,
    unreachable_line,
)
from wisp.config import locked_config
from wisp.errors import WispError
from wisp.models.selection import parse_selection
from wisp.models.suggested import suggestion_lines

if TYPE_CHECKING:
    import httpx

    from wisp.models.catalog import Catalog, ModelRow, Unreachable
    from wisp.routing.router import TaskRoute

# What others take from here: main's parser, and chat's /models (wisp.cli.chat.session).
__all__ = ["add_parser", "canonical", "disabled_list", "picker_rows", "set_disabled"]

DESCRIPTION = """\
List the models wisp can use: the embedded local model, every model of every runtime that
answers (Ollama, llama.cpp's llama-server, LM Studio, an OpenAI-compatible server) and the
configured ones. Enable, disable, check or pull one (from the Hugging Face Hub or Ollama)."""

EPILOG = """\
examples:
  wisp models                         every model, * marking the default
  wisp models --json                  {"models": [...], "unreachable": [...], "routes": [...]}
  wisp models disable ollama:qwen3    hidden from /model and refused until enabled
  wisp models enable ollama:qwen3     a model with no recorded capabilities is checked first
  wisp models check local             ask three short questions; record what it can do
  wisp models pull hf:Qwen/Qwen2.5-1.5B-Instruct-GGUF
                                      a GGUF from the Hugging Face Hub, then -m local:NAME
  wisp models pull ollama:qwen3:8b    have Ollama download a model, with progress

Under the models, the routed tasks: the model each call wisp makes of its own accord (assess,
draft, scan, …) would go to now, and why: routing.tasks.<task>, else the smallest enabled model
whose recorded check passed what the task needs, else the conversation's model (the default,
for a conversation's tasks), else local. A runtime that does not answer within about a second
is one line on stderr saying so. The commands that change something (enable, disable, check,
pull) are recorded in the audit log.

capabilities, and their names in config.json (<scheme>.models.<name>.capabilities):
""" + "\n".join(f"  {word:<20}{name}" for name, word in CAPABILITY_WORDS.items())


PULL_DESCRIPTION = """\
hf:OWNER/REPO[/FILE.gguf]: download a GGUF file from the Hugging Face Hub into its cache
(HF_HOME, HF_HUB_CACHE), checked against the Hub's SHA-256; it is then local:NAME, NAME being
the file's name without .gguf. With no FILE, wisp chooses the repository's Q4_K_M file (or its
only GGUF) and says so. A publisher not in models.trustedPublishers is asked about on a
terminal, refused elsewhere unless --yes. Ctrl-C keeps what arrived; pull again to resume.

ollama:NAME: have Ollama download a model (POST /api/pull); Ctrl-C stops it, and Ollama resumes
from what arrived next time."""


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "models",
        help="List the models wisp can use; enable, disable, check or pull one.",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--json", action="store_true", help="print the listing as one JSON object")
    parser.set_defaults(handler=run_list)
    actions = parser.add_subparsers(title="actions", metavar="ACTION", dest="action")

    listing = actions.add_parser("list", help="List every model (the default action).")
    listing.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS,
        help="print the listing as one JSON object",
    )  # fmt: skip
    listing.set_defaults(handler=run_list)

    for name, helped in (
        ("enable", "Turn models on again; one with no recorded capabilities is checked first."),
        ("disable", "Turn models off: hidden from /model and refused until enabled."),
        ("check", "Ask models three short questions and record what they can do."),
    ):
        action = actions.add_parser(name, help=helped, description=helped)
        action.add_argument(
            "models", nargs="+", metavar="MODEL", help="a selection: local, ollama:NAME, …"
        )
        action.set_defaults(handler=HANDLERS[name])

    pull = actions.add_parser(
        "pull",
        help="Download a model: a GGUF from the Hugging Face Hub, or an Ollama model.",
        description=PULL_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    pull.add_argument(
        "model",
        metavar="MODEL",
        help="hf:OWNER/REPO[/FILE.gguf] (for local:NAME), or ollama:NAME such as ollama:qwen3:8b",
    )
    pull.add_argument(
        "--yes",
        action="store_true",
        help="trust the repository's publisher for this pull (see models.trustedPublishers)",
    )
    pull.set_defaults(handler=run_pull)


# -- list --------------------------------------------------------------------------------------


class Listing(msgspec.Struct, kw_only=True):
    """``wisp models --json``: every model, every runtime that did not answer, and where each
    routed task would go."""

    models: list[ModelRow]
    unreachable: list[Unreachable]
    routes: list[TaskRoute]


async def picker_rows(
    config: Any,
    environ: Any,
    *,
    in_use: str | None,
    client: httpx.AsyncClient | None = None,
) -> Catalog:
    """The listing for chat's ``/models``: ``in_use`` is the conversation's model."""
    from wisp.models.catalog import list_models

    if client is not None:
        return await list_models(config, environ, client, in_use=in_use)
    import httpx

    async with httpx.AsyncClient() as own:
        return await list_models(config, environ, own, in_use=in_use)


def run_list(args: argparse.Namespace, context: Context) -> int:
    import asyncio

    from wisp.routing.router import task_routes

    config = context.load_config()
    catalog = asyncio.run(picker_rows(config, context.environ, in_use=config.settings.model))
    routes = task_routes(config, config.settings.model)
    if args.json:
        listing = Listing(models=catalog.models, unreachable=catalog.unreachable, routes=routes)
        print(msgspec.json.encode(listing).decode(), file=context.stdout, flush=True)
        return 0
    if context.stdout.isatty():
        width, color = _terminal_width(context), _has_color(context)
        lines = terminal_lines(catalog.models, width, color=color)
        lines += terminal_route_lines(routes, width, color=color)
    else:
        lines = piped_lines(catalog.models) + piped_route_lines(routes)
    if context.stdout.isatty():
        # For a person, not for a pipe: what to pull for a model that can use tools.
        lines += ["", *(muted(line, _has_color(context)) for line in suggestion_lines())]
    print("\n".join(lines), file=context.stdout, flush=True)
    color = context.stderr.isatty() and _has_color(context)
    for runtime in catalog.unreachable:
        print(muted(unreachable_line(runtime), color), file=context.stderr, flush=True)
    return 0


def _terminal_width(context: Context) -> int:
    try:
        return os.get_terminal_size(context.stdout.fileno()).columns
    except (OSError, ValueError, AttributeError):
        columns = context.environ.get("COLUMNS", "")
        return int(columns) if columns.isdigit() and int(columns) > 0 else 80


def _has_color(context: Context) -> bool:
    return not context.environ.get("NO_COLOR")


# -- enable and disable ------------------------------------------------------------------------


def run_disable(args: argparse.Namespace, context: Context) -> int:
    check_names(args.models)
    with audited_session(context, args.models[0]) as record:
        with locked_config(context.home.config_file) as config:
            notes = toggle(config, enable=[], disable=args.models, record=record, source="cli")
        say_all(context, notes)
    return 0


def run_enable(args: argparse.Namespace, context: Context) -> int:
    import asyncio

    from wisp.cli.models.check import enable_checked

    check_names(args.models)
    with audited_session(context, args.models[0]) as record:
        return asyncio.run(enable_checked(context, args.models, record=record, say=say_on(context)))


# -- check and pull ----------------------------------------------------------------------------


def run_check(args: argparse.Namespace, context: Context) -> int:
    import asyncio

    from wisp.cli.models.check import check_all

    check_names(args.models)
    with audited_session(context, args.models[0]) as record:
        return asyncio.run(check_all(context, args.models, record=record, say=say_on(context)))


PULL_ELSEWHERE = {
    "llamacpp": "llama.cpp loads models itself: start llama-server with -hf <repo>[:quant] or "
    "-m <file.gguf>",
    "lmstudio": "download it in LM Studio, or with lms get",
    "local": "local models are GGUF files: pull one from the Hugging Face Hub with "
    "wisp models pull hf:OWNER/REPO, or choose local:/path/to/model.gguf",
}


def run_pull(args: argparse.Namespace, context: Context) -> int:
    import asyncio

    from wisp.cli.models.pull import pull_model

    selection = parse_selection(args.model)
    if selection.scheme == "hf":
        from wisp.cli.models.pull_hf import pull_from_hub

        with audited_session(context, selection.canonical) as record:
            return pull_from_hub(context, selection.name, yes=args.yes, record=record)
    if selection.scheme != "ollama":
        raise WispError(
            PULL_ELSEWHERE.get(selection.scheme, f"{selection.scheme} models cannot be pulled")
        )
    with audited_session(context, selection.canonical) as record:
        config = context.load_config()
        return asyncio.run(pull_model(context, config, selection.name, record=record))


HANDLERS: dict[str, Callable[[argparse.Namespace, Context], int]] = {
    "enable": run_enable,
    "disable": run_disable,
    "check": run_check,
}
