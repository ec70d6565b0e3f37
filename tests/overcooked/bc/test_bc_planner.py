"""The planner beside a trained human proxy, in both starting positions (LLM-Coordination's Table 2
setting, on a small proxy trained from a slice of the coordination_ring trials)."""

from __future__ import annotations

from typing import Any

import pytest

from mindagent.core import registry as domains
from mindagent.core.capabilities import policy_commands
from mindagent.core.spec import GameSpec
from overcooked_game.session import OvercookedSession


async def beside(layout: str, proxy: str, seat: int, seed: int) -> tuple[int, list[str]]:
    """(soups, the planner's commands) of a 400-timestep game: the proxy plays chef `seat`."""
    session = domains.make_session(GameSpec(domain="overcooked", level=layout, seed=seed))
    assert isinstance(session, OvercookedSession)
    domain = domains.get("overcooked")
    planner, partner = domain.make_policy("planner", seed), domain.make_policy(proxy, seed)
    await session.reset(seed=seed)
    planner.reset(session)
    partner.reset(session)
    played: list[str] = []
    while not session.done:
        ours = policy_commands(planner, session, [1 - seat])
        step = await session.step([*policy_commands(partner, session, [seat]), *ours])
        assert all(v.ok for v in step.verdicts), step.verdicts
        played.extend(ours)
    assert session.engine.timestep == 400
    return session.engine.delivered, played


@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.parametrize("seat", [1, 0])
async def test_the_planner_cooks_beside_a_trained_proxy_in_both_positions(tiny_policy: Any, seat: int) -> None:
    layout, proxy = tiny_policy.meta.layout, f"bc:{tiny_policy.out}"
    results = [await beside(layout, proxy, seat, seed) for seed in (0, 1, 2, 3)]
    soups = [n for n, _ in results]
    # judged over games, not one: a clone samples its keys, and in one game of four it may stand in
    # the planner's only way for long stretches (Carroll et al.'s design, the default, does: 3 soups
    # on seed 0 as chef1, 5-7 in the others); a planner that stalled beside it would serve 0-1.
    assert sum(soups) / len(soups) >= 4 and min(soups) >= 2, soups
    assert all(c.endswith(f"(chef{1 - seat})") or f"(chef{1 - seat}," in c for _, played in results for c in played)
    assert await beside(layout, proxy, seat, 0) == results[0]  # the same seed, the same game
