"""The planner beside a partner it does not command (``act_for``): it plans its own chef only,
never waits on the partner, gives way when pushed, and in forced_coordination keeps handing over.

The partners here are scripted (they press primitive keys, as a person or the BC proxy does), so
these tests need no trained proxy; `bc/test_bc_planner.py` plays beside a trained one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mindagent.core import registry as domains
from mindagent.core.capabilities import ActsFor, policy_commands
from mindagent.core.spec import GameSpec
from overcooked_game.partnered import DISH_TRUST, PUSH_AFTER
from overcooked_game.planner import OvercookedPlanner
from overcooked_game.session import OvercookedSession

Partner = Callable[[OvercookedSession, int, int], str]


def standing(session: OvercookedSession, chef: int, mine: int) -> str:
    return f"stay(chef{chef})"


def chasing(session: OvercookedSession, chef: int, mine: int) -> str:
    """Presses the key toward the planner's chef: a partner that keeps walking into it."""
    players = session.engine.state.players
    (x, y), (tx, ty) = players[chef].position, players[mine].position
    if abs(tx - x) >= abs(ty - y) and tx != x:
        return f"{'right' if tx > x else 'left'}(chef{chef})"
    return f"{'down' if ty > y else 'up'}(chef{chef})"


async def play(level: str, seat: int, partner: Partner, seed: int = 0, until: int = 400,
               watch: Callable[[OvercookedSession, list[str]], None] | None = None) -> tuple[OvercookedSession, list[list[str]]]:
    """An episode with the planner commanding chef `1 - seat` and `partner` playing chef `seat`."""
    session = domains.make_session(GameSpec(domain="overcooked", level=level, seed=seed))
    assert isinstance(session, OvercookedSession)
    planner = domains.get("overcooked").make_policy("planner", seed)
    await session.reset(seed=seed)
    planner.reset(session)
    mine, played = 1 - seat, []
    while not session.done and session.engine.timestep < until:
        ours = policy_commands(planner, session, [mine])
        assert [session.agent_of(c) for c in ours] == [mine]
        if watch is not None:
            watch(session, ours)
        step = await session.step([partner(session, seat, mine), *ours])
        assert step.verdicts[1].ok, step.verdicts[1]
        played.append(ours)
    return session, played


def test_the_planner_declares_it_can_act_for_part_of_the_team() -> None:
    assert isinstance(OvercookedPlanner(), ActsFor)


@pytest.mark.asyncio
async def test_act_for_commands_only_the_chefs_asked_for_and_refuses_a_stranger() -> None:
    session = domains.make_session(GameSpec(domain="overcooked", level="cramped_room"))
    assert isinstance(session, OvercookedSession)
    await session.reset(seed=0)
    planner = OvercookedPlanner(seed=0)
    planner.reset(session)
    assert [session.agent_of(c) for c in planner.act_for(session, [1])] == [1]
    assert [session.agent_of(c) for c in planner.act_for(session, [1, 0])] == [1, 0]
    with pytest.raises(ValueError, match="no chef2 here"):
        planner.act_for(session, [2])


@pytest.mark.asyncio
@pytest.mark.parametrize("seat", [0, 1])
async def test_beside_a_partner_who_does_nothing_the_planner_cooks_alone(seat: int) -> None:
    # asymmetric_advantages gives each chef its own onions, dishes, pots and window
    session, _ = await play("asymmetric_advantages", seat, standing)
    assert session.engine.delivered >= 8, session.engine.delivered


@pytest.mark.asyncio
async def test_the_same_seed_plays_the_same_commands() -> None:
    _, first = await play("coordination_ring", 0, chasing, seed=4, until=150)
    _, again = await play("coordination_ring", 0, chasing, seed=4, until=150)
    assert first == again


@pytest.mark.asyncio
async def test_a_chef_pushed_into_by_its_partner_gives_way() -> None:
    seen: list[tuple[Any, ...]] = []
    pushed: list[tuple[int, str]] = []  # (decisions the partner has stood pushing, our command)

    def watch(session: OvercookedSession, ours: list[str]) -> None:
        partner = session.engine.state.players[0]
        me = session.engine.state.players[1].position
        faced = (partner.position[0] + partner.orientation[0], partner.position[1] + partner.orientation[1])
        seen.append((partner.position, partner.orientation, faced == me))
        run = 0
        for before, now in zip(seen, seen[1:], strict=False):
            run = run + 1 if now[2] and before[:2] == now[:2] else 0
        if run:
            pushed.append((run, ours[0]))

    await play("cramped_room", 0, chasing, until=200, watch=watch)
    assert any(command == "move_away(chef1)" for _, command in pushed), pushed
    assert all(command == "move_away(chef1)" for run, command in pushed if run >= PUSH_AFTER), pushed


