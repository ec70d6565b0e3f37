"""Who sits where in a room: the seats, the people per role, who plays which agent, and what each
person's agent has queued for the next step.

Kept apart from the room so that the rules of sitting down (one person per agent, a full room
refuses newcomers) are read in one place; the room decides what a join or a leave sets off.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from mindagent.core.domain import CommandError, DomainSession
from mindagent.server.protocol import ProtocolError

Role = Literal["player", "head_chef", "spectator"]
#: Every role, in the order the page counts them.
ROLES: tuple[Role, ...] = ("player", "head_chef", "spectator")


class Member(Protocol):
    """Someone in a room: a websocket connection, or a test double. `push` must not block."""

    name: str

    def push(self, message: dict[str, Any]) -> None: ...


@dataclass
class Seat:
    role: Role
    agent: int | None = None


class Seating:
    """The seats of one room. Example: ``Seating(2).sit(member, "player", 0)``."""

    def __init__(self, n_agents: int) -> None:
        self.n_agents = n_agents
        self.members: dict[Member, Seat] = {}
        self.roles: dict[str, int] = dict.fromkeys(ROLES, 0)  # people per role
        #: The person playing each agent.
        self.players: dict[int, Member] = {}
        #: A person's command for the next step, per agent.
        self.queued: dict[int, str] = {}
        #: What each person's agent did last: command, accepted, why not.
        self.last_human: dict[int, tuple[str, bool, str | None]] = {}
        #: People who sat in a playing seat during this episode (they get the questionnaire).
        self.played: set[Member] = set()

    def check(self, member: Member, role: Role, agent: int | None, max_members: int) -> None:
        """Raise `ProtocolError` ("invalid", "seat_taken", "bad_state") if `member` may not sit there."""
        if role == "player":
            if agent is None or not 0 <= agent < self.n_agents:
                raise ProtocolError("invalid", f"pick an agent from 0 to {self.n_agents - 1}")
            holder = self.players.get(agent)
            if holder is not None and holder is not member:
                raise ProtocolError("seat_taken", f"agent{agent} already has a player")
        if member not in self.members and len(self.members) >= max_members:
            raise ProtocolError("bad_state", f"this room is full ({max_members} people)")

    def sit(self, member: Member, role: Role, agent: int | None) -> Seat:
        """Seat a member who has no seat (after `check`); only a player keeps its agent."""
        seat = Seat(role, agent if role == "player" else None)
        self.members[member] = seat
        self.roles[role] += 1
        if seat.agent is not None:
            self.players[seat.agent] = member
        return seat

    def stand(self, member: Member) -> Seat | None:
        """Free `member`'s seat (and its agent's queued command); None if it had none."""
        seat = self.members.pop(member, None)
        if seat is None:
            return None
        self.roles[seat.role] -= 1
        if seat.agent is not None and self.players.get(seat.agent) is member:
            del self.players[seat.agent]
            self.queued.pop(seat.agent, None)
        return seat

    def command_of(self, member: Member, text: str, session: DomainSession, status: str) -> tuple[int, str]:
        """The agent `member` plays and its command parsed from `text`; `ProtocolError` if `member`
        plays no agent, the room is not running, the text is no command or another agent's."""
        seat = self.seat_of(member)
        if seat.role != "player" or seat.agent is None:
            raise ProtocolError("forbidden", "only players command agents; join as a player")
        if status != "running":
            raise ProtocolError("bad_state", f"the room is {status}")
        try:
            command = session.parse_command(text)
        except CommandError as exc:
            raise ProtocolError("bad_command", str(exc)) from None
        agent = session.agent_of(command)
        if agent != seat.agent:
            names = session.agent_names
            raise ProtocolError("forbidden", f"you control {names[seat.agent]}; "
                                             f"{'that command names no agent' if agent is None else names[agent] + ' is not yours'}")
        return seat.agent, command

    def seat_of(self, member: Member) -> Seat:
        seat = self.members.get(member)
        if seat is None:
            raise ProtocolError("no_room", "join a room first")
        return seat

    @property
    def human_agents(self) -> list[int]:
        return sorted(self.players)

    @property
    def anyone_plays(self) -> bool:
        """Someone holds a seat that plays (a player or a director), not only spectators."""
        return any(seat.role != "spectator" for seat in self.members.values())

    def people(self) -> dict[str, int]:
        return dict(self.roles)

    def new_episode(self) -> None:
        """What a person did belongs to one episode; the seats stay."""
        self.queued, self.last_human = {}, {}
        self.played.clear()

    def take_queued(self) -> dict[int, str]:
        """The queued commands of agents a person still plays, emptying the queue."""
        human = {a: c for a, c in self.queued.items() if a in self.players}
        self.queued.clear()
        return human

    def remember(self, actions: list[dict[str, Any]]) -> None:
        """What each person's agent did in a step (`encoding.step_record`'s actions), for the prompt."""
        for action in actions:
            if action["by"] != "human":
                continue
            self.last_human[action["agent"]] = ("nothing (no command in time)", True, None) if action["idle"] \
                else (action["command"], action["ok"], action["reason"])

    def role_text(self, seat: Seat, agent_names: list[str], director: str) -> str:
        """How an event line names a seat: ``player of agent0``, the game's word for the director."""
        if seat.role == "player" and seat.agent is not None:
            return f"player of {agent_names[seat.agent]}"
        return director if seat.role == "head_chef" else seat.role

    def people_lines(self, agent_names: list[str]) -> list[str]:
        """The prompt's lines about the agents people play and what each did last."""
        if not self.players:
            return []
        lines = ["People in the team (do not command their agents; work with them):"]
        for a in sorted(self.players):
            last = self.last_human.get(a)
            if last is None:
                did = "nothing yet"
            else:
                did = last[0] if last[0].startswith("nothing") else \
                    f"{last[0]} ({'done' if last[1] else 'refused: ' + (last[2] or 'no reason given')})"
            lines.append(f"- {agent_names[a]} is played by a person. Last step it did: {did}")
        return lines


__all__ = ["ROLES", "Member", "Role", "Seat", "Seating"]
