"""The scored chooser (`--model scored:<spec>`), through the public API, with fake scorers.

The fakes here are deterministic stand-ins for a model's log-probabilities. They are fakes on
purpose: these tests check the chooser's own work (each option scored after the prompt it was
shown and the answer so far, the best taken, ties to the menu's first, the choice written in the
model's format, every score recorded and served again on replay), which must not depend on
whether some small model happens to read the prompt. What the real SmolLM2 does with the same
prompts is measured and reported in ``tests/llm/test_scored_smollm2.py``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from urgency_pair import DISHES, urgency_pair

from mindagent.core import registry as domains
from mindagent.core.domain import SpecError
from mindagent.core.episode import run_episode
from mindagent.core.spec import GameSpec
from mindagent.dispatch.brains import Brain, generation_settings, make_brain
from mindagent.dispatch.dispatcher import Dispatcher, DispatchSettings
from mindagent.dispatch.prompt import PromptConfig
from mindagent.dispatch.rules import Menu, Option, RuleBrain, Slot
from mindagent.dispatch.scored import SCORING, ScoredBrain, best
from mindagent.llm.base import BadRequest, GenerationConfig, Message, Usage
from mindagent.llm.scoring import OptionScore, Scores
from mindagent.recordings.recording import Recorder, read_recording
from mindagent.recordings.replay import replay_recording


class UrgencyReader:
    """A fake scorer that reads the prompt as a model that followed it would: an option's
    log-probability falls with the steps its order has left (read from the ``- dish: N`` lines).
    It also keeps what it was asked, to check the chooser's context and continuations."""

    name = "fake:urgency"

    def __init__(self) -> None:
        self.asked: list[tuple[str, tuple[str, ...]]] = []

    async def score(self, messages: Sequence[Message], context: str, continuations: Sequence[str],
                    config: GenerationConfig) -> Scores:
        self.asked.append((context, tuple(continuations)))
        left = {m[1]: int(m[2]) for m in re.finditer(r"^- (\w+): (\d+)$", messages[-1].content, re.MULTILINE)}
        return Scores(tuple(OptionScore(-0.1 * left.get(c.strip(), 99), 2) for c in continuations))

    async def aclose(self) -> None:
        return None


class HashScorer:
    """A fake scorer for whole episodes: a fixed pseudo-random score per (prompt, context, option),
    with some usage, so recordings and replays have real numbers to carry."""

    name = "fake:hash"

    async def score(self, messages: Sequence[Message], context: str, continuations: Sequence[str],
                    config: GenerationConfig) -> Scores:
        def value(text: str) -> float:
            key = json.dumps([[m.role, m.content] for m in messages]) + context + text
            return -int(hashlib.sha256(key.encode()).hexdigest()[:6], 16) / 1e6

        return Scores(tuple(OptionScore(value(c), len(c)) for c in continuations),
                      Usage(prompt_tokens=100, cached_tokens=40, latency_s=0.0123456789))

    async def aclose(self) -> None:
        return None


class Refuser(HashScorer):
    name = "fake:refuser"

    async def score(self, messages: Sequence[Message], context: str, continuations: Sequence[str],
                    config: GenerationConfig) -> Scores:
        raise BadRequest("this server returned no prompt log-probabilities")


def test_the_scored_chooser_follows_urgency_on_a_prompt_pair() -> None:
    """The issue's done-when, with a fake that returns log-probabilities (see the module docstring):
    on two prompts that differ only in which order is about to expire, the choice follows it, as
    `rule:urgent`'s does, and the call records each option's score and the choice."""
    reader = UrgencyReader()
    brain = ScoredBrain(reader)
    for urgent, messages, menu in urgency_pair():
        call = asyncio.run(brain.choose(messages, menu))
        assert call.text == f"goal: {urgent}"
        assert asyncio.run(RuleBrain("urgent").choose(messages, menu)).text == call.text
        assert call.messages == messages and call.error is None
        (slot,) = call.scores or ()
        assert slot.options == DISHES and slot.chosen == urgent
        assert slot.logprobs[DISHES.index(urgent)] == max(slot.logprobs)
    # the option's text is scored after the slot's prefix, the space moved to the option, with its newline
    assert reader.asked[0] == ("goal:", (" salmonSushi\n", " tunaSushi\n"))


