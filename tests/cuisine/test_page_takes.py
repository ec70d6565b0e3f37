"""The kitchen's page actions: one "take" button per thing (a tool's get is legal in two spellings)."""

from __future__ import annotations

import asyncio

from cuisineworld.adapter.page import page_actions
from mindagent.core.registry import make_session
from mindagent.core.spec import GameSpec


def test_a_pot_of_cooked_rice_offers_one_take() -> None:
    session = make_session(GameSpec("cuisineworld", "level_10", 1, 1.0, 0, "reference", 60))
    asyncio.run(session.reset(seed=0))
    for command in ("goto_agent0_storage0", "get_agent0_rice_storage0", "goto_agent0_pot0", "put_agent0_pot0",
                    "activate_agent0_pot0"):
        assert all(v.ok for v in asyncio.run(session.step([command])).verdicts), command
    for _ in range(10):
        if "get_agent0_cookedRice_pot0" in session.legal_commands(0):
            break
        asyncio.run(session.step(["noop_agent0"]))
    legal = session.legal_commands(0)
    assert {"get_agent0_pot0", "get_agent0_cookedRice_pot0"} <= set(legal)
    takes = [a for a in page_actions(session, 0, legal) if a["group"] == "take" and a["tile"] == "pot0"]  # type: ignore[arg-type]
    assert [a["command"] for a in takes] == ["get_agent0_cookedRice_pot0"]
    assert takes[0]["short"] == "Take cooked rice"
