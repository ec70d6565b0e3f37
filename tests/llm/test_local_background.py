"""A timed-out local call is finished in the background, so the next call finds its prompt cached;
and a room that commands every step with the local model acts on its ticks and exits without
``RuntimeError: Event loop is closed`` (the real SmolLM2, in the slow tier)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from mindagent.llm import GenerationConfig, Message, ModelTimeout
from mindagent.llm.local_backend import LocalClient

N_CTX = 2048
PROMPT = [
    Message("system", "You dispatch two kitchen agents. " + "Answer with one command per agent, one per line. " * 20,
            cache_prefix=True),
    Message("user", "Order: tunasashimi. agent0 is at storage0, agent1 at blender0. Commands?"),
]
GRAMMAR = 'root ::= "noop_agent0\\n" ("noop_agent1" | "goto_agent1_storage0")\n'


def test_an_abandoned_call_that_has_not_started_is_skipped() -> None:
    """The fake holds the model's place: a call abandoned before it ran never runs, one that ran
    finished (its thread returns normally), and the awaiting tasks saw timeouts at once."""
    client = LocalClient()
    ran: list[str] = []
    gate = threading.Lock()

    def generate(messages: Any, config: Any, grammar: Any, cancel: threading.Event,
                 abandoned: threading.Event | None = None) -> tuple[dict[str, Any], int]:
        with gate:  # the model's lock, as in `_generate`
            if abandoned is not None and abandoned.is_set():
                ran.append(f"skipped {messages[0]['content']}")
                raise RuntimeError("skipped")
            time.sleep(0.3)
            ran.append(f"ran {messages[0]['content']}")
        return {"choices": [{"message": {"content": "noop_agent0"}}]}, 0

    client._generate = generate  # type: ignore[method-assign]

    async def calls() -> None:
        for text in ("first", "second"):
            with pytest.raises(ModelTimeout):
                await client.complete([Message("user", text)], GenerationConfig(timeout_s=0.05))
        await asyncio.sleep(0.6)

    asyncio.run(calls())
    assert ran == ["ran first", "skipped second"]


@pytest.mark.slow
@pytest.mark.asyncio
async def test_a_timed_out_call_leaves_its_prompt_cached(smollm2_path: Path, llama_cpp_module: Any) -> None:
    client = LocalClient(n_ctx=N_CTX)
    warm = [Message("user", "hello")]
    await client.complete(warm, GenerationConfig(max_tokens=2, timeout_s=300))  # load the model first
    with pytest.raises(ModelTimeout):
        await client.complete(PROMPT, GenerationConfig(max_tokens=16, timeout_s=0.05), GRAMMAR)
    out = await client.complete(PROMPT, GenerationConfig(max_tokens=16, timeout_s=300), GRAMMAR)
    await client.aclose()
    assert out.usage.prompt_tokens > 200
    # the abandoned call evaluated the whole prompt; this one re-evaluated at most its last token
    assert out.usage.cached_tokens == out.usage.prompt_tokens - 1
    assert out.text.startswith("noop_agent0\n") and out.grammar_sent == "local"


ROOM_SCRIPT = textwrap.dedent('''
    import asyncio, json, sys, tempfile, time
    from pathlib import Path
    from mindagent.core import registry as domains
    from mindagent.core.spec import GameSpec
    from mindagent.dispatch.brains import make_brain
    from mindagent.dispatch.dispatcher import DispatchSettings
    from mindagent.dispatch.prompt import PromptConfig
    from mindagent.server.room import Room, RoomSettings

    TICK, LIMIT_S, DECISION_S = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])

    async def main():
        spec = domains.validate(GameSpec("cuisineworld", "level_3", 2, 1.0, 0, "reference", None))
        settings = RoomSettings(spec, "local", "test", "realtime", TICK, decision_timeout=DECISION_S,
                                dispatch=DispatchSettings("step"), prompt=PromptConfig(demo="none", knowledge=False))
        brain = make_brain("local", domains.get("cuisineworld"), timeout_s=600)
        with tempfile.TemporaryDirectory() as folder:
            room = Room("t", None, settings, domains.make_session(spec), brain, Path(folder))
            await room.open()
            room.start()
            acted = ticks = 0
            started = time.perf_counter()
            while time.perf_counter() - started < LIMIT_S and acted < 2:
                await asyncio.sleep(TICK)
                await room.tick()
                last = room.state()["last_step"]
                if last is None or room.status != "running":
                    continue
                ticks += 1
                mine = [a for a in last["actions"] if a["by"] == "dispatcher"]
                acted += bool(mine) and all(not a["idle"] for a in mine)
            await room.close()
        print(json.dumps({"ticks": ticks, "acted": acted}))

    asyncio.run(main())
''')


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_step_mode_room_with_the_local_model_acts_and_exits_cleanly(smollm2_path: Path, llama_cpp_module: Any,
                                                                      tmp_path: Path) -> None:
    """The decision timer (20 s) is shorter than the first call on a loaded machine: that call is
    abandoned, finishes in the background, and the calls after it start warm and land on ticks
    (about 40 s to two acted ticks at load average 12; the room gives up after 420 s)."""
    script = tmp_path / "room.py"
    script.write_text(ROOM_SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run([sys.executable, str(script), "1.0", "420", "20"], capture_output=True, text=True,
                          timeout=600, env=env, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Event loop is closed" not in done.stderr and "Traceback" not in done.stderr, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["acted"] >= 2, result
