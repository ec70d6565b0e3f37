"""The real-time page of Overcooked: a sprite grid drawn with the `overcooked` package's own sheets.

The shared page draws any game that declares a sprite grid (see `mindagent.server.views`): the
static view gives the cell size, the sheets (an image served by name and its frames as
rectangles) and the terrain; each state gives the sprites on top (objects, soups, chefs with
their hats) and a few labels (cooking timers). The frame names and rectangles are read from the
package's sheet descriptions at run time, so the pictures stay the package's: nothing is copied
here. Keys are the game's too: arrows move the person's chef, space interacts, no key stays.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any

from overcooked_game.commands import Command, Unreadable, parse
from overcooked_game.engine import Engine
from overcooked_game.kitchen import DIRECTION_NAMES, Kitchen

#: Source pixels of one cell in the package's sheets.
CELL = 15
#: Sheet id -> its image and its frame description in the package's graphics folder.
SHEETS = {"terrain": ("terrain.png", "terrain.json"), "objects": ("objects.png", "objects.json"),
          "soups": ("soups.png", "soups.json"), "chefs": ("chefs.png", "chefs.json")}
#: Grid letters -> terrain frame (start positions are floor).
TERRAIN = {"X": "counter", "O": "onions", "T": "tomatoes", "D": "dishes", "S": "serve", "P": "pot", " ": "floor"}
#: Hat colours by chef, as the package's demo gives them.
HATS = ("blue", "green", "orange", "purple", "red")
#: The keys people press and the primitive each one queues (the page maps keys to groups generically).
KEYS: tuple[tuple[str, str, str, str], ...] = (
    ("up", "Move up", "ArrowUp", "↑"), ("down", "Move down", "ArrowDown", "↓"),
    ("left", "Move left", "ArrowLeft", "←"), ("right", "Move right", "ArrowRight", "→"),
    ("interact", "Interact", " ", "Space"))
WORDS = {"title": "Overcooked", "board": "The kitchen", "tables": "The kitchen as tables", "recipes": "The recipe",
         "director": "head chef", "director_example": "e.g. chef1, bring dishes to the pot",
         "completed": "soups served", "failed": "missed", "open": "orders open", "score": "reward",
         "completed_line": "Served {}!", "completed_one": "soup served", "completed_many": "soups served"}
HOWTO = ["Arrow keys move your chef (the one with the outline); Space picks up, puts down, or serves what "
         "your chef faces. No key: your chef stays.",
         "Onion soup: three onions in a pot cook by themselves (the number counts down); then take a dish to "
         "the pot, scoop the soup and carry it to the grey serving counter.",
         "Your partner chef is played by the room's dispatcher; each soup served adds 20 to the reward.",
         "The buttons under the kitchen do the same as the keys; every command is also listed as text."]


def _graphics() -> Traversable:
    return files("overcooked") / "data" / "graphics"


def assets() -> dict[str, Traversable]:
    """The sheets' images by public name (what `OvercookedDomain.page_assets` declares)."""
    folder = _graphics()
    return {image: folder / image for image, _ in SHEETS.values()}


def _rects(description: Mapping[str, Any]) -> dict[str, list[int]]:
    """Frame name (without ``.png``) -> [x, y, w, h] from either of the package's two formats
    (a ``frames`` mapping, or ``textures[0].frames`` as a list with ``filename``)."""
    frames = description.get("frames")
    if isinstance(frames, Mapping):
        pairs = list(frames.items())
    else:
        pairs = [(f["filename"], f) for t in description.get("textures", [])[:1] for f in t.get("frames", [])]
    out: dict[str, list[int]] = {}
    for name, entry in pairs:
        r = entry["frame"]
        out[str(name).removesuffix(".png")] = [int(r["x"]), int(r["y"]), int(r["w"]), int(r["h"])]
    return out


@cache
def sheets() -> dict[str, dict[str, Any]]:
    """Every sheet's image name and frames, read once from the installed package."""
    folder = _graphics()
    return {sheet: {"image": image, "frames": _rects(json.loads((folder / described).read_text("utf-8")))}
            for sheet, (image, described) in SHEETS.items()}


def static_grid(rows: Sequence[str]) -> dict[str, Any]:
    """The grid part of the static view: cell size, sheets and the terrain's frames."""
    terrain = [[TERRAIN.get(c if c not in "12" else " ", "floor") for c in row] for row in rows]
    return {"cell": CELL, "cols": len(rows[0]) if rows else 0, "rows": len(rows), "sheets": sheets(),
            "terrain": {"sheet": "terrain", "rows": terrain}}


def _soup_frame(onions: int, where: str) -> str:
    return f"soup_{where}_tomato_0_onion_{max(1, min(3, onions))}"


