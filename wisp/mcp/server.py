"""The MCP server: tools ``respond`` and ``close_thread``, the facts operation
``set_fact_scope``, the text jobs ``scan`` and ``redact``, the resources, progress, and the
audit of every call (docs/mcp.md). Built on the official SDK's low-level ``Server``, whose
hand-written schemas are these; stdio only."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import msgspec
from jsonschema import Draft202012Validator
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from wisp import __version__
from wisp.agent.events import AgentEvent, TurnResult
from wisp.agent.recorder import Recorder
from wisp.agent.side_calls import SideCalls
from wisp.audit.event import AuditEvent
from wisp.audit.kinds import McpRequest, McpResult
from wisp.mcp.facts import (
    FACT_SCHEMA,
    FACTS_A_CALL,
    SCOPE_SCHEMA,
    FactError,
    caller_facts,
    set_fact_scope,
)
from wisp.mcp.parked import with_answers, withdraw_parked
from wisp.mcp.progress import progress_message
from wisp.mcp.resources import OUTPUT_TEMPLATE, THREAD_TEMPLATE, Resources, UnknownResource
from wisp.mcp.results import TurnRecord, call_outputs, structured
from wisp.mcp.scanning import (
    REDACT_DESCRIPTION,
    SCAN_DESCRIPTION,
    TOOLS,
    TextJob,
    logged_arguments,
    text_schema,
)
from wisp.mcp.shaped import (
    ShapeError,
    asked_again,
    asked_for,
    check_schema,
    held_to,
    parsed,
)
from wisp.mcp.threads import (
    THREAD_ID,
    Thread,
    ThreadError,
    ThreadOpener,
    Threads,
    ThreadSpec,
    new_thread_id,
)

TOOL_ERRORS_FROM = "2025-11-25"
"""From this protocol version on, bad arguments are a tool error the model can read; before it,
a JSON-RPC ``invalid params`` error."""
STARTING_ONLY = ("instructions", "tools", "model", "commandTimeoutSeconds")
"""``respond``'s arguments that only a thread's first call may give."""


def respond_schema(offered: list[str]) -> dict[str, Any]:
    tools: dict[str, Any] = {"type": "string"}
    if offered:
        tools["enum"] = offered
    return {
        "type": "object",
        "properties": {
            "prompt": {"type": "string", "minLength": 1, "description": "What to ask wisp."},
            "thread_id": {
                "type": "string",
                "pattern": f"^{THREAD_ID.pattern}$",
                "description": "Continue this thread, or start it when unknown; omitted, a "
                "new thread is made and its id returned.",
            },
            "instructions": {
                "type": "string",
                "description": "Instructions for the whole thread (only when it starts).",
            },
            "tools": {
                "type": "array",
                "items": tools,
                "uniqueItems": True,
                "description": "The tools the thread may use (only when it starts); omitted, "
                "every tool the server offers but memory; [] for text only.",
            },
            "model": {
                "type": "string",
                "description": "The model the thread runs on (only when it starts); never "
                "falls back to another.",
            },
            "schema": {
                "type": "object",
                "description": "A JSON Schema the reply must fit; the parsed value is returned "
                "as output.",
            },
            "commandTimeoutSeconds": {
                "type": "integer",
                "minimum": 1,
                "description": "The thread's default time limit for a command (only when it "
                "starts).",
            },
            "facts": {
                "type": "array",
                "items": FACT_SCHEMA,
                "maxItems": FACTS_A_CALL,
                "description": "Facts the caller states before the prompt: every later request "
                "of the thread carries them (the person's own outrank them). Class permanent "
                "asks the person to keep one for every conversation; it waits for them.",
            },
        },
        "required": ["prompt"],
        "additionalProperties": False,
    }


CLOSE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"thread_id": {"type": "string", "pattern": f"^{THREAD_ID.pattern}$"}},
    "required": ["thread_id"],
    "additionalProperties": False,
}


class ServerParts(msgspec.Struct):
    """What the command line hands the server."""

    opener: ThreadOpener
    offered: list[str]
    """The tools the server offers a thread (after ``--tool`` and ``--no-tools``)."""
    recorder: Recorder
    """The server's own session (``entryPoint`` ``mcp``)."""
    output_dir: Path
    """``WISP_HOME/output``: kept outputs, by audit session."""
    config: Callable[[], Any]
    status: Callable[[], dict[str, Any]]
    scan_calls: SideCalls | None = None
    """Side calls routed for the thorough pass of a ``scan`` or ``redact`` on no thread,
    recorded on the server's session; None when the server has none."""


