"""The action library: every action and query the bridge's `act` request performs.

Each entry says, for the model, what the action does and when it fails; for the reader, which world
event confirms it (minecraft/node/lib/library/*.js waits for exactly that event) and how long the
wait may take. The timeouts are the only copy: the Python side sends them with each request.
The kitchen's own verbs (lib/actions.js) are listed too, so a family can offer them from here.
"""

from __future__ import annotations

from minecraft.actions.spec import COORD_LIMIT, ActionSpec, ArgKind, Param

_X = Param(name="x", kind=ArgKind.COORD, doc="east (+) / west (-)", lo=-COORD_LIMIT, hi=COORD_LIMIT)
_Y = Param(name="y", kind=ArgKind.COORD, doc="height", lo=-COORD_LIMIT, hi=COORD_LIMIT)
_Z = Param(name="z", kind=ArgKind.COORD, doc="south (+) / north (-)", lo=-COORD_LIMIT, hi=COORD_LIMIT)
_XYZ = (_X, _Y, _Z)


def _count(default: int, doc: str = "how many", hi: int = 64) -> Param:
    return Param(name="count", kind=ArgKind.COUNT, doc=doc, default=default, lo=1, hi=hi)


def _item(doc: str) -> Param:
    return Param(name="item", kind=ArgKind.ITEM, doc=doc)


BLOCKS = (
    ActionSpec(
        name="placeBlock", group="blocks", params=(_item("the block item to place"), *_XYZ),
        description="Walk within reach and place one block from the inventory at x, y, z, against any "
                    "solid neighbour. Fails when the spot is taken, nothing solid touches it or the bot has none.",
        confirms="blockUpdate at x, y, z showing the placed block", timeout_s=15),
    ActionSpec(
        name="digBlock", group="blocks", params=_XYZ,
        description="Walk within reach and dig out the block at x, y, z with the best tool carried; the drop "
                    "is not collected. Fails on air or an unbreakable block.",
        confirms="blockUpdate at x, y, z showing air", timeout_s=20),
)

CRAFTING = (
    ActionSpec(
        name="craft", group="crafting", params=(_item("the item to make"), _count(1, "at least this many")),
        description="Craft an item from ingredients in the inventory, at the nearest crafting table when the "
                    "recipe needs one. Fails when no recipe is known or an ingredient is missing.",
        confirms="the inventory slot update that shows the product", timeout_s=20,
        fallback="flying-squid opens no crafting windows: the bot walks to the kitchen's crafting table and "
                 "asks its plugin (`/kitchen craft`), which knows the kitchen's recipes only"),
    ActionSpec(
        name="smelt", group="crafting", params=(_item("the raw item to smelt"), _count(1, hi=8)),
        description="Put the items (and a fuel from the inventory when the furnace has none) into the nearest "
                    "furnace, wait until they are cooked and take the product. Needs the world clock to run.",
        confirms="the furnace window's output slot, then the inventory slot update", timeout_s=90,
        fallback="flying-squid has no smelting: the kitchen's furnace plugin cooks on its clock; under the "
                 "lockstep clock use putItemFurnace, putFuelFurnace and takeOutFurnace across steps"),
)

CONTAINERS = (
    ActionSpec(
        name="openContainer", group="containers", params=_XYZ,
        description="Walk to the chest or furnace at x, y, z, open it and report what it holds (it is closed "
                    "again at once).",
        confirms="the container window opening (windowOpen)", timeout_s=15),
    ActionSpec(
        name="takeFromContainer", group="containers", params=(_item("what to take"), *_XYZ, _count(1)),
        description="Take up to count of an item from the chest or furnace at x, y, z. Fails when it holds none.",
        confirms="the window's slot updates (the container lost what the bot gained)", timeout_s=15),
    ActionSpec(
        name="putInContainer", group="containers", params=(_item("what to put"), *_XYZ, _count(1)),
        description="Put up to count of an item from the inventory into the chest at x, y, z. Fails when the "
                    "bot has none or the chest is full.",
        confirms="the window's slot updates (the container gained what the bot lost)", timeout_s=15),
)

MOVEMENT = (
    ActionSpec(
        name="goTo", group="movement", params=(Param(name="target", kind=ArgKind.TARGET,
                                                     doc="a named place, a player, a block or a mob"),),
        description="Walk next to a named place of the task, a player, or the nearest block or mob of that "
                    "name. Fails when nothing of that name is around or no path leads there.",
        confirms="the pathfinder's goal_reached, then the distance checked", timeout_s=30),
    ActionSpec(
        name="goToPosition", group="movement", params=_XYZ,
        description="Walk to stand at x, y, z (within one block).",
        confirms="the pathfinder's goal_reached, then the distance checked", timeout_s=30),
    ActionSpec(
        name="follow", group="movement", params=(Param(name="player", kind=ArgKind.PLAYER, doc="whom to follow"),
                                                 Param(name="range", kind=ArgKind.COUNT, doc="how close to keep",
                                                       default=2, lo=1, hi=16)),
        description="Walk up to a player and keep following them until the bot's next action or stop.",
        confirms="the bot within range of the player (goal_reached)", timeout_s=30),
    ActionSpec(
        name="stop", group="movement",
        description="Stop walking or following and stand still.",
        confirms="the bot's own velocity at rest (physics tick)", timeout_s=5),
)

