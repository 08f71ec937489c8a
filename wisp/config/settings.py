"""The settings wisp knows: each one's dotted path, type, range, default and meaning.

config.json may hold other keys too (a newer wisp's, a plugin's): those are kept and warned
about, never dropped (D2). Later parts of wisp add their settings to ``SETTINGS`` here, so that
``wisp config`` validates and lists every one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import msgspec


@dataclass(frozen=True, slots=True)
class Setting:
    """One known key of config.json."""

    path: str
    """Dotted path into nested objects: ``audit.keepFiles`` is ``{"audit": {"keepFiles": 3}}``."""
    type: Any
    """What ``msgspec.convert`` checks the value against, ranges included."""
    default: Any
    expected: str
    """The type and range in words, for errors: ``an integer from 0 to 10000``."""
    help: str

    def check(self, value: Any) -> Any:
        """The value, if it is of this setting's type and range; else ``ValueError``."""
        try:
            return msgspec.convert(value, self.type, strict=True)
        except msgspec.ValidationError as exc:
            raise ValueError(f"expected {self.expected}") from exc


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
        Setting(
            "openai.contextLength",
            Annotated[int, msgspec.Meta(ge=512, le=4_194_304)],
            None,
            "an integer from 512 to 4194304 (tokens)",
            "The window to assume for openai: models when the server reports none.",
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
            "CPU threads the local model generates with; unset is llama-cpp-python's default.",
        ),
        Setting(
            "local.think",
            bool,
            None,
            "true or false",
            "The template's enable_thinking for a local model that can think; unset sends none.",
        ),
        Setting(
            "context.memory",
            bool,
            False,
            "true or false",
            "Give conversations the memory tool, to recall earlier entries and turns.",
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
            "commandPolicy.sandbox.allowNetwork",
            bool,
            True,
            "true or false",
            "Let sandboxed commands use the network; false refuses TCP connect and bind.",
        ),
        Setting(
            "commandPolicy.sandbox.writableRoots",
            list[str],
            ["~/.cargo/registry", "~/.cargo/git"],
            "a list of paths (~ expands)",
            "Folders sandboxed commands may write besides the working, temp and cache folders.",
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
            "An approval unanswered this long counts as declined; 0 waits for ever.",
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
    )
}
