"""The typed view of config.json: a frozen Struct per section of the known settings.

Each field stands for one key of ``wisp.config.settings.SETTINGS``: its name in the file is the
field's encoded name (``base_url`` is ``ollama.baseURL``), and its value is read through that
setting's check, so a type, range or default is said once, in the registry. A section is checked
when it is first read: a bad ``ollama.baseURL`` stops what reads the ``ollama`` section, not
``wisp config`` or the audit log. The view is built once per ``Config`` (``Config.settings``), and
a changed file is loaded as a new ``Config``, so the view is rebuilt with it.

This module imports no part of wisp outside ``wisp.config`` (only the model entries' type): the
parts handed a section (the model backends, the command patterns) import its type without
importing the config store. ``Settings`` names each key and section once, as a ``SettingKey`` or
``SettingSection``; a ``Reader`` reads, checks and keeps them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar, get_args, overload

import msgspec

from wisp.config.model_entry import ModelEntries

Read = Callable[[str], Any]
"""A known key's value in force, checked (``Config.checked_value``)."""

Stored = Callable[[str], Any]
"""What is stored at a dotted path, unchecked, or ``None`` (the objects model entries live in)."""


class Secret:
    """A credential (an API key) that never shows itself: not in a repr, an f-string or a log."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """The value itself, for the one place it goes: the request to the server it is for."""
        return self._value

    def __repr__(self) -> str:
        return "Secret([redacted])"

    __str__ = __repr__


class Audit(msgspec.Struct, frozen=True, rename="camel"):
    enabled: bool
    max_file_bytes: int
    keep_files: int


class Agent(msgspec.Struct, frozen=True, rename="camel"):
    max_steps: int
    max_reply_tokens: int


class Models(msgspec.Struct, frozen=True, rename="camel"):
    disabled: list[str]
    trusted_publishers: list[str]
    """Hub publishers ``wisp models pull hf:…`` fetches from without asking."""
    tool: bool
    """Whether conversations offer the model the ``models`` tool (docs/models.md, "The models
    tool")."""


class ModelChoices(msgspec.Struct, frozen=True):
    """``model`` and the ``models`` lists as stored, unchecked: what the model commands list and
    rewrite, where a malformed item is passed over rather than stopping the command that would
    put it right (``Settings`` checks them for the parts that use them)."""

    model: str | None
    """The default model, or None when it is unset or not a string."""
    disabled: list[str]
    """The strings in ``models.disabled``; none when it is unset or not a list."""
    trusted_publishers: list[str] | None
    """The strings in ``models.trustedPublishers``; None when it is unset or not a list."""

    @classmethod
    def read(cls, stored: Stored) -> ModelChoices:
        model = stored("model")
        disabled = _strings(stored("models.disabled"))
        return cls(
            model if isinstance(model, str) else None,
            disabled or [],
            _strings(stored("models.trustedPublishers")),
        )


def _strings(value: Any) -> list[str] | None:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else None


class Ollama(msgspec.Struct, frozen=True, rename="camel"):
    base_url: str = msgspec.field(name="baseURL")
    timeout_seconds: int
    context_length: int | None
    think: bool | str | None
    models: ModelEntries


class LlamaCpp(msgspec.Struct, frozen=True, rename="camel"):
    base_url: str = msgspec.field(name="baseURL")
    api_key: Secret | None
    timeout_seconds: int
    think: bool | None
    context_length: int | None
    models: ModelEntries


class LMStudio(msgspec.Struct, frozen=True, rename="camel"):
    base_url: str = msgspec.field(name="baseURL")
    api_key: Secret | None
    timeout_seconds: int
    context_length: int | None
    models: ModelEntries
    """LM Studio reports what its models can do: entries here are ignored, with a warning."""


class OpenAI(msgspec.Struct, frozen=True, rename="camel"):
    base_url: str = msgspec.field(name="baseURL")
    api_key: Secret | None
    timeout_seconds: int
    think: bool | None
    context_length: int | None
    models: ModelEntries


OpenAICompatible = LlamaCpp | LMStudio | OpenAI
"""The sections of the runtimes spoken to over the OpenAI-compatible API."""


class Local(msgspec.Struct, frozen=True, rename="camel"):
    temperature: float | None
    context_length: int | None
    threads: int | None
    think: bool | None
    grammar: bool
    """A call a reply opens is held to its form (docs/models.md, "The embedded model's tools")."""
    models: ModelEntries


class Context(msgspec.Struct, frozen=True, rename="camel"):
    memory: bool
    budget: float
    target: float
    headroom_turns: int
    summary_batch: int
    """Dropped turns the running summary's next version waits for; 0 writes none."""
    output_days: int
    """A working folder's own cache for the model's commands goes when unused this long."""


class Facts(msgspec.Struct, frozen=True, rename="camel"):
    enabled: bool
    """Facts are kept and sent with every request (docs/turn.md, "Facts")."""


class Guidance(msgspec.Struct, frozen=True, rename="camel"):
    enabled: bool
    """The working folder's ``AGENTS.md`` files are read (docs/turn.md, "Guidance files")."""


class Verification(msgspec.Struct, frozen=True, rename="camel"):
    mode: str


class Assessment(msgspec.Struct, frozen=True, rename="camel"):
    enabled: bool | str
    """true, false, or ``auto`` (on a window of 8,192 tokens or fewer)."""


class RoutingTasks(msgspec.Struct, frozen=True, rename="camel"):
    """``routing.tasks.<task>``: the model each routed task runs on; None for wisp's choice."""

    assess: str | None
    distill: str | None
    summary: str | None
    summarise: str | None
    condense: str | None
    scan: str | None
    redact: str | None
    triage: str | None
    draft: str | None
    verify: str | None
    classify: str | None


class Routing(msgspec.Struct, frozen=True, rename="camel"):
    tasks: RoutingTasks


class Notify(msgspec.Struct, frozen=True, rename="camel"):
    enabled: bool
    """The model is offered the ``notify`` tool."""
    routes: list[str]
    """The routes a notification may take, in the order they are tried."""
    per_minute: int
    per_turn: int


class EditFile(msgspec.Struct, frozen=True, rename="camel"):
    writable_roots: list[str]


class Tools(msgspec.Struct, frozen=True, rename="camel"):
    edit_file: EditFile


NetworkMode = Literal["off", "ask", "on"]
"""``commandPolicy.sandbox.network`` (docs/sandbox.md, "Network")."""


class Sandbox(msgspec.Struct, frozen=True, rename="camel"):
    enabled: bool
    network: NetworkMode
    allow_network: bool | None
    """The setting ``network`` replaced, read for one release: None when not set."""
    writable_roots: list[str]
    allow_sockets: list[str]
    allow_home: bool
    """The working folder stays writable even when it is the home folder or ``/``."""

    def network_in_force(self) -> NetworkInForce:
        """``network``, or the old ``allowNetwork`` where it is set and ``network`` says
        ``ask`` (its default): false is ``off``, true is ``on``, with a note to say once."""
        if self.allow_network is None:
            return NetworkInForce(self.network)
        if self.network != "ask":
            return NetworkInForce(
                self.network,
                "config: commandPolicy.sandbox.allowNetwork is ignored: "
                f"commandPolicy.sandbox.network ({self.network}) replaces it (wisp config unset "
                "commandPolicy.sandbox.allowNetwork)",
            )
        mode: NetworkMode = "on" if self.allow_network else "off"
        return NetworkInForce(
            mode,
            f"config: commandPolicy.sandbox.allowNetwork {str(self.allow_network).lower()} is "
            f"read as commandPolicy.sandbox.network {mode}, this release only (wisp config set "
            f"commandPolicy.sandbox.network {mode}; wisp config unset "
            "commandPolicy.sandbox.allowNetwork)",
        )


class NetworkInForce(msgspec.Struct, frozen=True):
    """The network setting the model's commands run under, and what to say of it at start."""

    mode: NetworkMode
    note: str | None = None


class Classifier(msgspec.Struct, frozen=True, rename="camel"):
    """``commandPolicy.classifier``: a second opinion on the commands no rule covers. Its mode
    is a key of its own beside ``mayLower``, as a key cannot be a value and a section at once."""

    mode: Literal["off", "trained", "model"]
    may_lower: bool


class CommandPolicy(msgspec.Struct, frozen=True, rename="camel"):
    sandbox: Sandbox
    classifier: Classifier
    deny: list[str] | None
    """None (unset): wisp's own deny list, ``wisp.policy.patterns.DEFAULT_DENY``."""
    allow: list[str]
    pass_env: list[str]
    """Credential-looking variables the model's commands keep (docs/sandbox.md,
    "Environment")."""


class Approval(msgspec.Struct, frozen=True, rename="camel"):
    threshold: str
    timeout_seconds: int
    persist_days: int
    out_of_band: bool
    elicitation: bool
    banner_delay_seconds: int


SECTIONS: dict[str, type[msgspec.Struct]] = {
    "audit": Audit,
    "agent": Agent,
    "models": Models,
    "ollama": Ollama,
    "llamacpp": LlamaCpp,
    "lmstudio": LMStudio,
    "openai": OpenAI,
    "local": Local,
    "context": Context,
    "tools": Tools,
    "commandPolicy": CommandPolicy,
    "approval": Approval,
    "verification": Verification,
    "facts": Facts,
    "guidance": Guidance,
    "assessment": Assessment,
    "routing": Routing,
    "notify": Notify,
}
"""Each section by the name of its object in config.json."""

_S = TypeVar("_S", bound=msgspec.Struct)
_V = TypeVar("_V")


class Reader:
    """Reads and keeps what ``Settings`` is asked for: each key or section built and checked
    on first read, then kept."""

    __slots__ = ("_built", "_read", "_stored", "path")

    def __init__(self, read: Read, stored: Stored, path: Path) -> None:
        self._read = read
        self._stored = stored
        self._built: dict[str, Any] = {}
        self.path = path

    def key(self, key: str) -> Any:
        if key not in self._built:
            self._built[key] = self._read(key)
        return self._built[key]

    def section(self, kind: type[_S], name: str) -> _S:
        if name not in self._built:
            self._built[name] = self._build(kind, name)
        return self._built[name]  # type: ignore[no-any-return]

    def _build(self, kind: type[_S], prefix: str) -> _S:
        """``kind`` with each field read from ``<prefix>.<encoded name>``, nested sections
        built alike; a runtime's model entries are read as stored (``ModelEntries``)."""
        values: dict[str, Any] = {}
        for field in msgspec.structs.fields(kind):
            key = f"{prefix}.{field.encode_name}"
            if field.type is ModelEntries:
                values[field.name] = ModelEntries.read(self.path, prefix, self._stored(key))
            elif isinstance(field.type, type) and issubclass(field.type, msgspec.Struct):
                values[field.name] = self._build(field.type, key)
            else:
                value = self._read(key)
                is_secret = Secret in get_args(field.type)
                values[field.name] = Secret(value) if is_secret and value is not None else value
        return kind(**values)


class SettingKey(Generic[_V]):
    """A setting of ``Settings`` read alone (``model``), checked on first read."""

    def __init__(self, key: str) -> None:
        self.key = key

    @overload
    def __get__(self, settings: None, owner: type) -> SettingKey[_V]: ...
    @overload
    def __get__(self, settings: Settings, owner: type) -> _V: ...
    def __get__(self, settings: Settings | None, owner: type) -> SettingKey[_V] | _V:
        if settings is None:
            return self
        return settings.reader.key(self.key)  # type: ignore[no-any-return]


class SettingSection(Generic[_S]):
    """A section of ``Settings`` (``audit``), built and checked on first read."""

    def __init__(self, kind: type[_S], name: str) -> None:
        self.kind = kind
        self.name = name

    @overload
    def __get__(self, settings: None, owner: type) -> SettingSection[_S]: ...
    @overload
    def __get__(self, settings: Settings, owner: type) -> _S: ...
    def __get__(self, settings: Settings | None, owner: type) -> SettingSection[_S] | _S:
        if settings is None:
            return self
        return settings.reader.section(self.kind, self.name)


class Settings:
    """The settings in force, by section (``settings.ollama.base_url``); each section is
    built and checked on first read, then kept."""

    __slots__ = ("path", "reader")

    model: SettingKey[str] = SettingKey("model")
    system_prompt_extension: SettingKey[str] = SettingKey("systemPromptExtension")
    command_timeout_seconds: SettingKey[int] = SettingKey("commandTimeoutSeconds")
    command_max_timeout_seconds: SettingKey[int] = SettingKey("commandMaxTimeoutSeconds")

    audit = SettingSection(Audit, "audit")
    agent = SettingSection(Agent, "agent")
    models = SettingSection(Models, "models")
    ollama = SettingSection(Ollama, "ollama")
    llamacpp = SettingSection(LlamaCpp, "llamacpp")
    lmstudio = SettingSection(LMStudio, "lmstudio")
    openai = SettingSection(OpenAI, "openai")
    local = SettingSection(Local, "local")
    context = SettingSection(Context, "context")
    tools = SettingSection(Tools, "tools")
    command_policy = SettingSection(CommandPolicy, "commandPolicy")
    approval = SettingSection(Approval, "approval")
    verification = SettingSection(Verification, "verification")
    facts = SettingSection(Facts, "facts")
    guidance = SettingSection(Guidance, "guidance")
    assessment = SettingSection(Assessment, "assessment")
    routing = SettingSection(Routing, "routing")
    notify = SettingSection(Notify, "notify")

    def __init__(self, read: Read, stored: Stored, path: Path) -> None:
        self.reader = Reader(read, stored, path)
        self.path = path
        """The config file the settings are read from."""

    def runtime(self, scheme: str) -> Ollama | OpenAICompatible | Local | None:
        """The section of the model runtime ``scheme`` names; None for one with none
        (``script``)."""
        section = _RUNTIMES.get(scheme)
        if section is None:
            return None
        return section.__get__(self, Settings)  # type: ignore[no-any-return]

    def openai_compatible(self, scheme: str) -> OpenAICompatible:
        """The section of ``llamacpp``, ``lmstudio`` or ``openai``."""
        section = self.runtime(scheme)
        if not isinstance(section, LlamaCpp | LMStudio | OpenAI):
            raise KeyError(scheme)
        return section


_RUNTIMES: dict[str, SettingSection[Any]] = {
    "local": Settings.local,
    "ollama": Settings.ollama,
    "llamacpp": Settings.llamacpp,
    "lmstudio": Settings.lmstudio,
    "openai": Settings.openai,
}
"""Each model runtime's section, read only when asked for."""


def section_keys(kind: type[msgspec.Struct], prefix: str) -> list[str]:
    """The dotted keys ``kind``'s fields stand for, below ``prefix`` (model entries aside)."""
    keys: list[str] = []
    for field in msgspec.structs.fields(kind):
        key = f"{prefix}.{field.encode_name}"
        if field.type is ModelEntries:
            continue
        if isinstance(field.type, type) and issubclass(field.type, msgspec.Struct):
            keys += section_keys(field.type, key)
        else:
            keys.append(key)
    return keys


TOP_LEVEL = ("model", "systemPromptExtension", "commandTimeoutSeconds", "commandMaxTimeoutSeconds")
"""The settings outside any section, each a ``SettingKey`` of ``Settings``."""