class WispServer:
    """The threads and the protocol's handlers."""

    def __init__(self, parts: ServerParts) -> None:
        self.parts = parts
        self.threads = Threads(
            parts.opener, ending=lambda thread: withdraw_parked(thread.conversation)
        )
        self.resources = Resources(
            self.threads, output_dir=parts.output_dir, config=parts.config, status=parts.status
        )
        self.schemas = {
            "respond": respond_schema(parts.offered),
            "close_thread": CLOSE_SCHEMA,
            "set_fact_scope": SCOPE_SCHEMA,
            **{tool: text_schema(tool, f"^{THREAD_ID.pattern}$") for tool in TOOLS},
        }
        self.server: Server[Any] = Server(
            "wisp",
            version=__version__,
            instructions="wisp runs a local model under its policy, sandbox and audit: hand it "
            "a task with respond; its commands wait for the person's approval.",
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_list_resources=self._list_resources,
            on_list_resource_templates=self._list_templates,
            on_read_resource=self._read_resource,
        )

    async def serve_stdio(self) -> None:
        """Serve until stdin closes; every thread is closed on the way out."""
        try:
            async with stdio_server() as (read, write):
                options = self.server.create_initialization_options()
                await self.server.run(read, write, options)
        finally:
            with anyio.CancelScope(shield=True):
                await self.threads.close_all()

    # -- tools --------------------------------------------------------------------------------

    async def _list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name="respond",
                    description="Hand wisp a task: a local model reads, runs commands (each "
                    "checked, confined and approved by the person) and answers, with the checks "
                    "chat prints (ran, cited entries, claims not done) in structuredContent.",
                    input_schema=self.schemas["respond"],
                ),
                types.Tool(
                    name="close_thread",
                    description="End a thread wisp keeps (its conversation is forgotten).",
                    input_schema=CLOSE_SCHEMA,
                ),
                types.Tool(
                    name="set_fact_scope",
                    description="Move a thread's fact to another scope. Permanent (every "
                    "conversation of this user) only asks: the person keeps or drops it.",
                    input_schema=SCOPE_SCHEMA,
                ),
                types.Tool(
                    name="scan", description=SCAN_DESCRIPTION, input_schema=self.schemas["scan"]
                ),
                types.Tool(
                    name="redact",
                    description=REDACT_DESCRIPTION,
                    input_schema=self.schemas["redact"],
                ),
            ]
        )

    async def _call_tool(
        self, ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        name, arguments = params.name, dict(params.arguments or {})
        call = "mcp-" + secrets.token_hex(6)
        recorder = self.parts.recorder
        logged = logged_arguments(name, arguments)
        recorder.record(McpRequest(tool=name, arguments=logged), call=call)
        started = time.monotonic()
        result = _error("the call was cancelled")
        try:
            result = await self._run_tool(ctx, name, arguments)
        except MCPError as exc:  # bad arguments, before 2025-11-25: a protocol error
            result = _error(exc.message)
            raise
        except Exception as exc:  # a fault of wisp's own: the client gets it as the error
            result = _error(f"wisp failed: {type(exc).__name__}: {exc}")
        finally:
            text = result.content[0].text if result.content else ""  # type: ignore[union-attr]
            outcome = McpResult(
                tool=name,
                is_error=bool(result.is_error),
                text=text,
                seconds=round(time.monotonic() - started, 3),
            )
            recorder.record(outcome, call=call)
        return result

    async def _run_tool(
        self, ctx: Any, name: str, arguments: dict[str, Any]
    ) -> types.CallToolResult:
        schema = self.schemas.get(name)
        if schema is None:
            return _error(f"unknown tool {name}: wisp offers {', '.join(self.schemas)}")
        problems = sorted(Draft202012Validator(schema).iter_errors(arguments), key=str)
        if problems:
            where = "/".join(str(step) for step in problems[0].absolute_path)
            message = f"{name}: {where + ': ' if where else ''}{problems[0].message}"
            if ctx.protocol_version < TOOL_ERRORS_FROM:
                raise MCPError(types.INVALID_PARAMS, message)
            return _error(message)
        if name == "close_thread":
            return await self._close(arguments["thread_id"])
        if name == "set_fact_scope":
            return await self._set_scope(arguments)
        if name in TOOLS:
            return await self._text_job(name, arguments)
        try:
            return await self._respond(ctx, arguments)
        except ThreadError as exc:
            return _error(str(exc))

    async def _close(self, thread_id: str) -> types.CallToolResult:
        if not await self.threads.close(thread_id):
            return _error(f"unknown thread {thread_id}")
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=f"closed thread {thread_id}")],
            structured_content={"thread_id": thread_id, "closed": True},
        )

    async def _respond(self, ctx: Any, arguments: dict[str, Any]) -> types.CallToolResult:
        schema = arguments.get("schema")
        if schema is not None and (problem := check_schema(schema)) is not None:
            return _error(problem)
        thread, created = await self._thread(ctx, arguments)
        async with thread.lock:
            if thread.closed or thread.opened is None:
                return _error(f"thread {thread.id} was closed")
            self.threads.touch(thread)
            if (problem := caller_facts(thread, arguments.get("facts", []))) is not None:
                return _error(problem)
            # Answers to questions parked in earlier calls lead this turn's prompt.
            prompt = with_answers(thread.conversation, arguments["prompt"])
            return await self._turns(ctx, thread, created, prompt, schema)

    async def _set_scope(self, arguments: dict[str, Any]) -> types.CallToolResult:
        thread = self.threads.get(arguments["thread_id"])
        if thread is None or thread.opened is None:
            return _error(f"unknown thread {arguments['thread_id']}")
        async with thread.lock:
            try:
                text, content = set_fact_scope(thread, arguments["fact"], arguments["scope"])
            except FactError as exc:
                return _error(str(exc))
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], structured_content=content
        )

    async def _text_job(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """A ``scan`` or ``redact``: on the named thread (its session, its model last for the
        thorough pass), else on the server's own."""
        if "thread_id" not in arguments:
            return await TextJob(self.parts.recorder.record, self.parts.scan_calls).run(
                name, arguments
            )
        thread = self.threads.get(arguments["thread_id"])
        if thread is None or thread.opened is None:
            return _error(f"unknown thread {arguments['thread_id']}")
        async with thread.lock:
            self.threads.touch(thread)
            conversation = thread.conversation
            job = TextJob(conversation.recorder.record, conversation.side_calls)
            return await job.run(name, arguments)

    async def _thread(self, ctx: Any, arguments: dict[str, Any]) -> tuple[Thread, bool]:
        thread_id = arguments.get("thread_id") or new_thread_id()
        thread = self.threads.get(thread_id)
        if thread is not None:
            given = [key for key in STARTING_ONLY if key in arguments]
            if given:
                raise ThreadError(
                    f"{', '.join(given)}: only when a thread starts; thread {thread_id} has "
                    "started (close it, or use a new thread_id)"
                )
            return thread, False
        wanted = arguments.get("tools")
        if wanted is not None and (extra := sorted(set(wanted) - set(self.parts.offered))):
            raise ThreadError(f"tools {', '.join(extra)}: not offered by this server")
        spec = ThreadSpec(
            instructions=arguments.get("instructions"),
            tools=wanted,
            model=arguments.get("model"),
            command_timeout_seconds=arguments.get("commandTimeoutSeconds"),
        )
        thread = Thread(thread_id, request=ctx)
        return await self.threads.open(thread, spec), True

    async def _turns(
        self, ctx: Any, thread: Thread, created: bool, prompt: str, schema: dict[str, Any] | None
    ) -> types.CallToolResult:
        record = TurnRecord()
        thread.request = ctx
        held = held_to(thread.conversation.resolved, schema)
        with _following(thread, record, ctx) as sent:
            result = await _turn(thread, asked_for(prompt, schema) if schema else prompt, held)
            shaped, problem = None, None
            if schema is not None and result.outcome == "ok":
                try:
                    shaped = parsed(result.text, schema)
                except ShapeError as first:
                    result = await _turn(thread, asked_again(str(first), schema), held)
                    if result.outcome == "ok":
                        try:
                            shaped = parsed(result.text, schema)
                        except ShapeError as second:
                            problem = f"the reply did not fit the schema, twice: {second}"
            await sent()
        thread.request = None
        thread.outputs.update(call_outputs(record))
        if result.outcome != "ok":
            return _error(_failure(result))
        content = structured(
            thread=thread.id,
            created=created,
            result=result,
            record=record,
            output_dir=self.parts.output_dir / thread.conversation.session,
            shaped=shaped,
        )
        if problem is not None:
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=problem)],
                structured_content=content,
                is_error=True,
            )
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=result.text)],
            structured_content=content,
        )

    # -- resources ------------------------------------------------------------------------------

    async def _list_resources(self, ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(uri=uri, name=name, description=about, mime_type="application/json")
                for uri, name, about in self.resources.fixed()
            ]
        )

    async def _list_templates(self, ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(
                    uri_template=THREAD_TEMPLATE,
                    name="thread",
                    description="A thread's entries, as its conversation holds them.",
                    mime_type="application/json",
                ),
                types.ResourceTemplate(
                    uri_template=OUTPUT_TEMPLATE,
                    name="output",
                    description="A call's output, whole (a result gives it as outputURI).",
                    mime_type="text/plain",
                ),
            ]
        )

    async def _read_resource(
        self, ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        try:
            mime, text = self.resources.read(uri)
        except UnknownResource as exc:
            raise MCPError(types.RESOURCE_NOT_FOUND, str(exc)) from exc
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=text)]
        )