def test_each_agent_is_scored_after_the_answer_so_far_and_ties_go_to_the_menu_order() -> None:
    class Flat(UrgencyReader):
        async def score(self, messages: Sequence[Message], context: str, continuations: Sequence[str],
                        config: GenerationConfig) -> Scores:
            self.asked.append((context, tuple(continuations)))
            return Scores(tuple(OptionScore(-1.0, 1) for _ in continuations))

    flat = Flat()
    options = (Option("o1.rice", 5), Option("o1.rice.2", 5), Option("o2.fish", 9))
    menu = Menu(3, (Slot("agent0: ", options), Slot("agent1: ", ()), Slot("agent2: ", options)))
    call = asyncio.run(ScoredBrain(flat).choose([Message("user", "assign")], menu))
    assert call.text == "agent0: o1.rice\nagent2: o1.rice"  # an agent without options is skipped
    assert [a[0] for a in flat.asked] == ["agent0:", "agent0: o1.rice\nagent2:"]
    assert [s.to_dict()["chosen"] for s in call.scores or ()] == ["o1.rice", "o1.rice"]


def test_a_backend_that_cannot_score_mid_run_fails_the_call_not_the_run() -> None:
    _, messages, menu = urgency_pair()[0]
    call = asyncio.run(ScoredBrain(Refuser()).choose(messages, menu))
    assert call.text == "" and call.error_kind == "BadRequest" and "log-probabilities" in (call.error or "")
    assert call.to_dict()["scores"] == []


def play(brain: Brain | str, dispatch: DispatchSettings, path: Path, seed: int = 0, steps: int = 30) -> list[dict[str, Any]]:
    spec = domains.validate(GameSpec("cuisineworld", "level_3", 2, 1.0, seed, "reference", steps))
    session = domains.make_session(spec)
    seated = make_brain(brain, domains.get("cuisineworld"), seed=seed) if isinstance(brain, str) else brain
    dispatcher = Dispatcher.for_session(session, seated, PromptConfig(), dispatch=dispatch)
    recorder = Recorder(path)

    async def go() -> None:
        await session.reset(seed=seed)
        recorder.header(**spec.header(), model=seated.name, dispatch=dispatch.to_dict(), **session.episode_header())
        await run_episode(session, dispatcher, recorder)

    asyncio.run(go())
    recorder.close()
    return [r for r in read_recording(path) if r["type"] == "step"]


def strip(steps: list[dict[str, Any]]) -> str:
    return json.dumps([{k: v for k, v in s.items() if k not in ("wall_s", "t", "time", "ts")} for s in steps],
                      sort_keys=True)


@pytest.mark.parametrize("dispatch", [DispatchSettings("goals", goal_every=4), DispatchSettings(team="taskgraph")],
                         ids=["goals", "taskgraph"])
def test_scores_are_recorded_and_a_replay_serves_them_bit_for_bit(tmp_path: Path, dispatch: DispatchSettings) -> None:
    first = play(ScoredBrain(HashScorer()), dispatch, tmp_path / "a.jsonl")
    calls = [c for s in first for c in s["calls"]]
    assert calls and all(c["scores"] and not c.get("error") for c in calls)
    for call in calls:
        for slot in call["scores"]:
            assert slot["chosen"] == slot["options"][slot["logprobs"].index(max(slot["logprobs"]))]
            assert slot["slot"] + slot["chosen"] in call["text"].splitlines()
    assert sum(len(s["completed"]) for s in first) > 0
    replayed = play(f"scored:replay:{tmp_path / 'a.jsonl'}", dispatch, tmp_path / "b.jsonl")
    assert strip(first) == strip(replayed)
    plain = play(f"replay:{tmp_path / 'a.jsonl'}", dispatch, tmp_path / "c.jsonl")  # the text alone replays too
    assert [s["commands"] for s in plain] == [s["commands"] for s in first]
    assert replay_recording(tmp_path / "a.jsonl").steps == len(first)  # `mindagent replay` re-executes it


def test_a_drifted_replay_is_refused_not_answered_with_another_slots_scores(tmp_path: Path) -> None:
    play(ScoredBrain(HashScorer()), DispatchSettings("goals"), tmp_path / "a.jsonl")
    brain = make_brain(f"scored:replay:{tmp_path / 'a.jsonl'}", domains.get("cuisineworld"))
    assert isinstance(brain, ScoredBrain)
    _, messages, menu = urgency_pair()[0]
    call = asyncio.run(brain.choose(messages, menu))
    assert call.error_kind == "BadRequest" and "no recorded scores" in (call.error or "")


