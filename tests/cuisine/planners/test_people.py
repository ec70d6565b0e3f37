"""Planning beside people: the person's command goes first, is left its part, and is credited."""

from __future__ import annotations

import asyncio

from cuisineworld import load_level
from cuisineworld.adapter.credit import DishLedger
from cuisineworld.adapter.goals import GoalExecutor
from cuisineworld.adapter.planners import CuisinePlanner, RandomPolicy
from cuisineworld.adapter.planners.people import people_needs
from cuisineworld.adapter.planners.snapshot import Snapshot
from cuisineworld.adapter.session import CuisineSession
from cuisineworld.adapter.view import kitchen_view


def session_of(level: str, agents: int, seed: int = 0) -> CuisineSession:
    session = CuisineSession(load_level(level), n_agents=agents, tau=1.0, seed=seed)
    asyncio.run(session.reset())
    return session


def test_the_team_plans_after_the_persons_command_and_is_never_refused() -> None:
    """Beside a person playing the scheduler's greedy choice, the team's commands, run after the
    person's, are all accepted, and so are the person's."""
    session = session_of("level_3", 4)
    team, person = CuisinePlanner(), CuisinePlanner(lookahead_team=0)
    for _ in range(40):
        mine = person.act_for(session, [3])[0]
        session.set_people_commands([mine])
        theirs = team.act_for(session, [0, 1, 2])
        session.set_people_commands(())
        step = session.step_now([mine, *theirs])
        assert all(v.ok for v in step.verdicts), [v.text for v in step.verdicts if not v.ok]
    assert session.counts.completed >= 2


def test_the_team_leaves_the_item_a_person_takes() -> None:
    """A person taking the pot's cooked rice this step: the team does not plan to take it too."""
    session = session_of("level_3", 2)
    world = session.world
    world.step(["goto_agent0_storage0", "goto_agent1_pot0"])
    world.step(["get_agent0_rice_storage0", "noop_agent1"])
    world.step(["goto_agent0_pot0", "noop_agent1"])
    world.step(["put_agent0_pot0", "activate_agent1_pot0"])
    while world.location_busy("pot0"):
        world.step(["noop_agent0", "noop_agent1"])
    session.set_people_commands(["get_agent1_pot0"])
    team = CuisinePlanner().act_for(session, [0])
    session.set_people_commands(())
    assert team != ["get_agent0_pot0"]
    step = session.step_now(["get_agent1_pot0", *team])
    assert step.verdicts[0].ok and world.agent_holding(1) == "cookedRice"


