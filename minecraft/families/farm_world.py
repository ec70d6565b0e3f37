"""What the farm family knows of the world, the checker run before any bot moves, and the clock.

`FarmWorld` holds the plots, the pantry, the hen house nest, the kitchen furnace, each bot's
inventory and the dishes served. The live session replaces it after every step with what the
server reports (the server is the truth); the generator and the fast tests run it on its own,
with `advance` doing on the world clock what the server plugin does (crops ripen `grow_ticks`
after planting, a hen lays an egg every `egg_ticks`, the furnace burns and cooks as
`node/plugins/furnace.js` does), so a task is checked solvable on the same rules it is played.

`check_all` refuses, with an `ActionError`, every command that cannot work, judged in the order
given against a scratch copy (two bots cannot harvest the same ripe plot or the pantry's last bucket).
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from minecraft.families.farm_commands import FarmCommand, FarmSyntaxError, parse_farm_command
from minecraft.families.farm_task import FarmTask, book
from minecraft.results import ActionError

MAX_TAKE = 64
EGG_CAP = 16
#: Vanilla coal burns 1600 ticks against a 200-tick cook: it smelts `fuel_items` items at any cook time.
VANILLA_COOK_TICKS = 200


@dataclass
class Plot:
    crop: str
    index: int
    #: tick the crop is ripe at; None for an empty plot
    ready_at: int | None


@dataclass
class Furnace:
    input: str | None = None
    input_n: int = 0
    fuel_n: int = 0
    output: str | None = None
    output_n: int = 0
    burn: int = 0
    cook: int = 0


@dataclass
class FarmWorld:
    """Example: ``FarmWorld.fresh(task, ["Alex"]).ripe("wheat")`` → the ripe wheat plots."""

    plots: list[Plot]
    pantry: Counter[str]
    inventory: dict[str, Counter[str]]
    nest: int = 0
    furnace: Furnace = field(default_factory=Furnace)
    served: Counter[str] = field(default_factory=Counter)
    ordered: Counter[str] = field(default_factory=Counter)
    tick: int = 0
    grow_ticks: int = 160
    egg_ticks: int = 200
    cook_ticks: int = 100

    @classmethod
    def fresh(cls, task: FarmTask, agents: Sequence[str], cook_ticks: int = 100) -> FarmWorld:
        plots = [Plot(f.crop, i, 0 if i < f.ripe else None) for f in task.fields for i in range(f.plots)]
        return cls(plots, Counter(task.pantry), {a: Counter() for a in agents}, task.nest_eggs,
                   ordered=Counter(task.dishes), grow_ticks=task.grow_ticks, egg_ticks=task.egg_ticks,
                   cook_ticks=cook_ticks)

    # ---- reading
    def ripe(self, crop: str) -> list[Plot]:
        return [p for p in self.plots if p.crop == crop and p.ready_at is not None and p.ready_at <= self.tick]

    def growing(self, crop: str) -> list[Plot]:
        return [p for p in self.plots if p.crop == crop and p.ready_at is not None and p.ready_at > self.tick]

    def empty(self, crop: str) -> list[Plot]:
        return [p for p in self.plots if p.crop == crop and p.ready_at is None]

    def owed(self) -> Counter[str]:
        return +(self.ordered - self.served)

    def has_fire(self) -> bool:
        return self.furnace.burn > 0 or self.furnace.fuel_n > 0

    # ---- changing
    def apply(self, command: FarmCommand) -> Plot | None:
        """Record an accepted command; returns the plot it used (harvest, plant), if any."""
        inv, item = self.inventory[command.agent], command.item or ""
        plot: Plot | None = None
        if command.verb == "take":
            n = min(command.count, self.pantry[item])
            self.pantry[item] -= n
            inv[item] += n
        elif command.verb == "gather":
            n = min(command.count, self.nest)
            self.nest -= n
            inv[item] += n
        elif command.verb == "harvest":
            plot = self.ripe(item)[0]
            plot.ready_at = None
            inv.update(book().crops[item].yield_)
        elif command.verb == "plant":
            plot = self.empty(item)[0]
            plot.ready_at = self.tick + self.grow_ticks
            inv[book().crops[item].seed] -= 1
        elif command.verb == "milk":
            inv["bucket"] -= 1
            inv["milk_bucket"] += 1
        elif command.verb == "craft":
            recipe = book().recipes[item]
            inv.subtract(recipe.needs)
            inv[item] += recipe.makes
            inv.update(recipe.returns)
        elif command.verb == "smelt":
            self._smelt(inv, item)
        elif command.verb == "takeout":
            inv[self.furnace.output or ""] += self.furnace.output_n
            self.furnace.output, self.furnace.output_n = None, 0
        elif command.verb == "serve":
            inv[item] -= 1
            self.served[item] += 1
        self.pantry = +self.pantry
        self.inventory[command.agent] = +inv
        return plot

    def _smelt(self, inv: Counter[str], item: str) -> None:
        fuel = book().fuel
        if inv[fuel] > 0:
            n = min(inv[fuel], 64 - self.furnace.fuel_n)
            inv[fuel] -= n
            self.furnace.fuel_n += n
        n = min(inv[item], 64 - self.furnace.input_n)
        inv[item] -= n
        self.furnace.input, self.furnace.input_n = item, self.furnace.input_n + n

    def advance(self, ticks: int) -> None:
        """`ticks` world ticks as the server plugins run them (eggs, growth, the furnace)."""
        for _ in range(ticks):
            self.tick += 1
            self._furnace_tick()
            if self.tick % self.egg_ticks == 0 and self.nest < EGG_CAP:
                self.nest += 1

    def _furnace_tick(self) -> None:
        f = self.furnace
        if f.burn > 0:
            f.burn -= 1
        product = book().smelting.get(f.input or "") if f.input_n > 0 else None
        can = product is not None and (f.output_n == 0 or (f.output == product and f.output_n < 64))
        if f.burn == 0 and can and f.fuel_n > 0:
            f.burn = book().fuel_items * self.cook_ticks
            f.fuel_n -= 1
        if f.burn > 0 and can:
            f.cook += 1
            if f.cook >= self.cook_ticks:
                f.cook = 0
                f.input_n -= 1
                f.output, f.output_n = product, f.output_n + 1
                if f.input_n == 0:
                    f.input = None
        elif f.burn == 0:
            f.cook = max(0, f.cook - 2)
        else:
            f.cook = 0


def _refuse(code: str, command: FarmCommand, detail: str) -> ActionError:
    return ActionError(code, command.agent, command.text, detail)


def _lacking(inv: Counter[str], needs: dict[str, int]) -> str | None:
    short = [f"{n - inv[i]} {i}" for i, n in sorted(needs.items()) if inv[i] < n]
    return ", ".join(short) or None


def check_one(world: FarmWorld, command: FarmCommand) -> ActionError | None:
    """Why `command` cannot work in `world`, or None."""
    inv, item, b = world.inventory[command.agent], command.item or "", book()
    if command.verb == "noop":
        return None
    if command.item is not None and item not in b.items() and item not in b.crops:
        return _refuse("unknown_target", command, f"there is no {item} on this farm")
    if command.verb in ("take", "gather"):
        if not 1 <= command.count <= MAX_TAKE:
            return _refuse("bad_count", command, f"take 1 to {MAX_TAKE}, not {command.count}")
        if command.verb == "gather" and item != "egg":
            return _refuse("unknown_target", command, "only eggs are gathered (from the hen house nest)")
        if (world.pantry[item] if command.verb == "take" else world.nest) <= 0:
            where = "the pantry has" if command.verb == "take" else "the hen house nest has"
            return _refuse("missing_item", command, f"{where} no {item}")
        return None
    if command.verb in ("harvest", "plant"):
        crop = b.crops.get(item)
        if crop is None or not any(p.crop == item for p in world.plots):
            return _refuse("no_field", command, f"there is no {item} field on this farm")
        if command.verb == "harvest" and not world.ripe(item):
            growing = world.growing(item)
            when = f"the next ripens at tick {min(p.ready_at or 0 for p in growing)}" if growing else "plant some first"
            return _refuse("not_ripe", command, f"no {item} is ripe ({when}; now tick {world.tick})")
        if command.verb == "plant" and inv[crop.seed] <= 0:
            return _refuse("missing_item", command, f"has no {crop.seed}")
        if command.verb == "plant" and not world.empty(item):
            return _refuse("no_plot", command, f"every {item} plot is planted")
        return None
    if command.verb == "milk":
        return None if inv["bucket"] > 0 else _refuse("missing_item", command, "has no bucket")
    if command.verb == "craft":
        recipe = b.recipes.get(item)
        if recipe is None:
            return _refuse("not_craftable", command, f"there is no recipe for {item} here")
        short = _lacking(inv, recipe.needs)
        return None if short is None else _refuse("missing_item", command, f"lacks {short} for {item}")
    if command.verb == "smelt":
        if item not in b.smelting:
            return _refuse("not_smeltable", command, f"the furnace does not smelt {item}")
        if inv[item] <= 0:
            return _refuse("missing_item", command, f"has no {item}")
        if world.furnace.input not in (None, item):
            return _refuse("slot_busy", command, f"the furnace is smelting {world.furnace.input}")
        if not world.has_fire() and inv[b.fuel] <= 0:
            return _refuse("no_fuel", command, f"the furnace has no fuel and the bot carries no {b.fuel}")
        return None
    if command.verb == "takeout":
        return None if world.furnace.output_n > 0 else _refuse("empty_output", command, "the furnace has nothing smelted yet")
    # serve
    if world.owed()[item] <= 0:
        return _refuse("not_ordered", command, f"no {item} is still to be served")
    return None if inv[item] > 0 else _refuse("missing_item", command, f"has no {item}")


def check_all(texts: Sequence[str], agents: Sequence[str],
              world: FarmWorld) -> list[tuple[FarmCommand | None, ActionError | None, Plot | None]]:
    """Each command parsed and judged in order against a scratch copy of `world`, with the plot
    an accepted harvest or plant will use (the first ripe, or empty, one by index)."""
    scratch = copy.deepcopy(world)
    seen: set[str] = set()
    out: list[tuple[FarmCommand | None, ActionError | None, Plot | None]] = []
    for text in texts:
        try:
            command = parse_farm_command(text, agents)
        except FarmSyntaxError as exc:
            out.append((None, ActionError("syntax", None, text.strip()[:120], str(exc)), None))
            continue
        if command.agent in seen:
            out.append((command, _refuse("duplicate_agent", command, f"{command.agent} already has a command this step"), None))
            continue
        seen.add(command.agent)
        why = check_one(scratch, command)
        plot = copy.copy(scratch.apply(command)) if why is None else None
        out.append((command, why, plot))
    return out
