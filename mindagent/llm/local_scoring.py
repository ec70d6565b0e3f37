"""Scoring continuations with an in-process llama.cpp model (`LocalClient.score`'s blocking part).

Why by hand rather than ``create_completion(echo=True, logprobs=...)``: llama-cpp-python serves
prompt log-probabilities only from a model loaded with ``logits_all=True`` (a second copy of the
weights plus a context-sized logits buffer, 1.6 GB at 8,192 tokens for a 49k vocabulary), and
it sorts the whole vocabulary in Python for every prompt token. Here the shared model (loaded
for chat, last-token logits only) evaluates the prompt once and each continuation one token at a
time, reading the last token's logits after each: a menu of a few short names costs a few dozen
single-token decodes, and the prompt stays in the KV cache for the next call, as a chat call's does.

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


def _logits_after(llm: Any, tokens: Sequence[int]) -> Any:
    """The next-token logits after `tokens`, evaluating only what the KV cache does not hold.

    At least the last token is evaluated again, so its logits are the current ones."""
    held = llm.n_tokens
    same = 0
    limit = min(held, len(tokens) - 1)
    ids = llm.input_ids
    while same < limit and int(ids[same]) == tokens[same]:
        same += 1
    if same < held and not llm._ctx.kv_cache_seq_rm(-1, same, -1):
        llm.reset()
        same = 0
    llm.n_tokens = same
    llm.eval(list(tokens[same:]))
    import llama_cpp

    pointer = llama_cpp.llama_get_logits_ith(llm._ctx.ctx, -1)
    return np.ctypeslib.as_array(pointer, shape=(llm.n_vocab(),)).copy()


def score_continuations(llm: Any, prompt: list[int], context: str, continuations: Sequence[str],
                        n_ctx: int) -> tuple[list[OptionScore], int]:
    """Each continuation's log-likelihood after `prompt` and `context`, and how many prompt tokens
    the KV cache already held.

    A continuation's tokens are those of ``context + continuation`` past their common prefix with
    ``context``'s own tokens, so a token merged across the boundary is scored, once."""
    held_before = llm.n_tokens
    ids = [int(t) for t in llm.input_ids[:held_before]]
    context_tokens = list(llm.tokenize(context.encode("utf-8"), add_bos=False, special=False)) if context else []
    cached = 0
    for a, b in zip(ids, prompt + context_tokens, strict=False):
        if a != b:
            break
        cached += 1
    scores: list[OptionScore] = []
    for text in continuations:
        whole = list(llm.tokenize((context + text).encode("utf-8"), add_bos=False, special=False))
        split = 0
        while split < min(len(whole), len(context_tokens)) and whole[split] == context_tokens[split]:
            split += 1
        scored = whole[split:]
        if not scored:
            raise BadRequest(f"nothing to score: {text!r} adds no token to the answer")
        sequence = prompt + whole[:split]
        if len(sequence) + len(scored) > n_ctx:
            raise BadRequest(f"the prompt and answer ({len(sequence) + len(scored)} tokens) exceed the context "
                             f"window of {n_ctx}")
        total = 0.0
        for token in scored:
            total += _log_softmax_at(_logits_after(llm, sequence), token)
            sequence.append(token)
        scores.append(OptionScore(total, len(scored)))
    return scores, min(cached, max(0, len(prompt) + len(context_tokens) - 1))
