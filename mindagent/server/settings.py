"""How a room plays: the settings chosen when it is created, and the defaults they fall back to."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from mindagent.core.domain import DomainSession
from mindagent.core.spec import GameSpec
from mindagent.dispatch.dispatcher import DispatchSettings
from mindagent.dispatch.prompt import PromptConfig
from mindagent.server.pacing import Pace

#: A dispatcher call that takes longer than this is abandoned (its agents stay idle meanwhile).
DECISION_TIMEOUT_S = 120.0
#: Members of one room at once, by default (`--max-room-members`).
MAX_MEMBERS = 600


#: The partners a person may pick in the lobby: the built-in planner, the server's model, a random team.
PARTNERS = ("planner", "model", "random")


@dataclass(frozen=True)
class PlayerLimits:
    """What a person may choose in the lobby's "play" form (`ServerConfig.player_limits`): the
    server, not the page, decides the bounds. Example: ``PlayerLimits(max_agents=3, paces=(3.0,))``."""

    #: Team sizes a person may pick, the person's agent included.
    min_agents: int = 1
    max_agents: int = 4
    #: Seconds per step a person may pick (real time); the first is the lobby's default.
    paces: tuple[float, ...] = (3.0, 2.0, 5.0)
    #: Rooms opened this way at once on one server (each holds a game and a dispatcher).
    max_rooms: int = 50

    def check(self, agents: int, pace: float, paces: tuple[float, ...]) -> str | None:
        """Why a choice is outside the limits (`paces`: the ones offered for this game), or None."""
        if not self.min_agents <= agents <= self.max_agents:
            return f"a team of {self.min_agents} to {self.max_agents} agents, not {agents}"
        if pace not in paces:
            return f"a step every {' or '.join(f'{p:g}' for p in paces)} seconds, not {pace:g}"
        return None


@dataclass
class RoomSettings:
    """How a room plays. Example: ``RoomSettings(GameSpec(level="level_3", agents=4), "planner", "chosen at creation")``.

    `autoplay` starts the first episode without waiting for a person and starts the next one when
    an episode ends (a world people watch or join from a game client), up to `episodes` episodes."""

    spec: GameSpec
    model: str
    model_why: str
    mode: Literal["realtime", "turns"] = "realtime"
    tick: float = 1.0
    turn_timeout: float = 30.0
    public: bool = False
    prompt: PromptConfig = field(default_factory=PromptConfig)
    repair: int = 0
    decision_timeout: float = DECISION_TIMEOUT_S
    autoplay: bool = False
    episodes: int | None = None
    #: How the dispatcher answers; None: goal mode for an in-process model where the domain has
    #: one (a small local model is too slow to command every tick), one step per call otherwise.
    dispatch: DispatchSettings | None = None
    #: Real time: seconds per step while a person plays an agent (None: `tick` always); see pacing.py.
    human_tick: float | None = None
    #: Seconds from the first person sitting down to step 0 (0: start at once).
    countdown: float = 0.0
    #: A one-person practice room: the page gets a hint (the built-in planner's next command).
    practice: bool = False
    #: Members at once (players, directors, spectators); more are refused with ``bad_state``.
    max_members: int = MAX_MEMBERS
    #: What the person who opened the room chose in the lobby (level, agents, partner, pace), kept
    #: in the recording's header and the results; None for a room an admin or the server opened.
    chosen: dict[str, Any] | None = None
    #: A study's episode (study.py): ``{name, participant, index, of}``, kept in the recording's header.
    study: dict[str, Any] | None = None

    @property
    def pace(self) -> Pace:
        return Pace(self.mode, self.tick, self.human_tick, self.countdown)

    def describe(self) -> dict[str, Any]:
        s = self.spec
        return {"domain": s.domain, "level": s.level, "agents": s.agents, "tau": s.tau, "seed": s.seed, "mode": self.mode,
                "tick": self.tick, "turn_timeout": self.turn_timeout, "public": self.public,
                "human_tick": self.human_tick, "countdown": self.countdown, "practice": self.practice,
                "chosen": self.chosen}

    def recording_header(self, session: DomainSession, dispatch: DispatchSettings, episode: int, room: str,
                         players: bool) -> dict[str, Any]:
        """The first line of an episode's recording: everything a replay needs to rebuild the
        game and the dispatcher, and how the room was paced and who chose it."""
        return {
            **self.spec.header(), "max_steps": session.max_steps, "model": self.model,
            "prompt": self.prompt.to_dict(), "repair": self.repair, "dispatch": dispatch.to_dict(),
            **session.episode_header(), "episode": episode, "room": room,
            **{k: v for k, v in self.describe().items() if k in ("mode", "tick", "turn_timeout")},
            "pacing": self.pace.record(players),
            **({"chosen": self.chosen} if self.chosen is not None else {}),
            **({"study": self.study} if self.study is not None else {}),
        }


__all__ = ["DECISION_TIMEOUT_S", "MAX_MEMBERS", "PARTNERS", "PlayerLimits", "RoomSettings"]
