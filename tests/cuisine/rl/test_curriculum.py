"""`--curriculum dishes|rare:FRACTION`: one dish per training kitchen's episode, then the level's own order stream."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from cuisineworld import load_level
from cuisineworld.adapter.rl.batched import BatchedKitchens
from cuisineworld.adapter.rl.curriculum import Curriculum, DishCurriculum, parse_curriculum, rarity
from cuisineworld.adapter.rl.train import TrainConfig

KITCHENS = 6
TAUS = (1.0, 3.0)


def _orders(kitchens: BatchedKitchens, episodes: int, plan: DishCurriculum | None = None,
            stop_after: int | None = None) -> dict[tuple[int, int, int], str]:
    """(kitchen, episode, order id) -> dish of every order placed in `episodes` episodes of noops."""
    seen: dict[tuple[int, int, int], str] = {}
    noop = np.zeros((kitchens.n_worlds, kitchens.n_agents), dtype=np.int64)
    kitchens.reset(seed=7)
    for t in range(episodes * kitchens.max_steps):
        episode = t // kitchens.max_steps
        if plan is not None and stop_after is not None and t == stop_after * kitchens.max_steps - 1:
            plan.stop()  # before the step whose reset places episode `stop_after`'s first order
        for w in range(kitchens.n_worlds):
            for dish, ident in zip(kitchens.order_dish[w].tolist(), kitchens.order_id[w].tolist(), strict=True):
                if dish >= 0:
                    seen[(w, episode, ident)] = kitchens.dishes[dish]
        kitchens.step(noop)
    return seen


def test_each_kitchen_orders_one_dish_an_episode_every_dish_from_the_start():
    kitchens = BatchedKitchens("level_4", 2, KITCHENS, tau=TAUS)
    plan = DishCurriculum(kitchens)
    orders = _orders(kitchens, 3, plan)
    dishes = load_level("level_4").dishes
    for w in range(KITCHENS):
        assert {d for (k, e, _), d in orders.items() if (k, e) == (w, 0)} == {dishes[w % len(dishes)]}
        for episode in (1, 2):
            assert len({d for (k, e, _), d in orders.items() if (k, e) == (w, episode)}) == 1
    assert plan.dish_of(0) in dishes


def test_the_kitchens_crowd_onto_the_dish_never_served():
    kitchens = BatchedKitchens("level_4", 2, 400, tau=TAUS)
    plan = DishCurriculum(kitchens, seed=1)
    dishes = load_level("level_4").dishes
    noop = np.zeros((400, 2), dtype=np.int64)
    kitchens.reset(seed=0)
    for _ in range(kitchens.max_steps):
        kitchens.step(noop)  # the first episodes end; the second ones start with weights still uniform
    for w in range(400):  # report the first episodes as if every dish but the third were mastered
        played = int(plan.ended[w])
        plan.finished(w, 0 if played == 2 else 10, 10 if played == 2 else 0, 0)
    assert plan.weights().round(3).tolist() == [0.05, 0.05, 1.05, 0.05]
    for _ in range(kitchens.max_steps):
        kitchens.step(noop)
    share = np.mean([plan.dish_of(w) == dishes[2] for w in range(400)])
    assert 0.8 < share < 0.95  # 1.05 / 1.2 = 0.875 expected


def test_the_rare_prior_leans_toward_dishes_of_rare_ingredients():
    """level_4: tomato is in three salads, lettuce in two, cucumber in one; level_1's dishes share nothing."""
    level = load_level("level_4")
    prior = dict(zip(level.dishes, rarity(level).round(3).tolist(), strict=True))
    assert prior == {"tomatoCucumberSalad": 1.0, "tomatoLettuceSalad": 0.625, "lettuceSalad": 0.375, "tomatoSalad": 0.25}
    assert rarity(load_level("level_1")).tolist() == [1.0, 1.0, 1.0]
    kitchens = BatchedKitchens("level_4", 2, 400, tau=TAUS)
    plan = parse_curriculum("rare:0.5").install(kitchens, seed=2)  # type: ignore[union-attr]
    assert plan.weights().round(4).tolist() == (1.05 * rarity(level)).round(4).tolist()  # nothing served yet
    noop = np.zeros((400, 2), dtype=np.int64)
    kitchens.reset(seed=0)
    for _ in range(kitchens.max_steps + 1):
        kitchens.step(noop)  # the second episodes are drawn by the prior alone
    share = np.mean([plan.dish_of(w) == "tomatoCucumberSalad" for w in range(400)])
    assert 0.38 < share < 0.52  # 1 / (1 + 0.625 + 0.375 + 0.25) = 0.444 expected
    with pytest.raises(ValueError, match="one positive weight per dish"):
        DishCurriculum(BatchedKitchens("level_4", 2, 2), prior=np.ones(3))


