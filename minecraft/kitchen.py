"""Facts of the Minecraft kitchen as data: animals and their meat, recipes, fuels, places.

Mirrors ``node/lib/constants.js`` and ``node/lib/layout.js`` (the server plugin's side); the
prompt, the checker, the planner and the order generator all read these tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

# animal -> raw meat it drops (registry.entityLoot of 1.19.2; cows also drop leather,
# chickens a feather)
MEAT_OF_MOB: Final[Mapping[str, str]] = MappingProxyType(
    {"cow": "beef", "pig": "porkchop", "chicken": "chicken", "sheep": "mutton"}
)
# raw meat -> what the furnace makes of it
COOKED: Final[Mapping[str, str]] = MappingProxyType(
    {"beef": "cooked_beef", "porkchop": "cooked_porkchop", "chicken": "cooked_chicken", "mutton": "cooked_mutton"}
)
MOB_OF_DISH: Final[Mapping[str, str]] = MappingProxyType(
    {COOKED[meat]: mob for mob, meat in MEAT_OF_MOB.items()}
)
# fuel item -> how many items one piece cooks (vanilla burn time / 200 ticks)
FUEL_ITEMS: Final[Mapping[str, float]] = MappingProxyType(
    {"coal": 8.0, "charcoal": 8.0, "oak_log": 1.5, "oak_planks": 1.5, "stick": 0.5}
)
# mineable block -> the item it drops
DROP_OF_BLOCK: Final[Mapping[str, str]] = MappingProxyType(
    {"coal_ore": "coal", "oak_log": "oak_log", "red_mushroom": "red_mushroom", "brown_mushroom": "brown_mushroom"}
)
# Crafting-table recipes (vanilla 1.19.2 results): product -> (ingredients taken, count made).
# Mushroom stew is the kitchen's multi-stage dish: log -> planks -> bowl, plus two gathered
# mushrooms. Vanilla's only stew with a cooked ingredient (rabbit stew) needs rabbits, potatoes
# and carrots the kitchen does not have.
CRAFTING: Final[Mapping[str, tuple[Mapping[str, int], int]]] = MappingProxyType({
    "oak_planks": (MappingProxyType({"oak_log": 1}), 4),
    "bowl": (MappingProxyType({"oak_planks": 3}), 4),
    "mushroom_stew": (MappingProxyType({"bowl": 1, "red_mushroom": 1, "brown_mushroom": 1}), 1),
})
CRAFTED_DISHES: Final = ("mushroom_stew",)

MOBS: Final = tuple(sorted(MEAT_OF_MOB))
BLOCKS: Final = tuple(sorted(DROP_OF_BLOCK))
DISHES: Final = tuple(sorted(COOKED.values()))  # the cooked meats
ORDER_DISHES: Final = DISHES + CRAFTED_DISHES  # everything an order may ask for
CRAFTABLE: Final = tuple(sorted(CRAFTING))
STATIONS: Final = ("chest", "crafting_table", "furnace")
TARGETS: Final = STATIONS + MOBS + BLOCKS
# Items a command may name: meats raw and cooked, fuels, the by-products, crafting ingredients
# and products.
ITEMS: Final = tuple(sorted(
    set(COOKED) | set(COOKED.values()) | set(FUEL_ITEMS) | {"leather", "feather"}
    | set(CRAFTING) | {i for needs, _ in CRAFTING.values() for i in needs}
))
TOOLS: Final = frozenset({"iron_sword", "iron_pickaxe", "iron_axe"})
