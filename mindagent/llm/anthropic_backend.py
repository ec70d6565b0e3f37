"""Claude through the official ``anthropic`` SDK, with prompt caching of the static prefix.

The dispatcher's prompt is a long, byte-stable prefix (recipes, instructions, examples) and a
short per-step tail (state, feedback). Marking the end of the prefix with
``cache_control: {"type": "ephemeral"}`` lets Anthropic bill later steps' prefix as cache reads,
which is most of the prompt. Which message ends the prefix is the caller's choice
(`Message.cache_prefix`); this module only places the breakpoint there.
"""

from __future__ import annotations

import functools
import inspect
import logging
import os
import random
import time
from collections.abc import Sequence
from typing import Any

from mindagent.llm.base import (
    AuthFailed,
    BadRequest,
    Completion,
    GenerationConfig,
    Message,
    ModelUnavailable,
    Usage,
    require_text,
)
from mindagent.llm.deadline import deadline
from mindagent.llm.extra_headers import extra_headers
from mindagent.llm.ratelimit import Gate, gated, request_tokens
from mindagent.llm.redact import register_secret, register_url
from mindagent.llm.retry import (
    CONNECT_TIMEOUT_S,
    DEFAULT_TIMEOUT_S,
    Sleep,
    describe,
    error_kind,
    well_formed,
    with_retries,
)
from mindagent.llm.telemetry import metered

log = logging.getLogger(__name__)

API_KEY_ENV = "ANTHROPIC_API_KEY"
_EPHEMERAL = {"type": "ephemeral"}


def _text_block(text: str, cache: bool) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": text}
    if cache:
        block["cache_control"] = dict(_EPHEMERAL)
    return block


