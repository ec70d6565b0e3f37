"""Model backends behind one text-in, text-out interface (`LLMClient`).

Pick one with a spec string, as ``--model`` does::

    client = make_client("anthropic:claude-sonnet-4-5")   # ANTHROPIC_API_KEY
    client = make_client("openai:gpt-4o-mini")            # OPENAI_API_KEY
    client = make_client("openai:qwen2.5", base_url="http://127.0.0.1:8000/v1")
    client = make_client("local")                         # SmolLM2-135M in-process, no key
    client = make_client("replay:runs/episode-0.jsonl")   # a recorded episode, offline

Importing this package imports no SDK, no llama_cpp and no game: each backend loads its
library when it is built, so the game starts fast and runs without the ones it does not use.
A game that wants constrained decoding passes its own GBNF grammar to `LLMClient.complete`.

Failures are `LLMError`s of one of seven kinds (`RateLimited`, `AuthFailed`,
`ModelUnavailable`, `BadRequest`, `ModelTimeout`, `EmptyAnswer`, `ReplyCut`); `mindagent.llm.base` lists what maps where.
"""

from __future__ import annotations

from typing import Any

from mindagent.llm.base import (
    AuthFailed,
    BadRequest,
    Completion,
    EmptyAnswer,
    GenerationConfig,
    LLMClient,
    LLMError,
    Message,
    ModelTimeout,
    ModelUnavailable,
    RateLimited,
    ReplyCut,
    Role,
    Usage,
)
from mindagent.llm.local_models import DEFAULT_LOCAL_MODEL, LocalModelInfo, list_local_models
from mindagent.llm.ratelimit import Gate, RateGate, RateLimits
from mindagent.llm.replay_backend import prompt_key

__all__ = [
    "DEFAULT_LOCAL_MODEL",
    "SPEC_FORMS",
    "AuthFailed",
    "BadRequest",
    "Completion",
    "EmptyAnswer",
    "Gate",
    "GenerationConfig",
    "LLMClient",
    "LLMError",
    "LocalModelInfo",
    "Message",
    "ModelTimeout",
    "ModelUnavailable",
    "RateGate",
    "RateLimited",
    "RateLimits",
    "ReplyCut",
    "Role",
    "Usage",
    "list_local_models",
    "make_client",
    "prompt_key",
]

#: The spec strings `make_client` accepts, for error messages and ``--help``.
SPEC_FORMS = (
    "anthropic:<model>",
    "openai:<model> (with base_url for any OpenAI-compatible server)",
    "local | local:<name> | local:<file.gguf> (or model_path=...)",
    "replay:<recording.jsonl>",
)


def _bad_spec(spec: str, why: str) -> BadRequest:
    forms = "; ".join(SPEC_FORMS)
    return BadRequest(f"bad model spec {spec!r}: {why}. Accepted forms: {forms}")


def make_client(
    spec: str,
    *,
    base_url: str | None = None,
    model_path: str | None = None,
    http_client: Any = None,
    threads: int | None = None,
    gate: Gate | None = None,
    grammar_field: str = "auto",
) -> LLMClient:
    """Build the backend a spec names; `BadRequest` (listing the accepted forms) for anything else.

    ``base_url`` applies to ``openai:``/``anthropic:``, ``model_path`` and ``threads`` to ``local``, and
    ``http_client`` (the httpx client class the installed SDK uses) and ``gate`` (the request budget
    shared with every other caller of this backend, `mindagent.llm.ratelimit`) to the network backends;
    ``grammar_field`` (``auto``, ``llama``, ``vllm``, ``none``) tells ``openai:`` where a server reads a
    GBNF grammar (`mindagent.llm.openai_backend`).
    Nothing is contacted or loaded here; a missing key or model surfaces as an LLMError on the
    first call, except a local model name (`BadRequest`) or file (`ModelUnavailable`) that
    plainly does not exist, or a replay cassette that cannot be read.
    """
    kind, sep, arg = spec.strip().partition(":")
    kind = kind.lower()
    if kind == "anthropic":
        if not arg:
            raise _bad_spec(spec, "anthropic needs a model name")
        from mindagent.llm.anthropic_backend import AnthropicClient

        return AnthropicClient(arg, base_url=base_url, http_client=http_client, gate=gate)
    if kind == "openai":
        if not arg:
            raise _bad_spec(spec, "openai needs a model name")
        from mindagent.llm.openai_backend import OpenAIClient

        return OpenAIClient(arg, base_url=base_url, http_client=http_client, gate=gate, grammar_field=grammar_field)
    if kind == "local":
        from mindagent.llm.local_backend import LocalClient

        if arg.lower().endswith(".gguf") and model_path is None:
            return LocalClient(model_path=arg, threads=threads)
        return LocalClient(arg or DEFAULT_LOCAL_MODEL, model_path=model_path, threads=threads)
    if kind == "replay":
        if not arg:
            raise _bad_spec(spec, "replay needs a recording file")
        from mindagent.llm.replay_backend import ReplayClient

        return ReplayClient(arg)
    raise _bad_spec(spec, f"unknown backend {kind!r}" if sep else "no backend prefix")
