"""Rule choosers in the model's seat (`--model rule:first|urgent|random`), through the public API.

They answer the same menus a model is asked (goal mode, the task-graph manager), so every table
can put "the same mode with a rule" beside the model; these tests check that each rule plays each
menu mode, is recorded like a model, repeats itself and replays through the ``replay:`` backend.
"""

from __future__ import annotations

import asyncio
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindagent.core import registry as domains
from mindagent.core.domain import SpecError
from mindagent.core.episode import run_episode
from mindagent.core.spec import GameSpec
from mindagent.dispatch.brains import LLMBrain, generation_settings, make_brain
from mindagent.dispatch.dispatcher import Dispatcher, DispatchSettings
from mindagent.dispatch.prompt import PromptConfig
from mindagent.dispatch.rules import RULE_NAMES, Menu, Option, RuleBrain, Slot
from mindagent.recordings.recording import Recorder, read_recording
from mindagent.recordings.replay import replay_recording

MENU_MODES = {"goals": DispatchSettings("goals", goal_every=4), "taskgraph": DispatchSettings(team="taskgraph")}


def play(model: str, dispatch: DispatchSettings, path: Path, seed: int = 0, steps: int = 30) -> list[dict[str, Any]]:
    spec = domains.validate(GameSpec("cuisineworld", "level_3", 2, 1.0, seed, "reference", steps))
    session = domains.make_session(spec)
    brain = make_brain(model, domains.get("cuisineworld"), seed=seed)
    dispatcher = Dispatcher.for_session(session, brain, PromptConfig(), dispatch=dispatch)
    recorder = Recorder(path)

    async def go() -> None:
        await session.reset(seed=seed)
        recorder.header(**spec.header(), model=model, dispatch=dispatch.to_dict(), **session.episode_header())
        await run_episode(session, dispatcher, recorder)

    asyncio.run(go())
    recorder.close()
    return [r for r in read_recording(path) if r["type"] == "step"]


def calls_of(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c for s in steps for c in s.get("calls") or []]


@pytest.mark.parametrize("rule", RULE_NAMES)
@pytest.mark.parametrize("mode", sorted(MENU_MODES))
def test_each_rule_answers_each_menu_like_a_model(tmp_path: Path, rule: str, mode: str) -> None:
    steps = play(f"rule:{rule}", MENU_MODES[mode], tmp_path / "r.jsonl")
    calls = calls_of(steps)
    assert calls, "level_3 offers two dishes: the rule is asked"
    for call in calls:
        assert call["usage"]["prompt_tokens"] == 0 and call["usage"]["output_tokens"] == 0
        assert call["messages"][-1]["role"] == "user"  # the model's prompt, recorded for replay
        if mode == "goals":
            offered = call["messages"][-1]["content"].split("Choose from: ")[1].split(", ")
            assert call["text"].startswith("goal: ") and call["text"][6:] in offered
        else:
            assert [line.split(": ")[0] for line in call["text"].splitlines()] == ["agent0", "agent1"]
    plans = [s["plan"] for s in steps if s.get("plan") and s["calls"]]
    assert plans and all(p["chosen_by"] == f"rule:{rule}" for p in plans)
    assert sum(len(s["completed"]) for s in steps) > 0  # the executor serves what the rule chose


@pytest.mark.parametrize("rule", RULE_NAMES)
def test_a_rule_repeats_itself_and_replays_bit_for_bit(tmp_path: Path, rule: str) -> None:
    first = play(f"rule:{rule}", MENU_MODES["goals"], tmp_path / "a.jsonl")
    again = play(f"rule:{rule}", MENU_MODES["goals"], tmp_path / "b.jsonl")
    replayed = play(f"replay:{tmp_path / 'a.jsonl'}", MENU_MODES["goals"], tmp_path / "c.jsonl")

    def strip(steps: list[dict[str, Any]]) -> str:
        """Timings aside, and the chooser's name: a replay's plans say the ``replay:`` model chose."""
        text = json.dumps([{k: v for k, v in s.items() if k not in ("wall_s", "t", "time", "ts")} for s in steps],
                          sort_keys=True)
        return text.replace('"chosen_by": "model"', f'"chosen_by": "rule:{rule}"')

    assert strip(first) == strip(again) == strip(replayed)
    assert replay_recording(tmp_path / "a.jsonl").steps == len(first)  # `mindagent replay` re-executes it


def test_random_is_seeded_per_seed_and_step() -> None:
    menu = Menu(7, (Slot("goal: ", tuple(Option(f"dish{k}") for k in range(6))),))
    picks = [RuleBrain("random", seed).pick(menu) for seed in range(40)]
    assert picks == [RuleBrain("random", seed).pick(menu) for seed in range(40)]
    assert len({p[0] for p in picks}) > 1  # the seed matters
    later = [RuleBrain("random", 3).pick(Menu(step, menu.slots))[0] for step in range(40)]
    assert len(set(later)) > 1  # and so does the step


def test_urgent_takes_the_soonest_deadline_and_spreads_agents() -> None:
    brain = RuleBrain("urgent")
    late_first = (Option("soup", 30), Option("salad", 4), Option("cake"))
    assert brain.pick(Menu(0, (Slot("goal: ", late_first),))) == ["salad"]
    agents = tuple(Slot(f"agent{k}: ", late_first) for k in range(4))
    assert brain.pick(Menu(1, agents)) == ["salad", "soup", "cake", "salad"]
    assert RuleBrain("first").pick(Menu(2, agents)) == ["soup"] * 4
    assert math.isinf(late_first[2].steps_left)


