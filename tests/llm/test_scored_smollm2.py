"""What the real SmolLM2-135M does as a scored chooser on the urgency pair: measured and reported.

The same two prompts as the fast test (`urgency_pair`: they differ only in which order is about
to expire). What is asserted is what must hold whatever the model prefers: every option is
scored (finite log-probabilities, at least one token each), the choice is the best-scored option,
the same prompt scores the same twice, and llama_cpp.server scores the prompts as the in-process
backend does (same template, same tokens: within a rounding of batched evaluation). Whether the
choice follows the urgency is printed and written to docs/figures/dispatch.md, not asserted: the
shipped 135M model is not expected to read it.

Run with ``-s`` to see the report rows (``python3 -m pytest tests/llm/test_scored_smollm2.py -m slow -s``)."""

from __future__ import annotations

import asyncio
import math
import os
from typing import Any

import pytest
from urgency_pair import DISHES, urgency_pair

from mindagent.core import registry as domains
from mindagent.dispatch.brains import make_brain
from mindagent.dispatch.calls import Call
from mindagent.dispatch.rules import RuleBrain
from mindagent.dispatch.scored import ScoredBrain


def choose_pair(spec: str, base_url: str | None = None, listed: tuple[str, ...] = DISHES) -> list[tuple[str, Call, Call]]:
    """(urgent dish, the scored chooser's call, rule:urgent's call) for both prompts of the pair."""
    brain = make_brain(spec, domains.get("cuisineworld"), base_url=base_url, timeout_s=900)
    assert isinstance(brain, ScoredBrain)

    async def go() -> list[tuple[str, Call, Call]]:
        out = [(urgent, await brain.choose(messages, menu), await RuleBrain("urgent").choose(messages, menu))
               for urgent, messages, menu in urgency_pair(listed)]
        await brain.aclose()
        return out

    return asyncio.run(go())


def report(label: str, rows: list[tuple[str, Call, Call]]) -> list[str]:
    """One markdown row per prompt: which option each chooser took, and the scores."""
    lines = []
    for urgent, scored, rule in rows:
        (slot,) = scored.scores or ()
        scores = ", ".join(f"{o} {v:.3f} ({t} tokens)" for o, v, t in zip(slot.options, slot.logprobs, slot.tokens,
                                                                         strict=True))
        lines.append(f"| {label} | {urgent} expires | **{slot.chosen}** | {rule.text.removeprefix('goal: ')} | {scores} |")
    load = os.getloadavg()[0]
    print("\n" + "\n".join(lines) + f"\n(load average {load:.1f})")
    return lines


def check(rows: list[tuple[str, Call, Call]]) -> None:
    for _, scored, _ in rows:
        assert scored.error is None, scored.error
        (slot,) = scored.scores or ()
        assert all(math.isfinite(v) and v < 0 for v in slot.logprobs) and min(slot.tokens) >= 1
        assert slot.chosen == slot.options[slot.logprobs.index(max(slot.logprobs))]
        assert scored.text == f"goal: {slot.chosen}"


@pytest.mark.slow
def test_smollm2_local_scores_the_urgency_pair(smollm2_path: Any) -> None:
    rows = choose_pair("scored:local")
    check(rows)
    again = choose_pair("scored:local")  # the prompt now comes from the KV cache: the same scores
    assert [[s.logprobs for s in c.scores or ()] for _, c, _ in again] == \
        [[s.logprobs for s in c.scores or ()] for _, c, _ in rows]
    report("SmolLM2-135M, `scored:local`", rows)
    # the same pair with the dishes listed the other way round: does the choice follow the list or the dish?
    turned = choose_pair("scored:local", listed=DISHES[::-1])
    check(turned)
    report("SmolLM2-135M, `scored:local`, listed tunaSushi first", turned)


@pytest.mark.slow
def test_llama_cpp_server_scores_the_pair_as_the_local_backend_does(llama_server: str) -> None:
    pytest.importorskip("openai")
    served = choose_pair("scored:openai:smollm2", base_url=llama_server)
    check(served)
    local = choose_pair("scored:local")
    for (_, remote, _), (_, here, _) in zip(served, local, strict=True):
        (a,), (b,) = remote.scores or (), here.scores or ()
        assert a.tokens == b.tokens
        assert all(abs(x - y) < 0.25 for x, y in zip(a.logprobs, b.logprobs, strict=True)), (a, b)
    report("SmolLM2-135M, `scored:openai` on llama_cpp.server", served)


@pytest.mark.slow
def test_a_timed_out_scoring_call_is_an_error_and_the_next_one_scores_the_same(smollm2_path: Any) -> None:
    """A deadline too short to score is a recorded `ModelTimeout` (the plan falls back), and the
    abandoned call, finished in the background, leaves the model usable: the next call scores as before."""
    _, messages, menu = urgency_pair()[1]
    hurried = make_brain("scored:local", domains.get("cuisineworld"), timeout_s=0.001)
    patient = make_brain("scored:local", domains.get("cuisineworld"), timeout_s=900)
    assert isinstance(hurried, ScoredBrain) and isinstance(patient, ScoredBrain)

    async def go() -> tuple[Call, Call, Call]:
        first = await patient.choose(messages, menu)
        late = await hurried.choose(messages, menu)
        again = await patient.choose(messages, menu)
        await hurried.aclose()
        await patient.aclose()
        return first, late, again

    first, late, again = asyncio.run(go())
    assert late.error_kind == "ModelTimeout" and late.text == ""
    assert first.error is None and again.error is None
    assert [s.logprobs for s in again.scores or ()] == [s.logprobs for s in first.scores or ()]
