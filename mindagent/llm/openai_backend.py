"""OpenAI, and any server that speaks its Chat Completions API, through the ``openai`` SDK.

One backend covers the hosted API and local servers (vLLM, Ollama, llama.cpp's server,
``python -m llama_cpp.server``): pass ``base_url``. Such servers rarely check keys, so a dummy
key is used when none is set, rather than making people export a fake one.
OpenAI caches long prompt prefixes automatically; `Message.cache_prefix` needs no marker here.

Grammars: the hosted API takes no GBNF grammar, but llama.cpp's servers take one in the request
body's ``grammar`` field and vLLM in ``guided_grammar``, so a caller's grammar is sent in
whichever field the server reads (`GRAMMAR_FIELDS`): named with ``grammar_field`` or, by default,
told from the server's model list (``owned_by``) on the first call that has a grammar. The
`Completion` says which field carried it (``grammar_sent``), so a recording shows whether the
model's answer was constrained.

Cached tokens: OpenAI reports them as ``usage.prompt_tokens_details.cached_tokens``; llama.cpp's
``llama-server`` as ``timings.cache_n`` beside ``timings.prompt_n`` (the tokens it evaluated).
``python -m llama_cpp.server`` reports neither, so its calls record 0.
"""

from __future__ import annotations

import functools
import logging
import os
import random
import time
from collections.abc import Sequence
from typing import Any, Literal, get_args

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
from mindagent.llm.redact import redact_url, register_secret, register_url
from mindagent.llm.retry import (
    CONNECT_TIMEOUT_S,
    DEFAULT_TIMEOUT_S,
    Sleep,
    describe,
    error_kind,
    well_formed,
    with_retries,
)
from mindagent.llm.scoring import OptionScore, Scores, chatml, read_echo_logprobs, read_reply_text
from mindagent.llm.telemetry import metered

log = logging.getLogger(__name__)

API_KEY_ENV = "OPENAI_API_KEY"
#: Key sent to OpenAI-compatible servers that ignore it (the SDK refuses to run without one).
DUMMY_KEY = "not-needed"


#: How a grammar reaches the server: llama.cpp's ``grammar`` field, vLLM's ``guided_grammar``, not at
#: all (``none``), or told from the server (``auto``, the default).
GrammarField = Literal["auto", "llama", "vllm", "none"]
GRAMMAR_FIELDS: tuple[str, ...] = get_args(GrammarField)
#: The request body key each field name stands for.
_BODY_KEY = {"llama": "grammar", "vllm": "guided_grammar"}
#: ``owned_by`` in a server's model list -> the grammar field it reads (llama.cpp's server says
#: "llamacpp", ``python -m llama_cpp.server`` says "me", vLLM says "vllm").
_OWNERS = {"llamacpp": "llama", "me": "llama", "vllm": "vllm"}
#: Longest wait for the model list when telling which grammar field a server reads.
PROBE_TIMEOUT_S = 5.0


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _cached(usage: Any, timings: object) -> int:
    """Cache hits from ``prompt_tokens_details.cached_tokens`` (OpenAI, newer servers), else from
    llama-server's ``timings.cache_n``; 0 when the server says neither."""
    details = getattr(usage, "prompt_tokens_details", None) if usage is not None else None
    if isinstance(details, dict):  # some servers' details reach the SDK as a plain mapping
        cached = _int(details.get("cached_tokens"))
    else:
        cached = _int(getattr(details, "cached_tokens", None))
    if not cached and isinstance(timings, dict):
        cached = _int(timings.get("cache_n"))
    return cached


def map_usage(usage: Any, latency_s: float, timings: object = None) -> Usage:
    """Chat Completions usage; cache hits (`_cached`) are missing on many servers."""
    if usage is None:
        return Usage(cached_tokens=_cached(None, timings), latency_s=latency_s)
    return Usage(
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        cached_tokens=_cached(usage, timings),
        output_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        latency_s=latency_s,
    )


def _as_mapping(resp: Any) -> dict[str, Any]:
    """A completions reply as plain data (the SDK's object, dumped), for `read_reply_text`."""
    dumped = resp.model_dump(warnings=False) if hasattr(resp, "model_dump") else resp
    if not isinstance(dumped, dict):
        raise TypeError(f"the completions reply is {type(dumped).__name__}")
    return dumped


