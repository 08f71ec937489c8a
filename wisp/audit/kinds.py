"""Every audit kind and its details; docs/logging.md, "Kinds and their details", is made here.

One ``Details`` Struct per kind: its fields are the kind's details, camelCase on disk
(``details`` names the exceptions). Presence: a field every event of the kind has is required;
one that is "null when …" is ``T | None`` and always written; one that is "absent otherwise",
"when …", or belongs to one variant only is ``T | UnsetType = UNSET`` and left out when unset.

Importing this module fills ``wisp.audit.details.REGISTRY``; ``tests/audit/test_kinds.py`` checks it
field for field against its own list, and ``wisp.audit.docs`` renders it.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

from wisp.audit.details import Details, register

# Nested shapes. Like the details, their fields are camelCase on disk.


class Usage(msgspec.Struct, kw_only=True, rename="camel"):
    """The tokens a turn's requests used, as the runtime reported them."""

    input: int
    output: int
    cached: int
    reasoning: int


class OutputSweep(msgspec.Struct, kw_only=True, rename="camel"):
    """What a session start's sweep of the output store did."""

    removed: list[str]
    """The audit sessions whose stored outputs were removed, oldest first."""
    bytes: int
    """What their files took."""
    deferred: list[str]
    """Sessions old enough to go that the per-start bound left for a later start."""


class McpServerStart(msgspec.Struct, kw_only=True, rename="camel"):
    """One MCP server a session's conversations start (``mcpServers.NAME``): how it is reached
    and whether it runs confined, as the person configured it."""

    name: str
    transport: str
    """``stdio`` or ``http``."""
    sandbox: bool
    """False when the person set ``mcpServers.NAME.sandbox`` to false: the process runs
    unconfined."""
    network: bool
    """Whether a confined server may use the network."""


class CapabilityCheck(msgspec.Struct, kw_only=True, rename="camel"):
    """One question a capability check put to a model."""

    check: str
    """reply, toolCalling, or guidedGeneration."""
    passed: bool
    detail: str
    """The reply, the call, or why it failed."""
    seconds: float


class VerifiedClaim(msgspec.Struct, kw_only=True, rename="camel"):
    """A claim the verification pass could not support, and who found it."""

    reader: str
    """The reader's name, or model."""
    claim: str
    """As quoted from the reply."""
    reason: str


# Session and model.


@register("session.start", written_by="Session, Agent")
class SessionStart(Details, kw_only=True):
    """A session began: its entry point, prompt layers, tools and model. A chat's ``/new``
    records one too, with only ``reason``, ``tools`` and ``model``. ``systemPromptExtension``
    holds the operator's layer followed by each guidance file used, with its SHA-256; when the
    person accepts a guidance file before the first turn, the conversation opens again and one
    more records it, with ``reason`` ``guidance`` (this wisp's own), ``systemPromptExtension``,
    ``tools`` and ``model`` (docs/turn.md, "Guidance files"). The entry points:
    ``chat``, ``respond`` (``wisp PROMPT``), ``models``, ``mcp`` (the server) and ``mcp-thread``
    (each of its threads, with ``parent``), ``approvals``, ``questions``, ``classifier``
    (``wisp classifier train``), and ``acp`` (each session an Agent Client Protocol client
    opens: an editor or front end drives wisp).
    ``mcpServers`` (this wisp's own) lists the MCP servers the conversations start, each with
    its transport and whether it runs confined (docs/mcp.md, "MCP servers as tools"); absent
    when none is configured."""

    # These five are left out by a chat's /new, which records reason, tools, and model only.
    entry_point: str | UnsetType = UNSET
    system_prompt_extension: str | UnsetType | None = UNSET
    instructions: str | UnsetType | None = UNSET
    tools: list[str]
    model: str
    unsafe: bool | UnsetType = UNSET
    auto_approve: bool | UnsetType = UNSET
    # The resumed transcript's name.
    resume: str | UnsetType | None = UNSET
    carried_from: list[str] | UnsetType = UNSET
    parent: str | UnsetType = UNSET
    command_timeout_seconds: int | UnsetType = UNSET
    reason: str | UnsetType = UNSET
    output_sweep: OutputSweep | UnsetType = UNSET
    mcp_servers: list[McpServerStart] | UnsetType = UNSET


