"""The command language: ``verb(chefK)`` or ``verb(chefK, target)``, one per chef.

Two levels share one shape. Medium-level verbs are LLM-Coordination's action set (pick up, put
an onion in a pot, fill a dish, deliver, place on a counter, wait, move away); each runs over
several timesteps. Primitive verbs are the six Overcooked actions, one timestep each, for people
and RL. The shape is easy to find in chatty model text (a verb, a parenthesis, a chef name) and
easy to read in a prompt. Parsing is ASCII-only and exact: ``Wait(Chef0)`` is not a command.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: verb -> the target kind it takes ("pot", "counter") or None.
MEDIUM: dict[str, str | None] = {
    "pickup_onion": None,
    "pickup_dish": None,
    "pickup_soup": None,
    "put_onion": "pot",
    "fill_dish": "pot",
    "deliver": None,
    "place": "counter",
    "wait": None,
    "move_away": None,
}
PRIMITIVE: tuple[str, ...] = ("up", "down", "left", "right", "stay", "interact")
VERBS: tuple[str, ...] = (*MEDIUM, *PRIMITIVE)
TARGET_PREFIX = {"pot": "pot", "counter": "k"}
#: Longer than any real command; longer text is refused before any pattern runs.
MAX_COMMAND = 64

_VERB = "|".join(sorted(VERBS, key=len, reverse=True))
_EXACT = re.compile(rf"({_VERB})\(\s*chef(\d{{1,2}})\s*(?:,\s*(pot|k)(\d{{1,3}})\s*)?\)", re.ASCII)
_FIND = re.compile(rf"(?<![A-Za-z0-9_])({_VERB})\(\s*chef(\d{{1,2}})\s*(?:,\s*(pot|k)(\d{{1,3}})\s*)?\)", re.ASCII)


@dataclass(frozen=True, slots=True)
class Command:
    """One parsed command. Example: ``Command("put_onion", 0, "pot1")`` is ``put_onion(chef0, pot1)``."""

    verb: str
    chef: int
    target: str | None = None

    def __str__(self) -> str:
        return f"{self.verb}(chef{self.chef}, {self.target})" if self.target else f"{self.verb}(chef{self.chef})"

    @property
    def primitive(self) -> bool:
        return self.verb in PRIMITIVE


class Unreadable(ValueError):
    """Text that is not a command of this game; `code` says how it fails."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def parse(text: str, n_chefs: int) -> Command:
    """One command from its text (surrounding whitespace allowed); `Unreadable` otherwise.

    Example: ``parse(" put_onion(chef1, pot0) ", 2)`` → ``Command("put_onion", 1, "pot0")``."""
    body = text.strip()
    if len(body) > MAX_COMMAND:
        raise Unreadable("unreadable", "too long to be a command")
    match = _EXACT.fullmatch(body)
    if match is None:
        raise Unreadable("unreadable", "not a command of this game")
    return _command(match, n_chefs)


def _command(match: re.Match[str], n_chefs: int) -> Command:
    verb, chef_digits, kind, number = match.groups()
    chef = int(chef_digits)
    if chef >= n_chefs or chef_digits != str(chef):
        raise Unreadable("no_such_chef", f"there is no chef{chef_digits}")
    wanted = MEDIUM.get(verb)
    if wanted is None and kind is not None:
        raise Unreadable("unexpected_target", f"{verb} takes no target")
    if wanted is not None and kind is None:
        raise Unreadable("missing_target", f"{verb} needs a {wanted} (e.g. {verb}(chef{chef}, {TARGET_PREFIX[wanted]}0))")
    if wanted is not None and kind != TARGET_PREFIX[wanted]:
        raise Unreadable("wrong_target", f"{verb} needs a {wanted}, not {kind}{number}")
    if number is not None and number != str(int(number)):
        raise Unreadable("unreadable", f"{kind}{number} is not a name on the map")
    return Command(verb, chef, None if kind is None else f"{kind}{number}")


def extract(text: str, n_chefs: int) -> list[Command]:
    """The commands in free text, in order, at most one per chef (the first that parses), so a
    model that thinks aloud about a partner's options does not command that partner twice."""
    found: dict[int, Command] = {}
    for match in _FIND.finditer(text):
        try:
            command = _command(match, n_chefs)
        except Unreadable:
            continue
        found.setdefault(command.chef, command)
    return list(found.values())


def grammar_rules(n_chefs: int, pots: int, counters: int, only: int | None = None) -> str:
    """GBNF of one answer: one line per chef (or only chef `only`), each a well-formed command."""
    chefs = range(n_chefs) if only is None else [only]
    newline = ' "\\n" '
    lines = ["root ::= " + newline.join(f"chef{c}" for c in chefs)]
    bare = " | ".join(f'"{v}"' for v in VERBS if MEDIUM.get(v) is None)
    for c in chefs:
        alternatives = [f'({bare}) "(chef{c})"']
        if pots:
            alternatives.append(f'("put_onion" | "fill_dish") "(chef{c}, " pot ")"')
        if counters:
            alternatives.append(f'"place(chef{c}, " counter ")"')
        lines.append(f"chef{c} ::= {' | '.join(alternatives)}")
    if pots:
        lines.append("pot ::= " + " | ".join(f'"pot{i}"' for i in range(pots)))
    if counters:
        lines.append("counter ::= " + " | ".join(f'"k{i}"' for i in range(counters)))
    return "\n".join(lines) + "\n"
