"""What the model is told about an escape room: the rooms and their hints (VillagerBench puts the
hints on signs in each room; here they are part of the prompt) and the commands."""

from __future__ import annotations

from minecraft.families.escape_room import Room, mechanisms

INSTRUCTIONS = (
    "You guide Minecraft bots out of an escape room: a row of rooms, each closed by a door that opens when its "
    "puzzle is done; behind the last door is the exit. Give each bot one command per step, one per line:\n"
    "stand(Bot, plateN): walk onto a pressure plate and stay on it\n"
    "flip(Bot, leverN): switch a lever on\n"
    "take(Bot, chestN): take everything a chest holds\n"
    "unlock(Bot, doorN): open a door with its key (the bot must carry it)\n"
    "exit(Bot): walk to the exit (every door open)\n"
    "wait(Bot): do nothing; a bot on a plate keeps holding it\n"
    "Bots can only reach rooms whose doors behind them are open. Any other command takes a bot off its plate. "
    "Only one lever of a room may be flipped per step. The team escapes when every bot is at the exit.")


def room_lines(room: Room) -> list[str]:
    """One hint line per room, naming its mechanisms, then the exit."""
    mechs = mechanisms(room)
    lines = []
    for r, stage in enumerate(room.stages):
        chests = [m.name for m in mechs if m.kind == "chest" and m.room == r]
        inside = f" Chests here: {', '.join(chests)}." if chests else ""
        if stage.kind == "plates":
            plates = [m.name for m in mechs if m.kind == "plate" and m.room == r]
            together = " at the same time" if len(plates) > 1 else ""
            hint = f"stand on {' and '.join(plates)}{together} to open door{r + 1}."
        elif stage.kind == "levers":
            levers = {m.index: m.name for m in mechs if m.kind == "lever" and m.room == r}
            hint = (f"flip {', then '.join(levers[k] for k in stage.order)} in that order to open door{r + 1} "
                    "(a lever out of turn switches them all off).")
        else:
            hint = f"door{r + 1} opens with a {stage.key}; it lies in a chest of this room or an earlier one."
        lines.append(f"Room {r + 1}: {hint}{inside}")
    lines.append(f"Room {len(room.stages) + 1}: the exit.")
    return lines
