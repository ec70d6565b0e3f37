"""The static prompt text the Minecraft domain contributes (byte-stable for an episode).

Appendix F.1 of the paper: the model needs the action space explained and the recipes, tools
and ingredients of the game; without them it cannot act in an unknown world.
"""

from __future__ import annotations

from collections.abc import Sequence

from mindagent.core.domain import PromptParts
from minecraft.kitchen import COOKED, CRAFTING, DROP_OF_BLOCK, FUEL_ITEMS, MEAT_OF_MOB


def recipes_text() -> str:
    lines = ["Smelting recipes (furnace: raw meat in the top slot, fuel in the bottom slot):"]
    lines += [f"- {raw} -> {cooked}" for raw, cooked in sorted(COOKED.items())]
    lines.append("Where raw meat comes from (kill the animal, its drop is picked up):")
    lines += [f"- {mob} -> {meat}" for mob, meat in sorted(MEAT_OF_MOB.items())]
    lines.append("Fuels (items cooked per piece):")
    lines += [f"- {fuel}: {n:g}" for fuel, n in sorted(FUEL_ITEMS.items())]
    lines.append("Mineable blocks (mine them, the drop is picked up):")
    lines += [f"- {block} -> {item}" for block, item in sorted(DROP_OF_BLOCK.items())]
    lines.append("Crafting recipes (crafting table: the ingredients are taken from the agent's inventory):")
    for product, (needs, makes) in sorted(CRAFTING.items()):
        lines.append(f"- {' + '.join(f'{n} {i}' for i, n in sorted(needs.items()))} -> {makes} {product}")
    return "\n".join(lines)


def instructions_text(agents: Sequence[str]) -> str:
    names = ", ".join(agents)
    a = agents[0]
    return "\n".join([
        f"You dispatch the Minecraft agents {names} in a kitchen with one furnace, one chest and one crafting table.",
        "Each step, give every agent exactly one command, one per line. The actions:",
        f"- goto({a}, place): walk to furnace, chest, crafting_table, an animal (cow, pig, sheep, chicken) or a block "
        "(coal_ore, oak_log, red_mushroom, brown_mushroom).",
        f"- killMob({a}, animal): walk to the nearest such animal, kill it and pick up its drops.",
        f"- mineBlock({a}, block): walk to the nearest such block, mine it and pick up the drop.",
        f"- putFuelFurnace({a}, item): put all of that fuel the agent carries into the furnace's fuel slot.",
        f"- putItemFurnace({a}, item): put all of that raw meat the agent carries into the furnace's input slot.",
        f"- takeOutFurnace({a}): take everything cooked out of the furnace.",
        f"- putInChest({a}, item): put all of that item the agent carries into the chest.",
        f"- craft({a}, item): walk to the crafting table and craft one batch of that item from the agent's ingredients.",
        f"- noop({a}): do nothing this step.",
        "An order is done when its dish (a cooked meat or mushroom_stew) is in the chest before the order runs out.",
        "Actions walk there by themselves; all agents act at the same time.",
    ])


def knowledge_text() -> str:
    return "\n".join([
        "Inference knowledge:",
        "- One order needs: kill the right animal, have fuel in the furnace, put the meat in, wait until it is cooked, "
        "take it out, put it in the chest.",
        "- The furnace only burns fuel while something cooks; one coal cooks 8 items, so keep one agent on meat and "
        "another on fuel and delivery.",
        "- mushroom_stew is crafted in stages: mine oak_log, craft oak_planks, craft bowl, mine red_mushroom and "
        "brown_mushroom, craft mushroom_stew; one bowl batch makes four bowls, keep them for later stews.",
        "- Cooking takes time: while the furnace works, fetch the next meat instead of waiting.",
        "- Killed animals and mined blocks come back after a few seconds.",
        "- A human player may give instructions; follow them when they do not lose orders.",
    ])


def prompt_parts(agents: Sequence[str]) -> PromptParts:
    return PromptParts(recipes=recipes_text(), instructions=instructions_text(agents), knowledge=knowledge_text(),
                       director="The head chef says")
