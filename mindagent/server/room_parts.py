"""What benchmarks, tests and the registry read of a room's parts, kept out of `room.py`.

A room is its clock, its seating and its decision task (each its own module); callers that only
want a figure (how late the ticks ran, who sits where) read it here instead of reaching into the
parts, so the parts can change without every caller following.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mindagent.dispatch.dispatcher import Decision
    from mindagent.server.clock import RoomClock
    from mindagent.server.decisions import Decisions
    from mindagent.server.seating import Seating


class RoomParts:
    """The read-only views; `Room` sets the three parts in its constructor."""

    clock: RoomClock
    seats: Seating
    decisions: Decisions

    @property
    def lags(self) -> deque[float]:
        return self.clock.lags

    @property
    def ticks_due(self) -> int:
        return self.clock.ticks_due

    @property
    def tick_runs(self) -> int:
        return self.clock.tick_runs

    @property
    def starts_at(self) -> float | None:
        return self.clock.starts_at

    @property
    def _queued(self) -> dict[int, str]:
        return self.seats.queued

    @property
    def _ready(self) -> Decision | None:
        return self.decisions.ready

    @property
    def period(self) -> float:
        """Seconds between clock ticks now (slower while a person plays in real time)."""
        return self.clock.period

    @property
    def members(self) -> int:
        return len(self.seats.members)

    @property
    def human_agents(self) -> list[int]:
        return self.seats.human_agents
