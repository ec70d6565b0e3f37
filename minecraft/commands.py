"""Dispatcher commands for the Minecraft kitchen, parsed from model text with one regex.

The reference release ran the model's text through ``eval``; here text only ever becomes a
frozen `Command` or nothing. Syntax: ``verb(Agent)`` or ``verb(Agent, name)``, e.g.
``killMob(Alex, cow)``, ``putInChest(Steve, cooked_beef)``, ``takeOutFurnace(Alex)``,
``craft(Alex, bowl)``.
Verbs and agent names match case-insensitively (the paper prints ``kiLFMob``; we do not
guess at typos beyond case), arguments are Minecraft ids (lowercase, ``minecraft:`` allowed).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from mindagent.core.gbnf import literal
from minecraft.kitchen import ITEMS, TARGETS


class Verb(StrEnum):
    GOTO = "goto"
    KILL_MOB = "killMob"
    MINE_BLOCK = "mineBlock"
    PUT_FUEL_FURNACE = "putFuelFurnace"
    PUT_ITEM_FURNACE = "putItemFurnace"
    TAKE_OUT_FURNACE = "takeOutFurnace"
    PUT_IN_CHEST = "putInChest"
    CRAFT = "craft"
    NOOP = "noop"


# Verbs that take no argument besides the agent.
NO_ARG = frozenset({Verb.TAKE_OUT_FURNACE, Verb.NOOP})
_BY_LOWER = {v.value.lower(): v for v in Verb}
_VOCABULARY = frozenset((*TARGETS, *ITEMS))

COMMAND_RE = re.compile(
    r"(?<![A-Za-z0-9_])(?P<verb>[A-Za-z]{4,16})\(\s*(?P<agent>[A-Za-z][A-Za-z0-9_]{0,15})\s*"
    r"(?:,\s*['\"]?(?:minecraft:)?(?P<arg>[A-Za-z][A-Za-z0-9_]{0,39})['\"]?\s*)?\)"
)


class CommandSyntaxError(ValueError):
    """A string that is not one well-formed command for this team."""


@dataclass(frozen=True, slots=True)
class Command:
    """One agent's action. Example: ``Command(Verb.KILL_MOB, "Alex", "cow").text == "killMob(Alex, cow)"``."""

    verb: Verb
    agent: str
    arg: str | None = None

    @property
    def text(self) -> str:
        return f"{self.verb.value}({self.agent})" if self.arg is None else f"{self.verb.value}({self.agent}, {self.arg})"

    def bridge_args(self) -> dict[str, str]:
        """The bridge request arguments of this command (noop has none)."""
        key = {Verb.GOTO: "target", Verb.KILL_MOB: "mob", Verb.MINE_BLOCK: "block"}.get(self.verb, "item")
        return {"bot": self.agent} if self.arg is None else {"bot": self.agent, key: self.arg}


def _build(match: re.Match[str], agents: Sequence[str]) -> Command:
    verb = _BY_LOWER.get(match["verb"].lower())
    if verb is None:
        raise CommandSyntaxError(f"unknown action {match['verb']!r}")
    by_lower = {a.lower(): a for a in agents}
    agent = by_lower.get(match["agent"].lower())
    if agent is None:
        raise CommandSyntaxError(f"unknown agent {match['agent']!r}")
    raw = match["arg"]
    # the game's own names are lowercase; anything else (a player's name) keeps its case
    arg = None if not raw else raw.lower() if raw.lower() in _VOCABULARY else raw
    if verb in NO_ARG and arg is not None:
        raise CommandSyntaxError(f"{verb.value} takes only the agent")
    if verb not in NO_ARG and arg is None:
        raise CommandSyntaxError(f"{verb.value} needs the agent and one name")
    return Command(verb, agent, arg)


def parse_command(text: str, agents: Sequence[str]) -> Command:
    """Parse exactly one command (surrounding whitespace allowed); raise CommandSyntaxError."""
    match = COMMAND_RE.fullmatch(text.strip())
    if match is None:
        raise CommandSyntaxError(f"not a command: {text[:80]!r}")
    return _build(match, agents)


def extract_commands(text: str, agents: Sequence[str]) -> list[Command]:
    """Every well-formed command in free text, at most one per agent (the first wins), in agent order."""
    first: dict[str, Command] = {}
    for match in COMMAND_RE.finditer(text):
        try:
            command = _build(match, agents)
        except CommandSyntaxError:
            continue
        first.setdefault(command.agent, command)
    return [first[a] for a in agents if a in first]


def _alt(words: Sequence[str]) -> str:
    return " | ".join(literal(w) for w in sorted(set(words)))


def gbnf(agents: Sequence[str], targets: Sequence[str], mobs: Sequence[str], blocks: Sequence[str],
         items: Sequence[str]) -> str:
    """A GBNF grammar for the local model: exactly one command per agent, one per line, in agent order.

    The root names each agent's line once and repeats nothing, so the only continuation after the
    last agent's command is the end of the answer: a small model cannot run on with repeated
    lines up to the token limit (``noop(Alex)\\nnoop(Steve)\\nnoop(Steve)...``).
    """
    if not agents:
        raise ValueError("a Minecraft grammar needs at least one agent")
    rules = ["root ::= " + ' "\\n" '.join(f"line{k}" for k in range(len(agents)))]
    for k, name in enumerate(agents):
        rules.append(
            f"line{k} ::= "
            + " | ".join([
                f'"goto({name}, " target ")"', f'"killMob({name}, " mob ")"',
                f'"mineBlock({name}, " block ")"', f'"putFuelFurnace({name}, " item ")"',
                f'"putItemFurnace({name}, " item ")"', f'"takeOutFurnace({name})"',
                f'"putInChest({name}, " item ")"', f'"craft({name}, " item ")"', f'"noop({name})"',
            ])
        )
    rules += [f"target ::= {_alt(targets)}", f"mob ::= {_alt(mobs)}", f"block ::= {_alt(blocks)}",
              f"item ::= {_alt(items)}"]
    return "\n".join(rules) + "\n"
