"""Goal mode and the director's words for the Minecraft kitchen.

Goal mode (``--dispatch goals``, what `mindagent serve` gives an in-process model): the model,
as head chef, picks which ordered dish the bots work on next from a short menu; the planner
(`MinecraftPlanner`) carries it out, serving orders of that dish first and the others after, so
even a very small model's choice always ends in orders served. The director's words name the
same dishes (`direction_names`), and `command_makes` says which dish a command works toward, so
every dispatcher's commands can be held to ``no X``, ``only X`` and ``Steve do X``.

Example::

    menu = goal_menu(session)          # GoalMenu(("cooked_beef", "mushroom_stew"), "Step 4 of 60. ...")
    GoalExecutor().act(session, ["mushroom_stew"])   # one command per bot
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from mindagent.dispatch.plans import GoalMenu
from minecraft.commands import CommandSyntaxError, Verb, parse_command
from minecraft.kitchen import COOKED, CRAFTED_DISHES, MEAT_OF_MOB, ORDER_DISHES
from minecraft.planner import MinecraftPlanner

if TYPE_CHECKING:
    from mindagent.core.domain import DomainSession
    from minecraft.session import MinecraftSession

_STEW = CRAFTED_DISHES[0]
#: Blocks and crafts that only a stew needs (oak logs also burn, so they are not counted).
_STEW_ONLY = frozenset(("red_mushroom", "brown_mushroom", "bowl", _STEW))


def goal_menu(session: MinecraftSession) -> GoalMenu:
    """The dishes of the open orders, most urgent first, and a few lines to choose by."""
    step = session.order_time
    orders = sorted(session.orders.active, key=lambda o: (o.remaining(step), o.created))
    if not orders:
        return GoalMenu((), "No open orders.", ())
    options = tuple(dict.fromkeys(o.dish for o in orders))
    lines = [f"Step {step} of {session.max_steps}. Open orders (dish: steps left):"]
    lines += [f"- {o.dish}: {o.remaining(step)}" for o in orders]
    counts = Counter(o.dish for o in orders)
    lines.append("Dishes ordered: " + ", ".join(f"{d} x{n}" for d, n in counts.items()))
    return GoalMenu(options, "\n".join(lines), tuple(sorted((o.created, o.dish) for o in orders)))


class GoalExecutor:
    """The bots for goal mode: the planner with the chosen dishes' orders first."""

    def __init__(self) -> None:
        self.planner = MinecraftPlanner()

    def act(self, session: DomainSession, goals: Sequence[str]) -> list[str]:
        self.planner.focus = frozenset(goals)
        return self.planner.act(session)  # type: ignore[arg-type]  # only ever given a MinecraftSession


def direction_names() -> dict[str, frozenset[str]]:
    """Every dish an order may ask for; none is made of another."""
    return {dish: frozenset() for dish in ORDER_DISHES}


def command_makes(agents: Sequence[str], command: str, furnace_output: str | None) -> str | None:
    """The dish `command` works toward, for that dish alone: hunting an animal, cooking or taking
    out its meat, crafting or gathering for a stew, putting a dish in the chest."""
    try:
        c = parse_command(command, agents)
    except CommandSyntaxError:
        return None
    arg = c.arg or ""
    if c.verb is Verb.KILL_MOB and arg in MEAT_OF_MOB:
        return COOKED[MEAT_OF_MOB[arg]]
    if c.verb is Verb.PUT_ITEM_FURNACE and arg in COOKED:
        return COOKED[arg]
    if c.verb is Verb.TAKE_OUT_FURNACE:
        return furnace_output if furnace_output in ORDER_DISHES else None
    if c.verb is Verb.PUT_IN_CHEST and arg in ORDER_DISHES:
        return arg
    if c.verb in (Verb.CRAFT, Verb.MINE_BLOCK) and arg in _STEW_ONLY:
        return _STEW
    return None


__all__ = ["GoalExecutor", "command_makes", "direction_names", "goal_menu"]
