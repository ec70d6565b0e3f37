"""Action results -> one English line each."""

import pytest

from minecraft.feedback import line
from minecraft.results import ActionDone, ActionError


@pytest.mark.parametrize(
    ("outcome", "text"),
    [
        (ActionDone("killMob(Alex, cow)", "Alex", "killMob", {"killed": "cow", "collected": {"beef": 1, "leather": 1}}),
         "Alex killed a cow and picked up 1 beef and 1 leather."),
        (ActionDone("mineBlock(Steve, coal_ore)", "Steve", "mineBlock", {"mined": "coal_ore", "collected": {}}),
         "Steve mined coal_ore and picked up nothing."),
        (ActionDone("putFuelFurnace(Steve, coal)", "Steve", "putFuelFurnace", {"put": "coal", "count": 2}),
         "Steve put 2 coal into the furnace as fuel."),
        (ActionDone("putItemFurnace(Alex, beef)", "Alex", "putItemFurnace", {"put": "beef", "count": 1}),
         "Alex put 1 beef into the furnace to cook."),
        (ActionDone("takeOutFurnace(Alex)", "Alex", "takeOutFurnace", {"took": "cooked_beef", "count": 3}),
         "Alex took 3 cooked_beef out of the furnace."),
        (ActionDone("putInChest(Alex, cooked_beef)", "Alex", "putInChest", {"put": "cooked_beef", "count": 1}),
         "Alex put 1 cooked_beef into the chest."),
        (ActionDone("goto(Alex, furnace)", "Alex", "goto", {"target": "furnace"}), "Alex walked to the furnace."),
        (ActionDone("noop(Steve)", "Steve", "noop"), "Steve waited."),
        (ActionError("empty_output", "Steve", "takeOutFurnace(Steve)"),
         "Steve could not takeOutFurnace(Steve): the furnace has nothing cooked yet."),
        (ActionError("rejoining", "Alex", "killMob(Alex, cow)"),
         "Alex could not killMob(Alex, cow): it was disconnected and is rejoining the server."),
        (ActionError("syntax", None, "fly(Alex)", "unknown action 'fly'"),
         "The dispatcher could not fly(Alex): that is not a valid command (unknown action 'fly')."),
        (ActionError("weird_code", "Alex", "noop(Alex)"), "Alex could not noop(Alex): weird code."),
    ],
)
def test_line(outcome: ActionDone | ActionError, text: str) -> None:
    assert line(outcome) == text
