"""VillagerBench's Farm-to-Table Cooking as a Minecraft session on the real embedded server.

The bots serve dishes whose ingredients come down causal chains: grown and harvested on the farm
west of the kitchen (`node/plugins/farm.js`), gathered from the pantry or the hen house, milked,
crafted at the kitchen's crafting table and smelted in its furnace. A step checks the joint
commands (`farm_world.check_all`; nothing moves for a refused one), runs the accepted ones at
once over the bridge (each confirmed by a world event, with a timeout), advances the world clock
by `STEP_TICKS` (lockstep: crops ripen and hens lay on world ticks, never on wall time), then reads
the farm back from the server, which is the truth: dishes count when the serve event credited them.

Levels: ``farm:<band>:<seed>`` (a generated task) or a task file named ``*.farm.json``.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mindagent.core.domain import Counts, DomainStep, PromptParts, Verdict
from mindagent.core.spec import GameSpec
from minecraft.families.family_commands import CommandLanguage
from minecraft.families.farm_commands import FarmCommand, FarmSyntaxError, extract_farm_commands, parse_farm_command
from minecraft.families.farm_generate import BANDS, COOK_TICKS, STEP_TICKS, generate
from minecraft.families.farm_session_io import FarmServer, outcome_line
from minecraft.families.farm_task import FarmTask, book, load_farm_task
from minecraft.families.farm_world import FarmWorld, Plot, check_all, check_one
from minecraft.results import ActionDone, ActionError, Outcome

log = logging.getLogger(__name__)

FAMILY = "farm"
AGENT_NAMES = ("Alex", "Steve", "Ellie", "Kai")
FILE_SUFFIX = ".farm.json"


def is_farm_file(level: str) -> bool:
    """A level given as a path is a farm task when it is named ``*.farm.json``."""
    return level.endswith(FILE_SUFFIX)


def check_level(level: str) -> None:
    """ValueError (one line) unless the level loads."""
    load_level(level)


def load_level(level: str) -> FarmTask:
    """``farm:<band>:<seed>`` or a task file; ValueError (one line) otherwise."""
    if level.startswith(f"{FAMILY}:"):
        parts = level.split(":")
        if len(parts) != 3 or parts[1] not in BANDS or not parts[2].isdigit():
            raise ValueError(f"a farm level is {FAMILY}:<{'|'.join(BANDS)}>:<seed>, not {level!r}")
        return generate(parts[1], int(parts[2]))
    return load_farm_task(Path(level))


def make_session(spec: GameSpec) -> FarmSession:
    assert spec.level is not None
    task = load_level(spec.level)
    return FarmSession(task, n_agents=spec.agents, max_steps=spec.steps or task.steps, seed=spec.seed)


class FarmSession(FarmServer):
    """Example::

        session = FarmSession(generate("easy", 0), n_agents=2)
        await session.reset()
        step = await session.step(["harvest(Alex, wheat)", "take(Steve, coal, 1)"])
        session.score   # dishes served / dishes ordered
    """

    domain = "minecraft"
    language = CommandLanguage(parse_farm_command, extract_farm_commands, FarmSyntaxError, "noop")
    family = FAMILY

    def __init__(self, task: FarmTask, *, n_agents: int = 2, max_steps: int = 40, seed: int = 0) -> None:
        agents = list(AGENT_NAMES[:n_agents]) + [f"Agent{i}" for i in range(len(AGENT_NAMES), n_agents)]
        super().__init__(agents, seed=seed, cook_ticks=COOK_TICKS)
        self.task, self.name = task, task.name
        self.n_agents, self.max_steps = n_agents, max_steps
        self.world = FarmWorld.fresh(task, agents, cook_ticks=COOK_TICKS)
        self._step = 0

    async def reset(self, seed: int | None = None) -> None:
        """The kitchen reset (inventories emptied, bots at spawn), then the task's farm laid out."""
        if seed is not None:
            self.seed = seed
        self.world = FarmWorld.fresh(self.task, self.agents, cook_ticks=COOK_TICKS)
        self._read(await self.setup_farm(self.task))
        self._step = 0

    def _read(self, state: dict[str, Any]) -> None:
        """The server's farm becomes the model's."""
        w = self.world
        w.tick, w.cook_ticks = int(state["tick"]), int(state["cook_ticks"])
        plots = []
        for p in state["plots"]:
            ready = {"empty": None, "ripe": min(int(p["ready_at"] or 0), w.tick)}.get(p["state"], max(int(p["ready_at"] or 0), w.tick + 1))
            plots.append(Plot(str(p["crop"]), int(p["index"]), ready))
        w.plots = plots
        w.pantry = Counter({str(k): int(v) for k, v in state["pantry"].items()})
        w.nest = int(state["nest"])
        w.served = Counter({str(k): int(v) for k, v in state["served"].items()})
        invs = state["inventories"]
        w.inventory = {a: Counter({str(k): int(v) for k, v in invs.get(a, {}).items()}) for a in self.agents}
        f, slot = w.furnace, state["furnace"]
        f.input, f.input_n = (slot["input"] or {}).get("name"), int((slot["input"] or {}).get("count", 0))
        f.output, f.output_n = (slot["output"] or {}).get("name"), int((slot["output"] or {}).get("count", 0))
        f.fuel_n, f.burn, f.cook = int((slot["fuel"] or {}).get("count", 0)), int(slot["burn"]), int(slot["cook"])
        self.plot_pos = {(str(p["crop"]), int(p["index"])): list(p["pos"]) for p in state["plots"]}
        self.spots = {k: list(v) for k, v in state["spots"].items()}
        self.deliveries = list(state["deliveries"])

    # ---- stepping
    async def step(self, commands: Sequence[str]) -> DomainStep:
        checked = check_all(commands, self.agents, self.world)
        carried = {a: Counter(inv) for a, inv in self.world.inventory.items()}
        outcomes: list[Outcome] = list(await asyncio.gather(
            *[self._run(cmd, plot, carried) if cmd is not None and why is None else _refused(why)
              for cmd, why, plot in checked]))
        served_before = Counter(self.world.served)
        self._step += 1
        await self.advance(STEP_TICKS)
        self._read(await self.farm_state())
        new = sorted((self.world.served - served_before).elements())
        verdicts = [Verdict(text.strip(), isinstance(o, ActionDone), None if isinstance(o, ActionDone) else o,
                            outcome_line(o)) for text, o in zip(commands, outcomes, strict=True)]
        notes = [v.text for v in verdicts if v.text]
        notes.append(f"Served {sum(self.world.served.values())} of {len(self.task.dishes)} dishes "
                     f"(world tick {self.world.tick}).")
        return DomainStep(verdicts, notes, new, [])

    async def _run(self, cmd: FarmCommand, plot: Plot | None, carried: dict[str, Counter[str]]) -> Outcome:
        if cmd.verb == "noop":
            return ActionDone(cmd.text, cmd.agent, "noop")
        if cmd.verb in ("take", "gather"):
            chest = self.spots["pantry" if cmd.verb == "take" else "nest"]
            return await self.act(cmd, "takeFromChest", {"item": cmd.item, "count": cmd.count, "chest": chest})
        if cmd.verb == "smelt":
            if carried[cmd.agent][book().fuel] > 0:
                fueled = await self.act(cmd, "putFuelFurnace", {"item": book().fuel})
                if not isinstance(fueled, ActionDone):
                    return fueled
            return await self.act(cmd, "putItemFurnace", {"item": cmd.item})
        if cmd.verb == "takeout":
            return await self.act(cmd, "takeOutFurnace", {})
        return await self.act(cmd, "farmAct", self._farm_args(cmd, plot))

    def _farm_args(self, cmd: FarmCommand, plot: Plot | None) -> dict[str, Any]:
        item = cmd.item or ""
        if cmd.verb in ("harvest", "plant"):
            assert plot is not None
            pos = self.plot_pos[(plot.crop, plot.index)]
            shows = "air" if cmd.verb == "harvest" else book().crops[item].block
            return {"verb": cmd.verb, "args": [item, plot.index], "at": pos, "expect": {"block": [*pos, shows]}}
        if cmd.verb == "milk":
            return {"verb": "milk", "args": [], "entity": "cow", "expect": {"item": "milk_bucket"}}
        if cmd.verb == "craft":
            return {"verb": "craft", "args": [item], "at": self.spots["table"], "expect": {"item": item}}
        return {"verb": "serve", "args": [item], "at": self.spots["serving"], "expect": {"item": item, "less": True}}

    def check(self, commands: Sequence[str]) -> list[Verdict]:
        return [Verdict(text.strip(), why is None, why, None if why is None else outcome_line(why))
                for text, (_, why, _) in zip(commands, check_all(commands, self.agents, self.world), strict=True)]

    def legal_commands(self, agent: int) -> list[str]:
        """noop and every command of this bot the checker accepts now."""
        name, b, w = self.agents[agent], book(), self.world
        texts = [f"noop({name})", f"milk({name})", f"takeout({name})", f"gather({name}, egg, {max(1, min(64, w.nest))})"]
        texts += [f"take({name}, {item}, {min(64, n)})" for item, n in sorted(w.pantry.items()) if n > 0]
        texts += [f"{verb}({name}, {crop})" for crop in sorted({p.crop for p in w.plots}) for verb in ("harvest", "plant")]
        texts += [f"craft({name}, {item})" for item in b.recipes]
        texts += [f"smelt({name}, {item})" for item in b.smelting]
        texts += [f"serve({name}, {dish})" for dish in sorted(w.owed())]
        return [t for t in texts if check_one(w, parse_farm_command(t, self.agents)) is None]

    # ---- what the dispatcher reads
    def state_text(self) -> str:
        w = self.world
        def items(c: Counter[str]) -> str:
            return ", ".join(f"{k} x{n}" for k, n in sorted(c.items()) if n > 0) or "nothing"
        lines = [f"Step {self._step} of {self.max_steps} (world tick {w.tick}).",
                 f"Still to serve: {items(w.owed())}. Served: {items(w.served)}.",
                 f"Pantry: {items(w.pantry)}. Hen house nest: {w.nest} eggs."]
        for crop in sorted({p.crop for p in w.plots}):
            growing = w.growing(crop)
            soon = f", next ripe at tick {min(p.ready_at or 0 for p in growing)}" if growing else ""
            lines.append(f"{crop} field: {len(w.ripe(crop))} ripe, {len(growing)} growing, {len(w.empty(crop))} empty{soon}.")
        f = w.furnace
        lines.append(f"Furnace: smelting {f.input or 'nothing'} x{f.input_n}, done {f.output or 'nothing'} x{f.output_n}, "
                     f"{'burning' if w.has_fire() else 'no fuel'}.")
        lines += [f"{a} carries: {items(Counter({k: v for k, v in inv.items() if not k.startswith('iron_')}))}."
                  for a, inv in w.inventory.items()]
        return "\n".join(lines)

    def prompt_parts(self) -> PromptParts:
        b = book()
        recipes = [f"{name}: {', '.join(f'{n} {i}' for i, n in r.needs.items())} at the crafting table"
                   + (f" (gives back {', '.join(f'{n} {i}' for i, n in r.returns.items())})" if r.returns else "")
                   for name, r in b.recipes.items()]
        recipes += [f"{out}: smelt {raw} in the furnace (fuel: {b.fuel}, one smelts {b.fuel_items})" for raw, out in b.smelting.items()]
        recipes += [f"{crop} plot: ripe yields {', '.join(f'{n} {i}' for i, n in c.yield_.items())}; plant with {c.seed}"
                    for crop, c in b.crops.items()]
        recipes += ["milk_bucket: milk a cow with a bucket", "egg: the hens lay into the hen house nest"]
        return PromptParts(
            recipes="Dishes to serve: " + ", ".join(self.task.dishes) + "\n" + "\n".join(recipes),
            instructions=(
                "You direct Minecraft farmers cooking from the farm. Give each bot one command per step, one per line:\n"
                "take(Bot, item, count) from the pantry; gather(Bot, egg, count) from the nest; harvest(Bot, crop); "
                "plant(Bot, crop); milk(Bot); craft(Bot, item); smelt(Bot, item) (puts the item and the bot's coal in "
                "the furnace); takeout(Bot); serve(Bot, dish); noop(Bot).\n"
                f"A planted crop ripens {self.task.grow_ticks} world ticks later; each step is {STEP_TICKS} ticks. "
                "A bot crafts only from what it carries itself."),
            knowledge="Work back from each dish to its raw ingredients; give each bot its own dish.",
            director="Your head farmer says")

    def orders_snapshot(self) -> list[dict[str, Any]]:
        left = self.max_steps - self._step
        return [{"id": k, "dish": dish, "lifetime": left} for k, dish in enumerate(sorted(self.world.owed().elements()))]

    @property
    def score(self) -> float:
        """Dishes served over dishes ordered (the `Scored` capability)."""
        ordered = Counter(self.task.dishes)
        return sum(min(n, ordered[d]) for d, n in self.world.served.items()) / len(self.task.dishes)

    @property
    def step_index(self) -> int:
        return self._step

    @property
    def done(self) -> bool:
        return self._step >= self.max_steps or not self.world.owed()

    @property
    def counts(self) -> Counts:
        """Dishes as the units of work: completed when served, active while still owed."""
        return Counts(completed=sum(self.world.served.values()), failed=0, active=sum(self.world.owed().values()))

    def episode_header(self) -> dict[str, Any]:
        return {"family": FAMILY, "task": self.task.model_dump(mode="json", by_alias=True)}


async def _refused(why: ActionError | None) -> Outcome:
    assert why is not None
    return why
