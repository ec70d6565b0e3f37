"""Scoring continuations with an in-process llama.cpp model (`LocalClient.score`'s blocking part).

Why by hand rather than ``create_completion(echo=True, logprobs=...)``: llama-cpp-python serves
prompt log-probabilities only from a model loaded with ``logits_all=True`` (a second copy of the
weights plus a context-sized logits buffer, 1.6 GB at 8,192 tokens for a 49k vocabulary), and
it sorts the whole vocabulary in Python for every prompt token. Here the shared model (loaded
for chat, last-token logits only) evaluates the prompt once per slot and each continuation one
token at a time, reading the last token's logits after each: a menu of a few short names costs
one prompt pass and a few dozen single-token decodes. The prompt is evaluated afresh every time,
not read off the KV cache, so that the same prompt always scores the same (`score_continuations`).

The prompt is the exact token sequence the model's chat completion would see: the model's own
chat handler is run against a stand-in that captures the tokens it would generate from.
Callers hold the model's lock (`mindagent.llm.local_backend`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mindagent.llm.base import BadRequest
from mindagent.llm.scoring import OptionScore


class _Captured(Exception):
    """Raised by `_PromptTap` to carry the prompt tokens out of the chat handler."""

    def __init__(self, prompt: object) -> None:
        super().__init__("prompt captured")
        self.prompt = prompt


class _PromptTap:
    """The model as the chat handler sees it, except that generating hands back the prompt."""

    def __init__(self, llm: Any) -> None:
        self._llm = llm

    def __getattr__(self, name: str) -> Any:
        return getattr(self._llm, name)

    def create_completion(self, prompt: object, **_: object) -> None:
        raise _Captured(prompt)


def chat_prompt_tokens(llm: Any, messages: list[dict[str, str]]) -> list[int]:
    """The tokens the model's chat completion would start generating after, for `messages`."""
    from llama_cpp import llama_chat_format

    handler: Any = (llm.chat_handler or llm._chat_handlers.get(llm.chat_format)
               or llama_chat_format.get_chat_completion_handler(llm.chat_format))
    try:
        handler(llama=_PromptTap(llm), messages=messages, max_tokens=1, temperature=0.0)
    except _Captured as got:
        prompt = got.prompt
    else:  # pragma: no cover - every llama_cpp handler ends by generating
        raise BadRequest("the model's chat handler produced no prompt to score")
    if isinstance(prompt, str):
        return list(llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=True))
    if isinstance(prompt, list) and all(isinstance(t, int) for t in prompt):
        return list(prompt)
    raise BadRequest(f"the model's chat handler produced a {type(prompt).__name__} prompt, not tokens")


def _log_softmax_at(logits: Any, token: int) -> float:
    """log p(token) from one row of logits, in float64 (a 49k-way softmax in float32 loses digits)."""
    row = np.asarray(logits, dtype=np.float64)
    top = float(row.max())
    return float(row[token] - top - np.log(np.exp(row - top).sum()))


def _last_logits(llm: Any) -> Any:
    """A copy of the logits the last evaluated token produced."""
    import llama_cpp

    pointer = llama_cpp.llama_get_logits_ith(llm._ctx.ctx, -1)
    return np.ctypeslib.as_array(pointer, shape=(llm.n_vocab(),)).copy()


def _evaluate_afresh(llm: Any, tokens: Sequence[int]) -> Any:
    """Evaluate `tokens` from an empty cache (in the model's batches) and return the next-token logits."""
    llm.reset()  # n_tokens 0: eval drops every cached cell before it decodes
    llm.eval(list(tokens))  # llama-cpp-python's Llama.eval: decodes token ids; no Python eval
    return _last_logits(llm)


def score_continuations(llm: Any, prompt: list[int], context: str, continuations: Sequence[str],
                        n_ctx: int) -> tuple[list[OptionScore], int]:
    """Each continuation's log-likelihood after `prompt` and `context`, and how many prompt tokens
    came from the KV cache (always 0, see below).

    A continuation's tokens are those of ``context + continuation`` past their common prefix with
    ``context``'s own tokens, so a token merged across the boundary is scored, once.

    Determinism over speed: the prompt is evaluated afresh for every slot, in one pass, and every
    continuation token one at a time after it. llama.cpp's logits depend in their last digits on
    how a sequence was split into batches (a prompt token evaluated alone or within a batch of
    133: 0.07 nats apart on SmolLM2), so a score read off a reused cache would depend on what was
    asked before, and so could the choice; the same prompt must score the same every time."""
    context_tokens = list(llm.tokenize(context.encode("utf-8"), add_bos=False, special=False)) if context else []
    scores: list[OptionScore] = []
    evaluated: list[int] | None = None
    start_logits: Any = None
    for text in continuations:
        whole = list(llm.tokenize((context + text).encode("utf-8"), add_bos=False, special=False))
        split = 0
        while split < min(len(whole), len(context_tokens)) and whole[split] == context_tokens[split]:
            split += 1
        scored = whole[split:]
        if not scored:
            raise BadRequest(f"nothing to score: {text!r} adds no token to the answer")
        sequence = prompt + whole[:split]
        if not sequence:
            raise BadRequest("nothing to score after: the prompt is empty")
        if len(sequence) + len(scored) > n_ctx:
            raise BadRequest(f"the prompt and answer ({len(sequence) + len(scored)} tokens) exceed the context "
                             f"window of {n_ctx}")
        if sequence != evaluated:
            start_logits = _evaluate_afresh(llm, sequence)
            evaluated = sequence
        llm.n_tokens = len(sequence)  # the next eval drops the previous continuation's cells
        total = _log_softmax_at(start_logits, scored[0])
        for previous, token in zip(scored, scored[1:], strict=False):
            llm.eval([previous])
            total += _log_softmax_at(_last_logits(llm), token)
        scores.append(OptionScore(total, len(scored)))
    return scores, 0
