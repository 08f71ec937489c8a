"""The typed view of config.json: a frozen Struct per section of the known settings.

Each field stands for one key of ``wisp.config.settings.SETTINGS``: its name in the file is the
field's encoded name (``base_url`` is ``ollama.baseURL``), and its value is read through that
setting's check, so a type, range or default is said once, in the registry. A section is checked
when it is first read: a bad ``ollama.baseURL`` stops what reads the ``ollama`` section, not
``wisp config`` or the audit log. The view is built once per ``Config`` (``Config.settings``), and
a changed file is loaded as a new ``Config``, so the view is rebuilt with it.

This module imports nothing else of wisp: the parts handed a section (the model backends, the
command patterns) import its type without importing the config store.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, get_args

import msgspec

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


class ModelEntries(msgspec.Struct, frozen=True):
    """``<scheme>.models``: each model's entry as stored. A model's name may hold dots, so an
    entry is found by name here and its fields are checked by the backend that reads them."""

    path: Path
    """The config file, for the backends' messages about an entry."""
    stored: dict[str, Any] | None
    """The object at ``<scheme>.models``; None when there is none or it is not an object."""

    def entry(self, name: str) -> dict[str, Any]:
        """``<scheme>.models.<name>``: empty when there is none or it is not an object."""
        entry = (self.stored or {}).get(name)
        return entry if isinstance(entry, dict) else {}


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
    """A reply to tools written into the prompt is held to a call or text (docs/models.md)."""
    models: ModelEntries


class Context(msgspec.Struct, frozen=True, rename="camel"):
    memory: bool
    budget: float
    target: float
    headroom_turns: int


class Verification(msgspec.Struct, frozen=True, rename="camel"):
    mode: str


class EditFile(msgspec.Struct, frozen=True, rename="camel"):
    writable_roots: list[str]


class Tools(msgspec.Struct, frozen=True, rename="camel"):
    edit_file: EditFile


class Sandbox(msgspec.Struct, frozen=True, rename="camel"):
    enabled: bool
    allow_network: bool
    writable_roots: list[str]
    allow_sockets: list[str]


class CommandPolicy(msgspec.Struct, frozen=True, rename="camel"):
    sandbox: Sandbox
    deny: list[str] | None
    """None (unset): wisp's own deny list, ``wisp.policy.patterns.DEFAULT_DENY``."""
    allow: list[str]


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
}
"""Each section by the name of its object in config.json."""

_S = TypeVar("_S", bound=msgspec.Struct)


class Settings:
    """The settings in force, by section (``settings.ollama.base_url``); each section is
    built and checked on first read, then kept."""

    __slots__ = ("_built", "_read", "_stored", "path")

    def __init__(self, read: Read, stored: Stored, path: Path) -> None:
        self._read = read
        self._stored = stored
        self._built: dict[str, Any] = {}
        self.path = path
        """The config file the settings are read from."""

    @property
    def model(self) -> str:
        return self._key("model")

    @property
    def system_prompt_extension(self) -> str:
        return self._key("systemPromptExtension")

    @property
    def command_timeout_seconds(self) -> int:
        return self._key("commandTimeoutSeconds")

    @property
    def command_max_timeout_seconds(self) -> int:
        return self._key("commandMaxTimeoutSeconds")

    @property
    def audit(self) -> Audit:
        return self._section(Audit, "audit")

    @property
    def agent(self) -> Agent:
        return self._section(Agent, "agent")

    @property
    def models(self) -> Models:
        return self._section(Models, "models")

    @property
    def ollama(self) -> Ollama:
        return self._section(Ollama, "ollama")

    @property
    def llamacpp(self) -> LlamaCpp:
        return self._section(LlamaCpp, "llamacpp")

    @property
    def lmstudio(self) -> LMStudio:
        return self._section(LMStudio, "lmstudio")

    @property
    def openai(self) -> OpenAI:
        return self._section(OpenAI, "openai")

    @property
    def local(self) -> Local:
        return self._section(Local, "local")

    @property
    def context(self) -> Context:
        return self._section(Context, "context")

    @property
    def tools(self) -> Tools:
        return self._section(Tools, "tools")

    @property
    def command_policy(self) -> CommandPolicy:
        return self._section(CommandPolicy, "commandPolicy")

    @property
    def approval(self) -> Approval:
        return self._section(Approval, "approval")

    @property
    def verification(self) -> Verification:
        return self._section(Verification, "verification")

    def runtime(self, scheme: str) -> Ollama | OpenAICompatible | Local | None:
        """The section of the model runtime ``scheme`` names; None for one with none
        (``script``)."""
        return _RUNTIMES[scheme](self) if scheme in _RUNTIMES else None

    def openai_compatible(self, scheme: str) -> OpenAICompatible:
        """The section of ``llamacpp``, ``lmstudio`` or ``openai``."""
        section = self.runtime(scheme)
        if not isinstance(section, LlamaCpp | LMStudio | OpenAI):
            raise KeyError(scheme)
        return section

    def _key(self, key: str) -> Any:
        if key not in self._built:
            self._built[key] = self._read(key)
        return self._built[key]

    def _section(self, kind: type[_S], name: str) -> _S:
        if name not in self._built:
            self._built[name] = self._build(kind, name)
        return self._built[name]  # type: ignore[no-any-return]

    def _build(self, kind: type[_S], prefix: str) -> _S:
        """``kind`` with each field read from ``<prefix>.<encoded name>``, nested sections
        built alike."""
        values: dict[str, Any] = {}
        for field in msgspec.structs.fields(kind):
            key = f"{prefix}.{field.encode_name}"
            if field.type is ModelEntries:
                stored = self._stored(key)
                stored = copy.deepcopy(stored) if isinstance(stored, dict) else None
                values[field.name] = ModelEntries(self.path, stored)
            elif isinstance(field.type, type) and issubclass(field.type, msgspec.Struct):
                values[field.name] = self._build(field.type, key)
            else:
                value = self._read(key)
                is_secret = Secret in get_args(field.type)
                values[field.name] = Secret(value) if is_secret and value is not None else value
        return kind(**values)


_RUNTIMES: dict[str, Callable[[Settings], Ollama | OpenAICompatible | Local]] = {
    "local": lambda settings: settings.local,
    "ollama": lambda settings: settings.ollama,
    "llamacpp": lambda settings: settings.llamacpp,
    "lmstudio": lambda settings: settings.lmstudio,
    "openai": lambda settings: settings.openai,
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
"""The settings outside any section, each a property of ``Settings``."""