def test_rules_are_named_and_cost_nothing() -> None:
    kitchen = domains.get("cuisineworld")
    brain = make_brain("rule:urgent", kitchen)
    assert isinstance(brain, RuleBrain) and brain.name == "rule:urgent"
    assert generation_settings("rule:urgent", brain=brain) == {}
    with pytest.raises(SpecError, match="rule:first, rule:urgent, rule:random"):
        make_brain("rule:best", kitchen)


@pytest.mark.parametrize("dispatch", [DispatchSettings(), DispatchSettings("plan"), DispatchSettings(team="decentral"),
                                      DispatchSettings(team="taskgraph", executor="model")])
def test_a_mode_without_a_menu_refuses_a_rule_in_one_line(dispatch: DispatchSettings) -> None:
    session = domains.make_session(domains.validate(GameSpec("cuisineworld", "level_3", 2, 1.0, 0, "reference", 10)))
    with pytest.raises(SpecError) as caught:
        Dispatcher.for_session(session, make_brain("rule:first", domains.get("cuisineworld")), PromptConfig(),
                               dispatch=dispatch)
    assert "\n" not in str(caught.value)


def test_another_domain_offers_no_menu_and_says_so() -> None:
    """Overcooked has neither goal mode nor a task graph: every way to seat a rule is refused."""
    game = domains.get("overcooked")
    session = domains.make_session(domains.validate(GameSpec("overcooked", None, 2, 1.0, 0, "reference", None)))
    brain = make_brain("rule:random", game, seed=1)
    for dispatch, said in ((DispatchSettings(), "menu"), (DispatchSettings("goals"), "no goal mode"),
                           (DispatchSettings(team="taskgraph"), "no task graph")):
        with pytest.raises(SpecError, match=said):
            Dispatcher.for_session(session, brain, PromptConfig(), dispatch=dispatch)
    assert not isinstance(brain, LLMBrain)


def test_eval_and_run_take_a_rule_from_the_command_line(tmp_path: Path) -> None:
    """`mindagent eval --model rule:first --dispatch goals`: the results file names the rule and has
    no generation settings; in a mode without a menu both commands refuse in one line (exit 2)."""
    from typer.testing import CliRunner

    from mindagent.cli import app

    runner = CliRunner()
    common = ["--levels", "level_3", "--agents", "2", "--taus", "1.0", "--episodes", "1", "--steps", "12"]
    done = runner.invoke(app, ["eval", *common, "--model", "rule:urgent", "--dispatch", "goals",
                               "--out", str(tmp_path / "r.json"), "--workers", "1"])
    assert done.exit_code == 0, done.output
    saved = json.loads((tmp_path / "r.json").read_text())
    assert saved["config"]["model"] == "rule:urgent" and saved["config"].get("generation", {}) == {}
    assert saved["cells"] and saved["cells"][0]["taus"][0]["prompt_tokens"] == 0
    for command in (["eval", *common, "--out", str(tmp_path / "s.json")],
                    ["run", "--level", "level_3", "--steps", "5", "--out-dir", str(tmp_path)]):
        refused = runner.invoke(app, [*command, "--model", "rule:first"])
        assert refused.exit_code == 2 and "chooses from a menu" in refused.output
        assert len(refused.output.strip().splitlines()) == 1
    dry = runner.invoke(app, ["eval", *common, "--model", "rule:first", "--dispatch", "goals", "--dry-run",
                              "--out", str(tmp_path / "d.json")])
    assert dry.exit_code == 0 and "no model calls" in dry.output


_names = st.text(alphabet="abcdefgh", min_size=1, max_size=4)
# A menu names one thing with one deadline wherever it offers it (every agent's slot of an
# assignment lists the same ready subtasks), so deadlines are drawn per name.
_deadlines = st.dictionaries(_names, st.one_of(st.integers(0, 50), st.just(math.inf)), min_size=1, max_size=6)


@settings(max_examples=200, deadline=None)
@given(rule=st.sampled_from(RULE_NAMES), seed=st.integers(0, 10), step=st.integers(0, 100),
       deadlines=_deadlines, data=st.data())
def test_every_rule_picks_one_offered_option_per_slot_and_repeats_itself(
        rule: str, seed: int, step: int, deadlines: dict[str, float], data: st.DataObject) -> None:
    names = sorted(deadlines)
    slots = data.draw(st.lists(st.lists(st.sampled_from(names), max_size=5), min_size=1, max_size=4))
    menu = Menu(step, tuple(Slot(f"agent{k}: ", tuple(Option(n, deadlines[n]) for n in o))
                            for k, o in enumerate(slots)))
    picks = RuleBrain(rule, seed).pick(menu)  # type: ignore[arg-type]
    offered = [s for s in menu.slots if s.options]
    assert len(picks) == len(offered)
    assert all(p in {o.name for o in s.options} for p, s in zip(picks, offered, strict=True))
    assert picks == RuleBrain(rule, seed).pick(menu)  # type: ignore[arg-type]
    if rule == "urgent" and offered:
        assert min(o.steps_left for o in offered[0].options if o.name == picks[0]) == \
            min(o.steps_left for o in offered[0].options)
