"""The default `mindagent serve` room with the default embedded model: on how many ticks did the
dispatcher's agents get a command, and how many of those commands and decisions were the model's?

It builds the room exactly as `mindagent serve` does with no flags (CuisineWorld level_3, 4
agents, the default model, `--dispatch auto`, which picks goal mode for an in-process model) and
drives its clock for `--ticks` ticks at `--tick` seconds in real time. Two different things are
counted, because in goal mode the scheduler's line cooks command every agent on every tick
whatever the model does:

- ``commanded``: ticks on which every dispatcher agent got a command (none idled for want of one);
- the model's own share: ``model_commands`` (agent-steps whose command the model wrote),
  ``executor_commands`` (written by the domain's executor carrying out a choice) and
  ``model_answers`` (model calls that returned an answer: the decisions the model made), from
  the room's own tally (`mindagent.server.encoding.SourceTally`).

``--model rule:first`` puts a rule chooser in the model's seat for the same room.

    PYTHONPATH=. python3 benchmarks/room_ticks.py [--tick 2.0] [--ticks 30] [--dispatch auto|step|plan|goals]
                                                  [--model MODEL]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

from mindagent.cli.options import dispatch_settings
from mindagent.core import registry as domains
from mindagent.core.spec import GameSpec
from mindagent.dispatch.brains import default_model, make_brain
from mindagent.server.room import Room, RoomSettings


async def measure(tick: float, ticks: int, dispatch: str, level: str, agents: int,
                  model: str | None = None) -> dict[str, object]:
    model, why = (model, "given") if model else default_model()
    domain = domains.get("cuisineworld")
    spec = domains.validate(GameSpec("cuisineworld", level, agents, 1.0, 0, "reference", None))
    settings = RoomSettings(spec, model, why, "realtime", tick, decision_timeout=60.0,
                            dispatch=None if dispatch == "auto" else dispatch_settings(dispatch))
    with tempfile.TemporaryDirectory() as folder:
        room = Room("bench", None, settings, domains.make_session(spec), make_brain(model, domain), Path(folder))
        await room.open()
        room.start()
        commanded = stepped = 0
        started = time.perf_counter()
        for k in range(ticks):
            await asyncio.sleep(max(0.0, started + (k + 1) * tick - time.perf_counter()))
            await room.tick()
            last = room.state()["last_step"]
            if last is None or room.status != "running":
                continue
            stepped += 1
            mine = [a for a in last["actions"] if a["by"] == "dispatcher"]
            commanded += bool(mine) and all(not a["idle"] for a in mine)
        counts = room.session.counts
        sources = room.sources.to_dict(room.dispatcher.brain)
        mode = room.dispatcher.dispatch.mode
        await room.close()
    steps = sources["agent_steps"]
    return {"model": model, "dispatch": mode, "tick_s": tick, "ticks": stepped, "commanded": commanded,
            "commanded_share": round(commanded / stepped, 3) if stepped else None,
            "agent_steps": sum(steps.values()), "model_commands": steps["model"],
            "executor_commands": steps["executor"], "idle_agent_steps": steps["idle"],
            "model_answers": sources["answers"], "completed": counts.completed, "failed": counts.failed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tick", type=float, default=2.0)
    parser.add_argument("--ticks", type=int, default=30)
    parser.add_argument("--dispatch", default="auto")
    parser.add_argument("--level", default="level_3")
    parser.add_argument("--agents", type=int, default=4)
    parser.add_argument("--model", default=None, help="default: what `mindagent serve` picks")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(measure(args.tick, args.ticks, args.dispatch, args.level, args.agents, args.model))))


if __name__ == "__main__":
    main()
