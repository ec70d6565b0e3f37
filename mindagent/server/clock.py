"""A room's clock and pace: when ticks fall, how late they ran, the countdown before step 0, and
what happens when the people leave.

Real time steps every `period` seconds: `settings.tick`, or `human_tick` while a person plays an
agent (`pacing.py`). The first step waits a `countdown` after the first person sits down. A room
nobody plays in any more goes back to waiting (a practice room closes).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mindagent.server.room import Room

log = logging.getLogger(__name__)

#: Scheduled ticks whose lateness a room keeps (for benchmarks; the oldest are dropped).
LATENESS_KEPT = 20_000


class RoomClock:
    """The schedule and pace of one room; the room asks it, and it asks the room to start or rest."""

    def __init__(self, room: Room, now: Callable[[], float]) -> None:
        self._room = room
        self.now = now
        self.origin = now()
        self.due = self.origin  # the next scheduled tick not yet run
        #: Clock honesty (benchmarks): each scheduled tick's lateness, measured from its own
        #: scheduled time to the run that served it; a tick skipped or merged into a late run
        #: counts with that run's lateness, and `ticks_due` against `tick_runs` shows the merging.
        self.lags: deque[float] = deque(maxlen=LATENESS_KEPT)
        self.ticks_due = 0
        self.tick_runs = 0
        self.period = room.settings.tick
        #: Turn mode: when the current step's timer runs out.
        self.deadline = 0.0
        self.starts_at: float | None = None
        self._countdown: asyncio.Task[None] | None = None

    # ---------------------------------------------------------------- schedule
    def schedule(self, origin: float) -> None:
        """The wall-clock time of the first tick; ticks fall every period after it."""
        self.origin = origin
        self.due = origin

    def count_due(self, now: float) -> None:
        """Every scheduled tick up to now is served by this run (a run up to half a period early
        serves the next one: the scheduler's timer may fire a hair before its time)."""
        self.tick_runs += 1
        period = self.period
        if self.due > now + period / 2:
            return
        due = int((now + period / 2 - self.due) // period) + 1
        for k in range(min(due, LATENESS_KEPT)):  # a clock stalled for hours is not worth a list
            self.lags.append(max(0.0, now - (self.due + k * period)))
        self.ticks_due += due
        self.due += due * period

    def restart_schedule(self) -> None:
        """Real time: an episode starts now, so its first step falls one full period from now.

        The room's ticks keep the phase they were scheduled with; an episode that starts between two
        of them (a countdown of 5 s at a step every 3 s) had a first step 1 s long. The registry's
        hook moves the clock job to start a period after now."""
        if self._room.settings.mode == "realtime" and self._room.on_pace is not None:
            self._room.on_pace()

    def restart_turn(self) -> None:
        """Turn mode: a new step's timer starts now."""
        self.deadline = self.now() + self._room.settings.turn_timeout

    def next_step_in(self, now: float) -> float:
        if self._room.settings.mode == "realtime":
            return self.period - ((now - self.origin) % self.period)
        return max(0.0, self.deadline - now)

    def starts_in(self, now: float) -> float | None:
        return round(max(0.0, self.starts_at - now), 3) if self.starts_at is not None else None

    # -------------------------------------------------------------------- pace
    def update_pace(self) -> None:
        """People joined or left: move to their pace or back to the machines' (recorded if it changed)."""
        room = self._room
        players = room.seats.players
        period = room.settings.pace.period(bool(players))
        if period == self.period:
            return
        self.period = period
        room.log.note("pace", step=room.session.step_index, step_every_s=period, people=len(players))
        if room.on_pace is not None:
            room.on_pace()

    def begin(self) -> None:
        """A person sat down in a waiting room: count down to step 0 (or start at once)."""
        room = self._room
        if room.status != "waiting" or self._countdown is not None:
            return
        wait = room.settings.countdown
        if wait <= 0:
            room.start(announce=False)
            return
        self.starts_at = self.now() + wait
        self._countdown = asyncio.get_running_loop().create_task(self._count_down(wait))
        room.event(f"the game starts in {wait:g} seconds (a player can press Ready to start now)")

    async def _count_down(self, wait: float) -> None:
        await asyncio.sleep(wait)
        self._countdown = None
        self.starts_at = None
        if self._room.status == "waiting" and self._room.seats.anyone_plays:
            self._room.start()

    def stop_countdown(self) -> None:
        task, self._countdown, self.starts_at = self._countdown, None, None
        if task is not None and task is not asyncio.current_task() and not task.done():
            task.cancel()

    def if_deserted(self) -> None:
        """Nobody plays any more: a practice room or a person's own room closes, any other (not autoplay)
        goes back to waiting."""
        room = self._room
        if room.settings.autoplay or room.seats.anyone_plays:
            return
        self.stop_countdown()
        if (room.settings.practice or room.settings.chosen is not None) and room.on_empty is not None:
            room.spawn(room.on_empty(room))
        elif room.status != "waiting":
            room.spawn(room.restart())


__all__ = ["LATENESS_KEPT", "RoomClock"]
