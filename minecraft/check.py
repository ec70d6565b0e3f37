"""Look-ahead checks: would a command fail right now, judging by the latest observation?

Pure functions of (commands, observation): no I/O, so the dispatcher's `check` and
`legal_commands` are instant and testable, and the session refuses hopeless commands without
spending seconds of bot time on them. The world may still say no when the command runs (an
animal another agent killed first); that comes back as the bridge's own reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from minecraft.commands import NO_ARG, Command, CommandSyntaxError, Verb, parse_command
from minecraft.kitchen import BLOCKS, COOKED, CRAFTABLE, CRAFTING, FUEL_ITEMS, ITEMS, MOBS, STATIONS, TARGETS
from minecraft.protocol import Observation
from minecraft.results import ActionError


def _mob_exists(obs: Observation, mob: str) -> bool:
    if obs.kitchen is not None:
        return any(m.name == mob for m in obs.kitchen.mobs)
    return any(e.name == mob for b in obs.bots.values() for e in b.entities)


def _block_exists(obs: Observation, block: str) -> bool:
    if obs.kitchen is not None and obs.kitchen.blocks:
        return any(b.name == block and b.present for b in obs.kitchen.blocks)
    return any(block in b.blocks for b in obs.bots.values())


def check_one(command: Command, obs: Observation, blocked: Mapping[str, str] | None = None) -> ActionError | None:
    """The reason `command` would fail now, or None.

    `blocked` maps agents that cannot act this step to the reason code (``rejoining``, ``died``).
    """

    def fail(code: str, detail: str = "") -> ActionError:
        return ActionError(code, command.agent, command.text, detail)

    if blocked and command.agent in blocked:
        return fail(blocked[command.agent])
    bot = obs.bots.get(command.agent)
    if bot is None or not bot.connected:
        return fail("not_connected")
    arg = command.arg or ""
    inventory = bot.inventory
    furnace = obs.furnace()
    match command.verb:
        case Verb.NOOP:
            return None
        case Verb.GOTO:
            humans = {p.name.lower() for p in obs.kitchen.players} if obs.kitchen else set()
            if arg not in TARGETS and arg.lower() not in humans:
                return fail("unknown_target", arg)
        case Verb.KILL_MOB:
            if arg not in MOBS:
                return fail("unknown_target", arg)
            if not _mob_exists(obs, arg):
                return fail("not_found")
        case Verb.MINE_BLOCK:
            if arg not in BLOCKS:
                return fail("unknown_target", arg)
            if not _block_exists(obs, arg):
                return fail("not_found")
        case Verb.PUT_FUEL_FURNACE:
            if arg not in FUEL_ITEMS:
                return fail("not_fuel")
            if inventory.get(arg, 0) <= 0:
                return fail("missing_item")
            if furnace.fuel is not None and furnace.fuel.name != arg:
                return fail("slot_busy")
        case Verb.PUT_ITEM_FURNACE:
            if arg not in COOKED:
                return fail("not_cookable")
            if inventory.get(arg, 0) <= 0:
                return fail("missing_item")
            if furnace.input is not None and furnace.input.name != arg:
                return fail("slot_busy")
        case Verb.TAKE_OUT_FURNACE:
            if furnace.output is None:
                return fail("empty_output")
        case Verb.PUT_IN_CHEST:
            if inventory.get(arg, 0) <= 0:
                return fail("missing_item")
        case Verb.CRAFT:
            if arg not in CRAFTING:
                return fail("not_craftable", arg)
            needs, _ = CRAFTING[arg]
            short = [f"{n - inventory.get(item, 0)} {item}" for item, n in sorted(needs.items())
                     if inventory.get(item, 0) < n]
            if short:
                return fail("missing_ingredients", ", ".join(short))
    return None


def check_all(texts: Sequence[str], agents: Sequence[str], obs: Observation,
              blocked: Mapping[str, str] | None = None) -> list[tuple[Command | None, ActionError | None]]:
    """Parse and check a joint command list: (command, reason) per string, in order.

    A second command for an agent already commanded this step is refused (`duplicate_agent`).
    """
    seen: set[str] = set()
    out: list[tuple[Command | None, ActionError | None]] = []
    for text in texts:
        try:
            command = parse_command(text, agents)
        except CommandSyntaxError as exc:
            out.append((None, ActionError("syntax", None, text.strip()[:80], str(exc))))
            continue
        if command.agent in seen:
            out.append((command, ActionError("duplicate_agent", command.agent, command.text)))
            continue
        seen.add(command.agent)
        out.append((command, check_one(command, obs, blocked)))
    return out


def candidate_commands(agent: str, obs: Observation) -> list[Command]:
    """Every command `agent` could be given (legal or not), in a stable order."""
    humans = sorted(p.name for p in obs.kitchen.players) if obs.kitchen else []
    out = [Command(Verb.NOOP, agent), Command(Verb.TAKE_OUT_FURNACE, agent)]
    out += [Command(Verb.GOTO, agent, t) for t in (*STATIONS, *MOBS, *BLOCKS, *humans)]
    out += [Command(Verb.KILL_MOB, agent, m) for m in MOBS]
    out += [Command(Verb.MINE_BLOCK, agent, b) for b in BLOCKS]
    for verb in (Verb.PUT_FUEL_FURNACE, Verb.PUT_ITEM_FURNACE, Verb.PUT_IN_CHEST):
        out += [Command(verb, agent, item) for item in ITEMS]
    out += [Command(Verb.CRAFT, agent, item) for item in CRAFTABLE]
    assert all((c.arg is None) == (c.verb in NO_ARG) for c in out)
    return out