@pytest.mark.asyncio
async def test_forced_coordination_supplier_keeps_a_shared_counter_free_and_hands_over() -> None:
    """The planner on the dispensers' side (chef1) beside a partner who has not picked anything up."""
    free_counts: list[int] = []
    handed: list[int] = []

    def watch(session: OvercookedSession, ours: list[str]) -> None:
        kitchen, state = session.kitchen, session.engine.state
        shared = [c for c in kitchen.counters if all(kitchen.reaches(p.position, c) for p in state.players)]
        free_counts.append(sum(1 for c in shared if c not in state.objects))
        handed.append(sum(1 for c in shared if c in state.objects and state.objects[c].name == "onion"))

    await play("forced_coordination", 0, standing, until=150, watch=watch)
    assert min(free_counts) >= 1  # room for a dish whatever the partner leaves lying
    assert max(handed) >= 2  # it does hand onions over


def script(keys: list[str]) -> Partner:
    """A partner pressing `keys` in turn, then standing still."""
    def press(session: OvercookedSession, chef: int, mine: int) -> str:
        step = session.engine.timestep
        return f"{keys[step] if step < len(keys) else 'stay'}(chef{chef})"
    return press


@pytest.mark.asyncio
async def test_a_dish_in_the_partners_hands_is_counted_on_until_the_soup_has_waited_too_long() -> None:
    """cramped_room: the partner (chef0) takes a dish at once and stands with it off the dish cell.
    The planner does not fetch a second dish while the soup cooks and has just come out, and
    fetches its own once the soup has waited `DISH_TRUST` timesteps."""
    cooking_or_fresh: list[str] = []
    ready_at: list[int] = []

    def watch(session: OvercookedSession, ours: list[str]) -> None:
        pot = session.kitchen.pot(session.engine.state, session.kitchen.pots[0])
        now = session.engine.timestep
        if pot.ready and not ready_at:
            ready_at.append(now)
        if pot.cooking or (pot.ready and now - ready_at[0] < DISH_TRUST):
            cooking_or_fresh.append(ours[0])

    session, _ = await play("cramped_room", 0, script(["down", "interact", "right"]), until=160, watch=watch)
    assert session.engine.held(0) == "dish"  # the partner never used it
    assert ready_at and cooking_or_fresh
    assert not any(c.startswith("pickup_dish") for c in cooking_or_fresh), cooking_or_fresh
    assert session.engine.delivered >= 1  # then it brought its own


@pytest.mark.asyncio
async def test_no_onion_pickup_while_the_partner_stands_on_the_only_onion_cell() -> None:
    """coordination_ring: both onion dispensers are used from one cell; the partner (chef1) walks
    onto it and stays. The planner does other work and queues for onions there no more."""
    onion_cell = (1, 3)
    while_there: list[str] = []

    def watch(session: OvercookedSession, ours: list[str]) -> None:
        if session.engine.state.players[1].position == onion_cell:
            while_there.append(ours[0])

    await play("coordination_ring", 1, script(["down"]), until=120, watch=watch)
    assert len(while_there) > 100
    # (a pickup begun before the partner got there runs until the engine stops it as blocked)
    assert not any(c.startswith("pickup_onion") for c in while_there[10:]), while_there


@pytest.mark.asyncio
async def test_onions_fetched_while_the_pot_cooks_are_staged_beside_it_and_used_next() -> None:
    """cramped_room, the partner (chef0) holding a dish it does not use, out of the way: while
    the one pot cooks, the planner puts the onion it fetches ahead on the counter beside the
    pot's cell, never picks it straight back up while the pot is busy, and fills the next soup
    from it."""
    staged_peak = [0]
    taken_back_while_busy: list[int] = []
    used_next: list[int] = []
    last: dict[str, Any] = {}

    def watch(session: OvercookedSession, ours: list[str]) -> None:
        kitchen, state = session.kitchen, session.engine.state
        busy = not any(kitchen.pot(state, p).fillable for p in kitchen.pots)
        lying = len(kitchen.counter_items(state, "onion"))
        staged_peak[0] = max(staged_peak[0], lying)
        if lying < last.get("lying", 0) and session.engine.held(1) == "onion":
            (taken_back_while_busy if busy and last.get("busy") else used_next).append(session.engine.timestep)
        last.update(busy=busy, lying=lying)

    await play("cramped_room", 0, script(["down", "interact", "up", "left"]), until=300, watch=watch)
    assert staged_peak[0] >= 1
    assert not taken_back_while_busy, taken_back_while_busy
    assert used_next


