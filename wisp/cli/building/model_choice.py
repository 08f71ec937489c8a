"""Which model a session runs on: the selection resolved with the settings in force, a disabled
model refused by any spelling, and a chat whose configured model is unavailable falling back to
``local`` (docs/models.md, "Falling back at start"). It holds the HTTP client the servers'
models share."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wisp.agent.types import ModelUnavailable, ResolvedModel
from wisp.audit.kinds import ModelFallback
from wisp.cli.context import Context
from wisp.cli.models.files import ConfigModelFiles
from wisp.config import Config
from wisp.models.registry import resolve_model
from wisp.models.selection import canonical_selection

SERVED_SCHEMES = frozenset({"ollama", "llamacpp", "lmstudio", "openai"})
"""The runtimes reached over HTTP, whose models need the session's client."""


class ModelChoice:
    """Resolves the session's models; ``config`` gives the settings in force (they are reloaded
    when models are turned on or off)."""

    def __init__(
        self,
        context: Context,
        options: Any,
        config: Callable[[], Config],
        record: Callable[[Any], Any],
    ) -> None:
        self.context = context
        self.options = options
        self._config = config
        self._record = record
        self._client: Any = None  # an httpx.AsyncClient, made when a server model needs one

    async def first(self) -> tuple[ResolvedModel, str | None]:
        """The model the session starts on, and the note to say when it fell back. A chat
        whose configured model (not one named with --model) is unavailable starts on local
        instead; a one-shot never falls back."""
        named = self.options.model
        selection = named or self._config().settings.model
        try:
            return await self.resolve(selection), None
        except ModelUnavailable as exc:
            if named or self.options.entry_point != "chat" or selection == "local":
                raise
            self._record(ModelFallback(model=selection, reason=str(exc), fallback="local"))
            note = f"{selection} is unavailable ({exc}); this chat runs on local"
            return await self.resolve("local"), note

    async def resolve(self, selection: str) -> ResolvedModel:
        """``selection`` ready to run; ``ModelUnavailable`` when it is disabled or cannot be."""
        config = self._config()
        refuse_disabled(selection, config.settings.models.disabled)
        return await resolve_model(
            selection,
            config=config,
            environ=self.context.environ,
            client=self.http() if is_served(selection) else None,
            model_files=ConfigModelFiles(
                self.context, source=self.options.entry_point, record=self._record
            ),
        )

    @property
    def http_client(self) -> Any:
        """The HTTP client if one was made, else None."""
        return self._client

    def http(self) -> Any:
        """The HTTP client, made on first use: a ``local`` or ``script:`` session never pays
        for importing httpx (startup is most of a short chat's wait)."""
        if self._client is None:
            import httpx

            self._client = httpx.AsyncClient()
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()


def refuse_disabled(selection: str, disabled: list[str]) -> None:
    """A disabled model is refused wherever it is chosen, by any spelling."""
    if not disabled:
        return
    wanted = canonical_selection(selection)
    for spelling in disabled:
        try:
            same = canonical_selection(spelling) == wanted
        except ModelUnavailable:
            same = spelling == selection
        if same:
            raise ModelUnavailable(
                f"model '{selection}' is disabled; enable it with wisp models enable "
                f"{selection}, or /models enable {selection} in chat"
            )


def is_served(selection: str) -> bool:
    """Whether a model is reached over HTTP (and so needs the session's client)."""
    return selection.strip().partition(":")[0].lower() in SERVED_SCHEMES
