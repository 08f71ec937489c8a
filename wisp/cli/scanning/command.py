"""``wisp scan`` and ``wisp redact``: secrets and personal data found in files, a folder, stdin
or a diff's added lines, reported or taken out (docs/scan.md). Each run is an audited session
of its own; the log records counts and kinds, never a value or a preview. Any error exits 2,
so that 1 always means findings (the convention pre-commit hooks follow)."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from wisp.audit import AuditLog
from wisp.cli.context import Context, command_session
from wisp.cli.scanning.command_source import command_output, command_words
from wisp.cli.scanning.reports import Reported, json_line, sarif, text_line
from wisp.cli.scanning.sources import (
    STDIN,
    Source,
    added_lines,
    encode,
    looks_like_diff,
    read_bytes,
    read_stdin,
    walk,
)
from wisp.cli.scanning.thorough import session_scanner
from wisp.errors import WispError
from wisp.home import replace_atomically
from wisp.scan import redact
from wisp.scan.job import redaction_event, scan_event

ERROR_EXIT = 2
FOUND_EXIT = 1

SCAN_EPILOG = """\
examples:
  wisp scan .                          every file git would see (.gitignore respected)
  wisp scan config/.env logs/app.log   those files
  cat out.log | wisp scan -            stdin
  git diff --cached | wisp scan --diff only the lines a commit adds, at their new numbers
  wisp scan --sarif . > wisp.sarif     for a code scanning service

exit status: 0 nothing found, 1 findings, 2 an error. A line shows at most a value's first
four characters; the audit log (entryPoint scan) records counts and kinds, never a value.
As a pre-commit hook (.git/hooks/pre-commit):
  git diff --cached | wisp scan --diff"""

REDACT_EPILOG = """\
examples:
  wisp redact app.log > shared.log     each value replaced by [REDACTED:KIND]
  wisp redact -o shared.log app.log    the same, written atomically
  wisp redact --in-place .env          the file itself, rewritten atomically
  cat transcript.txt | wisp redact -   stdin
  wisp redact --max-bytes 100000 big.log   at most that much read; the output says it was cut

