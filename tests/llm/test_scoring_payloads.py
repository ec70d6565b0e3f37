"""Reading someone else's log-probabilities: a completions reply's ``logprobs`` block, checked.

The only allowed outcomes are a score or one `BadRequest` saying why: garbage, missing fields,
NaN, infinities, positive "log-probabilities" and runaway arrays never crash the reader, and a
huge array is refused in bounded time. Then the OpenAI backend's scoring end to end on a
MockTransport, and the replay backend refusing recorded scores it cannot read."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindagent.llm import BadRequest, GenerationConfig, LLMError, Message, ModelUnavailable
from mindagent.llm.openai_backend import OpenAIClient
from mindagent.llm.replay_backend import ReplayClient
from mindagent.llm.scoring import MAX_LOGPROB_ENTRIES, OptionScore, chatml, read_echo_logprobs, read_reply_text

# What llama_cpp.server (0.3.36, SmolLM2) answered for an echoed ChatML prompt ending in
# "goal: salmonSushi\n": special tokens come back as empty strings, offsets skip them.
REAL_BLOCK: dict[str, Any] = {
    "tokens": ["user", "\n", "Pick", " one", "", "\n", "ass", "istant", "\n", "goal", ":", " salmon", "S", "ushi",
               "\n", "\n"],
    "text_offset": [0, 4, 5, 9, 13, 13, 14, 17, 23, 24, 28, 29, 36, 37, 41, 42],
    "token_logprobs": [None, -3.32, -9.53, -4.44, -16.89, -0.0064, -0.455, -1.3e-05, -0.0052, -12.97, -3.59,
                       -14.91, -10.44, -6.09, -0.774, -0.609],
    "top_logprobs": None,
}


def test_the_real_servers_block_scores_the_continuation_from_the_end() -> None:
    score = read_echo_logprobs(REAL_BLOCK, "\n", " salmonSushi\n")
    assert score.tokens == 4 and math.isclose(score.logprob, -14.91 - 10.44 - 6.09 - 0.774)


@pytest.mark.parametrize("block, said", [
    (None, "no logprobs block"),
    ({"tokens": ["a"]}, "lacks"),
    ({"tokens": ["a", "b"], "token_logprobs": [-1.0]}, "2 tokens but 1"),
    ({"tokens": [" x", "\n"], "token_logprobs": [-1.0, math.nan]}, "not the logarithm"),
    ({"tokens": [" x", "\n"], "token_logprobs": [-1.0, -math.inf]}, "not the logarithm"),
    ({"tokens": [" x", "\n"], "token_logprobs": [-1.0, 0.5]}, "not the logarithm"),
    ({"tokens": [" x", "\n"], "token_logprobs": [-1.0, "-1"]}, "not a number"),
    ({"tokens": [" x", "\n"], "token_logprobs": [-1.0, True]}, "not a number"),
    ({"tokens": [" y", "\n"], "token_logprobs": [-1.0, -1.0]}, "spell"),
    ({"tokens": ["\n"], "token_logprobs": [-1.0]}, "end before"),
    ({"tokens": [" x", 7], "token_logprobs": [-1.0, -1.0]}, "not text"),
])
def test_garbage_gets_one_clear_error(block: object, said: str) -> None:
    with pytest.raises(BadRequest, match=said):
        read_echo_logprobs(block, "", " x\n")


def test_a_huge_array_is_refused_unread_in_bounded_time() -> None:
    n = 5_000_000
    block = {"tokens": ["a"] * n, "token_logprobs": [-1.0] * n}
    started = time.perf_counter()
    with pytest.raises(BadRequest, match=f"at most {MAX_LOGPROB_ENTRIES}"):
        read_echo_logprobs(block, "", "a\n")
    assert time.perf_counter() - started < 0.5


def test_a_long_array_within_bounds_reads_only_its_end() -> None:
    n = MAX_LOGPROB_ENTRIES
    block = {"tokens": ["a"] * (n - 2) + [" x", "\n"], "token_logprobs": [math.nan] * (n - 2) + [-0.5, -0.25]}
    started = time.perf_counter()
    assert read_echo_logprobs(block, "", " x\n") == OptionScore(-0.75, 2)  # the NaNs before it are not read
    assert time.perf_counter() - started < 0.5


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=4),
                     lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=14), inner, max_size=5),
                     max_leaves=30)
_blocks = st.fixed_dictionaries({"tokens": st.lists(st.one_of(st.sampled_from([" x", "\n", "", "x", " "]), _json),
                                                     max_size=12),
                                 "token_logprobs": st.lists(st.one_of(st.floats(allow_nan=True), st.none(), _json),
                                                            max_size=12)})


@settings(max_examples=200, deadline=None)
@given(block=st.one_of(_json, _blocks), generated=st.sampled_from(["", "\n", "x"]),
       continuation=st.sampled_from([" x\n", "x", "\n", " x"]))
def test_any_block_is_a_score_or_a_bad_request(block: object, generated: str, continuation: str) -> None:
    try:
        score = read_echo_logprobs(block, generated, continuation)
    except BadRequest:
        return
    assert score.tokens >= 1 and math.isfinite(score.logprob) and score.logprob <= 1e-3 * score.tokens


@settings(max_examples=200, deadline=None)
@given(reply=_json, prompt=st.sampled_from(["", "p"]))
def test_any_reply_is_read_or_refused(reply: object, prompt: str) -> None:
    try:
        _, generated = read_reply_text(reply, prompt)
    except BadRequest:
        return
    assert isinstance(generated, str)


def completion_body(prompt: str, block: object, generated: str = "\n") -> dict[str, Any]:
    return {"id": "cmpl-1", "object": "text_completion", "created": 1730000000, "model": "smollm2",
            "choices": [{"index": 0, "text": prompt + generated, "finish_reason": "length", "logprobs": block}],
            "usage": {"prompt_tokens": 30, "completion_tokens": 1, "total_tokens": 31}}


def block_for(text: str, logprob: float) -> dict[str, Any]:
    """The echoed tokens of a prompt ending in `text` and a newline, then the generated newline."""
    return {"tokens": ["user", text, "\n", "\n"], "token_logprobs": [None, logprob, -0.5, -0.1],
            "text_offset": [0, 4, 9, 10], "top_logprobs": None}


MESSAGES = [Message("system", "Choose."), Message("user", "soup or salad?")]


@pytest.mark.asyncio
async def test_the_openai_backend_scores_through_the_completions_endpoint(mock_http: Any) -> None:
    head = chatml(MESSAGES) + "goal:"
    http, seen = mock_http("openai", (200, completion_body(head + " soup\n", block_for(" soup", -2.0))),
                           (200, completion_body(head + " salad\n", block_for(" salad", -1.0))))
    client = OpenAIClient("smollm2", base_url="http://127.0.0.1:9/v1", http_client=http)
    scores = await client.score(MESSAGES, "goal:", [" soup\n", " salad\n"], GenerationConfig())
    await client.aclose()
    assert [s.logprob for s in scores.options] == [-2.5, -1.5] and scores.usage.prompt_tokens == 60
    sent = [json.loads(r.content) for r in seen]
    assert [r.url.path for r in seen] == ["/v1/completions"] * 2
    assert sent[0]["echo"] is True and sent[0]["logprobs"] == 0 and sent[0]["prompt"] == head + " soup\n"


@pytest.mark.asyncio
@pytest.mark.parametrize("block", [None, block_for(" soup", 0.7), {"tokens": "x", "token_logprobs": 3}])
async def test_a_server_without_usable_logprobs_is_one_bad_request(mock_http: Any, block: object) -> None:
    head = chatml(MESSAGES) + "goal:"
    body = completion_body(head + " soup\n", block)
    if block is not None and not isinstance(block.get("tokens"), list):
        body["choices"][0]["logprobs"] = block
    http, _ = mock_http("openai", (200, body))
    client = OpenAIClient("smollm2", base_url="http://127.0.0.1:9/v1", http_client=http)
    with pytest.raises(BadRequest, match="cannot score"):
        await client.score(MESSAGES, "goal:", [" soup\n"], GenerationConfig(max_retries=0))
    await client.aclose()


@pytest.mark.asyncio
async def test_a_server_that_does_not_echo_is_refused(mock_http: Any) -> None:
    http, _ = mock_http("openai", (200, completion_body("", block_for(" soup", -1.0), generated="Hello")))
    client = OpenAIClient("smollm2", base_url="http://127.0.0.1:9/v1", http_client=http)
    with pytest.raises(BadRequest, match="echo"):
        await client.score(MESSAGES, "goal:", [" soup\n"], GenerationConfig(max_retries=0))
    await client.aclose()


@pytest.mark.asyncio
@pytest.mark.parametrize("scores, error", [
    ("not a list", ModelUnavailable),
    ([{"slot": "goal: ", "options": ["soup"], "logprobs": "x", "tokens": [1]}], ModelUnavailable),
    ([{"slot": "goal: ", "options": ["soup"], "logprobs": [-1.0, -2.0], "tokens": [1]}], ModelUnavailable),
    ([{"slot": "goal: ", "options": ["salad"], "logprobs": [-1.0], "tokens": [1]}], BadRequest),
])
async def test_recorded_scores_that_do_not_fit_are_refused(tmp_path: Path, scores: object,
                                                           error: type[LLMError]) -> None:
    step = {"type": "step", "step": 0, "calls": [{"messages": [{"role": m.role, "content": m.content} for m in MESSAGES],
                                                  "text": "goal: soup", "usage": {}, "scores": scores}]}
    path = tmp_path / "rec.jsonl"
    path.write_text(json.dumps(step) + "\n")
    with pytest.raises(error):
        client = ReplayClient(path)
        await client.score(MESSAGES, "goal:", [" soup\n"], GenerationConfig())