@register("session.end", written_by="CLI, MCP")
class SessionEnd(Details, kw_only=True):
    """A session ended: closed, or evicted as the least recently used MCP thread."""

    reason: str


@register("model.resolved", written_by="Conversation")
class ModelResolved(Details, kw_only=True):
    """A conversation opened on a model, after its capability check: what backs it, what it can
    do, and its context window."""

    model: str
    backend: str
    asset: str | None = None
    capabilities: list[str]
    capability_source: str
    tools: list[str]
    context_size: int | None = None
    context_note: str | UnsetType = UNSET


@register("model.fallback", written_by="Conversation")
class ModelFallback(Details, kw_only=True):
    """A conversation's model was unavailable at start, so it started on another: chat's
    configured model (docs/models.md, "Falling back at start"), or the one a loaded ``wisp
    acp`` session was saved on (docs/acp.md, "Sessions")."""

    model: str
    reason: str
    fallback: str


# Turn.


@register("prompt", written_by="Agent")
class Prompt(Details, kw_only=True):
    """The person's prompt, at the start of a turn, with the reply's schema and the thinking
    switch its requests send, when there are any."""

    text: str
    schema: dict[str, Any] | UnsetType = UNSET
    think: bool | str | UnsetType = UNSET


@register("turn.stopped", written_by="Agent")
class TurnStopped(Details, kw_only=True):
    """The person stopped the turn (Ctrl-C or an interrupt line), recorded instead of its response
    or error."""

    seconds: float
    killed: bool


@register("tools.withdrawn", written_by="Agent")
class ToolsWithdrawn(Details, kw_only=True):
    """The model made the same call (tool and arguments) a third time in a turn: no tools are
    offered for the rest of the turn, and the model is asked once for its answer from the
    results so far. A kind of this wisp's own, for small models that loop."""

    tool: str
    arguments: Any
    repeat: int


@register("response", written_by="Agent")
class Response(Details, kw_only=True):
    """The model's reply that ended a turn, with the tokens it used when the runtime reports
    them."""

    text: str
    condensed: bool
    seconds: float
    usage: Usage | UnsetType = UNSET


@register("model.reasoning", written_by="Agent (through ReasoningObserver)")
class ModelReasoning(Details, kw_only=True):
    """A reasoning model's thinking within one request of a turn: ``phase`` start as it begins,
    then ``phase`` end with the text and its size once the reply or a call begins."""

    phase: str
    # Only the end event carries the thinking and its measures.
    text: str | UnsetType = UNSET
    bytes: int | UnsetType = UNSET
    tokens: int | UnsetType = UNSET
    seconds: float | UnsetType = UNSET


# Tools and commands.


@register("tool.call", written_by="AuditedTool")
class ToolCall(Details, kw_only=True):
    """The model called a tool, with the arguments as it produced them."""

    tool: str
    arguments: Any


@register("tool.result", written_by="AuditedTool")
class ToolResult(Details, kw_only=True):
    """What a tool call gave the model, within the tool-output budget
    (docs/turn.md, "Output budget")."""

    tool: str
    output: str
    bytes: int
    seconds: float
    repeat: int | UnsetType = UNSET


@register("output.kept", written_by="OutputStore")
class OutputKept(Details, kw_only=True):
    """A tool output larger than the budget was kept whole in the output store; the event
    describes the file, never its content."""

    tool: str
    bytes: int
    lines: int
    sha256: str
    cut: bool
    total_bytes: int


@register("policy.decision", written_by="CommandRunner", owner_tool="run_command")
class PolicyDecision(Details, kw_only=True):
    """The policy's verdict on a command line, once, after the directory check, the patterns
    and any approval. ``namespaces``, ``landlockAbi`` and ``devpts`` are this wisp's own
    additions: what the sandbox really applied to a confined command (the namespaces it runs
    in, the Landlock ABI, whether its devpts is ``private`` or the person's, ``shared``);
    absent when it runs unconfined (docs/sandbox.md, "The person's terminal")."""

    command: str
    working_directory: str
    verdict: str
    reason: str
    sandbox: bool
    network: bool
    nested: bool
    # What turning the network off really cut: "all", or "tcp" under Landlock alone (UDP and
    # the rest stay open, so network stays true); absent when nothing was cut (docs/sandbox.md,
    # "What is confined").
    network_cut: str | UnsetType = UNSET
    origin: str | UnsetType = UNSET
    outside_sandbox: bool | UnsetType = UNSET
    # Why it changed nothing, as a word: sandbox-off or nested.
    outside_sandbox_ignored: str | UnsetType = UNSET
    # wisp's own: what the sandbox applied; "user", "mount", "pid", "net" (none: Landlock alone).
    namespaces: list[str] | UnsetType = UNSET
    landlock_abi: int | UnsetType = UNSET
    # "private" (a devpts instance of the command's own) or "shared" (the person's, not writable).
    devpts: str | UnsetType = UNSET


