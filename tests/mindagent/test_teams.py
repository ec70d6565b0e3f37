"""Team modes (central, decentral, task graph) and partners (`--control`), through the public API.

A scripted model stands in for a language model where the test is about the loop (who is asked,
with what, what is recorded); the planner-backed runs go through the CLI; a real local model
plays every mode in the slow tier at the bottom.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from fakes import ScriptedModel
from gbnf_regex import gbnf_to_regex
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from mindagent.cli import app
from mindagent.core import registry as domains
from mindagent.core.domain import SpecError
from mindagent.core.episode import Episode, run_episode
from mindagent.core.spec import GameSpec
from mindagent.dispatch.brains import LLMBrain, make_brain
from mindagent.dispatch.dispatcher import Dispatcher, DispatchSettings
from mindagent.dispatch.partners import parse_control
from mindagent.dispatch.prompt import PromptConfig
from mindagent.dispatch.taskgraph import Subtask, TaskGraph, assign_by_rule, assignment_grammar, parse_assignment
from mindagent.dispatch.teams import agent_answer_grammar, parse_message
from mindagent.evaluation.sweep import EvalConfig, Results
from mindagent.llm import make_client
from mindagent.llm.base import Message
from mindagent.recordings.recording import Recorder, read_recording
from mindagent.recordings.replay import replay_recording

SPEC = GameSpec("cuisineworld", "level_3", 2, 1.0, 0, "reference", None)


def play(brain: Any, dispatch: DispatchSettings, path: Path, steps: int = 12,
         spec: GameSpec = SPEC, prompt: PromptConfig | None = None) -> list[dict[str, Any]]:
    session = domains.make_session(domains.validate(spec))
    dispatcher = Dispatcher.for_session(session, brain, prompt or PromptConfig(demo="none"), dispatch=dispatch)

    async def go() -> None:
        await session.reset(seed=0)
        recorder = Recorder(path)
        recorder.header(**spec.header(), model="test", episode=1, dispatch=dispatch.to_dict(),
                        **session.episode_header())
        await run_episode(session, dispatcher, recorder, steps=steps)

    asyncio.run(go())
    return read_recording(path)


def steps_of(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in records if r["type"] == "step"]


def without_timing(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for r in records:
        r = {k: v for k, v in r.items() if k not in ("latency_s", "model")}
        for call in r.get("calls", []):
            call["usage"].pop("latency_s", None)
        out.append(r)
    return out


# ------------------------------------------------------------------ decentral


def talkative(n: int, messages: Sequence[Message]) -> str:
    """Each agent names itself in a message and takes rice or tuna from the storage."""
    me = re.search(r"You are (agent\d)", messages[-1].content)
    assert me is not None
    item = "rice" if me[1] == "agent0" else "tuna"
    return f"get_{me[1]}_{item}_storage0\nsay: {me[1]} took {item} at call {n}"


def test_decentral_asks_every_agent_once_per_step_and_passes_messages_on(tmp_path: Path) -> None:
    model = ScriptedModel(talkative)
    records = steps_of(play(LLMBrain(model), DispatchSettings(team="decentral"), tmp_path / "d.jsonl", steps=3))
    assert [len(s["calls"]) for s in records] == [2, 2, 2]
    assert records[0]["said"] == {"agent0": "agent0 took rice at call 0", "agent1": "agent1 took tuna at call 1"}
    # step 1: agent0 hears agent1's message of step 0, not its own; agent1 the other way round
    step1_agent0, step1_agent1 = (c["messages"][-1]["content"] for c in records[1]["calls"])
    assert "agent1: agent1 took tuna at call 1" in step1_agent0 and "agent0 took rice" not in step1_agent0
    assert "agent0: agent0 took rice at call 0" in step1_agent1 and "agent1 took tuna" not in step1_agent1
    assert records[0]["commands"] == ["get_agent0_rice_storage0", "get_agent1_tuna_storage0"]
    # the step's grammar admits only the asked agent's commands legal now (and an optional say: line)
    asked = model.grammars[1] or ""
    assert '"goto_agent1_storage0"' in asked and "agent0" not in asked and '("\\nsay: " message)?' in asked
    session = domains.make_session(domains.validate(SPEC))
    one = gbnf_to_regex(session.agent_grammar(1))
    assert re.fullmatch(one, "get_agent1_tuna_storage0") and not re.fullmatch(one, "get_agent0_tuna_storage0")


def test_decentral_keeps_each_agents_own_history(tmp_path: Path) -> None:
    model = ScriptedModel(talkative)
    records = steps_of(play(LLMBrain(model), DispatchSettings(team="decentral"), tmp_path / "h.jsonl", steps=2,
                            prompt=PromptConfig(demo="none", memory=1)))
    agent1_at_1 = records[1]["calls"][1]["messages"]
    answers = [m["content"] for m in agent1_at_1 if m["role"] == "assistant"]
    assert answers == ["get_agent1_tuna_storage0\nsay: agent1 took tuna at call 1"]


def test_central_prompt_costs_at_most_one_nth_of_decentral(tmp_path: Path) -> None:
    """N agents: N decentral prompts of the same kitchen against one central prompt."""
    for agents in (2, 3):
        spec = GameSpec("cuisineworld", "level_3", agents, 1.0, 0, "reference", None)
        central = steps_of(play(LLMBrain(ScriptedModel(["noop_agent0"])), DispatchSettings(), tmp_path / f"c{agents}.jsonl",
                                steps=3, spec=spec))
        decentral = steps_of(play(LLMBrain(ScriptedModel(["noop_agent0"])), DispatchSettings(team="decentral"),
                                  tmp_path / f"d{agents}.jsonl", steps=3, spec=spec))
        c = sum(s["usage"]["prompt_tokens"] for s in central)
        d = sum(s["usage"]["prompt_tokens"] for s in decentral)
        assert 0 < c * agents <= d < c * agents * 1.2


@given(st.text(max_size=80))
def test_parse_message_never_raises_and_stays_short(text: str) -> None:
    said = parse_message("noop_agent0\nsay: " + text)
    assert said is None or (0 < len(said) <= 120 and "\n" not in said)


def test_agent_answer_grammar_needs_a_root() -> None:
    with pytest.raises(ValueError):
        agent_answer_grammar('cmd ::= "x"\n')


# ------------------------------------------------------------------ task graph


def test_kitchen_task_graph_follows_the_recipe_tree() -> None:
    session = domains.make_session(domains.validate(SPEC))
    asyncio.run(session.reset(seed=0))
    graph = session.task_graph()
    assert graph is not None
    by_id = graph.by_id
    (order,) = {s.id.split(".")[0] for s in graph.subtasks}
    dish = next(s for s in graph.subtasks if s.label.endswith(f"({order.replace('o', 'order ')}: {s.goal})")
                and "serve" in s.label)
    assert set(dish.deps) <= set(by_id) and dish.deps  # sushi waits for its rice and sashimi subtasks
    assert {s.id for s in graph.ready()} == set(dish.deps)
    assert not graph.done


def test_taskgraph_model_manager_assigns_and_replans_when_a_subtask_is_done(tmp_path: Path) -> None:
    def last_ready(n: int, messages: Sequence[Message]) -> str:
        ready = re.findall(r"^- (o\d+\.\w+):", messages[-1].content, re.MULTILINE)
        return "\n".join(f"agent{k}: {ready[-1 - k % len(ready)]}" for k in range(2))

    model = ScriptedModel(last_ready)
    records = steps_of(play(LLMBrain(model), DispatchSettings(team="taskgraph"), tmp_path / "t.jsonl", steps=30))
    plans = [s["plan"] for s in records]
    assert all(p["kind"] == "taskgraph" for p in plans)
    by_model = [s for s in records if s["calls"]]
    assert by_model and all(s["plan"]["chosen_by"] == "model" for s in by_model)
    first = by_model[0]
    ready = re.findall(r"^- (o\d+\.\w+):", first["calls"][0]["messages"][-1]["content"], re.MULTILINE)
    assert first["plan"]["assignment"] == {"0": ready[-1], "1": ready[-2]}
    assert len({p["id"] for p in plans}) > 1  # re-planned within 30 steps
    assert sum(s["completed"].__len__() for s in records) >= 1
    assert re.fullmatch(gbnf_to_regex(model.grammars[0] or ""), f"agent0: {ready[0]}\nagent1: {ready[-1]}")


def test_assign_by_rule_and_parse_assignment() -> None:
    graph = TaskGraph((Subtask("a", "A", "x", (), 9), Subtask("b", "B", "x", (), 3), Subtask("c", "C", "x", ("a",), 1)))
    assert [s.id for s in graph.ready()] == ["b", "a"]
    assert {k: s.id for k, s in assign_by_rule(graph, [0, 1, 2]).items()} == {0: "b", 1: "a", 2: "b"}
    assert parse_assignment("agent1: a\nagent0 - B\nagent7: b\nagent0: a", ["agent0", "agent1"], ["a", "b"]) == \
        {1: "a", 0: "b"}
    assert assign_by_rule(TaskGraph(()), [0]) == {}
    regex = gbnf_to_regex(assignment_grammar(["agent0", "agent1"], ["o1.rice", "o2.x"]))
    assert re.fullmatch(regex, "agent0: o2.x\nagent1: o1.rice") and not re.fullmatch(regex, "agent1: o2.x")


def executor_answers(garbage_at: Sequence[int] = (), refused_at: Sequence[int] = ()) -> Any:
    """A manager that picks the ready subtasks in order, and an executor that sends its agent to
    the storage, except for garbage (nothing to read) or a refused command at the given calls."""
    def answer(n: int, messages: Sequence[Message]) -> str:
        content = messages[-1].content
        ready = re.findall(r"^- (o\d+\.\w+):", content, re.MULTILINE)
        if "Ready subtasks" in content:
            return "\n".join(f"agent{k}: {ready[k % len(ready)]}" for k in range(2))
        me = re.search(r"You are (agent\d)", content)
        assert me is not None
        if n in garbage_at:
            return "I would rather think about {this} first!!"
        if n in refused_at:
            return f"activate_{me[1]}_servingtable0"
        return f"goto_{me[1]}_storage0"
    return answer


def test_taskgraph_model_executor_writes_each_agents_command_from_its_subtask(tmp_path: Path) -> None:
    model = ScriptedModel(executor_answers())
    records = steps_of(play(LLMBrain(model), DispatchSettings(team="taskgraph", executor="model"),
                            tmp_path / "m.jsonl", steps=4))
    first = records[0]
    assert first["plan"]["executor"] == "model" and first["plan"]["chosen_by"] == "model"
    manager, *executors = first["calls"]
    assert "Ready subtasks" in manager["messages"][-1]["content"] and len(executors) == 2
    assignment = first["plan"]["assignment"]
    for agent, call in enumerate(executors):
        asked = call["messages"][-1]["content"]
        assert f"Your subtask ({assignment[str(agent)]})" in asked and f"You are agent{agent}" in asked
        assert "Your teammates' subtasks:\n- agent" + str(1 - agent) in asked
    assert first["commands"] == ["goto_agent0_storage0", "goto_agent1_storage0"]
    # later steps: the assignment stands, one executor call per agent and no manager call
    assert [len(s["calls"]) for s in records[1:]] == [2, 2, 2]
    # each executor call is held to its own agent's one-command grammar
    executor_grammar = model.grammars[1] or ""
    assert re.fullmatch(gbnf_to_regex(executor_grammar), "goto_agent0_storage0")
    assert not re.fullmatch(gbnf_to_regex(executor_grammar), "goto_agent1_storage0")


def test_taskgraph_model_executor_idles_on_garbage_and_says_so(tmp_path: Path) -> None:
    model = ScriptedModel(executor_answers(garbage_at=(1,)))  # call 1: agent0's executor call at step 0
    records = steps_of(play(LLMBrain(model), DispatchSettings(team="taskgraph", executor="model"),
                            tmp_path / "g.jsonl", steps=2))
    assert records[0]["commands"] == ["noop_agent0", "goto_agent1_storage0"]
    assert records[0]["plan"]["unread"] == [0]
    agent0_next, agent1_next = (c["messages"][-1]["content"] for c in records[1]["calls"])
    assert "No command for agent0 could be read from your last answer, so agent0 waited." in agent0_next
    assert "could be read" not in agent1_next
    assert "unread" not in records[1]["plan"]


def test_taskgraph_model_executor_replans_after_a_refused_subtask(tmp_path: Path) -> None:
    model = ScriptedModel(executor_answers(refused_at=(4,)))  # call 4: agent1's executor call at step 1
    records = steps_of(play(LLMBrain(model), DispatchSettings(team="taskgraph", executor="model"),
                            tmp_path / "r.jsonl", steps=3))
    assert records[1]["commands"][1] == "activate_agent1_servingtable0"
    assert records[1]["plan"]["failed"] == ["activate_agent1_servingtable0"]
    assert not records[1]["verdicts"][1]["ok"]  # played as written: the refusal is the feedback
    assert records[1]["feedback"]
    manager = records[2]["calls"][0]["messages"][-1]["content"]
    assert "Ready subtasks" in manager and records[2]["plan"]["id"] == records[1]["plan"]["id"] + 1
    assert records[1]["feedback"][0] in records[2]["calls"][1]["messages"][-1]["content"]


@settings(max_examples=40, deadline=None)
@given(st.text(max_size=200))
def test_model_executor_turns_any_answer_into_one_own_command_or_idling(text: str) -> None:
    """Whatever the executor model writes, each agent gets one command of its own or idles, and
    an idle from an unreadable answer is noted for that agent; nothing raises."""
    def answer(n: int, messages: Sequence[Message]) -> str:
        return "agent0: o0.cookedRice\nagent1: o0.tunaSashimi" if "Ready subtasks" in messages[-1].content else text

    session = domains.make_session(domains.validate(SPEC))
    dispatcher = Dispatcher.for_session(session, LLMBrain(ScriptedModel(answer)), PromptConfig(demo="none"),
                                        dispatch=DispatchSettings(team="taskgraph", executor="model"))

    async def one_step() -> Any:
        await session.reset(seed=0)
        episode = Episode(session, dispatcher)
        decision = await episode.act()
        await episode.advance(decision)
        return decision, episode

    decision, episode = asyncio.run(one_step())
    assert [session.agent_of(c) for c in decision.commands] == [0, 1]
    unread = decision.plan["unread"] if decision.plan and "unread" in decision.plan else []
    assert all(decision.commands[a] == f"noop_agent{a}" for a in unread)
    assert sorted(episode.executor_notes) == unread


def test_model_executor_needs_a_model_and_the_task_graph() -> None:
    session = domains.make_session(domains.validate(SPEC))
    with pytest.raises(SpecError, match="language model"):
        Dispatcher.for_session(session, make_brain("planner", domains.get("cuisineworld")), PromptConfig(),
                               dispatch=DispatchSettings(team="taskgraph", executor="model"))
    for args in (["--mode", "taskgraph", "--subtask-executor", "model"], ["--subtask-executor", "model"],
                 ["--mode", "taskgraph", "--subtask-executor", "llm"]):
        result = CliRunner().invoke(app, ["run", "--model", "planner", "--steps", "1", *args])
        assert result.exit_code == 2, result.output
    result = CliRunner().invoke(app, ["eval", "--levels", "level_3", "--agents", "2", "--taus", "1.0", "--episodes",
                                      "1", "--steps", "2", "--model", "planner", "--mode", "taskgraph",
                                      "--subtask-executor", "model"])
    assert result.exit_code == 2 and "language model" in result.output


def test_eval_results_with_another_subtask_executor_are_not_resumed(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    model = EvalConfig(levels=["level_3"], agents=[2], model="replay:x", taus=[1.0], episodes=1, steps=2,
                       dispatch=DispatchSettings(team="taskgraph", executor="model"))
    Results(out, model).save()
    assert json.loads(out.read_text())["config"]["dispatch"] == {"mode": "step", "team": "taskgraph",
                                                                  "subtask_executor": "model"}
    with pytest.raises(ValueError, match="dispatch"):
        Results(out, dataclasses.replace(model, dispatch=DispatchSettings(team="taskgraph")))


# ------------------------------------------------------------------ control and partners


def test_parse_control() -> None:
    assert parse_control("2") == (0, 1)
    assert parse_control("agent2, 0") == (0, 2)
    for bad in ("0", "x", "1,1", "-1,2"):
        with pytest.raises(SpecError):
            parse_control(bad)


def test_noop_partner_idles_the_other_agents_and_is_recorded(tmp_path: Path) -> None:
    spec = GameSpec("cuisineworld", "level_3", 3, 1.0, 0, "reference", None)
    brain = make_brain("planner", domains.get("cuisineworld"))
    records = steps_of(play(brain, DispatchSettings(control=(0,), partners="noop"), tmp_path / "n.jsonl", steps=10,
                            spec=spec))
    for s in records:
        assert s["partners"] == ["noop_agent1", "noop_agent2"]
        assert [c for c in s["commands"] if "agent1" in c or "agent2" in c] == ["noop_agent1", "noop_agent2"]
        assert any("agent0" in c for c in s["commands"])


def test_control_beyond_the_team_is_refused() -> None:
    session = domains.make_session(domains.validate(SPEC))
    with pytest.raises(SpecError, match="agent3"):
        Dispatcher.for_session(session, make_brain("planner", domains.get("cuisineworld")), PromptConfig(),
                               dispatch=DispatchSettings(control=(0, 3)))


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


@pytest.mark.parametrize("team,extra", [("central", []), ("decentral", []), ("taskgraph", []),
                                        ("central", ["--control", "1"]), ("taskgraph", ["--control", "1"])])
def test_cli_modes_with_the_planner_record_and_replay(tmp_path: Path, team: str, extra: list[str]) -> None:
    result = invoke("run", "--level", "level_3", "--agents", "2", "--model", "planner", "--mode", team, *extra,
                    "--steps", "40", "--json", "--out-dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output.strip().splitlines()[-1])
    assert summary["completed"] >= 1
    records = read_recording(summary["recording"])
    assert records[0]["dispatch"].get("team", "central") == team
    if extra:  # the planner partner plays agent1, recorded apart at every step
        assert records[0]["dispatch"]["control"] == [0] and records[0]["dispatch"]["partners"] == "planner"
        assert all(len(s["partners"]) == 1 and "agent1" in s["partners"][0] for s in steps_of(records))
    assert replay_recording(summary["recording"]).steps == 40


def test_cli_replay_partner_plays_back_a_recorded_agent(tmp_path: Path) -> None:
    first = invoke("run", "--level", "level_3", "--agents", "2", "--model", "planner", "--steps", "20", "--json",
                   "--out-dir", str(tmp_path / "a"))
    source = json.loads(first.output.strip().splitlines()[-1])["recording"]
    second = invoke("run", "--level", "level_3", "--agents", "2", "--model", "planner", "--mode", "decentral",
                    "--control", "agent0", "--partners", f"replay:{source}", "--steps", "20", "--json",
                    "--out-dir", str(tmp_path / "b"))
    assert second.exit_code == 0, second.output
    played = steps_of(read_recording(json.loads(second.output.strip().splitlines()[-1])["recording"]))
    recorded = steps_of(read_recording(source))
    assert played[0]["partners"] == [c for c in recorded[0]["commands"] if "agent1" in c]
    assert replay_recording(json.loads(second.output.strip().splitlines()[-1])["recording"]).steps == 20


def test_cli_eval_takes_mode_and_control(tmp_path: Path) -> None:
    out = tmp_path / "e.json"
    result = invoke("eval", "--levels", "level_3", "--agents", "2", "--taus", "1.0", "--episodes", "1", "--steps", "20",
                    "--model", "planner", "--mode", "taskgraph", "--control", "1", "--partners", "random",
                    "--out", str(out))
    assert result.exit_code == 0, result.output
    config = json.loads(out.read_text())["config"]
    assert config["dispatch"] == {"mode": "step", "team": "taskgraph", "control": [0], "partners": "random"}


def test_cli_refuses_partners_without_control_and_modes_with_plans() -> None:
    for args in (["--partners", "noop"], ["--mode", "decentral", "--dispatch", "goals"], ["--mode", "swarm"]):
        result = CliRunner().invoke(app, ["run", "--model", "planner", "--steps", "1", *args])
        assert result.exit_code == 2


# ------------------------------------------------------------------ replay through the replay: backend


@pytest.mark.parametrize("dispatch", [DispatchSettings(team="decentral"), DispatchSettings(team="taskgraph"),
                                      DispatchSettings(team="taskgraph", executor="model"),
                                      DispatchSettings(control=(1,), partners="random"),
                                      DispatchSettings(team="taskgraph", executor="model", control=(0,))],
                         ids=["decentral", "taskgraph", "taskgraph-model-executor", "control",
                              "taskgraph-model-executor-control"])
def test_replay_backend_reruns_each_mode_bit_identically(tmp_path: Path, dispatch: DispatchSettings) -> None:
    def answer(n: int, messages: Sequence[Message]) -> str:
        ready = re.findall(r"^- (o\d+\.\w+):", messages[-1].content, re.MULTILINE)
        if ready:
            return f"agent0: {ready[0]}\nagent1: {ready[-1]}"
        return talkative(n, messages) if "You are agent" in messages[-1].content else "noop_agent0\nget_agent1_tuna_storage0"

    first = play(LLMBrain(ScriptedModel(answer)), dispatch, tmp_path / "a.jsonl", steps=15)
    second = play(LLMBrain(make_client(f"replay:{tmp_path / 'a.jsonl'}")), dispatch, tmp_path / "b.jsonl", steps=15)
    assert sum(len(s["calls"]) for s in steps_of(first)) > 0
    assert without_timing(first) == without_timing(second)
    assert replay_recording(tmp_path / "b.jsonl").steps == 15


# ------------------------------------------------------------------ a real local model


@pytest.mark.slow
@pytest.mark.parametrize("dispatch", [DispatchSettings(), DispatchSettings(team="decentral"),
                                      DispatchSettings(team="taskgraph"), DispatchSettings(control=(0,)),
                                      DispatchSettings(team="taskgraph", executor="model")],
                         ids=["central", "decentral", "taskgraph", "control", "taskgraph-model-executor"])
def test_local_model_plays_each_mode_and_replays(tmp_path: Path, dispatch: DispatchSettings) -> None:
    pytest.importorskip("llama_cpp")
    brain = make_brain("local", domains.get("cuisineworld"), timeout_s=600.0)
    small = PromptConfig(demo="none", knowledge=False, memory=0)
    steps = 6 if dispatch.team == "taskgraph" and dispatch.executor == "rule" else 2
    first = play(brain, dispatch, tmp_path / "a.jsonl", steps=steps, prompt=small)
    calls = [c for s in steps_of(first) for c in s["calls"]]
    assert calls and not any(c.get("error") for c in calls)
    if dispatch.team == "decentral":
        assert all(len(s["calls"]) == 2 for s in steps_of(first))
    if dispatch.executor == "model":  # the grammar holds every executor answer to one command of its agent
        for s in steps_of(first):
            executed = [c for c in s["calls"] if "Your subtask" in c["messages"][-1]["content"]]
            assert len(executed) == 2 and "unread" not in s["plan"]
            assert [c.split("_")[1] for c in s["commands"]] == ["agent0", "agent1"]
    second = play(LLMBrain(make_client(f"replay:{tmp_path / 'a.jsonl'}")), dispatch, tmp_path / "b.jsonl",
                  steps=steps, prompt=small)
    assert without_timing(first) == without_timing(second)
    assert replay_recording(tmp_path / "a.jsonl").steps == steps
