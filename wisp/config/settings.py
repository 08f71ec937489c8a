"""The settings wisp knows: each one's dotted path, type, range, default and meaning.

config.json may hold other keys too (a newer wisp's, a plugin's): those are kept and warned
about, never dropped, so an older wisp does not lose a newer one's settings. Later parts of wisp
add their settings to ``SETTINGS`` here, so that ``wisp config`` validates and lists every one.
Each model a runtime serves may have an entry, ``<scheme>.models.<name>`` (``MODEL_FIELDS``): its
name is free, its fields are known.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from wisp.config.paths import join_path, split_path
from wisp.spelling import edit_distance


class Setting(msgspec.Struct, frozen=True):
    """One known key of config.json."""

    path: str
    """Dotted path into nested objects: ``audit.keepFiles`` is ``{"audit": {"keepFiles": 3}}``."""
    type: Any
    """What ``msgspec.convert`` checks the value against, ranges included."""
    default: Any
    expected: str
    """The type and range in words, for errors: ``an integer from 0 to 10000``."""
    help: str
    secret: bool = False
    """A credential (an API key): shown only as set (``wisp.config.secrets``), recorded as
    ``[redacted]``, kept out of commands' environment."""

    def check(self, value: Any) -> Any:
        """The value, if it is of this setting's type and range; else ``ValueError``."""
        try:
            return msgspec.convert(value, self.type, strict=True)
        except msgspec.ValidationError as exc:
            raise ValueError(f"expected {self.expected}") from exc


def secret_variable(path: str) -> str:
    """The environment variable that stands in for the secret ``path`` and wins over it:
    ``openai.apiKey`` is ``WISP_OPENAI_API_KEY``, as the backends read it."""
    return f"WISP_{path.split('.')[0].upper()}_API_KEY"


_URL = Annotated[str, msgspec.Meta(pattern=r"^https?://\S+$")]

