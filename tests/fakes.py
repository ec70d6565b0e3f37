"""A fake model for fast dispatcher tests: it answers from a script and keeps what it was sent.

It is a fake because these tests are about the loop (prompt shape, extraction, feedback), not
about a model; real models answer in tests/llm and in the slow end-to-end tests.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mindagent.llm.base import Completion, GenerationConfig, Message, Usage


class ScriptedModel:
    name = "scripted"

    def __init__(self, answer: Callable[[int, Sequence[Message]], str] | Sequence[str]) -> None:
        self.answer = answer
        self.sent: list[list[Message]] = []
        self.grammars: list[str | None] = []

    async def complete(self, messages: Sequence[Message], config: GenerationConfig, grammar: str | None = None) -> Completion:
        """The scripted answer; ``grammar`` is kept (`grammars`) so tests can check what was asked."""
        self.sent.append(list(messages))
        self.grammars.append(grammar)
        n = len(self.sent) - 1
        text = self.answer(n, messages) if callable(self.answer) else self.answer[min(n, len(self.answer) - 1)]
        chars = sum(len(m.content) for m in messages)
        return Completion(text, Usage(prompt_tokens=chars // 4, output_tokens=len(text) // 4, latency_s=0.001))

    async def aclose(self) -> None:
        return None