async def _turn(thread: Thread, prompt: str, schema: dict[str, Any] | None = None) -> TurnResult:
    """One turn, its reply held to ``schema`` where the backend can; a client's cancellation
    stops it as Ctrl-C stops chat's, and the turn is still stored before the cancellation goes
    on."""
    conversation = thread.conversation
    running = asyncio.ensure_future(conversation.run_turn(prompt, schema=schema))
    try:
        return await asyncio.shield(running)
    except asyncio.CancelledError:
        conversation.stop()
        with anyio.CancelScope(shield=True):
            await asyncio.wait({running})
        raise


@contextlib.contextmanager
def _following(thread: Thread, record: TurnRecord, ctx: Any) -> Any:
    """While a call runs: every event the thread records goes to ``record`` and, in chat's
    words, to the client as progress. Yields a function that waits for the progress sent."""
    queue: asyncio.Queue[str | None] = asyncio.Queue()

    def follow(event: AgentEvent) -> None:
        if not isinstance(event, AuditEvent):
            return
        record.add(event.details, event.call)
        message = progress_message(event.details, event.call)
        if message is not None:
            queue.put_nowait(message)

    async def send() -> None:
        step = 0
        while (message := await queue.get()) is not None:
            step += 1
            with contextlib.suppress(Exception):  # a client gone mid-call loses its progress
                await ctx.session.report_progress(step, None, message)

    sender = asyncio.ensure_future(send())

    async def sent() -> None:
        queue.put_nowait(None)
        await sender

    try:
        with thread.conversation.subscribe(follow):
            yield sent
    finally:
        if not sender.done():
            queue.put_nowait(None)


def _failure(result: TurnResult) -> str:
    if result.outcome == "stopped":
        return "the turn was stopped"
    return result.error or "the turn failed"


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)], is_error=True
    )