@register("command.outcome", written_by="CommandRunner", owner_tool="run_command")
class CommandOutcome(Details, kw_only=True):
    """How a command ran: its exit status and output, its time limit, and whether the sandbox
    refused it."""

    command: str
    exit_status: int
    timed_out: bool
    truncated: bool
    stdout: str
    stderr: str
    seconds: float
    origin: str | UnsetType = UNSET
    stopped: bool | UnsetType = UNSET
    # A typed command has no time limit and records none of these three.
    timeout_source: str | UnsetType = UNSET
    timeout_seconds: int | UnsetType = UNSET
    timeout_clamped: bool | UnsetType = UNSET
    sandbox_refusal: str | UnsetType = UNSET
    sandbox_paths: list[str] | UnsetType = UNSET
    outside_sandbox: bool | UnsetType = UNSET


@register("command.typed", written_by="Agent")
class CommandTyped(Details, kw_only=True):
    """A command the person typed after ``!``, recorded after its policy.decision and
    command.outcome; typing it was the approval (docs/turn.md, "The person's own commands")."""

    command: str
    working_directory: str
    verdict: str
    # "denied with the policy's reason": the reason is a field of its own, absent when none.
    reason: str | UnsetType = UNSET
    output: str
    bytes: int
    seconds: float
    # Only for a command that ran.
    exit_status: int | UnsetType = UNSET
    timed_out: bool | UnsetType = UNSET
    truncated: bool | UnsetType = UNSET
    stopped: bool | UnsetType = UNSET
    sandbox_refused: bool | UnsetType = UNSET
    sandbox_refusal: str | UnsetType = UNSET
    sandbox_paths: list[str] | UnsetType = UNSET
    stored: str | UnsetType = UNSET
    # Only for one allowed that could not start.
    failure: str | UnsetType = UNSET
    outside_sandbox: bool | UnsetType = UNSET


# Scanning, redaction and routing.


@register("secrets.scan", written_by="WispServer, wisp scan")
class SecretsScan(Details, kw_only=True):
    """A scan for secrets and personal data: what was scanned and how many findings of each
    kind, never a value or a preview."""

    # The source is a command (with its workingDirectory), a path, or stdin.
    source: str
    working_directory: str | UnsetType = UNSET
    bytes: int
    diff: bool
    thorough: bool
    findings: int
    kinds: dict[str, int]
    failed_chunks: int
    classifier: str | None = None


@register("redaction", written_by="WispServer, wisp redact")
class Redaction(Details, kw_only=True):
    """A redaction: what was read, what was written, and how many values of each kind were
    replaced, never a value."""

    source: str
    bytes: int
    bytes_out: int
    truncated: bool
    thorough: bool
    replaced: dict[str, int]
    failed_chunks: int


@register("model.routed", written_by="Agent, WispServer, wisp draft, wisp scan, wisp redact")
class ModelRouted(Details, kw_only=True):
    """Which model a routed task went to, and the measurement (or fallback) that chose it."""

    task: str
    input_bytes: int
    model: str
    reason: str


# Models.


@register(
    "model.pull",
    written_by="wisp models pull and enable; /models in chat; the models tool",
)
class ModelPull(Details, kw_only=True):
    """A model pull or an enable that linked a cached model: what it fetched or reused, what
    happened at the link, and how it ended (docs/models.md, "The catalog")."""

    model: str
    repository: str
    directory: str | None
    cache: str | None
    files: int
    bytes: int
    reused: int
    seeded: int
    fetched_files: int
    fetched: int
    link: str | None = None
    outcome: str
    reason: str | UnsetType = UNSET
    seconds: float
    source: str
    approval: str | None = None


