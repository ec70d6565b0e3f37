"""The text-in, text-out interface every model backend speaks, and the errors it raises.

Backends see messages, never worlds, and import nothing of any game. A backend that can
constrain decoding (the local GGUF model) takes a complete GBNF grammar string from the caller;
the others ignore it. Which grammar fits a game's command language is the game's business.

Errors
------

Every failure a backend reports is an `LLMError`; its class says what kind of failure it is, so
a caller can tell "wait and try later" from "fix the key" from "fix the request" without
reading messages. A failure that fits none of the kinds (say, a reply with no choices in it)
is a plain `LLMError`.

.. code-block:: text

    LLMError
    ├── RateLimited       HTTP 429, after our retries ran out (OpenAI's "insufficient_quota"
    │                     is a 429 too)
    ├── AuthFailed        HTTP 401 / 403; no API key (ANTHROPIC_API_KEY / OPENAI_API_KEY unset)
    ├── ModelUnavailable  after our retries ran out: HTTP 5xx (Anthropic's 529 "overloaded" and a
    │                     gateway's 504 included), 409 (a lock conflict that never cleared), a
    │                     refused, reset or dropped connection; locally: llama-cpp-python, the
    │                     weights package or the GGUF file missing, or a file llama.cpp cannot
    │                     load; replay: a cassette that cannot be read or is not JSON Lines
    ├── BadRequest        HTTP 400, 404 (usually the model name), 413, 422 and any other 4xx not
    │                     named above; a bad spec string or unknown local model name in
    │                     `make_client`; a request with no user message; a grammar llama.cpp
    │                     cannot parse; a prompt longer than the local context window; a replay
    │                     prompt with no recorded answer left
    ├── EmptyAnswer       the reply carried no text (a reasoning model that spent max_tokens
    │                     on hidden reasoning answers ``content: ""`` with ``finish_reason:
    │                     "length"``); never scored as a step of idle agents
    ├── ReplyCut          the reply ended because it reached max_tokens (``Completion.finish_reason``
    │                     ``length``/``max_tokens``): the dispatcher records it as this kind and
    │                     never reads the half answer (backends return it; replay raises it again)
    └── ModelTimeout      the call's overall deadline (`GenerationConfig.timeout_s`, wall
                          clock, retries included: `mindagent.llm.deadline`), or the SDK's own
                          timeout / HTTP 408 after our retries ran out

The transient kinds (RateLimited, ModelUnavailable, ModelTimeout) are raised only once
`mindagent.llm.retry.with_retries` has used its attempts; the others are raised at once,
because the same request would fail the same way again. The HTTP mapping lives in
`mindagent.llm.retry.error_kind`, so every network backend classifies alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True, slots=True)
class Message:
    role: Role
    content: str
    # True on the last message of a prefix the next call starts with (the static part; the growing
    # memory window): backends with prompt caching put a cache breakpoint there (Anthropic
    # cache_control); others ignore it.
    cache_prefix: bool = False


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int = 0
    cached_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0


@dataclass(frozen=True, slots=True)
class Completion:
    text: str
    usage: Usage = field(default_factory=Usage)
    #: The model the provider says served the call (a snapshot behind an alias), else the name asked for;
    #: empty when unknown (a replay of a recording that named none).
    model: str = ""
    #: Generation settings asked for but not sent (the Anthropic backend drops a refused temperature).
    not_sent: tuple[str, ...] = ()
    #: Why generation stopped, as the backend said (``stop``, ``length``, Anthropic's ``max_tokens``...);
    #: empty when unknown. A reply that stopped at max_tokens is cut (`CUT_REASONS`).
    finish_reason: str = ""
    #: How the caller's grammar constrained this answer: ``local`` (in-process llama.cpp), ``llama``
    #: (a server's ``grammar`` field), ``vllm`` (``guided_grammar``); empty when it was not applied.
    grammar_sent: str = ""


@dataclass(frozen=True, slots=True)
class GenerationConfig:
    temperature: float = 0.1
    max_tokens: int = 100
    timeout_s: float = 60.0
    max_retries: int = 4
    seed: int | None = 0
    #: Longest wait a server's Retry-After may impose before one retry (`--max-retry-after`); the
    #: call's overall deadline (`timeout_s`) still bounds the whole call, retries included.
    max_retry_after_s: float = 30.0


class LLMError(Exception):
    """A backend failed (after its retries, where retrying made sense); the message says which
    backend and why, the subclass says what kind of failure it is."""


class RateLimited(LLMError):
    """The provider kept refusing for rate or quota reasons; slow down or wait."""


class AuthFailed(LLMError):
    """No key, or the provider rejected the key or its permissions; retrying cannot help."""


class ModelUnavailable(LLMError):
    """The model cannot be reached or loaded right now (server error, overload, no connection,
    missing weights); the request itself may be fine."""


class BadRequest(LLMError):
    """The request, model name or spec is wrong; it would fail the same way every time."""


class ModelTimeout(LLMError):
    """The call did not finish within its time limit."""


class EmptyAnswer(LLMError):
    """The model answered with no text (often cut by max_tokens before any visible output)."""


class ReplyCut(LLMError):
    """The reply stopped at max_tokens, so it is half an answer; read, it would look like a choice."""


#: Finish reasons that mean the reply hit the token limit (OpenAI and llama.cpp, Anthropic).
CUT_REASONS: frozenset[str] = frozenset({"length", "max_tokens"})


def require_text(text: str, finish_reason: object, what: str, max_tokens: int) -> str:
    """`text` if it holds anything but whitespace, else `EmptyAnswer` naming why the reply was empty.

    Every backend calls this on its reply, so an empty answer is a model error everywhere: scored as
    play it would be a step of idle agents, and a reasoning model cut by max_tokens would look like
    a model that chose to do nothing."""
    if text.strip():
        return text
    if finish_reason in CUT_REASONS:
        raise EmptyAnswer(f"{what}: empty answer cut by max_tokens={max_tokens} (finish reason {finish_reason!r}); "
                          "raise --max-tokens (reasoning models spend tokens before they answer)")
    raise EmptyAnswer(f"{what}: empty answer (finish reason {finish_reason!r})")


#: Every kind by class name, so a recorded ``error_kind`` can be raised again on replay.
ERROR_KINDS: dict[str, type[LLMError]] = {
    cls.__name__: cls
    for cls in (LLMError, RateLimited, AuthFailed, ModelUnavailable, BadRequest, ModelTimeout, EmptyAnswer, ReplyCut)
}


class LLMClient(Protocol):
    """One model behind `--model`.

    Example::

        client = make_client("openai:gpt-4o-mini")
        out = await client.complete([Message("user", "hi")], GenerationConfig())
        print(out.text, out.usage.prompt_tokens)
    """

    name: str

    async def complete(
        self,
        messages: Sequence[Message],
        config: GenerationConfig,
        grammar: str | None = None,
    ) -> Completion:
        """Return the model's text for these messages; raise an `LLMError` kind when it cannot.

        ``grammar`` is a complete GBNF grammar (start rule ``root``); a backend that can
        constrain decoding samples only text it derives, the others ignore it.
        """

    async def aclose(self) -> None:
        """Release connections or model memory."""
