"""The end of an episode for the people in a room: the results each member is sent and the
questionnaire, which is for the people who played the episode and taken once per seat.

One answer per seat (an agent's player, the director), not per connection: twenty connections
that sat in once do not make twenty people.
"""

from __future__ import annotations

from typing import Any

from mindagent.server.episode_log import EpisodeLog
from mindagent.server.protocol import QUESTIONNAIRE, ProtocolError, server_message
from mindagent.server.seating import Member, Seating


class Questionnaire:
    """Who answered in the current episode. Example: ``Questionnaire().answer(...)`` after the end."""

    def __init__(self) -> None:
        self._answered: set[Member] = set()
        self._answered_seats: set[tuple[str, int | None]] = set()

    def new_episode(self) -> None:
        self._answered.clear()
        self._answered_seats.clear()

    def answer(self, seats: Seating, member: Member, finished: bool, log: EpisodeLog, episode: int,
               answers: dict[str, int], comment: str, **about: Any) -> None:
        """Store one questionnaire with the episode's recording; `ProtocolError` when not allowed."""
        seat = seats.seat_of(member)
        if not finished:
            raise ProtocolError("bad_state", "the questionnaire opens when the episode is over")
        if member not in seats.played:
            raise ProtocolError("forbidden", "the questionnaire is for the people who played this episode")
        key = (seat.role, seat.agent)
        if member in self._answered or key in self._answered_seats:
            raise ProtocolError("bad_state", "this seat already answered for this episode")
        self._answered.add(member)
        self._answered_seats.add(key)
        log.questionnaire(episode=episode, role=seat.role, agent=seat.agent, answers=answers,
                          comment=comment.strip(), **about)

    @staticmethod
    def send_results(seats: Seating, shared: dict[str, Any]) -> None:
        """The `episode_over` message to every member; only those who played get the questions."""
        for member, seat in list(seats.members.items()):
            played = member in seats.played
            member.push(server_message("episode_over", **shared, questionnaire=list(QUESTIONNAIRE) if played else [],
                                       played=played, agent=seat.agent))


__all__ = ["Questionnaire"]