@register("model.publisher", written_by="wisp models pull; /models pull in chat; the models tool")
class ModelPublisher(Details, kw_only=True):
    """Who published a repository a pull asked for, and whether the pull went on."""

    repository: str
    publisher: str
    decision: str
    asked: bool
    licence: str | None = None
    bytes: int | None = None
    reason: str | None = None
    source: str
    approval: str | None = None


@register(
    "model.verified",
    written_by="wisp models enable and check; /models enable and check, the wisp-tui picker",
)
class ModelVerified(Details, kw_only=True):
    """A capability check of a model: each question asked, and the capabilities it recorded,
    kept or removed."""

    model: str
    trigger: str
    outcome: str
    checks: list[CapabilityCheck]
    recorded: list[str] | None = None
    kept: list[str]
    removed: list[str]
    unchecked: list[str]
    seconds: float
    source: str
    approval: str | None = None


# Other: watch, notifications, front ends.


@register("watch.run", written_by="wisp watch")
class WatchRun(Details, kw_only=True):
    """One run of ``wisp watch``'s command: why it ran, how it ended, and whether that changed."""

    command: str
    run: int
    trigger: str
    exit_status: int
    timed_out: bool
    state: str
    # The previous run's state; null on the first run.
    previous: str | None = None
    changed: bool
    seconds: float
    findings: int | None = None
    triage_error: str | None = None
    notified: bool


@register("notification", written_by="Notifier")
class Notification(Details, kw_only=True):
    """A request to notify the person (docs/watch.md, "Notifications"): from ``source``
    (``model``, ``user``, ``watch``, ``approval``, ``inquiry``), posted by ``route`` (``host``,
    ``terminal``, ``app``) or refused with the ``reason``; ``skipped`` names each route passed
    over before, ``route: reason``. Title and body as bounded for display."""

    title: str
    body: str
    source: str
    outcome: str
    route: str | UnsetType = UNSET
    reason: str | UnsetType = UNSET
    skipped: list[str] | UnsetType = UNSET


@register("host.hello", written_by="wisp chat --json")
class HostHello(Details, kw_only=True):
    """A ``wisp chat --json`` front end said hello, declaring the effects it can carry out."""

    effects: list[str]
    client: str | UnsetType = UNSET
    version: str | UnsetType = UNSET


# Tools and commands: files.


@register("file.write", written_by="EditFileTool", owner_tool="edit_file")
class FileWrite(Details, kw_only=True):
    """An ``edit_file`` edit landed; the content is in the tool.call's arguments."""

    path: str
    mode: str
    created: bool
    bytes_before: int
    bytes_after: int


# Context and facts.


@register("context.condensation", written_by="Agent")
class ContextCondensation(Details, kw_only=True):
    """The transcript was condensed, on overflow or to keep within the budget; condensing to a
    target adds the fill, the target and the steps taken."""

    turns_before: int
    turns_after: int
    context_size: int | None = None
    token_count: int
    saved_before: str | UnsetType = UNSET
    saved_after: str | UnsetType = UNSET
    reason: str
    target: int | UnsetType = UNSET
    fill_before: int | UnsetType = UNSET
    fill_after: int | UnsetType = UNSET
    headroom: int | UnsetType = UNSET
    steps: list[str] | UnsetType = UNSET
    floor: bool | UnsetType = UNSET


@register("context.cut", written_by="Agent")
class ContextCut(Details, kw_only=True):
    """A stretch of a reply that reproduced a tool output is cut from later requests; the
    stored and shown reply is unchanged."""

    # Store ids are the conversation store's entry numbers (docs/store.md, "Entries").
    entry: int
    output: int
    tool: str
    response: str | UnsetType = UNSET
    result: str | UnsetType = UNSET
    bytes: int
    tokens: int
    words: int
    coverage: float


@register("context.reference", written_by="Agent")
class ContextReference(Details, kw_only=True):
    """Later requests begin to carry a reference in place of a tool output; the stored output
    is unchanged."""

    entry: int
    tool: str
    result: str | UnsetType = UNSET
    bytes: int
    reference_bytes: int
    tokens: int