SETTINGS: dict[str, Setting] = {
    setting.path: setting
    for setting in (
        Setting(
            "audit.enabled",
            bool,
            True,
            "true or false",
            "Record the audit log (prompts, replies, commands, tool output) under logs/.",
        ),
        Setting(
            "audit.maxFileBytes",
            Annotated[int, msgspec.Meta(ge=1024, le=1 << 40)],
            10_485_760,
            "an integer from 1024 to 1099511627776 (bytes)",
            "Rotate audit.jsonl when a line would take it past this size.",
        ),
        Setting(
            "audit.keepFiles",
            Annotated[int, msgspec.Meta(ge=0, le=100_000)],
            5,
            "an integer from 0 to 100000",
            "How many rotated files (audit.1.jsonl …) to keep; older ones are removed.",
        ),
        Setting(
            "agent.maxSteps",
            Annotated[int, msgspec.Meta(ge=1, le=1000)],
            25,
            "an integer from 1 to 1000",
            "The most model requests one turn may make before it is stopped with an error.",
        ),
        Setting(
            "agent.maxReplyTokens",
            Annotated[int, msgspec.Meta(ge=0, le=1_000_000)],
            0,
            "an integer from 0 to 1000000",
            "The most tokens one reply may run to before it is cut, with a note (about four "
            "characters a token); 0 sizes it by the model's window: half of it, at least 1,024 "
            "and at most 16,384 (the most when the window is unknown).",
        ),
        Setting(
            "systemPromptExtension",
            str,
            "",
            "a string",
            "Guidance for this machine, added to the system prompt of every conversation.",
        ),
        Setting(
            "model",
            Annotated[str, msgspec.Meta(min_length=1)],
            "local",
            "a model selection such as local, ollama:NAME or openai:NAME",
            "The model chat and one-shot prompts use when none is named with -m.",
        ),
        Setting(
            "models.disabled",
            list[str],
            [],
            "a list of model selections",
            "Models left out of the picker and never started.",
        ),
        Setting(
            "models.trustedPublishers",
            list[str],
            [],
            "a list of Hugging Face user or organisation names",
            "Publishers whose repositories wisp models pull hf:OWNER/REPO fetches without "
            "asking; another's is asked about on a terminal, refused elsewhere unless --yes.",
        ),
        Setting(
            "models.tool",
            bool,
            False,
            "true or false",
            "Offer the model the models tool: it lists the models, and asks the person before "
            "it checks, enables or pulls one.",
        ),
        Setting(
            "ollama.baseURL",
            _URL,
            "http://127.0.0.1:11434",
            "an http:// or https:// URL",
            "Where the Ollama server listens.",
        ),
        Setting(
            "llamacpp.baseURL",
            _URL,
            "http://127.0.0.1:8080",
            "an http:// or https:// URL",
            "Where llama.cpp's llama-server listens.",
        ),
        Setting(
            "lmstudio.baseURL",
            _URL,
            "http://127.0.0.1:1234",
            "an http:// or https:// URL",
            "Where LM Studio's server listens.",
        ),
        Setting(
            "openai.baseURL",
            _URL,
            "http://127.0.0.1:8000/v1",
            "an http:// or https:// URL",
            "The OpenAI-compatible server that openai:NAME models use.",
        ),
        *(
            Setting(
                f"{scheme}.apiKey",
                Annotated[str, msgspec.Meta(min_length=1)],
                None,
                "a non-empty string",
                f"The key {runtime} asks for (sent as a bearer token); "
                f"{secret_variable(f'{scheme}.apiKey')} wins over it.",
                secret=True,
            )
            for scheme, runtime in (
                ("llamacpp", "llama-server"),
                ("lmstudio", "LM Studio"),
                ("openai", "the openai: server"),
            )
        ),
        Setting(
            "ollama.timeoutSeconds",
            Annotated[int, msgspec.Meta(ge=1, le=86_400)],
            120,
            "an integer from 1 to 86400 (seconds)",
            "Give up on an Ollama request after this long with no byte from the server.",
        ),
        Setting(
            "ollama.contextLength",
            Annotated[int, msgspec.Meta(ge=512, le=4_194_304)],
            None,
            "an integer from 512 to 4194304 (tokens)",
            "The window (num_ctx) for every Ollama model; unset sizes it from memory.",
        ),
        Setting(
            "ollama.think",
            bool | Annotated[str, msgspec.Meta(pattern="^(low|medium|high|max)$")],
            None,
            "true, false, low, medium, high or max",
            "The thinking switch sent to Ollama models that can think; unset sends none.",
        ),
        Setting(
            "llamacpp.timeoutSeconds",
            Annotated[int, msgspec.Meta(ge=1, le=86_400)],
            120,
            "an integer from 1 to 86400 (seconds)",
            "Give up on a llama.cpp request after this long with no byte from the server.",
        ),
        Setting(
            "llamacpp.think",
            bool,
            None,
            "true or false",
            "Send chat_template_kwargs.enable_thinking to llama.cpp; unset sends none.",
        ),
        Setting(
            "lmstudio.timeoutSeconds",
            Annotated[int, msgspec.Meta(ge=1, le=86_400)],
            120,
            "an integer from 1 to 86400 (seconds)",
            "Give up on an LM Studio request after this long with no byte from the server.",
        ),
        Setting(
            "openai.timeoutSeconds",
            Annotated[int, msgspec.Meta(ge=1, le=86_400)],
            120,
            "an integer from 1 to 86400 (seconds)",
            "Give up on an openai: request after this long with no byte from the server.",
        ),
        Setting(
            "openai.think",
            bool,
            None,
            "true or false",
            "Send chat_template_kwargs.enable_thinking to openai: models; unset sends none.",
        ),
        *(
            Setting(
                f"{scheme}.contextLength",
                Annotated[int, msgspec.Meta(ge=512, le=4_194_304)],
                None,
                "an integer from 512 to 4194304 (tokens)",
                f"The window of {runtime}'s models: used when the server reports none, the "
                "smaller of the two when it does; unset and unreported, the window is unknown.",
            )
            for scheme, runtime in (
                ("llamacpp", "llama.cpp"),
                ("lmstudio", "LM Studio"),
                ("openai", "the openai: server"),
            )
        ),
        Setting(
            "local.temperature",
            Annotated[float, msgspec.Meta(ge=0, le=2)],
            None,
            "a number from 0 to 2",
            "The local model's sampling temperature; unset is 0: greedy, the same reply each time.",
        ),
        Setting(
            "local.contextLength",
            Annotated[int, msgspec.Meta(ge=512, le=4_194_304)],
            None,
            "an integer from 512 to 4194304 (tokens)",
            "The window (n_ctx) the local model loads with; unset sizes it from memory.",
        ),
        Setting(
            "local.threads",
            Annotated[int, msgspec.Meta(ge=1, le=1024)],
            None,
            "an integer from 1 to 1024",
            "CPU threads the local model reads prompts and generates with; unset is half the "
            "CPUs, at least 1.",
        ),
        Setting(
            "local.think",
            bool,
            None,
            "true or false",
            "The template's enable_thinking for a local model that can think; unset sends none.",
        ),
        Setting(
            "local.grammar",
            bool,
            True,
            "true or false",
            "Once a local model's reply opens a tool call, hold the rest to a well-formed call "
            "of an offered tool.",
        ),
        Setting(
            "context.memory",
            bool,
            False,
            "true or false",
            "Give conversations the memory tool, to recall earlier entries and turns.",
        ),
        Setting(
            "context.budget",
            Annotated[float, msgspec.Meta(ge=0.3, le=1.0)],
            0.85,
            "a number from 0.3 to 1 (a share of the window)",
            "Condense before a request when the context, the prompt and the headroom would fill "
            "more than this share of the model's window.",
        ),
        Setting(
            "context.target",
            Annotated[float, msgspec.Meta(ge=0.1, le=0.95)],
            0.6,
            "a number from 0.1 to 0.95 (a share of the window)",
            "The share of the window condensing brings the context down to; never above "
            "context.budget less 0.2.",
        ),
        Setting(
            "context.headroomTurns",
            Annotated[int, msgspec.Meta(ge=1, le=100)],
            8,
            "an integer from 1 to 100 (turns)",
            "The room kept free for the next turn is the average size of this many latest turns.",
        ),
        Setting(
            "context.summaryBatch",
            Annotated[int, msgspec.Meta(ge=0, le=100)],
            3,
            "an integer from 0 to 100 (turns)",
            "The running summary of dropped turns gets a new version once this many dropped "
            "turns wait for one (one routed model call); 0 keeps no summary.",
        ),
        Setting(
            "context.outputDays",
            Annotated[int, msgspec.Meta(ge=1, le=3650)],
            30,
            "an integer from 1 to 3650 (days)",
            "A working folder's own cache for the model's commands is removed at a session "
            "start once no session has started there for this many days.",
        ),
        Setting(
            "verification.mode",
            Annotated[str, msgspec.Meta(pattern="^(readers|off)$")],
            "readers",
            "readers or off",
            "After each reply, check the actions it claims (ran the tests, updated a file) "
            "against the turn's tool calls and flag those that did not happen; off skips it.",
        ),
        Setting(
            "facts.enabled",
            bool,
            True,
            "true or false",
            "Keep facts (the person's /fact, the model's memory notes) and send those in force "
            "with every request.",
        ),
        Setting(
            "guidance.enabled",
            bool,
            True,
            "true or false",
            "Read the AGENTS.md of the working folder and of its parents up to the "
            "repository's root, each used once the person has seen and accepted it.",
        ),
        Setting(
            "assessment.enabled",
            bool | Literal["auto"],
            "auto",
            "true, false or auto",
            "Choose the tools each turn offers, by rules and, when they settle nothing, one "
            "call to a model (routing.tasks.assess); auto is true on windows of 8,192 tokens "
            "or fewer, where every tool offered costs the most.",
        ),
        Setting(
            "routing.tasks.assess",
            Annotated[str, msgspec.Meta(min_length=1)] | None,
            None,
            "a model selection such as local, ollama:NAME or openai:NAME",
            "The model that chooses a turn's tools; unset is wisp's measured default (the "
            "smallest enabled model whose capability check passed structured replies), else "
            "the conversation's model.",
        ),
        Setting(
            "routing.tasks.distill",
            Annotated[str, msgspec.Meta(min_length=1)] | None,
            None,
            "a model selection such as local, ollama:NAME or openai:NAME",
            "The model that distils facts from the turns a condensation drops (and writes the "
            "summary when one call does both); unset is wisp's measured default for structured "
            "replies, else the conversation's model.",
        ),
        Setting(
            "routing.tasks.summary",
            Annotated[str, msgspec.Meta(min_length=1)] | None,
            None,
            "a model selection such as local, ollama:NAME or openai:NAME",
            "The model that writes the running summary of dropped turns; unset is wisp's "
            "measured default for a plain reply, else the conversation's model.",
        ),
        Setting(
            "routing.tasks.summarise",
            Annotated[str, msgspec.Meta(min_length=1)] | None,
            None,
            "a model selection such as local, ollama:NAME or openai:NAME",
            "The model that reads an entry or an output for memory's summarise; unset is "
            "wisp's measured default for a plain reply, else the conversation's model.",
        ),
        Setting(
            "routing.tasks.condense",
            Annotated[str, msgspec.Meta(min_length=1)] | None,
            None,
            "a model selection such as local, ollama:NAME or openai:NAME",
            "The model that answers memory's condense from an entry or an output, chunk by "
            "chunk; unset is wisp's measured default for a plain reply, else the "
            "conversation's model.",
        ),
        Setting(
            "routing.tasks.scan",
            Annotated[str, msgspec.Meta(min_length=1)] | None,
            None,
            "a model selection such as local, ollama:NAME or openai:NAME",
            "The model that reads text for what the rules missed in wisp scan --thorough; "
            "unset is wisp's measured default for structured replies, else local.",
        ),
        Setting(
            "routing.tasks.redact",
            Annotated[str, msgspec.Meta(min_length=1)] | None,
            None,
            "a model selection such as local, ollama:NAME or openai:NAME",
            "The model that reads text for what the rules missed in wisp redact --thorough; "
            "unset is wisp's measured default for structured replies, else local.",
        ),
        Setting(
            "routing.tasks.triage",
            Annotated[str, msgspec.Meta(min_length=1)] | None,
            None,
            "a model selection such as local, ollama:NAME or openai:NAME",
            "The model that reads a failed run's output in wisp watch and says what failed and "
            "where; unset is wisp's measured default for structured replies, else local.",
        ),
        Setting(
            "routing.tasks.draft",
            Annotated[str, msgspec.Meta(min_length=1)] | None,
            None,
            "a model selection such as local, ollama:NAME or openai:NAME",
            "The model that writes wisp draft's texts (a commit message, a summary, a reply); "
            "unset is wisp's measured default for a plain reply, else local.",
        ),
        Setting(
            "routing.tasks.verify",
            Annotated[str, msgspec.Meta(min_length=1)] | None,
            None,
            "a model selection such as local, ollama:NAME or openai:NAME",
            "The model that checks a reply's claims against the turn; unset is wisp's measured "
            "default for structured replies, else the conversation's model.",
        ),
        Setting(
            "routing.tasks.classify",
            Annotated[str, msgspec.Meta(min_length=1)] | None,
            None,
            "a model selection such as local, ollama:NAME or openai:NAME",
            "The model that rates a command the rules do not know, under "
            "commandPolicy.classifier.mode model; unset is wisp's measured default for "
            "structured replies, else the conversation's model.",
        ),
        Setting(
            "notify.enabled",
            bool,
            False,
            "true or false",
            "Offer the model the notify tool; off refuses its every request with the reason. "
            "wisp notify, wisp watch and waiting approvals notify either way.",
        ),
        Setting(
            "notify.routes",
            list[Literal["host", "terminal", "app"]],
            ["host", "terminal", "app"],
            "a list of host, terminal and app, in the order to try them",
            "Where a notification may go: host (a front end that posts them), terminal (its "
            "notification sequence), app (the desktop's notification service over D-Bus).",
        ),
        Setting(
            "notify.perMinute",
            Annotated[int, msgspec.Meta(ge=1, le=60)],
            5,
            "an integer from 1 to 60",
            "At most this many notifications a minute from one wisp; the rest are refused.",
        ),
        Setting(
            "notify.perTurn",
            Annotated[int, msgspec.Meta(ge=1, le=20)],
            2,
            "an integer from 1 to 20",
            "At most this many notify calls the model makes in one turn.",
        ),
        Setting(
            "tools.editFile.writableRoots",
            list[Annotated[str, msgspec.Meta(pattern=r"^/")]],
            [],
            "a list of absolute paths",
            "Folders edit_file may write besides the working directory (never WISP_HOME).",
        ),
        Setting(
            "commandTimeoutSeconds",
            Annotated[int, msgspec.Meta(ge=0, le=86_400)],
            60,
            "an integer from 0 to 86400 (seconds)",
            "The time limit of a model's command; 0 means none.",
        ),
        Setting(
            "commandMaxTimeoutSeconds",
            Annotated[int, msgspec.Meta(ge=1, le=86_400)],
            600,
            "an integer from 1 to 86400 (seconds)",
            "The cap on the timeoutSeconds a model may ask run_command for.",
        ),
        Setting(
            "commandPolicy.sandbox.enabled",
            bool,
            True,
            "true or false",
            "Confine commands with the Linux sandbox (Landlock): writes only under the roots.",
        ),
        Setting(
            "commandPolicy.sandbox.network",
            Literal["off", "ask", "on"],
            "ask",
            "off, ask or on",
            "The network for the model's commands: off never; ask runs them offline but asks "
            "about those whose programs need it (curl, pip install, git fetch), which then run "
            "with it; on always. ! commands always have it.",
        ),
        # Read for one release, when network is not set (sections.Sandbox.network_in_force).
        Setting(
            "commandPolicy.sandbox.allowNetwork",
            bool,
            None,
            "true or false",
            "Replaced by commandPolicy.sandbox.network; still read for one release when that is "
            "not set: false is off, true is on.",
        ),
        Setting(
            "commandPolicy.sandbox.writableRoots",
            list[str],
            ["~/.cargo/registry", "~/.cargo/git"],
            "a list of paths (~ expands)",
            "Folders sandboxed commands may write besides the working, temp and cache folders.",
        ),
        Setting(
            "commandPolicy.sandbox.allowSockets",
            list[str],
            [],
            "a list of UNIX socket paths (~ expands)",
            "Sockets sandboxed commands may connect to (each one a way out: see docs/sandbox.md).",
        ),
        Setting(
            "commandPolicy.sandbox.allowHome",
            bool,
            False,
            "true or false",
            "Let commands and edit_file write in the working folder when it is your home "
            "folder or / (or holds your home folder).",
        ),
        Setting(
            "commandPolicy.classifier.mode",
            Literal["off", "trained", "model"],
            "trained",
            "off, trained or model",
            "A second opinion on commands no rule covers: trained uses the model wisp "
            "classifier train wrote (when there is one), model asks a model once per command, "
            "off leaves them moderate.",
        ),
        Setting(
            "commandPolicy.classifier.mayLower",
            bool,
            False,
            "true or false",
            "Let the classifier lower a command no rule covers from moderate to safe, so it "
            "runs without asking; off, it can only raise a level.",
        ),
        Setting(
            "approval.threshold",
            Annotated[str, msgspec.Meta(pattern="^(safe|moderate|dangerous|never)$")],
            "moderate",
            "safe, moderate, dangerous or never",
            "Ask before a command rated at or above this level; never classifies but never asks.",
        ),
        Setting(
            "approval.timeoutSeconds",
            Annotated[int, msgspec.Meta(ge=0, le=86_400)],
            600,
            "an integer from 0 to 86400 (seconds)",
            "An approval unanswered this long counts as declined (and under wisp mcp a "
            "question is withdrawn); 0 waits for ever.",
        ),
        Setting(
            "approval.outOfBand",
            bool,
            True,
            "true or false",
            "Under wisp mcp, file each approval in WISP_HOME/pending for wisp approvals or "
            "wisp-tui to answer, and each question for wisp questions, racing the client's own "
            "dialog; the first answer wins.",
        ),
        Setting(
            "approval.elicitation",
            bool,
            True,
            "true or false",
            "Under wisp mcp, also ask through the client's dialog (MCP elicitation) when it has "
            "one; off leaves only the out-of-band way, for a client that may answer by itself.",
        ),
        Setting(
            "approval.bannerDelaySeconds",
            Annotated[int, msgspec.Meta(ge=0, le=3600)],
            0,
            "an integer from 0 to 3600 (seconds)",
            "Under wisp mcp, wait this long for the client's dialog before notifying of a filed "
            "request.",
        ),
        Setting(
            "approval.persistDays",
            Annotated[int, msgspec.Meta(ge=1, le=3650)],
            30,
            "an integer from 1 to 3650 (days)",
            "How long project and always approvals last in approvals.json.",
        ),
        # Unset (None) means wisp's own deny list (wisp.policy.patterns.DEFAULT_DENY): config may
        # not import policy, and a copy here would be a second definition to keep in step.
        Setting(
            "commandPolicy.deny",
            list[str],
            None,
            "a list of regular expressions",
            "Refuse commands matching any of these; set, it replaces wisp's built-in deny list.",
        ),
        Setting(
            "commandPolicy.allow",
            list[str],
            [],
            "a list of regular expressions",
            "When not empty, refuse every command that matches none of these.",
        ),
        Setting(
            "commandPolicy.passEnv",
            list[str],
            [],
            "a list of variable names",
            "Variables the model's commands keep although their names look like credentials "
            "(KEY, SECRET, TOKEN, PASSWORD).",
        ),
    )
}

