"""A failed unit continues from its last played step: its own answers are its checkpoint.

A unit (consecutive episodes on one session) is deterministic given its settings, its seed and
the model's answers: the game, the order generator, the dispatcher's memory and plans, partner
policies and every generator in them follow from those alone. So the state a continued unit
needs is not a snapshot of each of them (every game would need a snapshot capability, and a
missed generator would make a continued episode quietly differ from one that never stopped) but
the answers the model already gave. `TapeClient` sits between the unit's brain and its model and
keeps every answer with the hash of the exact prompt it answered. When the unit fails (a rate
limit outlasting the retries at step 40), the answers given before the first failed call are its
`Checkpoint`, saved with the failed unit in the results file. On resume the unit is played again
from its first step with the same tape in front of the model: each prompt that was answered
before gets its recorded answer (no request, no tokens, no wait), so the game reaches step 40 in
exactly the state it had, and from there the model is asked as usual.

Answers are matched by prompt (repeated prompts in their recorded order, as the `replay:`
backend does), never by position: if the code or a prompt changed in between, an unmatched
prompt goes to the model, so a continued unit is always a true run of the code that finished it.
Answers left unused at the end are reported (`TapeClient.unused`).

Example::

    tape = TapeClient(client, checkpoint.answers if checkpoint else ())
    ...  # play the unit with `tape` as the brain's client
    Checkpoint(tuple(tape.kept), episode=2, step=40)  # after a failure
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mindagent.llm.base import CUT_REASONS, Completion, GenerationConfig, LLMClient, LLMError, Message, Usage
from mindagent.llm.replay_backend import prompt_key

log = logging.getLogger(__name__)

#: Most answers one checkpoint may hold (a unit of 20 episodes of 1,000 steps with a repair loop).
MAX_ANSWERS = 200_000


class TapedAnswer(BaseModel):
    """One answer as the model gave it, keyed by the sha256 of its prompt (`prompt_key`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    prompt: str = Field(pattern=r"^[0-9a-f]{64}$")
    text: str
    prompt_tokens: int = Field(default=0, ge=0)
    cached_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)
    latency_s: float = Field(default=0.0, ge=0.0, allow_inf_nan=False)
    model: str = Field(default="", max_length=256)
    not_sent: tuple[str, ...] = ()
    finish_reason: str = Field(default="", max_length=64)
    grammar_sent: str = Field(default="", max_length=64)

    @classmethod
    def of(cls, prompt: str, out: Completion) -> TapedAnswer:
        """Built without validation: our own values (a provider's long model name must not fail a
        call); a saved checkpoint is validated when it is read back (`Checkpoint.read`)."""
        u = out.usage
        return cls.model_construct(prompt=prompt, text=out.text, prompt_tokens=u.prompt_tokens, cached_tokens=u.cached_tokens,
                   output_tokens=u.output_tokens, latency_s=u.latency_s, model=out.model, not_sent=tuple(out.not_sent),
                   finish_reason=out.finish_reason, grammar_sent=out.grammar_sent)

    def completion(self) -> Completion:
        """The answer exactly as the backend returned it (its usage too, so the totals match)."""
        return Completion(self.text, Usage(self.prompt_tokens, self.cached_tokens, self.output_tokens, self.latency_s),
                          self.model, self.not_sent, self.finish_reason, self.grammar_sent)


class Checkpoint(BaseModel):
    """What a failed unit played: the answers before its first failed call, and where it stopped
    (the episode, 1-based, and the first step it did not finish), for the console and the file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    episode: int = Field(ge=1)
    step: int = Field(ge=0)
    answers: tuple[TapedAnswer, ...] = Field(default=(), max_length=MAX_ANSWERS)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    @classmethod
    def read(cls, raw: object, where: str) -> Checkpoint | None:
        """A saved checkpoint, or None (with a warning: the unit starts over) when it is unusable."""
        if raw is None:
            return None
        try:
            return cls.model_validate(raw)
        except ValidationError as exc:
            first = exc.errors()[0]
            log.warning("%s: its checkpoint is unusable (%s: %s); the unit starts over", where,
                        ".".join(str(p) for p in first["loc"]), first["msg"])
            return None


class UnitFailed(Exception):
    """A unit stopped before its end. `error` is the line the results file keeps; `checkpoint`
    what it played (None: nothing worth keeping, it starts over). Picklable, so a worker process
    or a Ray task hands both back."""

    def __init__(self, error: str, checkpoint: Checkpoint | None = None) -> None:
        super().__init__(error, checkpoint)
        self.error = error
        self.checkpoint = checkpoint

    def __str__(self) -> str:
        return self.error


class TapeClient:
    """The unit's model behind a tape: recorded answers first, the model for everything else.

    `kept` is every answer of this run in the order given (replayed ones included) up to the first
    failed call: a call that raised, or a reply cut at max_tokens, is asked again on resume."""

    def __init__(self, live: LLMClient, answers: Sequence[TapedAnswer] = ()) -> None:
        self.live = live
        self.name = live.name
        self.kept: list[TapedAnswer] = []
        self.replayed = 0
        self.asked = 0
        self._broken = False
        self._queues: dict[str, deque[TapedAnswer]] = {}
        for answer in answers:
            self._queues.setdefault(answer.prompt, deque()).append(answer)

    @property
    def unused(self) -> int:
        """Recorded answers no prompt of this run asked for (the prompts changed since)."""
        return sum(len(q) for q in self._queues.values())

    async def complete(self, messages: Sequence[Message], config: GenerationConfig,
                       grammar: str | None = None) -> Completion:
        key = prompt_key(messages)
        queue = self._queues.get(key)
        if queue:
            answer = queue.popleft()
            self.replayed += 1
            self._keep(answer)
            return answer.completion()
        self.asked += 1
        try:
            out = await self.live.complete(messages, config, grammar)
        except LLMError:
            self._broken = True
            raise
        if out.finish_reason in CUT_REASONS or not isinstance(out.text, str):
            self._broken = True  # half an answer: asked again with whatever settings resume it
        else:
            self._keep(TapedAnswer.of(key, out))
        return out

    def _keep(self, answer: TapedAnswer) -> None:
        if not self._broken:
            self.kept.append(answer)

    async def aclose(self) -> None:
        await self.live.aclose()
