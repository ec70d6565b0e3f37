"""The observation drawn as a small RGB picture: what ``render_mode="rgb_array"`` returns.

Video tools (SB3's `VecVideoRecorder`, Gymnasium's `RecordVideo`) and SB3's `make_vec_env`, which
asks every env for ``"rgb_array"``, want frames, not text. The frame is drawn from the observation
vector itself, so it shows exactly what a policy sees, laid out as a table of square cells:

- top row: the episode's elapsed time as a white bar, the order interval as a grey one;
- one row per location: its role colour, then one cell per agent standing there (the agent's
  colour, with what it holds as a square inside), one cell per item in it (the item's colour,
  dimmer for one dish of three on a serving table), how long it stays busy (grey), gettable (white);
- one row per order slot: the dish's cell lit in its colour, then its remaining lifetime as a bar.

Example::

    frame = draw(observer, observer.encode(world))   # (height, width, 3) uint8
"""

from __future__ import annotations

import colorsys

import numpy as np

from cuisineworld import MAX_ACTIVE_ORDERS
from cuisineworld.adapter.rl.observe import Observer

CELL = 12  # pixels per cell side: legible at a video's usual scale, small enough to record long runs
INSET = 3  # the held item's square sits this many pixels inside the agent's cell
ROLE_COLOURS = {"storage": (150, 100, 60), "tool": (220, 130, 40), "serving": (60, 170, 80), "counter": (130, 130, 150)}
AGENT_COLOURS = [(230, 60, 60), (60, 110, 230), (240, 200, 40), (170, 80, 200), (40, 200, 200), (240, 140, 190)]
OTHER_ROLE = (100, 100, 100)


def _palette(n: int) -> np.ndarray:
    """`n` well-spread, fixed colours (one per item or dish), the same for a level on every run."""
    colours = [colorsys.hsv_to_rgb(k / max(1, n), 0.65, 0.95) for k in range(n)]
    return np.array([[round(255 * c) for c in rgb] for rgb in colours], dtype=np.float64)


def draw(observer: Observer, vector: np.ndarray) -> np.ndarray:
    """The frame for one observation of `observer`'s layout (with or without an agent id)."""
    names = observer.feature_names
    value = dict(zip(names, vector.tolist(), strict=False))
    n_agents, items, dishes = observer.n_agents, observer.items, observer.dishes
    item_colours, dish_colours = _palette(len(items)), _palette(len(dishes))
    width = max(1 + n_agents + len(items) + 2, len(dishes) + 4, 4)
    height = 1 + len(observer.locations) + MAX_ACTIVE_ORDERS
    img = np.zeros((height * CELL, width * CELL, 3), dtype=np.float64)

    def cell(row: int, col: int, colour: tuple[float, ...] | np.ndarray, scale: float = 1.0) -> None:
        img[row * CELL + 1:(row + 1) * CELL - 1, col * CELL + 1:(col + 1) * CELL - 1] = np.asarray(colour) * scale

    def bar(row: int, start: int, cells: int, fraction: float, grey: float) -> None:
        end = start * CELL + round(fraction * cells * CELL)
        img[row * CELL + 3:(row + 1) * CELL - 3, start * CELL:end] = grey

    bar(0, 0, width // 2, value["time"], 255.0)
    bar(0, width // 2, width - width // 2, value["interval"], 140.0)
    for j, (loc, spec) in enumerate(zip(observer.locations, observer.level.locations, strict=True)):
        row = 1 + j
        cell(row, 0, ROLE_COLOURS.get(spec.role, OTHER_ROLE))
        for a in range(n_agents):
            if value[f"agent{a}.at.{loc}"] > 0:
                cell(row, 1 + a, AGENT_COLOURS[a % len(AGENT_COLOURS)])
                held = [k for k, item in enumerate(items) if value[f"agent{a}.holds.{item}"] > 0]
                if held:
                    y, x = row * CELL + INSET, (1 + a) * CELL + INSET
                    img[y:y + CELL - 2 * INSET, x:x + CELL - 2 * INSET] = item_colours[held[0]]
        for k, item in enumerate(items):
            amount = value[f"{loc}.has.{item}"]
            if amount > 0:
                cell(row, 1 + n_agents + k, item_colours[k], min(1.0, 0.4 + amount))
        cell(row, 1 + n_agents + len(items), (255, 255, 255), value[f"{loc}.busy"] * 0.6)
        cell(row, 2 + n_agents + len(items), (255, 255, 255), value[f"{loc}.gettable"])
    for slot in range(MAX_ACTIVE_ORDERS):
        row = 1 + len(observer.locations) + slot
        for k, dish in enumerate(dishes):
            if value[f"order{slot}.dish.{dish}"] > 0:
                cell(row, k, dish_colours[k])
        if value[f"order{slot}.used"] > 0:
            bar(row, len(dishes), width - len(dishes), value[f"order{slot}.lifetime"], 200.0)
    return img.astype(np.uint8)
