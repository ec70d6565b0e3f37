"""`MinecraftPlanner`: a built-in dispatcher that reads the kitchen and completes orders.

The pipeline of a meat order is kill -> (fuel) -> furnace input -> wait -> take out -> chest; that
of a mushroom stew is a chain one agent follows from its own inventory: mine both mushrooms,
mine a log, craft planks, craft bowls (a batch makes four, kept for later stews), craft the stew,
deliver it. Each step every agent gets the first useful job in this order of priority:

1. deliver cooked meat it carries (putInChest);
2. load raw meat it carries into the furnace (putItemFurnace);
3. feed fuel it carries when the furnace has none (putFuelFurnace);
4. shared jobs, each given to one agent at most: take the cooked output out, mine fuel when the
   team has none, then per open order (most urgent first) kill an animal for a meat that is not
   already on its way, or take the next step of a stew not already on its way (an agent already
   carrying stew ingredients first). While a stew is wanted, logs and planks are not burnt.

The last agent is the stoker (it prefers fuel and furnace jobs), the others are hunters; with one
agent it does everything. Every chosen command is checked like the dispatcher's would be; a job
that would be refused falls through to the next one, and `noop` closes the list.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING

from mindagent.core.directions import breaks, directions_of
from minecraft.check import check_one
from minecraft.commands import Command, Verb
from minecraft.kitchen import COOKED, CRAFTED_DISHES, CRAFTING, DISHES, FUEL_ITEMS, MEAT_OF_MOB, MOB_OF_DISH, ORDER_DISHES
from minecraft.protocol import Observation

if TYPE_CHECKING:
    from minecraft.session import MinecraftSession

RAW_OF_DISH = {cooked: raw for raw, cooked in COOKED.items()}
FUEL_BLOCK = "coal_ore"
STEW = "mushroom_stew"
# what a stew in the making is made of; an agent carrying any of it continues its stew
STEW_MATERIALS = ("bowl", "brown_mushroom", "oak_log", "oak_planks", "red_mushroom")


class MinecraftPlanner:
    """Example::

        planner = MinecraftPlanner()
        planner.reset(session)
        commands = planner.act(session)   # e.g. ["killMob(Alex, cow)", "mineBlock(Steve, coal_ore)"]
    """

    name = "planner"

    def __init__(self) -> None:
        #: Dishes whose orders go first (goal mode's chosen goals); empty: by urgency alone.
        self.focus: frozenset[str] = frozenset()

    def reset(self, session: MinecraftSession) -> None:
        """Stateless between steps: everything is read from the session each time."""

    def act(self, session: MinecraftSession) -> list[str]:
        """One command per bot, following the head chef's standing words (`mindagent.core.directions`):
        nothing it would do breaks one (under ``stop`` every bot waits)."""
        obs, agents = session.obs, session.agents
        blocked = session.blocked_agents()
        step = session.order_time
        directions = directions_of(session)
        if directions.stopped:
            return [Command(Verb.NOOP, name).text for name in agents]
        orders = sorted((o for o in session.orders.active if directions.permits(o.dish)),
                        key=lambda o: (o.dish not in self.focus, o.remaining(step), o.created))
        deficit = _deficit(obs, [o.dish for o in orders], agents)
        chosen: dict[str, Command] = {}
        claimed: set[str] = set()

        def legal(command: Command) -> bool:
            return check_one(command, obs, blocked) is None and (
                directions.neutral or breaks(session, directions, command.text) is None)

        keep = frozenset(("oak_log", "oak_planks")) if deficit.get(STEW, 0) > 0 else frozenset()
        # Personal jobs first: what an agent carries decides what it should do.
        for name in agents:
            inv = _inventory(obs, name)
            for command in _personal_jobs(name, inv, obs, keep):
                if legal(command):
                    chosen[name] = command
                    break
        # Shared jobs, the stoker first for furnace and fuel work, hunters first for animals.
        stoker_first = list(reversed(agents))
        if _output_ready(obs):
            _give(chosen, claimed, "takeout", stoker_first, lambda a: Command(Verb.TAKE_OUT_FURNACE, a), legal)
        if _needs_fuel(obs, agents, keep) and any(o.dish in MOB_OF_DISH for o in orders):
            _give(chosen, claimed, "fuel", stoker_first, lambda a: Command(Verb.MINE_BLOCK, a, FUEL_BLOCK), legal)
        stew_cooks = sorted(agents, key=lambda a: not any(_inventory(obs, a).get(m) for m in STEW_MATERIALS))
        for dish in [o.dish for o in orders]:
            if deficit.get(dish, 0) <= 0:
                continue
            if dish == STEW:
                if _give(chosen, claimed, f"stew:{deficit[dish]}", stew_cooks,
                         lambda a: _stew_steps(a, _inventory(obs, a)), legal):
                    deficit[dish] -= 1
                continue
            mob = MOB_OF_DISH[dish]
            if _give(chosen, claimed, f"hunt:{dish}:{deficit[dish]}", agents,
                     _hunt(mob), legal):
                deficit[dish] -= 1
        return [chosen.get(name, Command(Verb.NOOP, name)).text for name in agents]


def _inventory(obs: Observation, name: str) -> dict[str, int]:
    bot = obs.bots.get(name)
    return dict(bot.inventory) if bot and bot.connected else {}


def _personal_jobs(name: str, inv: dict[str, int], obs: Observation, keep: frozenset[str]) -> list[Command]:
    jobs = [Command(Verb.PUT_IN_CHEST, name, dish) for dish in ORDER_DISHES if inv.get(dish)]
    jobs += [Command(Verb.PUT_ITEM_FURNACE, name, raw) for raw in sorted(COOKED) if inv.get(raw)]
    furnace = obs.furnace()
    if furnace.fuel is None:
        jobs += [Command(Verb.PUT_FUEL_FURNACE, name, f) for f in sorted(FUEL_ITEMS) if inv.get(f) and f not in keep]
    return jobs


def _stew_steps(name: str, inv: dict[str, int]) -> list[Command]:
    """The next steps of a mushroom stew from what `name` carries, best first."""
    def has_all(product: str) -> bool:
        return all(inv.get(item, 0) >= n for item, n in CRAFTING[product][0].items())

    if has_all(STEW):
        return [Command(Verb.CRAFT, name, STEW)]
    steps = [Command(Verb.MINE_BLOCK, name, m) for m in ("red_mushroom", "brown_mushroom") if not inv.get(m)]
    if not inv.get("bowl"):
        if has_all("bowl"):
            steps.append(Command(Verb.CRAFT, name, "bowl"))
        elif inv.get("oak_log"):
            steps.append(Command(Verb.CRAFT, name, "oak_planks"))
        else:
            steps.append(Command(Verb.MINE_BLOCK, name, "oak_log"))
    return steps


def _hunt(mob: str) -> Callable[[str], Command]:
    return lambda agent: Command(Verb.KILL_MOB, agent, mob)


def _give(chosen: dict[str, Command], claimed: set[str], job: str, order: list[str],
          make: Callable[[str], Command | list[Command]], legal: Callable[[Command], bool]) -> bool:
    """Give `job` to the first free agent in `order` with a command (of its list, the first) that
    would be accepted."""
    if job in claimed:
        return False
    for name in order:
        if name in chosen:
            continue
        made = make(name)
        for command in made if isinstance(made, list) else [made]:
            if legal(command):
                chosen[name] = command
                claimed.add(job)
                return True
    return False


def _output_ready(obs: Observation) -> bool:
    return obs.furnace().output is not None


def _needs_fuel(obs: Observation, agents: list[str], keep: frozenset[str]) -> bool:
    """No fuel in the slot, none burning long, and nobody carries any (but what is kept for crafting)."""
    furnace = obs.furnace()
    if furnace.fuel is not None or furnace.burn_ticks_left > furnace.cook_total:
        return False
    return not any(_inventory(obs, a).get(f) for a in agents for f in FUEL_ITEMS if f not in keep)


def _deficit(obs: Observation, dishes: list[str], agents: list[str]) -> dict[str, int]:
    """Per dish: open orders minus units already on their way (raw or cooked, anywhere)."""
    need = Counter(dishes)
    furnace = obs.furnace()
    on_way: Counter[str] = Counter()
    for name in agents:
        inv = _inventory(obs, name)
        for dish in need:
            raw = RAW_OF_DISH.get(dish)  # a crafted dish counts only when finished
            on_way[dish] += inv.get(dish, 0) + (inv.get(raw, 0) if raw else 0)
    for stack in (furnace.input, furnace.output):
        if stack is None:
            continue
        dish = COOKED.get(stack.name, stack.name)
        on_way[dish] += stack.count
    return {dish: need[dish] - on_way[dish] for dish in need if need[dish] > on_way[dish]}


assert set(MOB_OF_DISH) == set(DISHES) and set(MEAT_OF_MOB.values()) == set(COOKED)
assert CRAFTED_DISHES == (STEW,) and set(STEW_MATERIALS) >= {i for p in ("oak_planks", "bowl", STEW) for i in CRAFTING[p][0]}