@pytest.mark.asyncio
async def test_a_chef_waiting_at_its_pot_with_a_dish_does_not_give_way_to_a_push() -> None:
    """Pushed from behind while it stands on the pot's only cell: stepping off would hand the
    partner the cell (who may then stand on it for dozens of timesteps), so it keeps its place."""
    from overcooked.mdp.overcooked_mdp import ObjectState, PlayerState, SoupState

    session = domains.make_session(GameSpec(domain="overcooked", level="cramped_room", seed=0))
    assert isinstance(session, OvercookedSession)
    await session.reset(seed=0)
    planner = OvercookedPlanner(seed=0)
    planner.reset(session)
    state = session.engine.state
    pot = session.kitchen.pots[0]  # (2, 0): used only from (2, 1), facing north
    state.players = (PlayerState((1, 1), (1, 0)), PlayerState((2, 1), (0, 1), ObjectState("dish", (2, 1))))
    state.objects[pot] = SoupState.get_soup(pot, num_onions=3, cooking_tick=0)
    commands = []
    for _ in range(6):  # the partner keeps pressing east, into our chef
        ours = planner.act_for(session, [1])
        commands.extend(ours)
        await session.step(["right(chef0)", *ours])
    assert "move_away(chef1)" not in commands, commands
    assert session.engine.state.players[1].position == (2, 1)
    assert commands[-1] == "fill_dish(chef1, pot0)"


@pytest.mark.asyncio
async def test_beside_a_partner_standing_on_one_pots_cell_the_planner_cooks_with_the_other() -> None:
    # counter_circuit: the partner stands on (3, 1), pot0's only cell; the onions the planner put on
    # the island are taken from its other side instead of standing forever behind the partner
    session, _ = await play("counter_circuit", 1, standing)
    assert session.engine.delivered >= 3, session.engine.delivered


@pytest.mark.asyncio
async def test_the_pot_side_waits_facing_the_counter_the_partner_hands_over_on() -> None:
    """forced_coordination, the planner on the pots' side (chef0): the partner (chef1) takes an
    onion, turns to the divider, sets it down and presses interact again at once (taking it back
    if it still lies there), then holds it for good. Waiting facing that counter, the planner
    takes the onion the timestep it lands and cooks with it."""
    keys = ["left", "interact", "stay", "stay", "right", "interact", "interact"]
    session, _ = await play("forced_coordination", 1, script(keys), until=20)
    pots = [session.kitchen.pot(session.engine.state, p) for p in session.kitchen.pots]
    assert session.engine.held(1) is None  # the partner did not get it back
    assert sum(p.onions for p in pots) == 1, pots


@pytest.mark.asyncio
async def test_the_supplier_hands_over_on_the_counter_nearest_the_partner() -> None:
    """forced_coordination, the planner on the dispensers' side (chef1), the partner standing on
    the pots' side at the top, beside the divider's top counter (2, 1): the onions go there, in
    front of the partner, not on the counter nearest the planner's dispenser."""
    first: list[tuple[int, int]] = []

    def watch(session: OvercookedSession, ours: list[str]) -> None:
        kitchen, state = session.kitchen, session.engine.state
        lying = kitchen.counter_items(state, "onion")
        if lying and not first:
            first.extend(lying)

    session, _ = await play("forced_coordination", 0, standing, until=40, watch=watch)
    assert session.engine.state.players[0].position == (3, 1)
    assert first == [(2, 1)], first


@pytest.mark.asyncio
async def test_far_from_the_pots_the_walk_over_carries_an_onion_beside_the_batch() -> None:
    """counter_circuit, the planner (chef0) starting by the onions with both pots empty: it batches
    onions over the island and, while the batch does not cover what the pots lack, walks round to
    the pots with one more in hand rather than empty-handed."""
    arrivals: list[str | None] = []

    def watch(session: OvercookedSession, ours: list[str]) -> None:
        if session.engine.state.players[0].position[1] == 1 and not arrivals:
            arrivals.append(session.engine.held(0))

    # the partner steps off pot0's cell to the top left corner and stays there
    await play("counter_circuit", 1, script(["left", "left"]), until=60, watch=watch)
    assert arrivals == ["onion"], arrivals
