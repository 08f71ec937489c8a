"""``wisp scan -- COMMAND…``: the command runs as a typed ``!`` command does in chat, through
the deny and allow lists and the sandbox, no approval asked (typing it was the approval), and
its output is what is scanned (docs/scan.md, "Output and exit codes")."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wisp.cli.context import Context
from wisp.cli.scanning.sources import Source, encode
from wisp.errors import WispError


class CommandRefused(WispError):
    """The command to scan did not run: the policy or the sandbox refused it."""


def command_words(args_argv: list[str], paths: list[str]) -> tuple[list[str], list[str]]:
    """The paths before ``--`` and the command after it (``[]`` when there is none)."""
    words = args_argv[1:]
    if "--" not in words:
        return paths, []
    command = words[words.index("--") + 1 :]
    return paths[: len(paths) - len(command)], command


async def command_output(
    command: list[str], context: Context, record: Callable[[Any], Any], max_bytes: int | None
) -> Source:
    """The command's stdout and stderr, as the source named by its line."""
    # Imported here: the runner brings in the tools, the policy and the sandbox, which a scan
    # of files (a pre-commit hook's) would otherwise wait for at every start.
    from wisp.cli.building.runner import typed_runner
    from wisp.tools.command_runner import Ran

    directory = Path.cwd()
    runner = typed_runner(context, directory, record)
    line = shlex.join(command)
    outcome = await runner.run_typed(line, directory, record=record)
    if not isinstance(outcome, Ran):
        raise CommandRefused(f"{line}: {outcome.reason}")
    data = encode(outcome.result.stdout + outcome.result.stderr)
    truncated = max_bytes is not None and len(data) > max_bytes
    data = data[:max_bytes] if truncated else data
    text = data.decode("utf-8", "surrogateescape")
    return Source(line, text, len(data), truncated, working_directory=str(directory))
