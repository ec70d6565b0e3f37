"""The escape family's commands, read from model text with one regex (never evaluated).

Syntax (mechanisms by the names the room description gives them)::

    stand(Alex, plate1)     walk onto a pressure plate and stay there
    flip(Alex, lever2)      switch a lever on
    take(Alex, chest1)      take everything a chest holds
    unlock(Alex, door2)     open a door with the key it needs (the bot carries it)
    exit(Alex)              walk to the exit (every door open)
    wait(Alex)              do nothing (a bot on a plate keeps holding it)

Verbs and agent names match case-insensitively.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Verb = Literal["stand", "flip", "take", "unlock", "exit", "wait"]
#: The mechanism kind each verb works on (exit and wait take none).
TARGET_KIND: dict[str, str] = {"stand": "plate", "flip": "lever", "take": "chest", "unlock": "door"}

COMMAND_RE = re.compile(
    r"(?<![A-Za-z0-9_])(?P<verb>stand|flip|take|unlock|exit|wait)\(\s*(?P<agent>[A-Za-z][A-Za-z0-9_]{0,15})\s*"
    r"(?:,\s*(?P<target>[A-Za-z]{1,8}\d{1,3})\s*)?\)",
    re.IGNORECASE,
)


class EscapeSyntaxError(ValueError):
    """Text that is not one well-formed escape command for this team."""


@dataclass(frozen=True, slots=True)
class EscapeCommand:
    """One bot's action. Example: ``EscapeCommand("stand", "Alex", "plate1").text == "stand(Alex, plate1)"``."""

    verb: Verb
    agent: str
    target: str | None = None

    @property
    def text(self) -> str:
        return f"{self.verb}({self.agent}, {self.target})" if self.target else f"{self.verb}({self.agent})"


def _build(match: re.Match[str], agents: Sequence[str]) -> EscapeCommand:
    verb: Verb = match["verb"].lower()  # type: ignore[assignment]
    agent = {a.lower(): a for a in agents}.get(match["agent"].lower())
    if agent is None:
        raise EscapeSyntaxError(f"unknown agent {match['agent']!r}")
    target = match["target"].lower() if match["target"] else None
    kind = TARGET_KIND.get(verb)
    if kind is None and target is None:
        return EscapeCommand(verb, agent)
    if kind is not None and target is not None and re.fullmatch(rf"{kind}\d+", target):
        return EscapeCommand(verb, agent, target)
    want = f"a {kind} (e.g. {kind}1)" if kind else "nothing but the bot"
    raise EscapeSyntaxError(f"{verb} takes {want}")


def parse_escape_command(text: str, agents: Sequence[str]) -> EscapeCommand:
    """Exactly one command (surrounding whitespace allowed), else `EscapeSyntaxError`."""
    match = COMMAND_RE.fullmatch(text.strip())
    if match is None:
        raise EscapeSyntaxError(f"not a command: {text.strip()[:80]!r}")
    return _build(match, agents)


def extract_escape_commands(text: str, agents: Sequence[str]) -> list[EscapeCommand]:
    """Every well-formed command in free text, the first per agent, in agent order."""
    first: dict[str, EscapeCommand] = {}
    for match in COMMAND_RE.finditer(text):
        try:
            command = _build(match, agents)
        except EscapeSyntaxError:
            continue
        first.setdefault(command.agent, command)
    return [first[a] for a in agents if a in first]
