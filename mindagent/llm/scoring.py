"""Scoring: how likely a model finds each of a few given continuations of a prompt.

A small model asked to *write* its choice tends to write the same words whatever the prompt says
(SmolLM2 wrote the same dish 75 times in 75 goal-mode calls). Asking it instead how likely each
legal answer is, given the prompt, reads the choice out of the same model without sampling, so a
choice can follow the prompt's content when the model's likelihoods do. `mindagent.dispatch.scored`
turns these scores into choices; this module is the backends' side of it:

- `Scorer`, the optional capability of a client that can score (the local llama.cpp backend, an
  OpenAI-compatible server whose completions endpoint echoes prompt log-probabilities, and the
  replay backend, which serves recorded scores);
- `OptionScore` / `Scores`, what a scorer returns;
- `chatml`, the chat template a text-only completions endpoint needs applied on our side;
- `read_echo_logprobs`, the reader of a completions reply's ``logprobs`` block, which holds
  someone else's numbers: garbage, missing fields, NaN or a runaway array become one `BadRequest`
  with a reason, never a crash, in time linear in a bounded number of entries.

A continuation is scored as the sum of its tokens' log-probabilities (`OptionScore.logprob`), with
its token count beside it, so a reader can also normalise by length from the recording.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from mindagent.llm.base import BadRequest, GenerationConfig, Message, Usage

#: Most token entries read from one reply's logprobs block (a prompt of the context window's size
#: fits many times over; a larger array is someone else's bug and is refused unread).
MAX_LOGPROB_ENTRIES = 65_536
#: A log-probability above this is not a probability's logarithm (a little rounding is allowed).
MAX_LOGPROB = 1e-3


@dataclass(frozen=True, slots=True)
class OptionScore:
    """One continuation's log-likelihood given the prompt: the sum over its `tokens` tokens."""

    logprob: float
    tokens: int


@dataclass(frozen=True, slots=True)
class Scores:
    """A scorer's answer: one `OptionScore` per continuation asked, in the order asked."""

    options: tuple[OptionScore, ...]
    usage: Usage = Usage()
    #: The model that scored (as the provider named it), empty when unknown.
    model: str = ""


@runtime_checkable
class Scorer(Protocol):
    """A client that can score continuations (a capability beside `LLMClient.complete`).

    Example::

        scores = await client.score(messages, "goal:", [" soup\\n", " salad\\n"], GenerationConfig())
        best = max(range(2), key=lambda k: scores.options[k].logprob)
    """

    name: str

    async def score(self, messages: Sequence[Message], context: str, continuations: Sequence[str],
                    config: GenerationConfig) -> Scores:
        """Log-likelihood of each continuation after `messages` and the start of the assistant's
        answer `context` (text already written, scored by no one); an `LLMError` when it cannot."""
        ...

    async def aclose(self) -> None:
        """Release connections or model memory."""
        ...


def chatml(messages: Sequence[Message]) -> str:
    """The messages in the ChatML template, ending where the assistant's answer starts.

    A completions endpoint takes raw text, so the template is applied here; ChatML is the one
    SmolLM2 and Qwen were trained with. A model trained with another template scores worse here."""
    turns = [f"<|im_start|>{m.role}\n{m.content}<|im_end|>\n" for m in messages]
    return "".join(turns) + "<|im_start|>assistant\n"


def _entries(logprobs: object) -> tuple[Sequence[object], Sequence[object]]:
    """The ``tokens`` and ``token_logprobs`` lists of a logprobs block, checked for shape only."""
    if not isinstance(logprobs, Mapping):
        raise BadRequest(f"the reply has no logprobs block (got {type(logprobs).__name__}); the server must "
                         "return prompt log-probabilities for echo=true, logprobs=0 (llama_cpp.server does)")
    tokens, values = logprobs.get("tokens"), logprobs.get("token_logprobs")
    if not isinstance(tokens, list) or not isinstance(values, list):
        raise BadRequest("the reply's logprobs block lacks the tokens and token_logprobs lists")
    if len(tokens) != len(values):
        raise BadRequest(f"the reply's logprobs block has {len(tokens)} tokens but {len(values)} log-probabilities")
    if len(tokens) > MAX_LOGPROB_ENTRIES:
        raise BadRequest(f"the reply's logprobs block has {len(tokens)} entries; at most {MAX_LOGPROB_ENTRIES} are read")
    return tokens, values


def _logprob(value: object, index: int) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadRequest(f"log-probability {index} is {type(value).__name__}, not a number")
    number = float(value)
    if not math.isfinite(number) or number > MAX_LOGPROB:
        raise BadRequest(f"log-probability {index} is {number!r}, not the logarithm of a probability")
    return number


def read_echo_logprobs(logprobs: object, generated: str, continuation: str) -> OptionScore:
    """The score of `continuation`, the end of an echoed prompt, from a completions reply's
    ``logprobs`` block (``tokens``, ``token_logprobs``; OpenAI's legacy format).

    Entries are matched from the end by their text, never by ``text_offset``: llama_cpp.server
    counts offsets in the prompt without its special tokens (``<|im_start|>``), so they do not
    index the text that was sent. First the entries of `generated` (the text the server added
    after the prompt, usually one token) are dropped, then entries are taken back until their text
    covers `continuation`; a token that straddles its start (merged with the context) is counted.
    Anything that does not fit raises `BadRequest` saying why."""
    tokens, values = _entries(logprobs)
    end = len(tokens)
    dropped = ""
    while len(dropped) < len(generated) and end > 0:
        token = tokens[end - 1]
        if not isinstance(token, str):
            raise BadRequest(f"token {end - 1} of the reply's logprobs block is not text")
        dropped = token + dropped
        end -= 1
    if dropped != generated:
        raise BadRequest("the reply's last tokens do not spell the text it generated; cannot find the prompt's end")
    while end > 0 and tokens[end - 1] == "":  # a generated end-of-text token some servers list, as no text
        end -= 1
    covered, total, count = "", 0.0, 0
    while len(covered) < len(continuation):
        if end == 0:
            raise BadRequest("the reply's tokens end before the scored continuation is covered")
        end -= 1
        token = tokens[end]
        if not isinstance(token, str):
            raise BadRequest(f"token {end} of the reply's logprobs block is not text")
        total += _logprob(values[end], end)
        covered = token + covered
        count += 1
    if not covered.endswith(continuation):
        raise BadRequest(f"the reply's tokens spell {covered[-len(continuation) - 8:]!r} where the prompt ends "
                         f"with {continuation!r}")
    if count == 0:
        raise BadRequest("nothing to score: the continuation is empty")
    return OptionScore(total, count)


def read_reply_text(reply: object, prompt: str) -> tuple[object, str]:
    """(logprobs block, generated text) of the first choice of a completions reply as a mapping
    (the SDK's ``model_dump``); `BadRequest` for a reply without them."""
    choices = reply.get("choices") if isinstance(reply, Mapping) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        raise BadRequest("the completions reply has no choices")
    first = choices[0]
    text = first.get("text")
    if not isinstance(text, str):
        raise BadRequest("the completions reply's choice has no text")
    if not text.startswith(prompt):
        raise BadRequest("the completions reply does not echo the prompt (the server ignored echo=true)")
    return first.get("logprobs"), text[len(prompt):]


__all__ = ["MAX_LOGPROB", "MAX_LOGPROB_ENTRIES", "OptionScore", "Scorer", "Scores", "chatml", "read_echo_logprobs",
           "read_reply_text"]