_CONTEXT_LENGTH = Setting(
    "contextLength",
    Annotated[int, msgspec.Meta(ge=512, le=4_194_304)],
    None,
    "an integer from 512 to 4194304 (tokens)",
    "This model's window, ahead of the runtime's contextLength.",
)


def _model_fields(think: Setting) -> dict[tuple[str, ...], Setting]:
    """The fields of one ``<scheme>.models.<name>`` entry: what a model can do, and what
    ``wisp models check`` found (docs/models.md, "Capabilities", "The capability check")."""
    fields = (
        Setting(
            "capabilities",
            list[str],
            None,
            "a list of capability names",
            "What the model can do, declared by hand or recorded by wisp models check.",
        ),
        Setting(
            "verified.date",
            Annotated[str, msgspec.Meta(pattern=r"^\d{4}-\d\d-\d\d$")],
            None,
            "a date, YYYY-MM-DD",
            "The day wisp models check last asked the model.",
        ),
        Setting(
            "verified.passed",
            list[str],
            None,
            "a list of capability names",
            "The capabilities that check found.",
        ),
        Setting(
            "verified.failed",
            list[str],
            None,
            "a list of capability names",
            "The capabilities that check did not find.",
        ),
        _CONTEXT_LENGTH,
        think,
    )
    return {tuple(field.path.split(".")): field for field in fields}