@register("context.distillation", written_by="Agent")
class ContextDistillation(Details, kw_only=True):
    """A condensation distilled facts from the turns it dropped, in a session of its own."""

    turns: list[int]
    entries: list[int]
    bytes: int
    facts: list[str]
    seconds: float
    model: str
    failure: str | UnsetType = UNSET
    think: bool | UnsetType = UNSET


@register("context.summary", written_by="Agent")
class ContextSummary(Details, kw_only=True):
    """A new version of the running summary of the dropped turns, or why none was written."""

    version: int | UnsetType = UNSET
    turns: list[int]
    entries: list[int]
    bytes: int
    covered: int
    summary_bytes: int
    seconds: float
    model: str
    combined: bool
    failure: str | UnsetType = UNSET
    think: bool | UnsetType = UNSET


@register("context.memory", written_by="MemoryTool", owner_tool="memory")
class ContextMemory(Details, kw_only=True):
    """One ``memory`` call: what it recalled, summarised, condensed or noted. The fields after
    ``action`` depend on the action."""

    request: str
    action: str
    # recall, summarise and condense.
    target: str | UnsetType = UNSET
    # The output store's id, for a stored output.
    output: str | UnsetType = UNSET
    found: bool | UnsetType = UNSET
    entries: list[int] | UnsetType = UNSET
    facts: list[str] | UnsetType = UNSET
    summaries: list[int] | UnsetType = UNSET
    events: list[str] | UnsetType = UNSET
    from_: str | UnsetType = msgspec.field(default=UNSET, name="from")
    filter: str | UnsetType = UNSET
    offset: int | UnsetType = UNSET
    bytes: int | UnsetType = UNSET
    summary: str | UnsetType = UNSET
    chunks: int | UnsetType = UNSET
    # note and task.
    noted: bool | UnsetType = UNSET
    subject: str | UnsetType = UNSET
    name: str | UnsetType = UNSET
    value: str | UnsetType = UNSET
    class_: str | UnsetType = msgspec.field(default=UNSET, name="class")
    failure: str | UnsetType = UNSET


@register("context.assessment", written_by="Agent")
class ContextAssessment(Details, kw_only=True):
    """Which tools a user turn's requests register, chosen by rules or one model call; never in
    the model's context."""

    method: str
    tools: list[str]
    rule_tools: list[str]
    registered: list[str]
    task_changed: bool
    task: str | UnsetType = UNSET
    facts: list[str]
    seconds: float
    bytes: int
    # Only when the model was called.
    model: str | UnsetType = UNSET
    intent: str | UnsetType = UNSET
    failure: str | UnsetType = UNSET
    think: bool | UnsetType = UNSET


@register("response.verification", written_by="Agent")
class ResponseVerification(Details, kw_only=True):
    """The verification pass over a reply that made a claim to check, or that answered
    nothing after the turn's results (status ``unanswered``: it is asked once more)."""

    method: str
    status: str
    claims: list[VerifiedClaim]
    calls: int
    seconds: float
    # Only for the model step.
    bytes: int | UnsetType = UNSET
    model: str | UnsetType = UNSET
    think: bool | str | UnsetType = UNSET
    failure: str | UnsetType = UNSET


@register("fact.recorded", written_by="Agent")
class FactRecorded(Details, kw_only=True):
    """A fact was recorded, or a new version of one, with where it came from."""

    id: str
    scope: str
    subject: str
    name: str
    source: str
    version: int
    value: str
    class_: str = msgspec.field(name="class")
    method: str
    detail: str
    entries: list[int]
    sources: list[str]
    supersedes: str | UnsetType = UNSET


@register("fact.superseded", written_by="Agent")
class FactSuperseded(Details, kw_only=True):
    """A fact was replaced by a newer version, another source's agreeing fact, or its moved copy."""

    id: str
    subject: str
    name: str
    source: str
    by: str


@register("fact.deleted", written_by="Agent (/fact delete)")
class FactDeleted(Details, kw_only=True):
    """The person deleted a fact; the store keeps it, marked, and requests leave it out."""

    id: str
    subject: str
    name: str
    source: str
    value: str
    by: str


@register("fact.scope.changed", written_by="Agent (/fact ID SCOPE, set_fact_scope)")
class FactScopeChanged(Details, kw_only=True):
    """A fact moved between scopes (permanent, thread, session), by the person or a caller."""

    fact: str
    from_: str = msgspec.field(name="from")
    to: str
    by: str
    now: str
    subject: str
    name: str
    source: str
    value: str
    proposed: bool
    request: str | UnsetType = UNSET