def grid_state(engine: Engine, kitchen: Kitchen) -> dict[str, Any]:
    """The dynamic layer of one state: objects, soups, chefs and the pots' cooking timers."""
    state = engine.state
    sprites: list[dict[str, Any]] = []
    labels: list[dict[str, Any]] = []
    for pos in sorted(state.objects, key=lambda p: (p[1], p[0])):
        obj = state.objects[pos]
        x, y = int(pos[0]), int(pos[1])
        if obj.name != "soup":
            sprites.append({"x": x, "y": y, "sheet": "objects", "frame": str(obj.name)})
            continue
        onions = list(obj.ingredients).count("onion")
        if pos in kitchen.pots:
            pot = kitchen.pot(state, pos)
            sprites.append({"x": x, "y": y, "sheet": "soups", "frame": _soup_frame(onions, "cooked" if pot.ready else "idle")})
            if pot.cooking:
                labels.append({"x": x, "y": y, "text": str(pot.remaining)})
            elif pot.ready:
                labels.append({"x": x, "y": y, "text": "ready"})
        else:
            sprites.append({"x": x, "y": y, "sheet": "soups", "frame": _soup_frame(onions, "done")})
    for chef, player in enumerate(state.players):
        x, y = int(player.position[0]), int(player.position[1])
        facing = DIRECTION_NAMES[tuple(player.orientation)].upper()
        held = engine.held(chef)
        body = facing if held is None else f"{facing}-soup-onion" if held == "soup" else f"{facing}-{held}"
        sprites.append({"x": x, "y": y, "sheet": "chefs", "frame": body, "agent": chef})
        sprites.append({"x": x, "y": y, "sheet": "chefs", "frame": f"{facing}-{HATS[chef % len(HATS)]}hat", "agent": chef})
    left = max(0, engine.horizon - engine.timestep)
    hud = [{"label": "Time left", "steps": left, "value": f"{left} timesteps"},
           {"label": "Soups served", "value": str(engine.delivered)}, {"label": "Reward", "value": str(engine.reward)}]
    return {"sprites": sprites, "labels": labels, "hud": hud}


def places(engine: Engine, kitchen: Kitchen) -> list[dict[str, Any]]:
    """The pots and the counters holding something, in words: the picture's text alternative
    (the page's table of places) and what a screen reader hears."""
    state = engine.state
    out: list[dict[str, Any]] = []
    for i, pos in enumerate(kitchen.pots):
        pot = kitchen.pot(state, pos)
        content = (["soup ready"] if pot.ready else [f"cooking, {pot.remaining} left"] if pot.cooking else
                   [f"{pot.onions} of 3 onions"] if pot.onions else [])
        out.append({"name": f"pot{i}", "type": "pot", "location": [int(pos[0]), int(pos[1])], "content": content,
                    "in_use": pot.cooking, "busy": pot.remaining, "gettable": pot.ready})
    for pos in kitchen.counters:
        obj = state.objects.get(pos)
        if obj is not None:
            out.append({"name": kitchen.names[pos], "type": "counter", "location": [int(pos[0]), int(pos[1])],
                        "content": [str(obj.name)], "in_use": False, "busy": 0, "gettable": True})
    return out


def where(engine: Engine, chef: int) -> str:
    """A chef's cell and facing in words, e.g. ``(1, 2) facing north``."""
    player = engine.state.players[chef]
    return f"({player.position[0]}, {player.position[1]}) facing {DIRECTION_NAMES[tuple(player.orientation)]}"


def page(rows: Sequence[str]) -> dict[str, Any]:
    """The static view's ``page``: words, the key groups and the sprite grid."""
    groups = [{"id": verb, "label": label, "key": key, "key_label": shown, "many": False}
              for verb, label, key, shown in KEYS]
    return {"words": dict(WORDS), "groups": groups, "grid": static_grid(rows)}


def actions(n_chefs: int, agent: int, legal: Sequence[str]) -> list[dict[str, Any]]:
    """The page's actions: each primitive of `agent` in its key's group; medium-level commands are
    left to the page's text list (people play with keys; the dispatcher uses those)."""
    labels = {verb: label for verb, label, _, _ in KEYS}
    out = []
    for text in legal:
        try:
            command: Command = parse(text, n_chefs)
        except Unreadable:
            continue
        if command.chef == agent and command.verb in labels:
            out.append({"command": text, "label": labels[command.verb].lower(), "group": command.verb, "tile": None})
    return out


__all__ = ["CELL", "HOWTO", "KEYS", "actions", "assets", "grid_state", "page", "places", "sheets", "static_grid",
           "where"]