Every byte outside a value stays as it was, and a value over several lines (a PEM key)
leaves its line breaks, so line numbers still match. exit status: 0 nothing found,
1 values replaced, 2 an error."""


class ScanError(WispError):
    """A source ``wisp scan`` or ``wisp redact`` could not read or write."""


def add_scan_parser(commands: argparse._SubParsersAction) -> None:
    parser = _parser(commands, "scan", "Find secrets and personal data.", SCAN_EPILOG)
    parser.add_argument(
        "--diff", action="store_true", help="the input is a unified diff: its added lines"
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="one JSON object a finding")
    output.add_argument("--sarif", action="store_true", help="a SARIF 2.1.0 log")
    parser.set_defaults(handler=run_scan)


def add_redact_parser(commands: argparse._SubParsersAction) -> None:
    parser = _parser(
        commands, "redact", "Write text with its secrets and personal data replaced.",
        REDACT_EPILOG,
    )  # fmt: skip
    parser.add_argument("-o", "--output", metavar="FILE", type=Path, help="write FILE instead")
    parser.add_argument(
        "--in-place", action="store_true", help="rewrite each file given (never by default)"
    )
    parser.set_defaults(handler=run_redact)


def _parser(
    commands: argparse._SubParsersAction, name: str, summary: str, epilog: str
) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        name,
        help=summary,
        description=summary,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "paths", nargs="*", metavar="PATH", help="files or folders; - for stdin (the default)"
    )
    parser.add_argument("--max-bytes", type=int, metavar="N", help="read at most N bytes a source")
    parser.add_argument(
        "--thorough",
        action="store_true",
        help=f"after the rules, a model reads the text for what they missed (routing.tasks.{name})",
    )
    parser.set_defaults(error_exit=ERROR_EXIT)
    return parser


def run_scan(args: argparse.Namespace, context: Context) -> int:
    return asyncio.run(_scan(args, context))


async def _scan(args: argparse.Namespace, context: Context) -> int:
    reported: list[Reported] = []
    with command_session(context, "scan") as log:
        async with session_scanner(context, log, "scan", thorough=args.thorough) as scanner:
            for source, diff in await _sources(args, context, log):
                scanned = await scanner.scan(source.text)
                for finding in scanned.findings:
                    line = finding.line if source.lines is None else source.lines[finding.line - 1]
                    value = source.text[finding.start : finding.end]
                    reported.append(
                        Reported(source.name, line, finding.column, finding.kind, value)
                    )
                event = scan_event(source.name, source.size, scanned, diff=diff)
                if source.working_directory is not None:
                    event.working_directory = source.working_directory
                log.record(event)
    if args.sarif:
        print(sarif(reported), file=context.stdout)
    for found in [] if args.sarif else reported:
        print(json_line(found) if args.json else text_line(found), file=context.stdout)
    return FOUND_EXIT if reported else 0


def run_redact(args: argparse.Namespace, context: Context) -> int:
    if args.in_place and (args.output or not args.paths or STDIN in args.paths):
        raise ScanError("--in-place rewrites the files named, so it takes paths and no -o")
    return asyncio.run(_redact(args, context))


async def _redact(args: argparse.Namespace, context: Context) -> int:
    replaced_any = False
    written: list[bytes] = []
    to_stdout = args.output is None and not args.in_place
    with command_session(context, "redact") as log:
        async with session_scanner(context, log, "redact", thorough=args.thorough) as scanner:
            for source, _ in await _sources(args, context, log, diffs=False):
                scanned = await scanner.scan(source.text)
                if not scanned.findings and source.raw is not None:
                    out = source.raw  # nothing to replace: the bytes as they came
                else:
                    out = encode(redact(source.text, scanned.findings))
                if source.truncated:
                    out += f"\n[wisp redact: truncated after {source.size} bytes]\n".encode()
                replaced_any = replaced_any or bool(scanned.findings)
                log.record(
                    redaction_event(
                        source.name, source.size, scanned,
                        bytes_out=len(out), truncated=source.truncated,
                    )
                )  # fmt: skip
                if args.in_place:
                    replace_atomically(Path(source.name), out)
                elif to_stdout:
                    _write(context, out)  # as each is done: a tree's text is never held whole
                else:
                    written.append(out)
    if args.output is not None:
        replace_atomically(args.output, b"".join(written))
    return FOUND_EXIT if replaced_any else 0


def _write(context: Context, data: bytes) -> None:
    """``data`` on stdout as bytes, so that what was not UTF-8 comes out as it went in."""
    context.stdout.flush()
    if (buffer := getattr(context.stdout, "buffer", None)) is not None:
        buffer.write(data)
        buffer.flush()
    else:
        context.stdout.write(data.decode("utf-8", "surrogateescape"))


async def _sources(
    args: argparse.Namespace, context: Context, log: AuditLog, diffs: bool = True
) -> list[tuple[Source, bool]]:
    """Each source read, and whether it is a diff's added lines."""
    sources: list[tuple[Source, bool]] = []
    binary = 0
    record = log.record
    paths, command = command_words(getattr(args, "argv", []), args.paths)
    if command:
        sources.append((await command_output(command, context, record, args.max_bytes), False))
    for name in paths or ([] if command else [STDIN]):
        if name == STDIN:
            read = [read_stdin(args.max_bytes)]
        else:
            if not Path(name).exists():
                raise ScanError(f"{name}: no such file or folder")
            found = walk(Path(name))
            binary += found.binary
            read = [_read(path, args.max_bytes) for path in found.files]
        for source in read:
            # Only stdin is taken for a diff unasked (`git diff | wisp scan`): a patch file in
            # a folder is scanned whole, since what it removes is in the repository too.
            detected = name == STDIN and looks_like_diff(source.text)
            if diffs and (getattr(args, "diff", False) or detected):
                sources.extend((added, True) for added in added_lines(source))
            else:
                sources.append((source, False))
    if binary:
        context.warn(f"{binary} binary file{'s' if binary != 1 else ''} skipped")
    return sources


def _read(path: Path, max_bytes: int | None) -> Source:
    try:
        return read_bytes(path.read_bytes(), str(path), max_bytes)
    except OSError as exc:
        raise ScanError(f"cannot read {path}: {exc.strerror or exc}") from exc