_THINK = Setting(
    "think", bool, None, "true or false", "This model's thinking switch, ahead of the runtime's."
)

_LOCAL_FILE_FIELDS = (
    Setting(
        "sha256",
        str,
        None,
        "a SHA-256 in hex",
        "The checksum of the GGUF file local:PATH loads under this name, recorded when wisp "
        "first loads or checks it; a file that no longer matches is refused.",
    ),
    Setting(
        "sha256Path",
        str,
        None,
        "a path",
        "The real path of the file sha256 was taken of.",
    ),
    Setting(
        "sha256Stamp",
        list[int],
        None,
        "a list of 5 integers",
        "The file's [size, mtimeNs, ctimeNs, inode, device] when it was hashed: while they "
        "match, the file is not hashed again.",
    ),
    Setting(
        "file",
        str,
        None,
        "a path",
        "The GGUF file local:NAME loads, for a NAME that is not a path: where wisp models pull "
        "hf:… put it in the Hugging Face cache.",
    ),
    Setting("hub.repository", str, None, "OWNER/REPO", "The Hub repository it was pulled from."),
    Setting("hub.file", str, None, "a path in the repository", "The file pulled from it."),
    Setting("hub.revision", str, None, "a commit hash", "The commit it was pulled at."),
)
"""What wisp checked of a local:PATH file (docs/models.md, "Local GGUF checksums"); the default
model has none."""

