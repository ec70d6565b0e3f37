"""State text built from an observation: content and byte-stable ordering."""

from minecraft.orders import Order
from minecraft.protocol import Observation
from minecraft.state import state_text


def sample(fakes) -> Observation:
    raw = fakes.observation(Steve=fakes.bot_view({"coal": 2}), Alex=fakes.bot_view({"beef": 1, "leather": 1}))
    raw["kitchen"]["furnaces"][0].update(input={"name": "beef", "count": 1}, fuel={"name": "coal", "count": 1},
                                        burn_ticks_left=100, cook_progress=20)
    raw["kitchen"]["chests"][0]["items"] = {"cooked_mutton": 1}
    raw["kitchen"]["players"] = [{"name": "Chef", "pos": [0, 5, 0], "inventory": {"cooked_beef": 2}},
                                 {"name": "Alex", "pos": [0, 5, 0], "inventory": {}}]
    return Observation.model_validate(raw)


def test_state_text_content(fakes) -> None:
    orders = [Order("cooked_beef", 0, 15), Order("cooked_chicken", 2, 8)]
    text = state_text(sample(fakes), ["Alex", "Steve"], orders, 3, 60)
    assert text.splitlines() == [
        "Step 3 of 60.",
        "Orders (put into the chest): cooked_chicken (7 steps left); cooked_beef (12 steps left).",
        "Furnace: input 1 beef; fuel 1 coal; output empty (burning, 50% through the current item).",
        "Chest: 1 cooked_mutton.",
        ("Alex: at (0.5, 5, 0.5); inventory: 1 beef, 1 leather. Nearby blocks: chest 3.2m, furnace 3.2m, "
        "coal_ore 6m. Nearby entities: pig 8.2m, cow 8.4m."),
        ("Steve: at (0.5, 5, 0.5); inventory: 2 coal. Nearby blocks: chest 3.2m, furnace 3.2m, coal_ore 6m. "
        "Nearby entities: pig 8.2m, cow 8.4m."),
        "Human player Chef: inventory: 2 cooked_beef.",
    ]


def test_state_text_is_deterministic_and_handles_missing_bots(fakes) -> None:
    a = state_text(sample(fakes), ["Alex", "Steve", "Ellie"], [], 0, 60)
    assert a == state_text(sample(fakes), ["Alex", "Steve", "Ellie"], [], 0, 60)
    assert "Ellie: not connected (rejoining)." in a
    assert "Orders: none open." in a


def test_falls_back_to_the_window_cache_without_the_plugin(fakes) -> None:
    raw = fakes.observation(Alex=fakes.bot_view())
    raw["kitchen"] = None
    raw["cache"] = {"furnace": {"input": None, "fuel": None, "output": {"name": "cooked_beef", "count": 1}},
                    "chest": {"cooked_beef": 4}}
    obs = Observation.model_validate(raw)
    text = state_text(obs, ["Alex"], [], 0, 60)
    assert "output 1 cooked_beef" in text and "Chest: 4 cooked_beef." in text
