"""Long random command streams on every level: no exceptions, no items from nothing, no negatives.

Only storage creates (get) and destroys (put) items; cooking turns a tool's content into one
product; serving removes a dish when an order completes. Everything else must conserve items.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cuisineworld import World, load_level
from cuisineworld.levels import level_names

LEVELS = level_names()


def items(world: World) -> int:
    held = sum(1 for a in range(world.n_agents) if world.agent_holding(a) is not None)
    inside = sum(len(world.location_content(n)) for n in world.level.location_names if not n.startswith("storage"))
    return held + inside


def command_pool(world: World) -> list[str]:
    pool = []
    for a in range(world.n_agents):
        pool += [f"noop_agent{a}", f"get_agent{a}_storage0", f"get_agent{a}_tuna_storage0", f"put_agent{a}_servingtable0"]
        for name in world.level.location_names:
            pool += [f"goto_agent{a}_{name}", f"get_agent{a}_{name}", f"put_agent{a}_{name}", f"activate_agent{a}_{name}"]
        pool += [f"get_agent{a}_{b}_storage0" for b in world.level.base_ingredients[:27:3]]
    return pool + ["garbage", "goto_agent9_storage0", "noop_agent0_x_y_z"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    level=st.sampled_from(LEVELS),
    rules=st.sampled_from(["reference", "fixed"]),
    n_agents=st.integers(1, 4),
    seed=st.integers(0, 2**16),
    data=st.data(),
)
def test_random_streams_conserve_items(level, rules, n_agents, seed, data):
    world = World(load_level(level, rules=rules), n_agents=n_agents, tau=data.draw(st.sampled_from([1.0, 2.0, 3.0])), seed=seed)
    world.reset()
    pool = command_pool(world)
    legal_mode = data.draw(st.booleans())
    for _ in range(60):
        if legal_mode:
            commands = [data.draw(st.sampled_from(world.legal_commands(a))) for a in range(n_agents)]
        else:
            commands = data.draw(st.lists(st.sampled_from(pool), max_size=n_agents + 1))
        before_items = items(world)
        before_holds = [world.agent_holding(a) for a in range(n_agents)]
        at_storage = sum(1 for a in range(n_agents) if world.agent_location(a).startswith("storage"))
        result = world.step(commands)
        gets = sum(1 for o in result.outcomes if o.ok and o.command.startswith("get") and "storage" in o.command)
        trashed = sum(1 for o in result.outcomes if o.ok and o.command.startswith("put") and o.command.endswith(tuple(
            n for n in world.level.location_names if n.startswith("storage"))))
        after = items(world)
        # cooking merges several items into one; duplicates vanish (reference); orders remove dishes
        assert after <= before_items + gets
        assert gets <= at_storage + n_agents
        assert trashed <= sum(1 for h in before_holds if h is not None)
        for a in range(n_agents):
            assert world.agent_busy(a) >= 0
        for name in world.level.location_names:
            assert world.location_busy(name) >= 0
        assert all(o.lifetime >= 0 for o in world.orders)
        c = world.counts
        assert min(c.completed, c.failed, c.active) >= 0 and c.active <= 6
        if world.done:
            break


@settings(max_examples=40, deadline=None)
@given(level=st.sampled_from(LEVELS), rules=st.sampled_from(["reference", "fixed"]), seed=st.integers(0, 1000), data=st.data())
def test_legal_commands_are_exactly_the_ones_that_succeed(level, rules, seed, data):
    """Every listed command succeeds alone; every command from the pool that succeeds is listed
    (modulo the item named in a get from a tool, which the engine ignores)."""
    world = World(load_level(level, rules=rules), n_agents=2, tau=2.0, seed=seed)
    world.reset()
    for _ in range(25):
        for a in range(2):
            legal = world.legal_commands(a)
            for command in legal:
                assert world.check([command])[0].ok, command
            for command in command_pool(world):
                if command.split("_")[1:2] != [f"agent{a}"]:
                    continue
                if world.check([command])[0].ok and not command.startswith("noop_agent0_"):
                    canonical = command
                    parts = command.split("_")
                    if parts[0] == "get" and len(parts) == 3 and not parts[2].startswith("storage"):
                        canonical = f"get_agent{a}_{world.location_content(parts[2])[0]}_{parts[2]}"
                    if parts[0] == "put" and len(parts) == 4:
                        canonical = f"put_agent{a}_{parts[3]}"
                    assert canonical in legal, (command, legal)
        world.step([data.draw(st.sampled_from(world.legal_commands(a))) for a in range(2)])


@settings(max_examples=20, deadline=None)
@given(level=st.sampled_from(LEVELS), seed=st.integers(0, 500))
def test_same_seed_same_episode_and_clone_is_independent(level, seed):
    def play(world: World) -> list[str]:
        import random

        rng = random.Random(seed)
        trace = []
        for _ in range(40):
            commands = [rng.choice(world.legal_commands(a)) for a in range(3)]
            world.step(commands)
            trace.append(world.state_text())
        return trace

    a = World(load_level(level), n_agents=3, seed=seed)
    b = World(load_level(level), n_agents=3, seed=seed)
    a.reset()
    b.reset()
    twin = a.clone()
    assert play(a) == play(b) == play(twin)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(level=st.sampled_from(LEVELS), rules=st.sampled_from(["reference", "fixed"]), n_agents=st.integers(1, 4),
       seed=st.integers(0, 2**16), data=st.data())
def test_fast_views_agree_with_the_plain_ones(level, rules, n_agents, seed, data):
    """The views the RL encoders read every step (no copies, cached answers) say what the plain ones say."""
    world = World(load_level(level, rules=rules), n_agents=n_agents, tau=1.0, seed=seed)
    labels = world.legal_labels(str)
    completed = failed = 0
    for _ in range(70):
        if world.done:
            world.reset()
            completed = failed = 0
        assert world.legal_labelled_all(labels) == [c for a in range(n_agents) for c in world.legal_labelled(a, labels)]
        assert world.orders_view() == world.orders
        counts = world.counts
        assert (counts.completed, counts.failed, counts.active) == (completed, failed, len(world.orders))
        assert world.clone().counts == counts
        result = world.step([data.draw(st.sampled_from(world.legal_commands(a))) for a in range(n_agents)])
        completed += len(result.completed)
        if result.failed:
            failed += 1 if world.rules.count_failures_per_step else len(result.failed)
