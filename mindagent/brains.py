"""Who decides: a language model behind `mindagent.llm`, or a built-in policy.

Both give the dispatcher loop the same thing back (commands plus what it cost), so `--model
planner` and `--model anthropic:...` run through one loop.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from mindagent.domain import DomainSession
from mindagent.llm.base import CommandSpace, Completion, GenerationConfig, LLMClient, LLMError, Message, Usage
from mindagent.policy import Policy

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Call:
    """One model call: exactly what was sent and what came back (the replay cassette's unit)."""

    messages: list[Message]
    text: str
    usage: Usage
    error: str | None = None

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
        }


@dataclass
class LLMBrain:
    client: LLMClient
    config: GenerationConfig = field(default_factory=GenerationConfig)
    needs_prompt: bool = True

    @property
    def name(self) -> str:
        return self.client.name

    async def ask(self, messages: Sequence[Message], space: CommandSpace | None) -> Call:
        """One call; a backend failure becomes an empty answer with the error kept, never a crash."""
        started = time.perf_counter()
        try:
            out: Completion = await self.client.complete(list(messages), self.config, space)
        except LLMError as exc:
            log.warning("model call failed: %s", exc)
            return Call(list(messages), "", Usage(latency_s=time.perf_counter() - started), error=str(exc))
        return Call(list(messages), out.text if isinstance(out.text, str) else "", out.usage)

    async def aclose(self) -> None:
        await self.client.aclose()


@dataclass
class PolicyBrain:
    policy: Policy
    needs_prompt: bool = False

    @property
    def name(self) -> str:
        return self.policy.name

    def act(self, session: DomainSession) -> list[str]:
        return list(self.policy.act(session))

    async def aclose(self) -> None:
        return None


Brain = LLMBrain | PolicyBrain
