"""The dispatcher's modes run on Overcooked unchanged: central (one call for both chefs),
decentral (one call per chef) and `--control` with the planner as partner. A scripted model
stands in for a language model: it answers with the first feasible command the state lists for
each chef it commands, as a careful model would. Every recording replays identically."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from fakes import ScriptedModel

from mindagent.core import registry as domains
from mindagent.core.episode import run_episode
from mindagent.core.spec import GameSpec
from mindagent.dispatch.brains import LLMBrain
from mindagent.dispatch.dispatcher import Dispatcher, DispatchSettings
from mindagent.dispatch.prompt import PromptConfig
from mindagent.llm.base import Message
from mindagent.recordings.recording import Recorder, read_recording
from mindagent.recordings.replay import replay_recording

SPEC = GameSpec("overcooked", "cramped_room", 2, 1.0, 0, "reference", None)


def first_feasible(n: int, messages: Sequence[Message]) -> str:
    text = messages[-1].content
    me = re.search(r"You are (chef\d)", text)
    lines = re.findall(r"^(chef\d) can: (\w+\(chef\d(?:, \w+)?\))", text, flags=re.MULTILINE)
    picks = [f"Action: {first}" for chef, first in lines if me is None or chef == me.group(1)]
    return "Analysis: keep the pot busy.\n" + "\n".join(picks)


def play(dispatch: DispatchSettings, path: Path, steps: int = 40) -> list[dict[str, Any]]:
    session = domains.make_session(domains.validate(SPEC))
    model = ScriptedModel(first_feasible)
    dispatcher = Dispatcher.for_session(session, LLMBrain(model), PromptConfig(demo="none"), dispatch=dispatch)

    async def go() -> None:
        await session.reset(seed=0)
        recorder = Recorder(path)
        recorder.header(**SPEC.header(), model="scripted", episode=1, dispatch=dispatch.to_dict(),
                        **session.episode_header())
        await run_episode(session, dispatcher, recorder, steps=steps)

    asyncio.run(go())
    assert model.sent and all(g is not None and "root ::=" in g for g in model.grammars)
    return read_recording(path)


@pytest.mark.parametrize("dispatch", [DispatchSettings(), DispatchSettings(team="decentral"),
                                      DispatchSettings(control=[0], partners="planner")],
                         ids=["central", "decentral", "control-planner-partner"])
def test_mode_plays_with_accepted_commands_and_replays(dispatch: DispatchSettings, tmp_path: Path) -> None:
    path = tmp_path / "episode.jsonl"
    records = play(dispatch, path)
    steps = [r for r in records if r["type"] == "step"]
    assert len(steps) == 40
    verdicts = [v for s in steps for v in s["check"]]
    assert len(verdicts) >= 80 and all(v["ok"] for v in verdicts)
    assert replay_recording(path).steps == 40
