"""What the game page shows of the Minecraft kitchen, in the same shape as every domain's view.

Orders, agents (position, inventory, health) and the places that matter (the furnace with its
slots and cook progress, the chest, the crafting table, the animals and blocks). Reads an observation; changes
nothing. The page draws any domain from this shape, so it needs no Minecraft code.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from minecraft.kitchen import TOOLS
from minecraft.page import join_words, page_static, tiles
from minecraft.protocol import BotView, ItemStack, Observation
from minecraft.server_process import ServerAddress


def _items(counts: Mapping[str, int]) -> list[str]:
    return [f"{name} x{n}" for name, n in sorted(counts.items()) if name not in TOOLS and n > 0]


def _stack(label: str, stack: ItemStack | None) -> list[str]:
    return [] if stack is None else [f"{label}: {stack.name} x{stack.count}"]


def _where(bot: BotView | None, places: set[str]) -> str | None:
    """The place a bot is nearest to, by its name (a tile of the board: ``furnace``, ``cow``), from
    what the bot itself sees; None when it sees none of them (people read names, not coordinates)."""
    if bot is None or not bot.connected:
        return None
    seen = [(b.nearest, name) for name, b in bot.blocks.items() if name in places]
    seen += [(e.distance, e.name) for e in bot.entities if e.name in places]
    return min(seen)[1] if seen else None


def kitchen_view(obs: Observation, agents: Sequence[str], orders: list[dict[str, Any]],
                 blocked: Mapping[str, str]) -> dict[str, Any]:
    """Example: ``kitchen_view(obs, ["Alex"], [], {})["agents"][0]["holding"]`` → ``"beef x2"``."""
    places = _places(obs, agents)
    names = {str(p["name"]) for p in places if p["type"] != "player"}
    agent_rows = []
    for a, name in enumerate(agents):
        bot = obs.bots.get(name)
        held = _items(bot.inventory) if bot is not None else []
        status = blocked.get(name) or ("offline" if bot is None or not bot.connected else None)
        agent_rows.append({"agent": a, "name": name, "location": _where(bot, names),
                           "holding": ", ".join(held) or None, "busy": 1 if (bot and bot.busy) or status else 0,
                           "health": None if bot is None else bot.health, "status": status or (bot.busy if bot else None)})
    return {"orders": orders, "agents": agent_rows, "locations": places, "tiles": tiles(places)}


def _places(obs: Observation, agents: Sequence[str]) -> list[dict[str, Any]]:
    """The board's places: the furnace, the chest, and with our kitchen plugin the crafting
    table, the animals, the blocks and the people in the world (the bots are agents, not places)."""
    furnace = obs.furnace()
    cooking = furnace.input is not None and furnace.burn_ticks_left > 0
    left = max(0, furnace.cook_total - furnace.cook_progress) if cooking else 0
    places: list[dict[str, Any]] = [
        {"name": "furnace", "type": "furnace",
         "content": _stack("input", furnace.input) + _stack("fuel", furnace.fuel) + _stack("output", furnace.output),
         "busy": left, "in_use": cooking, "gettable": furnace.output is not None,
         "progress": round(furnace.cook_progress / furnace.cook_total, 3) if furnace.cook_total else 0.0},
        {"name": "chest", "type": "chest", "content": _items(obs.chest()), "busy": 0, "in_use": False,
         "gettable": False},
    ]
    if obs.kitchen is not None:  # our kitchen has a crafting table; the recipes are in the static view
        places.append({"name": "crafting_table", "type": "crafting_table", "content": [], "busy": 0,
                       "in_use": False, "gettable": False})
        mobs = Counter(m.name for m in obs.kitchen.mobs)
        for mob in sorted(mobs):
            places.append({"name": mob, "type": "animal", "content": [f"{mobs[mob]} in the pen"], "busy": 0,
                           "in_use": False, "gettable": True})
        blocks = Counter(b.name for b in obs.kitchen.blocks if b.present)
        for block in sorted(blocks):
            places.append({"name": block, "type": "block", "content": [f"{blocks[block]} to mine"], "busy": 0,
                           "in_use": False, "gettable": True})
        for player in obs.kitchen.players:
            if player.name not in agents:
                places.append({"name": player.name, "type": "player", "content": _items(player.inventory),
                               "busy": 0, "in_use": False, "gettable": False})
    return places


def level_view(agents: Sequence[str], max_steps: int, address: ServerAddress | None,
               view_port: int | None = None) -> dict[str, Any]:
    """The static part: the dishes (cooked meats), how each is made, where people can join, and
    the port of the live 3D view (same host as the page) when one runs."""
    from minecraft.kitchen import COOKED, CRAFTING, DISHES, MEAT_OF_MOB, ORDER_DISHES

    mob_of = {meat: mob for mob, meat in MEAT_OF_MOB.items()}
    raw_of = {cooked: raw for raw, cooked in COOKED.items()}
    recipes = [{"product": dish, "tool": "furnace", "ingredients": [raw_of[dish], "fuel"]} for dish in DISHES]
    recipes += [{"product": raw_of[dish], "tool": f"kill a {mob_of[raw_of[dish]]}", "ingredients": []} for dish in DISHES]
    recipes += [{"product": product, "tool": "crafting_table", "ingredients": sorted(needs)}
                for product, (needs, _) in sorted(CRAFTING.items())]
    return {"level": "minecraft", "domain": "minecraft", "dishes": list(ORDER_DISHES), "recipes": recipes,
            "base_ingredients": [], "needed_ingredients": ["coal"],
            "kitchen": [{"name": "furnace", "type": "furnace", "role": "tool"},
                        {"name": "crafting_table", "type": "crafting_table", "role": "tool"},
                        {"name": "chest", "type": "chest", "role": "serving"}],
            "n_agents": len(agents), "max_steps": max_steps, "agent_names": list(agents),
            "join": None if address is None else {"host": address.host, "port": address.port,
                                                   "version": address.version},
            "join_label": None if address is None else f"Minecraft {address.version} (offline mode)",
            "view3d": None if view_port is None else {"port": view_port},
            "howto": HOWTO,
            "page": {**page_static(), "words": {**page_static()["words"], **(
                {} if address is None else {"join": join_words(address.host, address.port, address.version)})}}}


#: The page's "How to play" for this world (its default lines describe a kitchen's counters and tools).
HOWTO = [
    "Orders come in: a cooked meat or a mushroom stew. Put each in the chest before its bar runs out.",
    "Click a place (or press its number), then an action: hunt an animal for its raw meat, mine a block "
    "(coal ore for fuel; oak logs and mushrooms for stew).",
    "At the furnace put in coal and raw meat; it cooks by itself; then take out what is cooked.",
    "Mushroom stew is crafted at the crafting table in stages: oak log to planks, planks to bowls, then a bowl "
    "with both mushrooms.",
    "A bot carries many items at once. Your command runs at the next step; wait does nothing for a step.",
    "The team score is served orders out of all orders so far.",
]