INTERACTION = (
    ActionSpec(
        name="attack", group="interaction", params=(Param(name="mob", kind=ArgKind.MOB, doc="what to attack"),),
        description="Hit the nearest mob of that kind until it dies (drops are left where they fall). Fails "
                    "when none is around.",
        confirms="entityDead for that mob", timeout_s=30),
    ActionSpec(
        name="useItem", group="interaction", params=(_item("what to use"), *_XYZ),
        description="Hold an item and use it on the block at x, y, z (a spawn egg, flint and steel, a seed, "
                    "a bucket...).",
        confirms="a world change next to the block: blockUpdate, entitySpawn, or the item's slot", timeout_s=10,
        fallback="flying-squid applies only the items it implements (spawn eggs, flint and steel, redstone "
                 "parts); others change nothing and time out"),
    ActionSpec(
        name="equip", group="interaction",
        params=(_item("what to equip"), Param(name="slot", kind=ArgKind.CHOICE, doc="where it goes", default="hand",
                                              choices=("hand", "off-hand", "head", "torso", "legs", "feet"))),
        description="Move an item from the inventory into the hand or an armour slot.",
        confirms="the hand or armour slot after a server round trip (its slot updates)", timeout_s=5),
    ActionSpec(
        name="drop", group="interaction", params=(_item("what to drop"), _count(1)),
        description="Throw count of an item out of the inventory.",
        confirms="the inventory slots after a server round trip (the server took the items)", timeout_s=5,
        fallback="flying-squid removes items thrown from the inventory window without spawning them"),
    ActionSpec(
        name="say", group="interaction", params=(Param(name="text", kind=ArgKind.TEXT, doc='a quoted line'),),
        description='Say a line in the chat, e.g. say(Alex, "on my way").',
        confirms="the server's echo of the line to the bot (chat event)", timeout_s=5),
)

QUERIES = (
    ActionSpec(
        name="inventory", group="queries", query=True,
        description="List what the bot carries and what it holds in hand.",
        confirms="nothing to wait for: the bot's inventory as the server last sent it", timeout_s=3),
    ActionSpec(
        name="nearbyBlocks", group="queries", query=True,
        params=(Param(name="radius", kind=ArgKind.COUNT, doc="how far to look", default=8, lo=1, hi=24),),
        description="List the kinds of block within radius (plain ground left out), with how many and the nearest.",
        confirms="nothing to wait for: the bot's loaded chunks", timeout_s=5),
    ActionSpec(
        name="entities", group="queries", query=True,
        params=(Param(name="radius", kind=ArgKind.COUNT, doc="how far to look", default=16, lo=1, hi=64),),
        description="List the players, mobs and dropped items within radius, nearest first.",
        confirms="nothing to wait for: the entities the bot has been sent", timeout_s=3),
    ActionSpec(
        name="containerContents", group="queries", query=True, params=_XYZ,
        description="What the chest or furnace at x, y, z held when this bot last had it open (no walking).",
        confirms="nothing to wait for: the bot's memory of the container's window", timeout_s=3),
)

KITCHEN = (
    ActionSpec(
        name="killMob", group="kitchen", params=(Param(name="mob", kind=ArgKind.MOB, doc="the animal"),),
        description="Kill the nearest animal of that kind and pick up its drops.",
        confirms="entityDead, then each drop's entityGone (picked up)", timeout_s=30),
    ActionSpec(
        name="mineBlock", group="kitchen", params=(Param(name="block", kind=ArgKind.BLOCK, doc="the block"),),
        description="Mine the nearest block of that kind and pick up what drops.",
        confirms="the dig's blockUpdate, then each drop's entityGone", timeout_s=20),
    ActionSpec(
        name="putFuelFurnace", group="kitchen", params=(_item("the fuel"),),
        description="Put all of a fuel from the inventory into the furnace's fuel slot.",
        confirms="the furnace window's fuel slot update", timeout_s=15),
    ActionSpec(
        name="putItemFurnace", group="kitchen", params=(_item("what to cook"),),
        description="Put all of an item from the inventory into the furnace's input slot.",
        confirms="the furnace window's input slot update", timeout_s=15),
    ActionSpec(
        name="takeOutFurnace", group="kitchen",
        description="Take everything cooked out of the furnace.",
        confirms="the furnace window's output slot update", timeout_s=15),
    ActionSpec(
        name="putInChest", group="kitchen", params=(_item("what to deliver"),),
        description="Put all of an item from the inventory into the kitchen chest.",
        confirms="the chest window's slot updates", timeout_s=15),
)

CATALOGUE: tuple[ActionSpec, ...] = (*BLOCKS, *CRAFTING, *CONTAINERS, *MOVEMENT, *INTERACTION, *QUERIES, *KITCHEN)
CATALOGUE_BY_NAME: dict[str, ActionSpec] = {spec.name: spec for spec in CATALOGUE}