# The two conflict kinds share their fields.


@register("fact.conflict.raised", written_by="Agent")
class FactConflictRaised(Details, kw_only=True):
    """The current heads of different sources about one subject and name began to disagree."""

    subject: str
    name: str
    winner: str
    others: list[str]


@register("fact.conflict.resolved", written_by="Agent")
class FactConflictResolved(Details, kw_only=True):
    """The heads about one subject and name stopped disagreeing; ``others`` is empty."""

    subject: str
    name: str
    winner: str
    others: list[str]


# Other: MCP and errors.


@register("mcp.request", written_by="WispServer")
class McpRequest(Details, kw_only=True):
    """An MCP client called one of wisp's tools."""

    tool: str
    arguments: Any


@register("mcp.result", written_by="WispServer")
class McpResult(Details, kw_only=True):
    """What wisp answered an MCP tool call."""

    tool: str
    is_error: bool
    text: str
    seconds: float


@register("error", written_by="anywhere")
class Error(Details, kw_only=True):
    """Something failed; ``context`` says where (a turn, a tool, a command)."""

    message: str
    context: str


# Approvals and questions.


@register("classifier.verdict", written_by="ApprovalGate", owner_tool="run_command")
class ClassifierVerdict(Details, kw_only=True):
    """The risk level a classifier gave one simple command, and why. ``sources`` names who
    judged: ``rules``, and for a command no rule covers, the second opinion
    ``commandPolicy.classifier.mode`` names, ``trained`` or ``model`` (docs/policy.md, "The
    classifier"). ``metadata`` keys are prefixed by their source: the seed's
    ``rules.knownSafe``, ``classifier.failure`` (why the model classifier gave no verdict),
    ``classifier.cached`` (its verdict reused) and ``think``; and this wisp's own
    ``trained.model`` (the model file), ``trained.version``, ``trained.label``,
    ``trained.confidence`` (from 0 to 1) and ``trained.fallback`` (why the trained classifier
    gave no verdict, the rules' then standing)."""

    command: str
    pattern: str
    line: str | UnsetType = UNSET
    level: str
    reasons: list[str]
    sources: list[str]
    seconds: float
    # Open by design: classifiers add their own dotted keys (coreml.model, classifier.cached, …).
    metadata: dict[str, Any] | UnsetType = UNSET


@register("classifier.train", written_by="wisp classifier train")
class ClassifierTrain(Details, kw_only=True):
    """A command classifier was trained: from which examples, and how well it labels them back."""

    path: str
    examples_source: str
    examples: int
    per_level: dict[str, int]
    training_accuracy: float
    seconds: float


@register(
    "config.change",
    written_by="/config and wisp config; /models and wisp models; the models tool",
)
class ConfigChange(Details, kw_only=True):
    """A setting changed; ``old`` and ``new`` are its JSON values, null when unset."""

    path: str
    # A setting's value can be any JSON value.
    old: Any = None
    new: Any = None
    source: str
    approval: str | None = None


@register("approval.requested", written_by="ApprovalGate", owner_tool="run_command")
class ApprovalRequested(Details, kw_only=True):
    """The gate asked the person to approve a command."""

    command: str
    pattern: str
    line: str
    level: str
    outside_sandbox: bool | UnsetType = UNSET


@register("approval.pending", written_by="OutOfBandApprover, FactKeeper")
class ApprovalPending(Details, kw_only=True):
    """Under ``wisp mcp``, a command's approval (or a fact to keep) was filed for another face to
    answer."""

    request: str
    # A command's request; a fact's has the fact fields below in their place.
    command: str | UnsetType = UNSET
    pattern: str | UnsetType = UNSET
    line: str | UnsetType = UNSET
    directory: str | UnsetType = UNSET
    level: str | UnsetType = UNSET
    thread: str
    client: str
    expires_at: str | UnsetType = UNSET
    alongside: str | UnsetType = UNSET
    banner_delay_seconds: int | UnsetType = UNSET
    outcome: str
    reason: str | UnsetType = UNSET
    outside_sandbox: bool | UnsetType = UNSET
    # A fact's request. Written "kind"; named request_kind here, as Details.kind is the event's.
    request_kind: str | UnsetType = msgspec.field(default=UNSET, name="kind")
    fact: str | UnsetType = UNSET
    subject: str | UnsetType = UNSET
    name: str | UnsetType = UNSET
    value: str | UnsetType = UNSET
    source: str | UnsetType = UNSET


