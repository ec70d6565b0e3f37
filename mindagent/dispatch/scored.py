"""The scored chooser: a language model chooses from a menu by likelihood, not by writing
(`--model scored:<model spec>`, e.g. ``scored:local`` or ``scored:openai:NAME --base-url URL``).

It sits where the rule choosers sit (`mindagent.dispatch.rules`: goal mode's menu, the task-graph
manager's assignment) and gets the same prompt a writing model gets. For every slot of the answer
(``goal: ``, or ``agentK: `` for each agent in turn) it asks the backend for the log-likelihood of
each option's text after the prompt and the answer so far (`mindagent.llm.scoring.Scorer`), takes
the best, writes it into the answer and goes on to the next slot, so a later agent's choice is
scored knowing the earlier ones. The answer is written in the model's format and read by the same
parser, so plans, recordings and ``replay:`` treat it as a model's answer.

Choices:

- **What is scored**: the option's name and the newline that ends its line (`continuation`). The
  newline makes the score that of the whole name: without it a name that is the start of another
  (``o1.rice`` and ``o1.rice.2``) would always win, since a prefix is at least as likely.
- **Not length-normalised**: the score is the sum of the tokens' log-probabilities, the probability
  that the model writes exactly this line. Dividing by the token count favours long names whose
  later tokens are near-certain once the first is chosen, a known artefact of mean scoring; the
  sum is the choice a model would make if it wrote the whole line at once. Each option's token
  count is recorded beside its score, so a mean can be computed from any recording
  (`SCORING` is written into results files and recording headers).
- **Ties**: the option listed first wins (the menu's order, which the domain makes deterministic).

Every call records, per slot, the options, their scores and token counts and the choice
(`mindagent.dispatch.calls.SlotScores`); ``scored:replay:<recording>`` serves those scores again
(`mindagent.llm.replay_backend.ReplayClient.score`), so a replayed run writes the same recording.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from mindagent.core.domain import SpecError
from mindagent.dispatch.calls import Call, SlotScores
from mindagent.dispatch.rules import Menu
from mindagent.llm.base import BadRequest, GenerationConfig, LLMClient, LLMError, Message, Usage
from mindagent.llm.redact import redact_text
from mindagent.llm.scoring import MAX_LOGPROB, Scorer, Scores

log = logging.getLogger(__name__)

SCORED_PREFIX = "scored:"
#: How a scored chooser ranks options, as results files and recording headers say it.
SCORING = "sum of token log-probabilities of the option and its newline (not length-normalised); ties: menu order"


def continuation(prefix: str, option: str) -> tuple[str, str]:
    """(context end, scored text) of one slot: the prefix without its trailing space is context,
    the space moves to the option (tokenizers attach a space to the word after it)."""
    head = prefix.rstrip()
    return head, prefix[len(head):] + option + "\n"


def best(logprobs: Sequence[float]) -> int:
    """Index of the highest score; the earliest wins a tie."""
    top = 0
    for k, value in enumerate(logprobs):
        if value > logprobs[top]:
            top = k
    return top


def check_scores(scores: Scores, asked: int) -> None:
    """`BadRequest` unless `scores` holds one log-probability (finite, at most 0) per option asked:
    a backend's NaN must not become a choice, nor reach a recording as invalid JSON."""
    if len(scores.options) != asked:
        raise BadRequest(f"the backend scored {len(scores.options)} options; {asked} were asked")
    for k, option in enumerate(scores.options):
        if not math.isfinite(option.logprob) or option.logprob > MAX_LOGPROB * max(1, option.tokens):
            raise BadRequest(f"the backend's score {option.logprob!r} for option {k} is not a log-probability")


def scorer_of(spec: str, client: LLMClient) -> Scorer:
    """`client` as a `Scorer`; `SpecError` in one line when its backend cannot score."""
    if isinstance(client, Scorer):
        return client
    raise SpecError(f"{SCORED_PREFIX}{spec}: this backend cannot score options (it returns no log-probabilities); "
                    "use scored:local, scored:openai:<model> with --base-url of a server that echoes completion "
                    "log-probabilities (llama_cpp.server), or scored:replay:<recording>")


@dataclass
class ScoredBrain:
    """A language model in the model's seat that chooses by scoring (see the module docstring)."""

    client: Scorer
    config: GenerationConfig = field(default_factory=GenerationConfig)
    needs_prompt: bool = True
    #: Every model name the backend said scored a call, in the order first seen (for results files).
    served: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return SCORED_PREFIX + self.client.name

    async def choose(self, messages: Sequence[Message], menu: Menu) -> Call:
        """One recorded call: every slot of `menu` scored and chosen in turn, the answer in the
        model's format. A backend failure becomes an answer with no text and the error kept (the
        plan falls back, as for a writing model), never a crash."""
        written: list[str] = []
        slots: list[SlotScores] = []
        prompt_tokens = cached = 0
        latency = 0.0
        for slot in menu.slots:
            if not slot.options:
                continue
            head, _ = continuation(slot.prefix, "")
            context = "".join(line + "\n" for line in written) + head
            texts = [continuation(slot.prefix, o.name)[1] for o in slot.options]
            try:
                scores = await self.client.score(messages, context, texts, self.config)
                check_scores(scores, len(texts))
            except LLMError as exc:
                said = redact_text(str(exc))
                log.warning("scoring failed (%s): %s", type(exc).__name__, said)
                usage = Usage(prompt_tokens, cached, 0, latency)
                return Call(list(messages), "", usage, error=said[:1000], error_kind=type(exc).__name__,
                            scores=tuple(slots))
            if scores.model and scores.model not in self.served:
                self.served.append(scores.model)
            values = [s.logprob for s in scores.options]
            chosen = slot.options[best(values)].name
            spent = round(scores.usage.latency_s, 6)  # as recorded, so a replay sums the same
            slots.append(SlotScores(slot.prefix, tuple(o.name for o in slot.options), tuple(values),
                                    tuple(s.tokens for s in scores.options), chosen,
                                    scores.usage.prompt_tokens, scores.usage.cached_tokens, spent))
            prompt_tokens += scores.usage.prompt_tokens
            cached += scores.usage.cached_tokens
            latency += spent
            written.append(slot.prefix + chosen)
        return Call(list(messages), "\n".join(written), Usage(prompt_tokens, cached, 0, latency), scores=tuple(slots))

    async def aclose(self) -> None:
        await self.client.aclose()


__all__ = ["SCORED_PREFIX", "SCORING", "ScoredBrain", "best", "check_scores", "continuation", "scorer_of"]