def _reply_parts(resp: Any) -> tuple[str, Any, str | None, object, object]:
    """(text, usage, model, finish reason, llama-server timings) of a chat completion; raises for
    anything else (`well_formed` turns that into a retried `MalformedReply`)."""
    if not resp.choices:
        raise ValueError("the response has no choices")
    text = resp.choices[0].message.content
    if text is not None and not isinstance(text, str):
        raise TypeError(f"message content is {type(text).__name__}")
    model = getattr(resp, "model", None)
    finish = getattr(resp.choices[0], "finish_reason", None)
    timings = getattr(resp, "timings", None)  # an extra field the SDK keeps as given
    return text or "", resp.usage, model if isinstance(model, str) else None, finish, timings


class OpenAIClient:
    """`LLMClient` for ``openai:<model>``, optionally against ``base_url``.

    ``http_client`` must be the httpx flavour the installed SDK accepts; tests inject one.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        http_client: Any = None,
        sleep: Sleep | None = None,
        rng: random.Random | None = None,
        gate: Gate | None = None,
        grammar_field: str = "auto",
    ) -> None:
        if grammar_field not in GRAMMAR_FIELDS:
            raise BadRequest(f"grammar field {grammar_field!r}: expected one of {', '.join(GRAMMAR_FIELDS)}")
        self.model = model
        self.base_url = base_url
        # the name is shown to spectators and recorded: never with credentials from the URL
        self.name = f"openai:{model}" + (f"@{redact_url(base_url)}" if base_url else "")
        self._api_key = api_key
        register_url(base_url)  # its user info, Basic token and key parameters, masked by value
        register_secret(api_key)
        self._headers = extra_headers()  # a bad MINDAGENT_HTTP_HEADERS is refused here, before any call
        self._http_client = http_client
        self._sleep = sleep
        self._rng = rng or random.Random(0)
        self._gate = gate  # the backend's shared request budget (`mindagent.llm.ratelimit`)
        self._sdk: Any = None
        self._timeout_cls: Any = None
        #: The grammar field in use: as configured, or told from the server at the first grammar.
        self.grammar_field = grammar_field if base_url or grammar_field != "auto" else "none"

    def _client(self) -> Any:
        """Build the SDK client on first use; a missing key becomes a readable LLMError."""
        if self._sdk is not None:
            return self._sdk
        key = self._api_key or os.environ.get(API_KEY_ENV) or (DUMMY_KEY if self.base_url else None)
        if not key:
            raise AuthFailed(
                f"{self.name}: no API key; set {API_KEY_ENV}, or pass --base-url for a local "
                "OpenAI-compatible server"
            )
        if key != DUMMY_KEY:
            register_secret(key)
        try:
            import openai
        except ImportError as exc:  # pragma: no cover - a core dependency
            raise ModelUnavailable("openai backend needs the SDK: pip install openai") from exc
        self._sdk = openai.AsyncOpenAI(
            api_key=key,
            base_url=self.base_url,
            max_retries=0,  # ours are the only retries (mindagent.llm.retry)
            timeout=openai.Timeout(DEFAULT_TIMEOUT_S, connect=CONNECT_TIMEOUT_S),
            http_client=self._http_client,
            default_headers=self._headers or None,
        )
        self._timeout_cls = openai.Timeout
        return self._sdk

    async def _resolve_grammar_field(self, sdk: Any, config: GenerationConfig) -> str:
        """``llama``, ``vllm`` or ``none``: as configured, else told once from the server's model
        list. A server that does not answer it, or is unknown, gets no grammar (said in the log)."""
        if self.grammar_field != "auto":
            return self.grammar_field
        owners: list[str] = []
        try:
            page = await sdk.models.list(timeout=min(PROBE_TIMEOUT_S, config.timeout_s))
            owners = [str(getattr(m, "owned_by", "")) for m in getattr(page, "data", [])]
        except Exception as exc:  # noqa: BLE001 - any failure only means "cannot tell"
            log.info("%s: could not list models to choose a grammar field (%s)", self.name, type(exc).__name__)
        found = next((_OWNERS[o] for o in owners if o in _OWNERS), "none")
        if found == "none":
            log.warning("%s: cannot tell whether this server takes a grammar (model owners %s); sending none "
                        "(choose one with --grammar-field llama|vllm)", self.name, owners or "unknown")
        self.grammar_field = found
        return found

    def _kwargs(self, messages: Sequence[Message], config: GenerationConfig) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "timeout": self._timeout_cls(
                config.timeout_s, connect=min(CONNECT_TIMEOUT_S, config.timeout_s)
            ),
        }
        # The hosted API deprecated max_tokens (reasoning models reject it); compatible servers
        # (llama.cpp, older vLLM/Ollama) only know max_tokens.
        kwargs["max_tokens" if self.base_url else "max_completion_tokens"] = config.max_tokens
        if config.temperature is not None:
            kwargs["temperature"] = config.temperature
        if config.seed is not None:
            kwargs["seed"] = config.seed
        return kwargs

    async def complete(
        self,
        messages: Sequence[Message],
        config: GenerationConfig,
        grammar: str | None = None,
    ) -> Completion:
        """One chat completion with our retry policy; `grammar` goes in the field the server reads
        (`GrammarField`), or nowhere (the hosted API has none)."""
        import openai

        sdk = self._client()
        kwargs = self._kwargs(messages, config)
        sent = ""
        if grammar is not None:
            sent = await self._resolve_grammar_field(sdk, config)
            if sent in _BODY_KEY:
                kwargs["extra_body"] = {_BODY_KEY[sent]: grammar}
            else:
                sent = ""
        started = time.perf_counter()
        with metered():
            try:
                async with deadline(config.timeout_s, self.name):  # httpx's read timeout is per chunk
                    text, usage_raw, served, finish, timings = await with_retries(
                        gated(well_formed(functools.partial(sdk.chat.completions.create, **kwargs), _reply_parts),
                              self._gate, request_tokens((m.content for m in messages), config.max_tokens)),
                        config,
                        what=self.name,
                        sleep=self._sleep,
                        rng=self._rng,
                    )
            except openai.OpenAIError as exc:
                raise error_kind(exc)(f"{self.name}: {describe(exc)}") from exc
        latency = time.perf_counter() - started
        text = require_text(text, finish, self.name, config.max_tokens)
        usage = map_usage(usage_raw, latency, timings)
        log.debug("%s: %d prompt (%d cached) + %d output tokens in %.2fs", self.name,
                  usage.prompt_tokens, usage.cached_tokens, usage.output_tokens, latency)
        return Completion(text=text, usage=usage, model=served or self.model, finish_reason=str(finish or ""),
                          grammar_sent=sent)

    async def score(self, messages: Sequence[Message], context: str, continuations: Sequence[str],
                    config: GenerationConfig) -> Scores:
        """Each continuation's log-likelihood (`Scorer`), from the completions endpoint: the prompt
        (`chatml` of the messages, then `context` and the continuation) echoed with its tokens'
        log-probabilities, one request per continuation. Needs a server that echoes them
        (llama_cpp.server does; OpenAI's hosted API no longer does, so `make_brain` refuses it)."""
        import openai

        sdk = self._client()
        head = chatml(messages) + context
        out: list[OptionScore] = []
        usage = Usage()
        started = time.perf_counter()
        served = ""
        for continuation in continuations:
            prompt = head + continuation
            request = functools.partial(
                sdk.completions.create, model=self.model, prompt=prompt, max_tokens=1, echo=True, logprobs=0,
                temperature=0.0, timeout=self._timeout_cls(config.timeout_s, connect=min(CONNECT_TIMEOUT_S,
                                                                                          config.timeout_s)))
            with metered():
                try:
                    async with deadline(config.timeout_s, self.name):
                        reply = await with_retries(
                            gated(well_formed(request, _as_mapping), self._gate,
                                  request_tokens([prompt], 1)),
                            config, what=self.name, sleep=self._sleep, rng=self._rng)
                except openai.OpenAIError as exc:
                    raise error_kind(exc)(f"{self.name}: {describe(exc)}") from exc
            try:
                block, generated = read_reply_text(reply, prompt)
                out.append(read_echo_logprobs(block, generated, continuation))
            except BadRequest as exc:
                raise BadRequest(f"{self.name} cannot score: {exc}") from None
            raw_usage = reply.get("usage")
            prompt_tokens = _int(raw_usage.get("prompt_tokens")) if isinstance(raw_usage, dict) else 0
            usage = Usage(prompt_tokens=usage.prompt_tokens + prompt_tokens)
            served = served or str(reply.get("model") or "")
        return Scores(tuple(out), Usage(prompt_tokens=usage.prompt_tokens, latency_s=time.perf_counter() - started),
                      served or self.model)

    async def aclose(self) -> None:
        """Close the SDK's connection pool (and the injected http client with it)."""
        if self._sdk is not None:
            await self._sdk.close()
            self._sdk = None
