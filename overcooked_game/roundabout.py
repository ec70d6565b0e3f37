"""Going the other way round a ring at once when the partner stands on the short way.

Beside a partner it does not command (a person, the BC proxy), the engine sends a chef along the
package planner's shortest route and detours only when it walks into the partner. In a ring one
cell wide (counter_circuit) the chef first walks up to a partner standing on that route, then
goes round, having walked the first stretch twice. Whether to go round at once depends on whether
the partner will still stand there when the chef arrives, which nothing tells: at even odds,
walking up to a partner who stays costs ``2 * (ahead - 1)`` timesteps more than going round now
(``ahead``: steps to the partner), and going round now costs ``around - through`` more if the
partner has moved off. So the chef goes round at once when ``around - through <= 2 * (ahead - 1)``,
and keeps going round (steering by primitives around the partner, wherever it stands) until the
command changes, so a partner stepping off the short way a moment later does not turn it back.
A partner next to the chef or far off the way changes nothing: the engine's routing stands.
"""

from __future__ import annotations

from overcooked_game.commands import Command
from overcooked_game.kitchen import Pos
from overcooked_game.session import OvercookedSession
from overcooked_game.steering import VERB_OF

#: The commands a chef walks for (the rest stand, or are primitives already).
_WALKING = ("pickup_onion", "pickup_dish", "pickup_soup", "put_onion", "fill_dish", "deliver", "place")


class Roundabout:
    """Per chef, the command it is going round for. `reset` at each episode.

    Example: ``Roundabout().steer(session, 0, (0,), Command("deliver", 0))`` → ``Command("left", 0)``
    when the partner stands two cells ahead on the short way round counter_circuit's ring, or None."""

    def __init__(self) -> None:
        self._round: dict[int, str] = {}

    def reset(self) -> None:
        self._round.clear()

    def steer(self, session: OvercookedSession, chef: int, team: tuple[int, ...], command: Command) -> Command | None:
        """A primitive step round the partner for `command`, or None: the command stands as chosen."""
        kitchen, state = session.kitchen, session.engine.state
        others = {p.position for i, p in enumerate(state.players) if i not in team}
        best = None if command.primitive or command.verb not in _WALKING or not others else \
            kitchen.best_goal(state, chef, kitchen.targets(state, command))
        here = state.players[chef].position
        if best is None or best[1][0] == here or best[1][0] in others:
            self._round.pop(chef, None)  # nowhere to walk, arrived, or the partner holds the cell itself
            return None
        goal = best[1][0]
        if self._round.get(chef) != str(command):
            self._round.pop(chef, None)
            if not self._worth_going_round(session, chef, best[1], others):
                return None
            self._round[chef] = str(command)
        step = kitchen.detour(here, goal, others)
        if step is None:
            self._round.pop(chef, None)
            return None
        return Command(VERB_OF[step], chef)

    @staticmethod
    def _worth_going_round(session: OvercookedSession, chef: int, goal: tuple[Pos, tuple[int, int]],
                           others: set[Pos]) -> bool:
        kitchen, state = session.kitchen, session.engine.state
        player = state.players[chef]
        plan = kitchen.mp.all_plans.get(((player.position, player.orientation), goal))
        if plan is None or not any(pos in others for pos, _ in plan[1]):
            return False  # the way the engine takes is clear
        through = kitchen.walk(player.position, goal[0], set())
        around = kitchen.walk(player.position, goal[0], others)
        ahead = min((d for o in others if (d := kitchen.walk(player.position, o, set())) is not None), default=None)
        if through is None or around is None or ahead is None:
            return False
        return around - through <= 2 * (ahead - 1)