@pytest.mark.parametrize("spec, said", [("scored:anthropic:claude-x", "cannot score"),
                                        ("scored:openai:gpt-4o", "needs --base-url"),
                                        ("scored:rule:first", "takes a model spec")])
def test_a_backend_that_cannot_score_is_refused_in_one_line_before_the_run(spec: str, said: str) -> None:
    with pytest.raises(SpecError) as caught:
        make_brain(spec, domains.get("cuisineworld"))
    assert said in str(caught.value) and "\n" not in str(caught.value)


def test_a_mode_without_a_menu_refuses_the_scored_chooser_in_one_line(tmp_path: Path) -> None:
    session = domains.make_session(domains.validate(GameSpec("cuisineworld", "level_3", 2, 1.0, 0, "reference", 10)))
    play(ScoredBrain(HashScorer()), DispatchSettings("goals"), tmp_path / "a.jsonl", steps=5)
    brain = make_brain(f"scored:replay:{tmp_path / 'a.jsonl'}", domains.get("cuisineworld"))
    with pytest.raises(SpecError) as caught:
        Dispatcher.for_session(session, brain, PromptConfig(), dispatch=DispatchSettings())
    assert "chooses from a menu" in str(caught.value) and "\n" not in str(caught.value)


def test_results_files_say_how_options_were_ranked(tmp_path: Path) -> None:
    play(ScoredBrain(HashScorer()), DispatchSettings("goals"), tmp_path / "a.jsonl", steps=5)
    spec = f"scored:replay:{tmp_path / 'a.jsonl'}"
    brain = make_brain(spec, domains.get("cuisineworld"))
    settings = generation_settings(spec, brain=brain)
    assert settings == {"scoring": SCORING} and "not length-normalised" in SCORING


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.floats(-50, 0) | st.sampled_from([-1.0, -2.0]), min_size=1, max_size=8))
def test_the_best_score_wins_and_a_tie_goes_to_the_first_listed(values: list[float]) -> None:
    assert best(values) == values.index(max(values))


@pytest.mark.parametrize("bad", [[math.nan, -1.0], [-1.0, math.inf], [0.5, -1.0], [-1.0]])
def test_a_score_that_is_not_a_log_probability_fails_the_call(bad: list[float]) -> None:
    class Broken(UrgencyReader):
        async def score(self, messages: Sequence[Message], context: str, continuations: Sequence[str],
                        config: GenerationConfig) -> Scores:
            return Scores(tuple(OptionScore(v, 1) for v in bad))

    _, messages, menu = urgency_pair()[0]
    call = asyncio.run(ScoredBrain(Broken()).choose(messages, menu))
    assert call.text == "" and call.error_kind == "BadRequest"
    json.dumps(call.to_dict(), allow_nan=False)  # nothing unreadable reaches the recording


@pytest.mark.asyncio
async def test_a_scored_chooser_room_plays_goal_mode_by_default(tmp_path: Path) -> None:
    """Rooms seat it where they seat a rule: goal mode unless told otherwise, its answers counted
    as the model's, each with its scores in the room's recording."""
    from mindagent.server.room import Room, RoomSettings

    spec = domains.validate(GameSpec("cuisineworld", "level_3", 2, 1.0, 0, "reference", None))
    room = Room("r", None, RoomSettings(spec, "scored:fake", "test", "realtime", 0.05), domains.make_session(spec),
                ScoredBrain(HashScorer()), tmp_path / "rec")
    await room.open()
    room.start()
    for _ in range(20):
        await asyncio.sleep(0.01)
        await room.step()
    sources = room.state()["sources"]
    await room.close()
    assert room.dispatcher.dispatch.mode == "goals" and sources["chooser"] == "model" and sources["answers"] >= 1
    steps = [r for f in sorted((tmp_path / "rec").rglob("*.jsonl")) for r in read_recording(f) if r["type"] == "step"]
    assert [c for s in steps for c in s["calls"]] and all(c["scores"] for s in steps for c in s["calls"])
