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
    )
}