def test_the_levels_own_stream_resumes_where_it_would_have_been():
    """The curriculum overrules draws but never skips one: after `stop` the orders are the plain kitchens'."""
    plain = _orders(BatchedKitchens("level_4", 2, KITCHENS, tau=TAUS), 4)
    kitchens = BatchedKitchens("level_4", 2, KITCHENS, tau=TAUS)
    taught = _orders(kitchens, 4, DishCurriculum(kitchens), stop_after=2)
    later = {key: dish for key, dish in plain.items() if key[1] >= 2}
    assert later and {key: dish for key, dish in taught.items() if key[1] >= 2} == later
    assert kitchens.order_filter is None
    assert any(taught[key] != plain[key] for key in plain if key[1] < 2)  # and before, it did change orders


def test_without_a_curriculum_the_kitchens_are_untouched():
    """The default path installs no filter: observations and rewards equal an untouched instance's, byte for byte."""
    one, other = (BatchedKitchens("level_4", 2, KITCHENS, tau=TAUS, reward="dense") for _ in range(2))
    stopped = DishCurriculum(other)
    stopped.stop()  # a curriculum ended before the run is no curriculum
    assert one.order_filter is None and other.order_filter is None
    rng = np.random.default_rng(0)
    (a, _), (b, _) = one.reset(seed=3), other.reset(seed=3)
    assert a.tobytes() == b.tobytes()
    for _ in range(3 * one.max_steps):
        actions = rng.integers(one.n_actions, size=(KITCHENS, 2))
        x, y = one.step(actions), other.step(actions)
        assert x.obs.tobytes() == y.obs.tobytes() and x.rewards.tobytes() == y.rewards.tobytes()


@pytest.mark.parametrize("text", ["dishes:0", "dishes:1.5", "dishes:-0.1", "dishes:nan", "dishes:", "dishes",
                                  "dish:0.2", "dishes:a", "rare:2", "none:0.5", "rare"])
def test_a_bad_curriculum_is_refused_in_one_line(text: str):
    with pytest.raises(ValueError, match="--curriculum takes none, dishes:FRACTION or rare:FRACTION"):
        TrainConfig(level="level_0", vec="batched", curriculum=text).check()


def test_the_curriculum_needs_the_batched_kitchens():
    with pytest.raises(ValueError, match="add --vec batched"):
        TrainConfig(level="level_0", curriculum="dishes:0.5").check()
    TrainConfig(level="level_0", vec="batched", curriculum="dishes:0.5").check()
    TrainConfig(level="level_0").check()  # none, the default


def test_the_share_of_steps_rounds_up():
    assert parse_curriculum("none") is None
    assert parse_curriculum("dishes:0.25") == Curriculum("dishes", 0.25)
    assert parse_curriculum("rare:1") == Curriculum("rare", 1.0)
    assert Curriculum("dishes", 0.25).until(1_200_000) == 300_000 and Curriculum("dishes", 0.3).until(10) == 3


def test_cli_refuses_a_bad_curriculum(tmp_path: Path):
    pytest.importorskip("sb3_contrib")
    from mindagent.cli import app

    result = CliRunner().invoke(app, ["train", "--level", "level_0", "--vec", "batched", "--curriculum", "dishes:2",
                                      "--steps", "64", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "--curriculum takes none, dishes:FRACTION or rare:FRACTION" in result.output


@pytest.mark.slow
def test_training_with_a_curriculum_records_it_and_ends_it_on_time(tmp_path: Path):
    pytest.importorskip("sb3_contrib")
    from mindagent.cli import app

    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["train", "--level", "level_4", "--agents", "2", "--taus", "1.0,3.0",
                                      "--vec", "batched", "--envs", "16", "--rollout", "32", "--steps", "2048",
                                      "--checkpoint-every", "1024", "--curriculum", "rare:0.5", "--out", str(out)])
    assert result.exit_code == 0, result.output
    meta = json.loads((out / "policy.json").read_text())
    assert meta["curriculum"] == "rare:0.5" and meta["trained_steps"] == 2048
    with (out / "progress.csv").open() as fh:
        on = [float(row["rollout/curriculum"]) for row in csv.DictReader(fh)]
    assert on == [1.0, 0.0, 0.0, 0.0]  # at the end of each 512-step rollout: off from step 1024 on
