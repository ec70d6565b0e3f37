"""The Monte-Carlo look-ahead: it searches, never peeks at the real order generator, never
issues a refused command, and stays off for large teams."""

from __future__ import annotations

from cuisineworld import World, load_level
from cuisineworld.adapter.planners import CuisinePlanner


def _play(planner: CuisinePlanner, agents: int, tau: float = 1.0) -> World:
    world = World(load_level("level_5"), n_agents=agents, tau=tau, seed=0)
    world.reset()
    while not world.done:
        result = world.step(planner.act_world(world))
        assert all(o.ok for o in result.outcomes)
    return world


def test_lookahead_runs_for_small_teams_without_refusals() -> None:
    planner = CuisinePlanner()
    _play(planner, agents=2)
    assert planner.stats["lookahead"] > 0
    assert planner.stats["repaired"] == 0


def test_lookahead_is_off_for_larger_teams() -> None:
    planner = CuisinePlanner()
    _play(planner, agents=3)
    assert planner.stats["lookahead"] == 0


def test_lookahead_never_clones_the_real_generator(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    seen: list[int | None] = []
    original = World.clone

    def spy(self: World, order_seed: int | None = None) -> World:
        seen.append(order_seed)
        return original(self, order_seed=order_seed)

    monkeypatch.setattr(World, "clone", spy)
    planner = CuisinePlanner()
    _play(planner, agents=2)
    assert seen and all(s is not None for s in seen)


def test_lookahead_leaves_the_real_world_untouched() -> None:
    world = World(load_level("level_3"), n_agents=2, tau=2.5, seed=0)
    world.reset()
    planner = CuisinePlanner()
    while world.max_steps - world.time > 10:
        world.step(planner.act_world(world))
    state = world.generator_state()
    orders = [(o.dish, o.lifetime) for o in world.orders]
    time = world.time
    planner.act_world(world)
    assert world.generator_state() == state
    assert [(o.dish, o.lifetime) for o in world.orders] == orders and world.time == time


def test_every_candidate_is_scored_on_the_same_sampled_futures(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Common random numbers: the candidates of one step are compared on the same redrawn streams,
    `lookahead_samples` of them each, so a switch reflects the action, not the draw."""
    seeds: list[int | None] = []
    original = World.clone

    def spy(self: World, order_seed: int | None = None) -> World:
        seeds.append(order_seed)
        return original(self, order_seed=order_seed)

    world = World(load_level("level_9"), n_agents=2, tau=1.5, seed=0)
    world.reset()
    planner = CuisinePlanner()
    samples = planner.config.lookahead_samples
    monkeypatch.setattr(World, "clone", spy)
    while not world.done:
        before = planner.stats["lookahead"]
        seeds.clear()
        world.step(planner.act_world(world))
        if planner.stats["lookahead"] > before:
            assert len(seeds) % samples == 0 and len(seeds) >= 2 * samples
            draws = [seeds[i:i + samples] for i in range(0, len(seeds), samples)]
            assert all(d == draws[0] for d in draws) and len(set(draws[0])) == samples
    assert planner.stats["lookahead"] > 0
