"""One model call as recorded: what was sent, what came back, what it cost.

Its own module so that everything in the model's seat (a language model, a rule chooser) can
return one without importing the others.
"""

from __future__ import annotations

from dataclasses import dataclass

from mindagent.llm.base import Message, Usage


@dataclass(frozen=True, slots=True)
class SlotScores:
    """One slot of a scored chooser's answer (`mindagent.dispatch.scored`): the options offered, the
    log-likelihood and token count of each, the one chosen, and what scoring them cost."""

    prefix: str
    options: tuple[str, ...]
    logprobs: tuple[float, ...]
    tokens: tuple[int, ...]
    chosen: str
    prompt_tokens: int = 0
    cached_tokens: int = 0
    latency_s: float = 0.0

    def to_dict(self) -> dict[str, object]:
        return {"slot": self.prefix, "options": list(self.options), "logprobs": list(self.logprobs),
                "tokens": list(self.tokens), "chosen": self.chosen, "prompt_tokens": self.prompt_tokens,
                "cached_tokens": self.cached_tokens, "latency_s": round(self.latency_s, 6)}


@dataclass(frozen=True, slots=True)
class Call:
    """One model call: exactly what was sent and what came back (the replay cassette's unit).

    `error` is the failure's message and `error_kind` its type (``RateLimited``, ``AuthFailed``...)."""

    messages: list[Message]
    text: str
    usage: Usage
    error: str | None = None
    error_kind: str | None = None
    #: The reply's length when it was longer than `MAX_REPLY_CHARS` and cut.
    truncated_from: int | None = None
    #: The model the provider says answered (a dated snapshot behind an alias such as gpt-4o).
    served_model: str | None = None
    #: Generation settings asked for but not sent (a temperature the model refused).
    not_sent: tuple[str, ...] = ()
    #: How the grammar constrained the answer (``local``, or the server field: ``llama``, ``vllm``);
    #: None when the answer was free text (`mindagent.llm.base.Completion.grammar_sent`).
    grammar: str | None = None
    #: A scored chooser's slots, each with its options' scores (None: the answer was written).
    scores: tuple[SlotScores, ...] | None = None

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
            **({"truncated_from": self.truncated_from} if self.truncated_from else {}),
            **({"served_model": self.served_model} if self.served_model else {}),
            **({"not_sent": list(self.not_sent)} if self.not_sent else {}),
            **({"grammar": self.grammar} if self.grammar else {}),
            **({"scores": [slot.to_dict() for slot in self.scores]} if self.scores is not None else {}),
        }