MODEL_FIELDS: dict[str, dict[tuple[str, ...], Setting]] = {
    "local": _model_fields(_THINK)
    | {tuple(field.path.split(".")): field for field in _LOCAL_FILE_FIELDS},
    "ollama": _model_fields(
        msgspec.structs.replace(
            _THINK,
            type=SETTINGS["ollama.think"].type,
            expected=SETTINGS["ollama.think"].expected,
        )
    ),
    "llamacpp": _model_fields(_THINK),
    "openai": _model_fields(_THINK),
}
"""Per runtime, the fields of a model entry ``<scheme>.models.<name>``, by their names below it.

LM Studio reports what its models can do, so it has no entries.
"""

_LEVEL = Literal["safe", "moderate", "dangerous"]
"""A command's level (``wisp.policy.types.Level``; config may not import policy)."""

MCP_SERVERS = "mcpServers"

_MCP_SERVER_FIELDS = (
    Setting(
        "command",
        Annotated[str, msgspec.Meta(min_length=1)],
        None,
        "a program",
        "The program a stdio server runs (npx, uvx, a path); a server has it or url.",
    ),
    Setting("args", list[str], [], "a list of strings", "The program's arguments."),
    Setting(
        "env",
        dict[str, str],
        {},
        "an object of strings",
        "Variables the server's process gets besides the environment commands get; secret.",
        secret=True,
    ),
    Setting(
        "cwd", str, None, "a folder", "Where the server runs; unset, the conversation's folder."
    ),
    Setting(
        "url",
        Annotated[str, msgspec.Meta(pattern=r"^https?://\S+$")],
        None,
        "an http(s) URL",
        "A streamable HTTP server's endpoint; a server has it or command.",
    ),
    Setting(
        "headers",
        dict[str, str],
        {},
        "an object of strings",
        "Headers sent with each request to an HTTP server (a token); secret.",
        secret=True,
    ),
    Setting("enabled", bool, True, "true or false", "Whether conversations start the server."),
    Setting(
        "tools",
        list[str],
        None,
        "a list of tool names",
        "The server's tools offered to the model; unset, all of them.",
    ),
    Setting(
        "sandbox",
        bool,
        True,
        "true or false",
        "Whether a stdio server runs confined as a command does; false is recorded.",
    ),
    Setting(
        "network",
        bool,
        False,
        "true or false",
        "Whether a confined stdio server may use the network.",
    ),
    Setting(
        "trustAnnotations",
        bool,
        False,
        "true or false",
        "Whether a tool's readOnlyHint may rate it safe (annotations are the server's claims).",
    ),
    Setting(
        "level",
        _LEVEL,
        None,
        "safe, moderate or dangerous",
        "The level of every tool of the server, over what wisp rates it.",
    ),
    Setting(
        "levels",
        dict[str, _LEVEL],
        {},
        "an object of tool names to safe, moderate or dangerous",
        "A tool's own level, over the server's and wisp's.",
    ),
    Setting(
        "deny",
        list[str],
        [],
        "a list of tool names",
        "Tools only the person may approve, never --yes.",
    ),
    Setting(
        "type",
        Literal["stdio", "http", "streamable-http"],
        None,
        "stdio, http or streamable-http",
        "The transport, as other agents' configs name it; read from command or url when unset.",
    ),
)
MCP_SERVER_FIELDS: dict[str, Setting] = {field.path: field for field in _MCP_SERVER_FIELDS}
"""The fields of an MCP server's entry ``mcpServers.<name>`` (docs/mcp.md, "MCP servers as
tools")."""

