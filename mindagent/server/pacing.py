"""How fast a room steps when people play in it, and what a recording keeps of that.

A person needs time to read a change and act on it: measured in Chromium, a simulated person who
reacts 1.5 s after each state change served nothing at a step a second, and every click landed
at a step every 3 s. So a real-time room steps every `human_tick` seconds while someone plays an
agent (its `tick` when only machines play), and the first step waits `countdown` seconds after
the first person sits (or until a player says "ready"). Both are room settings, and the timing a
room used goes into its recording (header ``pacing``, and a ``pace`` line whenever it changes) so
studies can compare episodes played at different speeds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

#: Seconds per step in a real-time room while a person plays an agent (the default of human rooms).
HUMAN_TICK_S = 3.0
#: Seconds between the first person sitting down and step 0 (a player can skip it: "ready").
COUNTDOWN_S = 5.0


@dataclass(frozen=True)
class Pace:
    """The timing one room plays at. Example: ``Pace("realtime", 1.0, 3.0, 5.0).period(people=True)`` → 3.0."""

    mode: Literal["realtime", "turns"]
    tick: float
    human_tick: float | None
    countdown: float

    def period(self, people: bool) -> float:
        """Seconds between the room's clock ticks (a step per tick in real time)."""
        if people and self.mode == "realtime" and self.human_tick is not None:
            return max(self.tick, self.human_tick)
        return self.tick

    def record(self, people: bool) -> dict[str, Any]:
        """What a recording keeps: the settings and the step period in force."""
        return {"mode": self.mode, "tick": self.tick, "human_tick": self.human_tick, "countdown": self.countdown,
                "step_every_s": self.period(people) if self.mode == "realtime" else None}
