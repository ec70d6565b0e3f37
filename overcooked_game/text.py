"""What the dispatcher reads: the map with coordinates, the chefs, the pots, feasible commands.

LLM-Coordination found that models reason poorly over raw grids, so besides the map the state
says in words where each station is, what it holds, and what each chef can do now (its feasible
medium-level commands). Everything is listed in reading order, so the text is byte-stable.
"""

from __future__ import annotations

from overcooked_game.commands import PRIMITIVE
from overcooked_game.engine import Engine
from overcooked_game.kitchen import COOK_TIME, DIRECTION_NAMES, Pos

_ITEM_LETTER = {"onion": "o", "dish": "d", "soup": "s"}
LEGEND = ("X counter (k#), O onion dispenser, D dish dispenser, P pot, S serving spot, . floor, "
          "A/B chef0/chef1; a counter holding an item shows o (onion), d (dish) or s (soup)")


def _xy(p: Pos) -> str:
    return f"({p[0]},{p[1]})"


def grid_lines(engine: Engine) -> list[str]:
    """The map, one row per line, with x across the top and y down the side."""
    kitchen, state = engine.kitchen, engine.state
    chefs = {p.position: "AB"[i] if i < 2 else str(i) for i, p in enumerate(state.players)}
    width = kitchen.layout.width
    lines = ["    " + " ".join(f"{x % 10}" for x in range(width))]
    for y in range(kitchen.layout.height):
        row = []
        for x in range(width):
            cell = kitchen.terrain[(x, y)]
            if (x, y) in chefs:
                row.append(chefs[(x, y)])
            elif cell == "X" and (x, y) in state.objects:
                row.append(_ITEM_LETTER.get(state.objects[(x, y)].name, "?"))
            else:
                row.append("." if cell == " " else cell)
        lines.append(f"{y:>3} " + " ".join(row))
    return lines


def pot_line(engine: Engine, index: int, pos: Pos) -> str:
    pot = engine.kitchen.pot(engine.state, pos)
    if pot.ready:
        status = "soup ready: fill a dish"
    elif pot.cooking:
        status = f"cooking, ready in {pot.remaining} timesteps"
    elif pot.onions:
        status = f"{pot.onions} of 3 onions, needs {3 - pot.onions} more"
    else:
        status = "empty"
    return f"pot{index} at {_xy(pos)}: {status}"


def chef_line(engine: Engine, chef: int) -> str:
    player = engine.state.players[chef]
    held = engine.held(chef) or "nothing"
    task = engine.tasks[chef]
    doing = "free" if task is None else f"doing {task.command} since t={task.started}"
    facing = DIRECTION_NAMES.get(tuple(player.orientation), "?")
    return f"chef{chef} ({'AB'[chef] if chef < 2 else chef}) at {_xy(player.position)} facing {facing}, holding {held}, {doing}"


def state_text(engine: Engine, feasible: list[list[str]]) -> str:
    """The whole state for a prompt (and for replay's comparison, so it must pin the state)."""
    kitchen, state = engine.kitchen, engine.state
    lines = [f"timestep {engine.timestep} of {engine.horizon}; soups delivered {engine.delivered} "
             f"(score {engine.reward})", "map:", *grid_lines(engine)]
    lines += [pot_line(engine, i, p) for i, p in enumerate(kitchen.pots)]
    lines.append("onion dispensers: " + ", ".join(_xy(p) for p in kitchen.onion_dispensers))
    lines.append("dish dispensers: " + ", ".join(_xy(p) for p in kitchen.dish_dispensers))
    lines.append("serving spots: " + ", ".join(_xy(p) for p in kitchen.serving))
    held = [f"{kitchen.names[p]} {_xy(p)} holds {state.objects[p].name}" for p in kitchen.counters if p in state.objects]
    lines.append("counters holding items: " + (", ".join(held) if held else "none"))
    for chef in range(engine.n):
        lines.append(chef_line(engine, chef))
        lines.append(f"chef{chef} can: " + ", ".join(feasible[chef]))
    return "\n".join(lines)


def instructions(n_chefs: int, horizon: int) -> str:
    names = ", ".join(f"chef{c}" for c in range(n_chefs))
    return (
        f"You command {n_chefs} chefs ({names}) in an Overcooked kitchen for {horizon} timesteps. Give each chef one "
        "command per answer, one per line, exactly as written:\n"
        "pickup_onion(chefK): take an onion from the nearest dispenser (or, for a chef who cannot reach one, "
        "from a counter holding one)\n"
        "pickup_dish(chefK): take a dish from the nearest dispenser (or, for a chef who cannot reach one, from "
        "a counter holding one)\n"
        "pickup_soup(chefK): take a finished soup left on a counter\n"
        "put_onion(chefK, potN): carry the held onion into pot N\n"
        "fill_dish(chefK, potN): scoop pot N's soup into the held dish (waits at the pot until it is done)\n"
        "deliver(chefK): carry the held soup to the nearest serving spot\n"
        "place(chefK, kN): put the held item on empty counter kN (hand it over to the other side)\n"
        "wait(chefK): stay one timestep; move_away(chefK): step one cell away from the other chef\n"
        f"Primitive moves, one timestep each: {', '.join(f'{p}(chefK)' for p in PRIMITIVE)}.\n"
        "A medium-level command runs over several timesteps; you are asked again when a chef is free. "
        "Repeat a busy chef's command to let it carry on; a different command replaces it.")


def recipes() -> str:
    return (f"Onion soup: put 3 onions in a pot; it starts cooking at the third and is done {COOK_TIME} timesteps "
            "later. Fill a dish with it and deliver it at a serving spot: 20 points per soup. Any number of "
            "soups is wanted; there are no deadlines.")


def knowledge() -> str:
    return ("A chef holds one item at a time. Two chefs cannot pass through each other in a one-cell corridor: "
            "if one blocks the other's way, tell it to move_away. Split the work: one chef can fetch onions while "
            "the other brings a dish to the pot before the soup is done. Counters reachable by both chefs pass "
            "items across a kitchen split in two.")