DRAFT_TASKS = ("draft", "tasks")
"""Where the person's own ``wisp draft`` tasks live: ``draft.tasks.<name>``."""

_DRAFT_INPUT = Annotated[
    dict[Literal["command", "file"], Annotated[str, msgspec.Meta(min_length=1)]],
    msgspec.Meta(min_length=1, max_length=1),
]
"""One thing a draft task gathers: ``{"command": LINE}`` or ``{"file": PATH}``."""

_DRAFT_TASK_FIELDS = (
    Setting(
        "instructions",
        Annotated[str, msgspec.Meta(min_length=1)],
        None,
        "a non-empty string",
        "What the model is to write, in words; a task has it.",
    ),
    Setting(
        "inputs",
        list[_DRAFT_INPUT],
        [],
        'a list of objects, each {"command": LINE} or {"file": PATH}',
        "What the task gathers for the model, in order: a command's output (run confined, as a "
        "typed ! command is, in the working folder) or a file's text.",
    ),
)
DRAFT_TASK_FIELDS: dict[str, Setting] = {field.path: field for field in _DRAFT_TASK_FIELDS}
"""The fields of a draft task's entry ``draft.tasks.<name>`` (docs/draft.md, "Tasks of your
own")."""

Names = tuple[str, ...]


def names_of(key: str | Names) -> Names:
    """A key as its names: a path is split (``split_path``), a tuple taken as it is."""
    return split_path(key) if isinstance(key, str) else tuple(key)


