"""The static prompt text the Minecraft domain contributes (byte-stable for an episode).

Appendix F.1 of the paper: the model needs the action space explained and the recipes, tools
and ingredients of the game; without them it cannot act in an unknown world.
"""

from __future__ import annotations

from collections.abc import Sequence

from mindagent.domain import PromptParts
from minecraft.kitchen import COOKED, DROP_OF_BLOCK, FUEL_ITEMS, MEAT_OF_MOB


def recipes_text() -> str:
    lines = ["Smelting recipes (furnace: raw meat in the top slot, fuel in the bottom slot):"]
    lines += [f"- {raw} -> {cooked}" for raw, cooked in sorted(COOKED.items())]
    lines.append("Where raw meat comes from (kill the animal, its drop is picked up):")
    lines += [f"- {mob} -> {meat}" for mob, meat in sorted(MEAT_OF_MOB.items())]
    lines.append("Fuels (items cooked per piece):")
    lines += [f"- {fuel}: {n:g}" for fuel, n in sorted(FUEL_ITEMS.items())]
    lines.append("Mineable fuel blocks (mine them, the drop is picked up):")
    lines += [f"- {block} -> {item}" for block, item in sorted(DROP_OF_BLOCK.items())]
    return "\n".join(lines)


def instructions_text(agents: Sequence[str]) -> str:
    names = ", ".join(agents)
    a = agents[0]
    return "\n".join([
        f"You dispatch the Minecraft agents {names} in a kitchen with one furnace and one chest.",
        "Each step, give every agent exactly one command, one per line. The actions:",
        f"- goto({a}, place): walk to furnace, chest, an animal (cow, pig, sheep, chicken) or a block (coal_ore, oak_log).",
        f"- killMob({a}, animal): walk to the nearest such animal, kill it and pick up its drops.",
        f"- mineBlock({a}, block): walk to the nearest such block, mine it and pick up the drop.",
        f"- putFuelFurnace({a}, item): put all of that fuel the agent carries into the furnace's fuel slot.",
        f"- putItemFurnace({a}, item): put all of that raw meat the agent carries into the furnace's input slot.",
        f"- takeOutFurnace({a}): take everything cooked out of the furnace.",
        f"- putInChest({a}, item): put all of that item the agent carries into the chest.",
        f"- noop({a}): do nothing this step.",
        "An order is done when its cooked meat is in the chest before the order runs out.",
        "Actions walk there by themselves; all agents act at the same time.",
    ])


def knowledge_text() -> str:
    return "\n".join([
        "Inference knowledge:",
        "- One order needs: kill the right animal, have fuel in the furnace, put the meat in, wait until it is cooked, "
        "take it out, put it in the chest.",
        "- The furnace only burns fuel while something cooks; one coal cooks 8 items, so keep one agent on meat and "
        "another on fuel and delivery.",
        "- Cooking takes time: while the furnace works, fetch the next meat instead of waiting.",
        "- Killed animals and mined blocks come back after a few seconds.",
        "- A human player may give instructions; follow them when they do not lose orders.",
    ])


def prompt_parts(agents: Sequence[str]) -> PromptParts:
    return PromptParts(recipes=recipes_text(), instructions=instructions_text(agents), knowledge=knowledge_text())
