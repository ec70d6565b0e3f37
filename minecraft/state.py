"""The state as the dispatcher reads it, built from one observation (deterministic order).

Everything is sorted (agents in team order, items by name, blocks and entities by distance then
name) so that the same world gives byte-identical text, which keeps prompts cacheable and tests
exact. Tools every bot carries are left out of inventories: they never change.
"""

from __future__ import annotations

from collections.abc import Sequence

from minecraft.kitchen import TOOLS
from minecraft.orders import Order
from minecraft.protocol import BotView, FurnaceView, ItemStack, Observation

MAX_ENTITIES = 6


def _counts(counts: dict[str, int], skip: frozenset[str] = TOOLS) -> str:
    parts = [f"{n} {name}" for name, n in sorted(counts.items()) if name not in skip and n > 0]
    return ", ".join(parts) if parts else "nothing"


def _stack(stack: ItemStack | None) -> str:
    return f"{stack.count} {stack.name}" if stack else "empty"


def furnace_text(f: FurnaceView) -> str:
    status = "burning" if f.burn_ticks_left > 0 else "not burning"
    if f.cook_progress > 0 and f.cook_total > 0:
        status += f", {round(100 * f.cook_progress / f.cook_total)}% through the current item"
    return f"Furnace: input {_stack(f.input)}; fuel {_stack(f.fuel)}; output {_stack(f.output)} ({status})."


def bot_text(name: str, bot: BotView | None) -> str:
    if bot is None or not bot.connected:
        return f"{name}: not connected (rejoining)."
    pos = ", ".join(f"{v:g}" for v in (bot.position or []))
    blocks = sorted(bot.blocks.items(), key=lambda kv: (kv[1].nearest, kv[0]))
    block_text = ", ".join(f"{b} {seen.nearest:g}m" for b, seen in blocks) or "none"
    ents = sorted(bot.entities, key=lambda e: (e.distance, e.name))[:MAX_ENTITIES]
    ent_text = ", ".join(f"{e.name} {e.distance:g}m" for e in ents) or "none"
    busy = f"; busy with {bot.busy}" if bot.busy else ""
    return (f"{name}: at ({pos}); inventory: {_counts(bot.inventory)}{busy}. "
            f"Nearby blocks: {block_text}. Nearby entities: {ent_text}.")


def orders_text(orders: Sequence[Order], step: int) -> str:
    if not orders:
        return "Orders: none open."
    ordered = sorted(orders, key=lambda o: (o.remaining(step), o.created, o.dish))
    return "Orders (put into the chest): " + "; ".join(
        f"{o.dish} ({o.remaining(step)} steps left)" for o in ordered) + "."


def state_text(obs: Observation, agents: Sequence[str], orders: Sequence[Order], step: int,
               max_steps: int) -> str:
    """Example first lines: ``Step 3 of 60.`` / ``Orders (put into the chest): cooked_beef (7 steps left).``"""
    lines = [f"Step {step} of {max_steps}.", orders_text(orders, step), furnace_text(obs.furnace()),
             f"Chest: {_counts(obs.chest(), frozenset())}."]
    lines += [bot_text(name, obs.bots.get(name)) for name in agents]
    if obs.kitchen is not None:
        for player in obs.kitchen.players:
            if player.name not in agents:
                lines.append(f"Human player {player.name}: inventory: {_counts(player.inventory)}.")
    return "\n".join(lines)