def setting_for(key: str | Names) -> Setting | None:
    """The setting stored at ``key``, its ``path`` the key itself; None when wisp knows none."""
    names = names_of(key)
    path = join_path(names)
    if path in SETTINGS:
        return SETTINGS[path]
    field = _model_field(names) or _mcp_server_field(names) or _draft_task_field(names)
    return None if field is None else msgspec.structs.replace(field, path=path)


def _draft_task_field(names: Names) -> Setting | None:
    if len(names) != 4 or names[:2] != DRAFT_TASKS:
        return None
    return DRAFT_TASK_FIELDS.get(names[3])


def _mcp_server_field(names: Names) -> Setting | None:
    if len(names) != 3 or names[0] != MCP_SERVERS:
        return None
    return MCP_SERVER_FIELDS.get(names[2])


def _model_field(names: Names) -> Setting | None:
    if len(names) < 4 or names[1] != "models" or names[0] not in MODEL_FIELDS:
        return None
    return MODEL_FIELDS[names[0]].get(names[3:])


_SECTIONS = frozenset(
    tuple(path.split(".")[:depth]) for path in SETTINGS for depth in range(1, path.count(".") + 1)
)


def is_section(key: str | Names) -> bool:
    """Whether settings nest inside ``key``, so that it must hold an object (``audit``)."""
    names = names_of(key)
    if names in _SECTIONS or (names[:1] == (MCP_SERVERS,) and len(names) in (1, 2)):
        return True
    if names[:2] == DRAFT_TASKS[: len(names)] and 0 < len(names) <= 3:
        return True  # draft, draft.tasks and a task's entry
    if len(names) < 2 or names[1] != "models" or names[0] not in MODEL_FIELDS:
        return False
    below = names[3:]
    return len(names) in (2, 3) or any(
        len(field) > len(below) and field[: len(below)] == below for field in MODEL_FIELDS[names[0]]
    )


