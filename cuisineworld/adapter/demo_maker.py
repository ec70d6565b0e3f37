"""Making the one-shot demo files from episodes of our own engine.

Either a built-in policy plays the demo kitchen (porkMeatcake) for a few steps, or an existing
recording is cut down; both go through the engine, so the states shown are exactly what the
dispatcher sees in a real game.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cuisineworld import load_level
from cuisineworld.adapter.session import CuisineSession
from cuisineworld.demos import demo_level_path
from cuisineworld.feedback import step_lines
from mindagent.recordings.recording import read_recording

DEMO_TAU = 3.0
DEMO_SEED = 0


def make_demo(agents: int, policy_name: str = "planner", steps: int = 10, seed: int = DEMO_SEED) -> dict[str, Any]:
    """Play the demo kitchen with a policy; stop once an order is served (or after `steps`)."""
    from cuisineworld.adapter.planners import make_policy

    level = load_level(demo_level_path())
    session = CuisineSession(level, n_agents=agents, tau=DEMO_TAU, seed=seed)
    policy = make_policy(policy_name, seed=seed)
    session.world.reset()
    policy.reset(session)
    records = []
    feedback: list[str] = []
    for _ in range(steps):
        state = session.state_text()
        commands = policy.act(session)
        result = session.world.step(commands)
        records.append({"state": state, "commands": commands, "feedback": feedback})
        feedback = step_lines(result)
        if result.completed:
            break
    return {"schema": "mindagent/demo@1", "dish": level.dishes[0], "level": "demo_level.json", "agents": agents,
            "tau": DEMO_TAU, "seed": seed, "steps": records}


def demo_from_recording(path: str | Path, steps: int = 10) -> dict[str, Any]:
    """The first `steps` steps of a recorded CuisineWorld episode, as a demo."""
    records = read_recording(path)
    header = records[0]
    step_records = [r for r in records if r["type"] == "step"][:steps]
    demo_steps = []
    feedback: list[str] = []
    for r in step_records:
        demo_steps.append({"state": r["state"], "commands": r["commands"], "feedback": feedback})
        feedback = r["feedback"]
    orders = step_records[0].get("orders") or [{"dish": "unknown"}]
    return {"schema": "mindagent/demo@1", "dish": orders[0]["dish"], "level": str(header["level"]),
            "agents": int(header["agents"]), "tau": float(header["tau"]), "seed": int(header["seed"]), "steps": demo_steps}


def write_demo(demo: dict[str, object], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(demo, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