def test_a_random_teammate_checks_its_picks_after_the_people() -> None:
    session = session_of("level_3", 3)
    policy = RandomPolicy(seed=4)
    for _ in range(30):
        legal = session.legal_commands(2)
        mine = legal[len(legal) // 2]
        session.set_people_commands([mine])
        theirs = [c for c in policy.act(session) if not c.endswith("agent2") and "_agent2_" not in c]
        session.set_people_commands(())
        step = session.step_now([mine, *theirs])
        assert all(v.ok for v in step.verdicts)


def test_hand_offs_count_in_the_share_of_served_dishes() -> None:
    """pass_sushi, a person on the storage side: every part of every dish crosses a counter, so
    the person's share is the work they passed over, not the zero of 'dishes they served'."""
    session = session_of("pass_sushi", 2)
    team, person = CuisinePlanner(), CuisinePlanner(lookahead_team=0)
    served_by_person = 0
    while not session.done:
        mine = person.act_for(session, [0])[0]
        session.set_people_commands([mine])
        theirs = team.act_for(session, [1])
        session.set_people_commands(())
        session.step_now([mine, *theirs])
        served_by_person += mine.startswith("put_") and mine.endswith("servingtable0")
    completed = session.counts.completed
    assert completed >= 1 and served_by_person == 0  # the storage side cannot reach the serving table
    shares = session.dish_shares()
    assert abs(sum(shares) - completed) < 1e-9
    assert shares[0] >= 0.4 * completed  # the person worked on every dish served


def test_the_ledger_splits_a_dish_among_everyone_who_touched_it() -> None:
    world = session_of("level_0", 2).world
    ledger = DishLedger(world)
    dish = world.orders[0].dish
    recipe = next(r for r in world.level.recipes if r.product == dish)
    assert recipe is not None  # level_0's dishes are made from storage in one tool
    # agent0 fetches and puts the ingredients; agent1 cooks and serves
    tool = next(loc.name for loc in world.level.locations if loc.type == recipe.tool)
    storage = next(loc.name for loc in world.level.locations if loc.role == "storage")
    serving = next(loc.name for loc in world.level.locations if loc.role == "serving")
    for item in recipe.ingredients:
        for cmds in (["goto_agent0_" + storage, "noop_agent1"], [f"get_agent0_{item}_{storage}", "noop_agent1"],
                     ["goto_agent0_" + tool, "noop_agent1"], ["put_agent0_" + tool, "noop_agent1"]):
            ledger.record(world, world.step(cmds))
    for cmds in (["noop_agent0", "goto_agent1_" + tool], ["noop_agent0", "activate_agent1_" + tool]):
        ledger.record(world, world.step(cmds))
    while world.location_busy(tool):
        ledger.record(world, world.step(["noop_agent0", "noop_agent1"]))
    for cmds in (["noop_agent0", f"get_agent1_{tool}"], ["noop_agent0", "goto_agent1_" + serving],
                 ["noop_agent0", "put_agent1_" + serving]):
        ledger.record(world, world.step(cmds))
    assert world.counts.completed == 1
    assert ledger.shares == [0.5, 0.5] and ledger.dishes == 1


def test_a_person_holding_the_block_is_told_what_the_team_needs() -> None:
    """relay_sashimi, 2 agents: the person in the middle holds sashimi only the team can carry on."""
    session = session_of("relay_sashimi", 2)
    world = session.world
    for cmds in (["goto_agent0_storage0", "goto_agent1_counter0"], ["get_agent0_salmon_storage0", "noop_agent1"],
                 ["goto_agent0_counter0", "noop_agent1"], ["put_agent0_counter0", "noop_agent1"],
                 ["noop_agent0", "get_agent1_counter0"], ["noop_agent0", "goto_agent1_chopboard0"],
                 ["noop_agent0", "put_agent1_chopboard0"], ["noop_agent0", "activate_agent1_chopboard0"],
                 ["noop_agent0", "get_agent1_chopboard0"]):
        world.step(cmds)
    assert world.agent_holding(1) == "salmonSashimi"
    snap = Snapshot.of(world, CuisinePlanner().book(world.level))
    assert people_needs(snap, [1]) == ["agent1: please put your salmonSashimi on counter0 (agent0 carries it on)"]
    planner = CuisinePlanner()
    planner.act_for(session, [0])
    assert kitchen_view(session)["needs"] == people_needs(snap, [1])
    assert planner.take_replies() == people_needs(snap, [1])
    planner.act_for(session, [0])
    assert planner.take_replies() == []  # said once while it holds


def test_the_goal_executor_leaves_a_persons_agent_to_them() -> None:
    """Goal mode beside a person: the cooks command only the other agents, planned after the
    person's command (which runs first), and the engine accepts them all."""
    session = session_of("level_3", 3)
    executor, person = GoalExecutor(), CuisinePlanner(lookahead_team=0)
    for _ in range(30):
        mine = person.act_for(session, [2])[0]
        session.set_people_commands([mine])
        theirs = executor.act(session, [o.dish for o in session.world.orders][:1])
        session.set_people_commands(())
        assert all(session.agent_of(c) in (0, 1) for c in theirs)
        step = session.step_now([mine, *theirs])
        assert all(v.ok for v in step.verdicts)