def near_key(key: str | Names) -> str | None:
    """The known key ``key`` was probably meant to be, or None.

    Near means within one edit (a character added, dropped, changed, or two swapped), ignoring
    case; and, below ``<scheme>.models.``, a model name whose quotes the shell took away: the
    names before a known field are one model name.
    """
    names = names_of(key)
    typed = join_path(names)
    near = [(edit_distance(typed.lower(), known.lower()), known) for known in SETTINGS]
    near += _model_candidates(names)
    near = [(distance, known) for distance, known in near if distance <= 1 and known != typed]
    return min(near, key=lambda pair: pair[0], default=(0, None))[1]


def _model_candidates(names: Names) -> list[tuple[int, str]]:
    """Each known model field ``names`` could be, had its model name been quoted, with the
    edits its field is from the typed one."""
    if len(names) < 4 or names[1].lower() != "models" or names[0].lower() not in MODEL_FIELDS:
        return []
    scheme = names[0].lower()
    found: list[tuple[int, str]] = []
    for cut in range(3, len(names)):
        name, typed_field = ".".join(names[2:cut]), ".".join(names[cut:]).lower()
        for field in MODEL_FIELDS[scheme]:
            edits = edit_distance(typed_field, ".".join(field).lower())
            found.append((edits, join_path((scheme, "models", name, *field))))
    return found