def build_request(messages: Sequence[Message]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Split messages into Anthropic's ``system`` blocks and alternating ``messages``.

    System messages may appear anywhere in our list but Anthropic takes them apart, in order.
    Consecutive turns of one role are merged into one message of several text blocks, because
    the Messages API wants user/assistant turns to alternate.
    """
    system: list[dict[str, Any]] = []
    turns: list[dict[str, Any]] = []
    for msg in messages:
        block = _text_block(msg.content, msg.cache_prefix)
        if msg.role == "system":
            system.append(block)
        elif turns and turns[-1]["role"] == msg.role:
            turns[-1]["content"].append(block)
        else:
            turns.append({"role": msg.role, "content": [block]})
    if not turns:
        raise BadRequest("anthropic: a request needs at least one user message, got only system text")
    return system, turns


def _reply_parts(resp: Any) -> tuple[str, Any, str | None, object]:
    """(text, usage, model, stop reason) of a Messages API reply; raises for anything else (`well_formed`
    turns that into a retried `MalformedReply`)."""
    text = "".join(str(b.text) for b in resp.content if getattr(b, "type", "") == "text")
    model = getattr(resp, "model", None)
    return text, resp.usage, model if isinstance(model, str) else None, getattr(resp, "stop_reason", None)


def map_usage(usage: Any, latency_s: float) -> Usage:
    """Anthropic reports uncached, cache-read and cache-written input separately; sum them.

    ``prompt_tokens`` is every input token so numbers compare across providers;
    ``cached_tokens`` is the part served from cache.
    """
    plain = int(getattr(usage, "input_tokens", 0) or 0)
    read = int(getattr(usage, "cache_read_input_tokens", 0) or 0)
    written = int(getattr(usage, "cache_creation_input_tokens", 0) or 0)
    return Usage(
        prompt_tokens=plain + read + written,
        cached_tokens=read,
        output_tokens=int(getattr(usage, "output_tokens", 0) or 0),
        latency_s=latency_s,
    )


class AnthropicClient:
    """`LLMClient` for ``anthropic:<model>``.

    ``http_client`` is handed to the SDK as is; it must be the httpx flavour the installed SDK
    uses (``httpx2.AsyncClient`` in anthropic>=1, ``httpx.AsyncClient`` before). Tests pass one
    with a ``MockTransport``. ``sleep``/``rng`` reach the retry loop so tests do not wait.
    """

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        http_client: Any = None,
        sleep: Sleep | None = None,
        rng: random.Random | None = None,
        gate: Gate | None = None,
    ) -> None:
        self.model = model
        self.name = f"anthropic:{model}"
        self._api_key = api_key
        register_url(base_url)  # its user info, Basic token and key parameters, masked by value
        register_secret(api_key)
        self._headers = extra_headers()  # a bad MINDAGENT_HTTP_HEADERS is refused here, before any call
        self._base_url = base_url
        self._http_client = http_client
        self._sleep = sleep
        self._rng = rng or random.Random(0)
        self._gate = gate  # the backend's shared request budget (`mindagent.llm.ratelimit`)
        self._sdk: Any = None
        self._temperature_in_signature: bool | None = None
        self._timeout_cls: Any = None
        # Claude models after Opus 4.6 reject sampling parameters; learned from the first 400.
        self._send_temperature = True

    def _client(self) -> Any:
        """Build the SDK client on first use, so a missing key is reported, not a traceback."""
        if self._sdk is not None:
            return self._sdk
        key = self._api_key or os.environ.get(API_KEY_ENV)
        if not key:
            raise AuthFailed(f"{self.name}: no API key; set {API_KEY_ENV} in the environment")
        register_secret(key)
        try:
            import anthropic
        except ImportError as exc:  # pragma: no cover - a core dependency
            raise ModelUnavailable("anthropic backend needs the SDK: pip install anthropic") from exc
        self._sdk = anthropic.AsyncAnthropic(
            api_key=key,
            base_url=self._base_url,
            max_retries=0,  # ours are the only retries (mindagent.llm.retry)
            timeout=anthropic.Timeout(DEFAULT_TIMEOUT_S, connect=CONNECT_TIMEOUT_S),
            http_client=self._http_client,
            default_headers=self._headers or None,
        )
        # anthropic>=1 dropped `temperature` from create()'s keywords; the API still takes it.
        params = inspect.signature(self._sdk.messages.create).parameters
        self._temperature_in_signature = "temperature" in params
        self._timeout_cls = anthropic.Timeout
        return self._sdk

    def _kwargs(self, messages: Sequence[Message], config: GenerationConfig) -> dict[str, Any]:
        system, turns = build_request(messages)
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": turns,
            "max_tokens": config.max_tokens,
            "timeout": self._timeout_cls(
                config.timeout_s, connect=min(CONNECT_TIMEOUT_S, config.timeout_s)
            ),
        }
        if system:
            kwargs["system"] = system
        if config.temperature is not None and self._send_temperature:
            if self._temperature_in_signature:
                kwargs["temperature"] = config.temperature
            else:
                kwargs["extra_body"] = {"temperature": config.temperature}
        return kwargs

    async def complete(
        self,
        messages: Sequence[Message],
        config: GenerationConfig,
        grammar: str | None = None,
    ) -> Completion:
        """One Messages API call with our retry policy; `grammar` is ignored (the API has none)."""
        sdk = self._client()
        started = time.perf_counter()
        with metered():
            async with deadline(config.timeout_s, self.name):  # httpx's read timeout is per chunk
                text, usage_raw, served, stop = await self._attempts(sdk, messages, config)
        latency = time.perf_counter() - started
        text = require_text(text, stop, self.name, config.max_tokens)
        usage = map_usage(usage_raw, latency)
        log.debug("%s: %d prompt (%d cached) + %d output tokens in %.2fs", self.name,
                  usage.prompt_tokens, usage.cached_tokens, usage.output_tokens, latency)
        # a temperature the model refused is not sent: say so, so results never claim it was
        not_sent = ("temperature",) if config.temperature is not None and not self._send_temperature else ()
        return Completion(text=text, usage=usage, model=served or self.model, not_sent=not_sent,
                          finish_reason=str(stop or ""))

    async def _attempts(self, sdk: Any, messages: Sequence[Message],
                        config: GenerationConfig) -> tuple[str, Any, str | None, object]:
        """The retried call, once more without temperature if the model rejects sampling parameters."""
        import anthropic

        for _ in range(2):  # a second pass only after dropping a rejected temperature
            kwargs = self._kwargs(messages, config)
            try:
                return await with_retries(
                    gated(well_formed(functools.partial(sdk.messages.create, **kwargs), _reply_parts), self._gate,
                          request_tokens((m.content for m in messages), config.max_tokens)),
                    config,
                    what=self.name,
                    sleep=self._sleep,
                    rng=self._rng,
                )
            except anthropic.BadRequestError as exc:
                if not (self._send_temperature and "temperature" in str(exc).lower()):
                    raise error_kind(exc)(f"{self.name}: {describe(exc)}") from exc
                log.warning("%s rejects temperature; sending none from now on", self.name)
                self._send_temperature = False
            except anthropic.AnthropicError as exc:
                raise error_kind(exc)(f"{self.name}: {describe(exc)}") from exc
        raise BadRequest(f"{self.name}: request rejected twice")

    async def aclose(self) -> None:
        """Close the SDK's connection pool (and the injected http client with it)."""
        if self._sdk is not None:
            await self._sdk.close()
            self._sdk = None
