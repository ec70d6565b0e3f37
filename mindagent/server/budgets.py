"""The budget of anonymous rooms (practice rooms and the lobby's ``play`` games): anyone may open
one, so each address, and everybody together, may hold only so many, open them only so fast, and
never take the admin's last rooms.

A practice room costs a game, a coach and a clock job. Before this, 512 ``practice`` frames from
8 addresses opened 487 rooms and the admin's next ``create_room`` was refused. The budget is kept
where the websockets are (the front process with `serve --workers N`), so it holds across workers:

- `PracticeLimits.per_address` rooms held at once per address, `total` for everybody;
- a token bucket per address for opening them (a replacement counts too: every one builds a room);
- none once `max_rooms - admin_reserve` rooms are open, so the admin can always create one.

A room counts while its connection still sits in it (`where` tells); a practice room closes when
its player leaves it, joins another room or disconnects (`RoomClock.if_deserted`).

Example::

    budget = PracticeBudget(PracticeLimits(), max_rooms=500)
    budget.admit(conn, "203.0.113.7", rooms_open=12, where=host.room_of)   # raises ProtocolError
    ...                                      # the host opens the room and seats the connection
    budget.granted(conn, "203.0.113.7", before, host.room_of(conn))
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from mindagent.server.protocol import ProtocolError
from mindagent.server.ratelimit import AddressBuckets

#: Practice rooms open at once, for everybody and per address.
MAX_PRACTICE = 100
MAX_PRACTICE_PER_ADDRESS = 8
#: Practice rooms one address may open per second after a burst. Generous enough for a class
#: behind one NAT address starting the tutorial together; a flood still opens only ~18 in 20 s.
PRACTICE_RATE = 0.5
PRACTICE_BURST = 8.0
#: Rooms only the admin may take: practice stops this many short of the server's room cap.
ADMIN_RESERVE = 50


@dataclass(frozen=True)
class PracticeLimits:
    total: int = MAX_PRACTICE
    per_address: int = MAX_PRACTICE_PER_ADDRESS
    rate: float = PRACTICE_RATE
    burst: float = PRACTICE_BURST
    admin_reserve: int = ADMIN_RESERVE

    def __post_init__(self) -> None:
        if self.total < 0 or self.per_address < 0 or self.admin_reserve < 0:
            raise ValueError("practice limits are counts of rooms: zero or more")
        if self.rate <= 0 or self.burst < 1:
            raise ValueError("the practice rate must be positive and its burst at least 1")


class PracticeBudget:
    """Which connections hold a practice room (the connection, any hashable holder -> its address and room id)."""

    def __init__(self, limits: PracticeLimits, max_rooms: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.max_rooms = max_rooms
        self._opening = AddressBuckets(limits.rate, limits.burst, clock)
        self._held: dict[Hashable, tuple[str, str]] = {}

    def held(self, address: str | None = None) -> int:
        """Practice rooms held, by everybody or by one address (as of the last `admit`/`settle`)."""
        return sum(1 for a, _ in self._held.values() if address is None or a == address)

    def settle(self, where: Callable[[Any], str | None]) -> None:
        """Forget the rooms their connection no longer sits in (left, moved on, or closed)."""
        for holder in [c for c, (_, room) in self._held.items() if where(c) != room]:
            del self._held[holder]

    def admit(self, holder: Hashable, address: str, rooms_open: int, where: Callable[[Any], str | None]) -> None:
        """May this connection open a practice room now? Raises a `ProtocolError` saying why not."""
        self.settle(where)
        replacing = holder in self._held  # its old room closes as the new one opens
        limits = self.limits
        if not replacing:
            if self.held(address) >= limits.per_address:
                raise ProtocolError("bad_state", f"at most {limits.per_address} practice or chosen games per address at "
                                                 "once; leave one first")
            if len(self._held) >= limits.total:
                raise ProtocolError("bad_state", "every practice room is taken (practice and chosen games share them); try "
                                                 "again in a few minutes")
            if rooms_open >= self.max_rooms - limits.admin_reserve:
                raise ProtocolError("bad_state", "the server is nearly full; no practice or chosen games now")
        if not self._opening.admit(address):
            raise ProtocolError("rate_limited", "practice rooms and games are opened a few at a time; wait a few "
                                                  "seconds")

    def granted(self, holder: Hashable, address: str, before: str | None, after: str | None) -> None:
        """The host answered the ``practice`` frame: the connection sat in room `before` and now
        sits in `after`. A new room is its practice room; no change means the practice failed
        (an old practice room it was replacing is forgotten at the next `settle`)."""
        if after is not None and after != before:
            self._held[holder] = (address, after)

    def release(self, holder: Hashable) -> None:
        """The connection closed (its practice room closes with it)."""
        self._held.pop(holder, None)
