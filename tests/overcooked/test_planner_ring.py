"""The planner beside a partner it does not command, in the one-cell-wide rings of
counter_circuit and coordination_ring: it goes the other way round at once when the partner stands
on the short way, and it does not shuttle an onion on and off a counter while the partner stands
on the pots' only cell. The partners here are scripted (they stand still), so no proxy is needed."""

from __future__ import annotations

from typing import Any

import pytest

from mindagent.core import registry as domains
from mindagent.core.spec import GameSpec
from overcooked_game.planner import OvercookedPlanner
from overcooked_game.session import OvercookedSession


async def placed(level: str, players: Any, pot_onions: int = 0,
                 cooking: bool = False) -> tuple[OvercookedSession, OvercookedPlanner]:
    """A fresh session on `level` with the chefs put where a test wants them (pot0 holding
    `pot_onions` onions, cooking if `cooking`), and a planner reset for it."""
    from overcooked.mdp.overcooked_mdp import SoupState

    session = domains.make_session(GameSpec(domain="overcooked", level=level, seed=0))
    assert isinstance(session, OvercookedSession)
    await session.reset(seed=0)
    planner = OvercookedPlanner(seed=0)
    planner.reset(session)
    state = session.engine.state
    state.players = players
    if pot_onions:
        pot = session.kitchen.pots[0]
        state.objects[pot] = SoupState.get_soup(pot, num_onions=pot_onions, cooking_tick=0 if cooking else -1)
    return session, planner


async def run(session: OvercookedSession, planner: OvercookedPlanner, timesteps: int) -> list[tuple[str, Any]]:
    """Steps with the planner commanding chef0 and chef1 standing still; what chef0 was told and where it stood."""
    seen = []
    while session.engine.timestep < timesteps:
        ours = planner.act_for(session, [0])
        seen.append((ours[0], session.engine.state.players[0].position))
        await session.step([*ours, "stay(chef1)"])
    return seen


@pytest.mark.asyncio
async def test_a_partner_standing_on_the_short_way_round_the_ring_is_passed_the_other_way_at_once() -> None:
    """counter_circuit: chef0 at the bottom (3, 3) with a dish for pot0's soup (used from (3, 1));
    the short way is left and up, six steps, but the partner stands on it at (2, 1), five steps
    ahead. Walking up to it and then round would cost 16 steps; the way round to the right costs
    8, so the chef takes it at once, never setting foot on the left half of the bottom row."""
    from overcooked.mdp.overcooked_mdp import ObjectState, PlayerState

    session, planner = await placed("counter_circuit", (
        PlayerState((3, 3), (0, 1), ObjectState("dish", (3, 3))), PlayerState((2, 1), (0, 1))),
        pot_onions=3, cooking=True)
    seen = await run(session, planner, 10)
    cells = [pos for _, pos in seen]
    assert not {(2, 3), (1, 3), (1, 2)} & set(cells), seen
    assert session.engine.state.players[0].position == (3, 1), seen


@pytest.mark.asyncio
async def test_an_onion_is_not_shuttled_on_and_off_a_counter_while_the_partner_holds_the_pots_cell() -> None:
    """coordination_ring: both pots are used from (3, 1) alone, where the partner stands with a
    dish. Counting the partner's cell as a longer way, the chef at (2, 3) with an onion took the
    pots for far off, set the onion on the centre counter to carry over later, then took it back
    as nearer than the dispenser, and again, for as long as the partner stood there."""
    from overcooked.mdp.overcooked_mdp import ObjectState, PlayerState

    session, planner = await placed("coordination_ring", (
        PlayerState((2, 3), (0, 1), ObjectState("onion", (2, 3))),
        PlayerState((3, 1), (0, -1), ObjectState("dish", (3, 1)))), pot_onions=1)
    seen = await run(session, planner, 30)
    places = [command for command, _ in seen if command.startswith("place(")]
    assert len(places) <= 1, seen