# The twin of inquiry.answered: ``request`` and ``decision`` name what was answered and how;
# ``via``, ``delivery`` and ``reason`` are as in inquiry.answered.
@register("approval.answered", written_by="wisp approvals, wisp chat")
class ApprovalAnswered(Details, kw_only=True):
    """The person answered a waiting request from this process (``wisp approvals``, or a chat),
    recorded under this process's own session."""

    request: str
    decision: str
    via: str
    delivery: str
    # Only with delivery refused: why the answer was not written.
    reason: str | UnsetType = UNSET


@register(
    "approval.settled",
    written_by="OutOfBandApprover, FactKeeper, wisp approvals, wisp facts",
)
class ApprovalSettled(Details, kw_only=True):
    """How a filed request ended (answered, timed out, abandoned, failed, stale), on the asking
    thread."""

    request: str
    command: str | UnsetType = UNSET
    thread: str
    outcome: str
    # Only for an answer.
    via: str | UnsetType = UNSET
    decision: str | UnsetType = UNSET
    reason: str | UnsetType = UNSET
    seconds: float
    banner: str
    # A fact's request, in place of command.
    request_kind: str | UnsetType = msgspec.field(default=UNSET, name="kind")
    fact: str | UnsetType = UNSET
    subject: str | UnsetType = UNSET
    name: str | UnsetType = UNSET
    value: str | UnsetType = UNSET
    source: str | UnsetType = UNSET
    kept: str | UnsetType = UNSET


@register("inquiry.requested", written_by="AskTool", owner_tool="ask")
class InquiryRequested(Details, kw_only=True):
    """The model asked the person a question through its ``ask`` tool
    (docs/turn.md, "The model's questions")."""

    inquiry: str
    question: str
    options: list[str]
    ways: list[str]
    timeout_seconds: int | UnsetType = UNSET
    call: str
    thread: str


@register("inquiry.parked", written_by="AskTool", owner_tool="ask")
class InquiryParked(Details, kw_only=True):
    """Under ``wisp mcp``, the turn ended with the question still waiting; it stays open."""

    inquiry: str
    question: str
    waited_seconds: float


@register("inquiry.answered", written_by="wisp questions, wisp chat")
class InquiryAnswered(Details, kw_only=True):
    """The person answered a question from this process (``wisp questions``, or a chat),
    recorded under this process's own session."""

    inquiry: str
    via: str
    delivery: str
    # Only with delivery refused: why the answer was not written.
    reason: str | UnsetType = UNSET


@register(
    "inquiry.settled",
    written_by="AskTool, InquiryBox, wisp questions (a sweep)",
    owner_tool="ask",
)
class InquirySettled(Details, kw_only=True):
    """How a question ended, on the asking thread, with the answer verbatim (masked values
    marked) when there was one."""

    inquiry: str
    question: str
    thread: str
    outcome: str
    # Only for an answer.
    via: str | UnsetType = UNSET
    delivered: str | UnsetType = UNSET
    answer: str | UnsetType = UNSET
    redacted: list[str] | UnsetType = UNSET
    # Only for refused and failed.
    reason: str | UnsetType = UNSET
    seconds: float


@register("approval.decided", written_by="ApprovalGate", owner_tool="run_command")
class ApprovalDecided(Details, kw_only=True):
    """A decision on a command at or past the threshold: approved (with its scope), denied,
    timed out, or taken from a cache."""

    command: str
    pattern: str
    line: str | UnsetType = UNSET
    decision: str
    # "approved with scope": the scope is a field of its own, absent when none.
    scope: str | UnsetType = UNSET
    reason: str | None = None
    approval_id: str | None = msgspec.field(default=None, name="approvalID")
    expires_at: str | None = None
    downgraded_from: str | UnsetType = UNSET
    persist_error: str | UnsetType = UNSET
    outside_sandbox: bool | UnsetType = UNSET
