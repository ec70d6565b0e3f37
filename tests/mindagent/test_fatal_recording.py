"""An episode ended by an exception (a live world lost for good, a model refusing the key, a bug)
leaves a recording whose last line says how it ended: an ``error`` line with the exception's kind
and its redacted message, not a file that merely stops. `replay` re-executes every step before it
and names the error in one line.

The failing game is a test-only domain registered in this process: the kitchen, whose world
falls apart at a chosen step with an error quoting a secret the process knows."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cuisineworld import load_level
from cuisineworld.adapter.domain import CuisineDomain
from cuisineworld.adapter.session import CuisineSession
from mindagent.cli import app
from mindagent.core import registry as domains
from mindagent.core.domain import DomainStep
from mindagent.core.episode import run_episode
from mindagent.core.plugin import DomainPlugin
from mindagent.core.spec import GameSpec
from mindagent.dispatch.brains import make_brain
from mindagent.dispatch.dispatcher import Dispatcher
from mindagent.dispatch.prompt import PromptConfig
from mindagent.llm.redact import forget_secrets, register_secret
from mindagent.recordings.recording import Recorder, load_recording
from mindagent.recordings.replay import replay_recording
from mindagent.server import GameServer, ServerConfig

runner = CliRunner()
FAIL_AT = 4
SECRET = "PLANTED-world-key-81f2c4"


class WorldGone(RuntimeError):
    """What a live game raises when its world cannot come back (Minecraft's `WorldLost`)."""


class CrumblingSession(CuisineSession):
    domain = "crumbling"

    async def step(self, commands: Sequence[str]) -> DomainStep:
        if self.step_index == FAIL_AT:
            raise WorldGone(f"the world fell apart after its restarts (server key {SECRET})")
        return await super().step(commands)


class CrumblingDomain(CuisineDomain):
    name = "crumbling"
    title = "Crumbling kitchen"

    def make_session(self, spec: GameSpec) -> CuisineSession:
        level = load_level(spec.level or self.default_level, rules=spec.rules, recipes=spec.recipes)
        return CrumblingSession(level, n_agents=spec.agents, tau=spec.tau, seed=spec.seed, max_steps=spec.steps)


@pytest.fixture
def crumbling() -> Iterator[str]:
    domains.register(DomainPlugin("crumbling", "Crumbling kitchen", "test:DOMAIN"), CrumblingDomain())
    register_secret(SECRET)
    try:
        yield "crumbling"
    finally:
        domains.unregister("crumbling")
        forget_secrets()


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_run_episode_ends_the_recording_with_the_error(crumbling: str, tmp_path: Path) -> None:
    spec = GameSpec(crumbling, "level_3", 2, 1.0, 0, "reference", None)
    session = domains.make_session(spec)
    dispatcher = Dispatcher.for_session(session, make_brain("planner", domains.get(crumbling)), PromptConfig())
    path = tmp_path / "lost.jsonl"

    async def play() -> None:
        await session.reset(seed=0)
        recorder = Recorder(path)
        recorder.header(**spec.header(), model="planner", **session.episode_header())
        await run_episode(session, dispatcher, recorder)

    with pytest.raises(WorldGone):
        asyncio.run(play())
    records = lines(path)
    assert [r["type"] for r in records].count("step") == FAIL_AT
    last = records[-1]
    assert last["type"] == "error" and last["kind"] == "WorldGone" and last["step"] == FAIL_AT
    assert "fell apart" in str(last["message"]) and SECRET not in path.read_text(encoding="utf-8")
    assert load_recording(path).error == last

    report = replay_recording(path)
    assert report.steps == FAIL_AT and not report.ended
    note = report.incomplete()
    assert note is not None and f"ended by an error at step {FAIL_AT}" in note and "WorldGone" in note


def test_run_and_replay_say_how_the_episode_ended(crumbling: str, tmp_path: Path) -> None:
    ran = runner.invoke(app, ["run", "--domain", crumbling, "--level", "level_3", "--model", "planner",
                              "--out-dir", str(tmp_path)])
    assert ran.exit_code == 1 and "WorldGone" in ran.output and SECRET not in ran.output, ran.output
    recording = next(tmp_path.glob("*.jsonl"))
    assert lines(recording)[-1]["type"] == "error"

    replayed = runner.invoke(app, ["replay", str(recording)])
    assert replayed.exit_code == 0, replayed.output
    assert f"replayed {FAIL_AT} steps identically" in replayed.output
    assert "ended by an error" in replayed.output and "WorldGone" in replayed.output
    assert SECRET not in replayed.output


def test_a_room_whose_step_raises_ends_its_episode_with_the_error(crumbling: str, tmp_path: Path) -> None:
    async def serve() -> str | None:
        config = ServerConfig(port=0, model="planner", model_why="test", tick=0.02, human_tick=None, countdown=0,
                              recordings=tmp_path / "rooms", autoplay=True, episodes=3,
                              startup=GameSpec(crumbling, "level_3", 2, 1.0, 0, "reference", None))
        async with GameServer(config) as server:
            return await asyncio.wait_for(server.startup_played(), 30)

    error = asyncio.run(serve())
    assert error is not None and error.startswith("WorldGone: the world fell apart") and SECRET not in error
    files = sorted((tmp_path / "rooms").rglob("*.jsonl"))
    assert len(files) == 1  # the failed episode is the room's last: no restart on a lost world
    records = lines(files[0])
    assert records[-1]["type"] == "error" and records[-1]["kind"] == "WorldGone"
    assert SECRET not in files[0].read_text(encoding="utf-8")
    assert replay_recording(files[0]).steps == FAIL_AT
