"""A director's words (a kitchen's head chef), read once into constraints every dispatcher obeys.

A person directing the team types short lines; the same few forms mean the same thing in every
game, whoever decides (a built-in planner, a language model, a goal or task-graph mode):

- ``make X``         keep making X ahead (a preference: told to a model, followed by a planner)
- ``only X``         (also ``only X and Y``) work on nothing but X (and Y)
- ``no X``           never make X
- ``<agent> do X``   that agent works on X only (``agent1 do X``, or the agent's name: ``Steve do X``)
- ``stop``           the team's agents wait until the next instruction
- ``go on``          (also ``go``, ``resume``, ``as you like``) forget the earlier instructions

X is one of the names the game lets a director use (`Directable.direction_names`: a kitchen's
dishes, a Minecraft order's item); case, spaces and underscores do not matter. Instructions stand
(re-read every step, oldest first; a later one overrides an earlier one on the same name). A line
of a game client's chat (``Visitor: no cooked_beef``) is read without its speaker's name.

`read_directions` gives the `Directions` and one reply per line it cannot follow; `answer`
replies to one new line (understood, or cannot follow and why), so every line a person types
gets a visible answer. `hold` holds a dispatcher's commands to the directions: a command that
breaks one is replaced by its agent's idle command and a reply says which and why. Nothing here
knows a game: the names, what a command makes and the idle command come from the session.

Example::

    d = read_directions(["no salmonSushi", "agent1 do tunaSushi"], {"salmonSushi": frozenset(),
                        "tunaSushi": frozenset()}, ["agent0", "agent1"])
    d.banned, d.assigned      # {'salmonSushi'}, {1: 'tunaSushi'}
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from mindagent.core.capabilities import Directable
from mindagent.core.domain import DomainSession

#: The language in one line, for replies, prompts and the page.
LANGUAGE = "make X, only X, no X, agentK do X, stop, go on"
_STOP = frozenset(("stop", "stop all", "everyone stop", "all stop", "wait", "hold", "halt"))
_GO = frozenset(("go", "go on", "resume", "continue", "as you like", "carry on", "start"))
_DO = re.compile(r"^(?P<who>agent\s*\d+|[a-z][a-z0-9_]*)\s*(?:,|:)?\s*(?:do|make|cook|works? on)\s+(?P<what>.+)$")
_SPEAKER = re.compile(r"^[A-Za-z0-9_]{1,24}:\s+(?P<rest>\S.*)$")
_LIST_SPLIT = re.compile(r"\s*(?:,|\band\b|&|\+)\s*")


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


@dataclass
class Directions:
    """What the standing instructions ask of the team (the neutral value: nothing asked)."""

    allowed: frozenset[str] | None = None  # None: every name
    banned: set[str] = field(default_factory=set)
    make: str | None = None
    assigned: dict[int, str] = field(default_factory=dict)  # agent -> name
    stopped: bool = False
    replies: list[str] = field(default_factory=list)

    def permits(self, name: str) -> bool:
        """Whether the team may make `name` (an assigned agent's own limit is `permits_for`)."""
        return name not in self.banned and (self.allowed is None or name in self.allowed)

    @property
    def neutral(self) -> bool:
        """Nothing is asked (every line so far was undone by ``go on`` or could not be followed)."""
        return (self.allowed is None and not self.banned and self.make is None and not self.assigned
                and not self.stopped)

    def summary(self, agent_names: Sequence[str]) -> list[str]:
        """The standing directions in plain words, one line each (for a prompt or a page)."""
        out: list[str] = []
        if self.stopped:
            out.append("every agent waits (stop)")
        if self.allowed is not None:
            out.append("only " + ", ".join(sorted(self.allowed)))
        if self.banned:
            out.append("never make " + ", ".join(sorted(self.banned)))
        if self.make is not None:
            out.append(f"make {self.make} ahead")
        for agent, name in sorted(self.assigned.items()):
            out.append(f"{agent_names[agent] if agent < len(agent_names) else f'agent{agent}'} works on {name} only")
        return out


class _Reader:
    """One pass over the standing lines, oldest first."""

    def __init__(self, names: Mapping[str, frozenset[str]], agent_names: Sequence[str]) -> None:
        self.names = names
        self.by_key = {_key(n): n for n in names}
        self.agents = {_key(a): k for k, a in enumerate(agent_names)}
        self.agent_names = list(agent_names)
        self.d = Directions()

    def cannot(self, line: str, why: str) -> None:
        self.d.replies.append(f'Cannot follow "{line}": {why}.')

    def name_list(self, text: str, line: str) -> list[str] | None:
        parts = [p for p in _LIST_SPLIT.split(text) if p.strip()]
        found = [self.by_key.get(_key(p)) for p in parts]
        if not parts or any(f is None for f in found):
            unknown = next((p for p, f in zip(parts, found, strict=True) if f is None), text)
            self.cannot(line, f'"{unknown.strip()[:40]}" is not one of {", ".join(self.names) or "the names here"}')
            return None
        return [f for f in found if f is not None]

    def agent(self, who: str) -> int | None:
        if who in self.agents:
            return self.agents[who]
        match = re.fullmatch(r"agent\s*(\d+)", who)
        return int(match[1]) if match else None

    def read(self, raw: str) -> None:
        line = " ".join(raw.split()).strip(" .!")
        if not self._one(line):
            spoken = _SPEAKER.match(line)  # a chat line: "Visitor: no cooked_beef"
            if spoken is None or not self._one(spoken["rest"].strip(" .!")):
                self.cannot(line, f"the words understood are {LANGUAGE} (X: one of {', '.join(self.names)})")

    def _one(self, line: str) -> bool:
        """Apply `line` if it is one of the forms (a reply already said why a known form failed)."""
        low, d = line.lower(), self.d
        if low in _STOP:
            d.stopped = True
        elif low in _GO:
            self.d = Directions(replies=d.replies)
        elif low.startswith(("only ", "no ", "make ")):
            verb, rest = line.split(" ", 1)
            picked = self.name_list(rest, line)
            if picked is not None:
                d.stopped = False
                if verb.lower() == "only":
                    d.allowed = frozenset(picked)
                    d.banned -= set(picked)
                elif verb.lower() == "no":
                    d.banned |= set(picked)
                else:
                    d.make = picked[0]
                    d.banned.discard(picked[0])
        elif (match := _DO.match(low)) and (agent := self.agent(match["who"])) is not None:
            if agent >= len(self.agent_names):
                self.cannot(line, f"there is no agent{agent} (the agents are {', '.join(self.agent_names)})")
            elif (picked := self.name_list(line[match.start("what"):], line)) is not None:
                d.assigned[agent] = picked[0]
                d.stopped = False
        else:
            return False
        return True

    def finish(self) -> Directions:
        d = self.d
        for agent, name in list(d.assigned.items()):
            if not d.permits(name):
                d.replies.append(f"{self.agent_names[agent]} cannot work on {name}: another instruction rules "
                                 f"{name} out.")
                del d.assigned[agent]
        return d


def read_directions(lines: Sequence[str], names: Mapping[str, frozenset[str]],
                    agent_names: Sequence[str]) -> Directions:
    """Standing lines, oldest first, into `Directions`, with one reply per line it cannot follow.

    `names` maps each name a director may use to the names it is made of (a kitchen's
    ``{"mixedSashimi": {"salmonSashimi", "tunaSashimi"}, ...}``): an agent told to make X may
    make X's parts."""
    reader = _Reader(names, agent_names)
    for line in lines:
        if line.strip():
            reader.read(line)
    return reader.finish()


def answer(line: str, names: Mapping[str, frozenset[str]], agent_names: Sequence[str]) -> tuple[bool, str]:
    """The reply to one new line: (understood, words). Example: ``answer("no tunaSushi", ...)`` →
    ``(True, "Understood: never make tunaSushi.")``."""
    alone = read_directions([line], names, agent_names)
    if alone.replies:
        return False, alone.replies[0]
    said = alone.summary(agent_names)
    return True, "Understood: " + ("; ".join(said) if said else "earlier instructions are forgotten") + "."


def answer_standing(session: DomainSession, line: str) -> tuple[bool, str]:
    """The reply to `line`, the newest of the session's standing instructions, read with the ones
    before it: a line that clashes with them (``agent1 do X`` under ``no X``) is answered so."""
    names, agents = names_of(session), session.agent_names
    standing = session.pending_instructions()
    before = read_directions([s for s in standing if s != line], names, agents).replies
    clash = [r for r in read_directions(standing, names, agents).replies if r not in before]
    understood, reply = answer(line, names, agents)
    return (False, clash[0]) if understood and clash else (understood, reply)


def heard(session: DomainSession, line: str) -> dict[str, str | bool]:
    """A new line (already standing) with its reply, as a room keeps it: ``{"text", "reply", "understood"}``."""
    understood, reply = answer_standing(session, line)
    return {"text": line, "reply": reply, "understood": understood}


def names_of(session: DomainSession) -> dict[str, frozenset[str]]:
    """The names a director may use in `session` and their parts (the `Directable` capability;
    otherwise the dishes of the open orders, without parts)."""
    if isinstance(session, Directable):
        return {n: frozenset(p) for n, p in session.direction_names().items()}
    return {str(o["dish"]): frozenset() for o in session.orders_snapshot()}


def directions_of(session: DomainSession, lines: Sequence[str] | None = None) -> Directions:
    """The session's standing instructions (or `lines`) read with its names."""
    standing = session.pending_instructions() if lines is None else lines
    return read_directions(standing, names_of(session), session.agent_names)


def breaks(session: DomainSession, d: Directions, command: str) -> str | None:
    """Why `command` breaks a direction now (None: it does not). An idle command never does."""
    agent = session.agent_of(command)
    if agent is None or command.strip() == session.idle_command(agent):
        return None
    if d.stopped:
        return "the instruction is stop"
    made = session.command_makes(command) if isinstance(session, Directable) else None
    if made is None:
        return None
    names = names_of(session)
    if made in d.banned or not (d.allowed is None or made in d.allowed
                                or any(made in names.get(n, frozenset()) for n in d.allowed)):
        return f"it makes {made}, which an instruction rules out"  # (a part of an allowed name is allowed)
    wanted = d.assigned.get(agent)
    if wanted is not None and made != wanted and made not in names.get(wanted, frozenset()):
        return f"it makes {made}, and {session.agent_names[agent]} is to work on {wanted} only"
    return None


def hold(session: DomainSession, d: Directions, commands: Sequence[str]) -> tuple[list[str], list[str]]:
    """`commands` with each one that breaks a direction replaced by its agent's idle command, and
    one reply per replacement. Example: under ``stop`` →
    ``(["noop_agent0"], ['get_agent0_tuna_storage0 was not sent (the instruction is stop); agent0 waits.'])``."""
    if d.neutral:
        return list(commands), []
    out: list[str] = []
    replies: list[str] = []
    for command in commands:
        why = breaks(session, d, command)
        if why is None:
            out.append(command)
            continue
        agent = session.agent_of(command)
        assert agent is not None  # `breaks` answers None for a command of no agent
        out.append(session.idle_command(agent))
        replies.append(f"{command.strip()} was not sent ({why}); {session.agent_names[agent]} waits.")
    return out, replies


def reads(model: bool, directable: bool) -> str:
    """What a room's dispatcher does with a director's words, for the page's instruction box."""
    if model:
        held = " and its commands are held to them" if directable else ""
        return (f"The language model reads your words{held}: {LANGUAGE}. Every line gets a reply; "
                "other words reach the model as they are.")
    return f"The built-in team follows {LANGUAGE}; every line gets a reply."


__all__ = ["LANGUAGE", "Directions", "answer", "answer_standing", "breaks", "directions_of", "heard", "hold", "names_of",
           "read_directions", "reads"]
