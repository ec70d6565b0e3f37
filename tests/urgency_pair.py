"""Two goal-mode prompts that differ only in which order is about to expire.

Shared by the scored chooser's fast test (a fake scorer) and its slow one (the real SmolLM2), so
both read exactly the same pair."""

from __future__ import annotations

from mindagent.dispatch.plans import GoalMenu, GoalPrompt
from mindagent.dispatch.rules import Menu, Option, Slot
from mindagent.llm.base import Message

DISHES = ("salmonSushi", "tunaSushi")
#: Steps left of the order about to expire and of the other one.
SOON, LATER = 3, 25


def urgency_pair(listed: tuple[str, ...] = DISHES) -> list[tuple[str, list[Message], Menu]]:
    """(the urgent dish, the prompt goal mode sends, the menu with the deadlines a rule reads), once
    with each dish urgent; the dishes are listed in the order `listed` both times."""
    pair = []
    for urgent in DISHES:
        left = {d: SOON if d == urgent else LATER for d in listed}
        situation = ("Step 10 of 60. Open orders (dish: steps left):\n"
                     + "\n".join(f"- {d}: {left[d]}" for d in listed)
                     + "\nDishes ordered: " + ", ".join(f"{d} x1" for d in listed))
        menu = Menu(10, (Slot("goal: ", tuple(Option(d, left[d]) for d in listed)),))
        pair.append((urgent, GoalPrompt().messages(GoalMenu(listed, situation)), menu))
    return pair
