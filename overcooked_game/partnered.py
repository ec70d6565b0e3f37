"""How the planner plays beside a partner it does not command: a person, or the BC proxy.

Such a partner presses keys, one timestep at a time, and follows no plan of ours: it does not
detour around our chef, may hold an item for a long time, and may leave things lying on counters.
The planner's `act_for` counts on none of it (only its own chefs' hands and jobs are in its
`Claims`) and adds the moves here, each a function of the session returning a command or None
(None: the planner's ordinary choice stands). With the whole team commanded, none of them acts,
so the planner pair plays exactly as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from overcooked_game.commands import Command
from overcooked_game.engine import Engine
from overcooked_game.kitchen import Pos
from overcooked_game.session import OvercookedSession
from overcooked_game.steering import cost_to, side_cost, step_to, step_toward, via, walk_cost

if TYPE_CHECKING:
    from overcooked_game.planner import Claims

#: An onion this many timesteps or more from the pots...
STASH_FROM = 7
#: ... goes on a counter this close to the chef whose far side is this close to a pot.
BRIDGE_SIDE = 3
#: Onions staged for the next soup lie on counters at most this many timesteps from acting on a pot...
STAGE_SIDE = 2
#: ... at most this many of them.
STAGE_MAX = 3
#: Once the partner has stood facing a busy chef (pushing into it) for this many decisions, the
#: chef gives way (an idle one at the first push: stepping aside costs it nothing)...
PUSH_AFTER = 2
#: ... stepping away for this many timesteps, so the partner (who does not detour) can move on.
YIELD_FOR = 3
#: A dish in the partner's hands counts as the dish for a soup until some soup has waited this many
#: timesteps after it was done: then the partner is not using it, and the chef fetches its own.
DISH_TRUST = 10


class GivingWay:
    """Which of our chefs steps aside now. A person or the proxy does not detour, so a chef it
    keeps walking into backs off for a few timesteps instead of standing nose to nose with it
    until the episode ends. Remembers what it saw last; `reset` at each episode."""

    def __init__(self) -> None:
        self._until: dict[int, int] = {}
        self._last_seen: dict[int, tuple[Pos, tuple[int, int]]] = {}
        self._pushes: dict[int, int] = {}

    def reset(self) -> None:
        self._until.clear()
        self._last_seen.clear()
        self._pushes.clear()

    def watch(self, engine: Engine, team: tuple[int, ...]) -> None:
        """Look once per decision: who stands still facing one of our chefs."""
        players = engine.state.players
        for other, player in enumerate(players):
            if other in team:
                continue
            faced = (player.position[0] + player.orientation[0], player.position[1] + player.orientation[1])
            pushed = [c for c in team if players[c].position == faced]
            still = self._last_seen.get(other) == (player.position, player.orientation)
            self._pushes[other] = self._pushes.get(other, 0) + 1 if pushed and still else 0
            self._last_seen[other] = (player.position, player.orientation)
            for chef in pushed:
                task = engine.tasks[chef]
                idle = task is None or task.command.verb == "wait"
                if not idle and at_goal(engine, chef):
                    continue  # one turn from done: stepping off would hand the partner the spot
                if self._pushes[other] >= (1 if idle else PUSH_AFTER):
                    self._until[chef] = engine.timestep + YIELD_FOR

    def gives_way(self, engine: Engine, chef: int) -> bool:
        return self._until.get(chef, -1) > engine.timestep


def at_goal(engine: Engine, chef: int) -> bool:
    """Whether `chef` stands on the cell its medium-level task ends at (it only turns and acts)."""
    task = engine.tasks[chef]
    if task is None or task.command.primitive or task.command.verb in ("wait", "move_away"):
        return False
    best = engine.kitchen.best_goal(engine.state, chef, engine.kitchen.targets(engine.state, task.command))
    return best is not None and best[1][0] == engine.state.players[chef].position


def trusted(session: OvercookedSession, team: tuple[int, ...], ready_since: dict[Pos, int]) -> dict[str, int]:
    """The dishes in a partner's hands that the team counts on: a person (or the proxy) who
    holds a dish near a cooking pot fills it, and racing them to it leaves one of the two
    standing with a useless dish. Counted only while no soup has waited too long for them
    (`ready_since` keeps, per pot, when its soup was done)."""
    kitchen, engine = session.kitchen, session.engine
    state = engine.state
    for pot in kitchen.pots:
        if kitchen.pot(state, pot).ready:
            ready_since.setdefault(pot, engine.timestep)
        else:
            ready_since.pop(pot, None)
    if any(engine.timestep - since > DISH_TRUST for since in ready_since.values()):
        return {}
    dishes = sum(1 for c, p in enumerate(state.players) if c not in team and engine.held(c) == "dish"
                 and any(kitchen.reaches(p.position, pot) for pot in kitchen.pots))
    return {"dish": dishes} if dishes else {}


def clear_hand_over(session: OvercookedSession, chef: int, claims: Claims) -> Command | None:
    """Beside a partner we do not command, a chef fed over counters (forced_coordination's pot
    side) takes a dish it does not need yet off a shared counter, to set it down on its own
    side: a partner who finds every shared counter taken may stand holding an onion for good."""
    kitchen, state = session.kitchen, session.engine.state
    if len(claims.team) == session.n_agents:
        return None
    here = state.players[chef].position
    if any(kitchen.reaches(here, d) for d in (*kitchen.onion_dispensers, *kitchen.dish_dispensers)):
        return None
    if any(kitchen.pot(state, p).cooking or kitchen.pot(state, p).ready for p in kitchen.pots):
        return None
    others = [p.position for i, p in enumerate(state.players) if i != chef]
    shared = [c for c in kitchen.counter_items(state, "dish") if kitchen.reaches(here, c)
              and any(kitchen.reaches(o, c) for o in others)]
    private = [c for c in kitchen.empty_counters(state) if kitchen.reaches(here, c)
               and not any(kitchen.reaches(o, c) for o in others)]
    if not shared or not private:
        return None
    return step_toward(kitchen, state, chef, shared)


def fetch(session: OvercookedSession, chef: int, item: str, claims: Claims) -> Command:
    """``pickup_<item>``; beside a partner we do not command, a step toward a copy the
    partner left on a counter when that is no farther than the chef's own dispenser (the
    command itself never takes from counters when a dispenser is in reach), unless some chef
    has no such dispenser and lives on what is handed over."""
    command = Command(f"pickup_{item}", chef)
    if len(claims.team) == session.n_agents:
        return command
    kitchen, state = session.kitchen, session.engine.state
    here = state.players[chef].position
    lying = [c for c in kitchen.counter_items(state, item) if kitchen.reaches(here, c)]
    if item == "onion" and not any(kitchen.pot(state, p).fillable for p in kitchen.pots):
        lying = [c for c in lying if c not in staged(session.engine, claims)]  # staged for when a pot frees
    every = kitchen.onion_dispensers if item == "onion" else kitchen.dish_dispensers
    if any(not any(kitchen.reaches(p.position, d) for d in every) for p in state.players):
        return command  # what lies on counters is a hand-over to a chef without a dispenser
    dispensers = [d for d in every if kitchen.reaches(here, d)]
    if item == "onion":  # judged by the whole trip: a counter between corridors has a far side
        pots = [p for p in kitchen.pots if kitchen.pot(state, p).fillable] or list(kitchen.pots)
        # (not counting a pot whose only cell the partner stands on: an onion for it waits there)
        lacking = sum(3 - kitchen.pot(state, p).onions for p in kitchen.pots if kitchen.pot(state, p).fillable
                      and not occupied(session, claims, Command("put_onion", chef, kitchen.names[p])))
        far = walk_cost(kitchen, state, chef, pots)
        if dispensers and far is not None and far >= STASH_FROM and len(lying) < lacking:
            return command  # far from the pots, the walk over carries one more from the dispenser in hand
        # (never from a side so far from the pots that the onion would be stashed again)
        lie = via(kitchen, state, chef, lying, pots, max_onward=STASH_FROM - 1)
        own = via(kitchen, state, chef, dispensers, pots)
        if lie is None or own is None or lie[2] >= own[2]:
            return command
        claims.fetching[item] = claims.fetching.get(item, 0) + 1
        return step_to(kitchen, state, chef, lie[1])
    near, far = cost_to(kitchen, state, chef, lying), cost_to(kitchen, state, chef, dispensers)
    if near is None or far is None or near > far:
        return command
    claims.fetching[item] = claims.fetching.get(item, 0) + 1
    return step_toward(kitchen, state, chef, lying) or command


def stash(session: OvercookedSession, chef: int, claims: Claims) -> Command | None:
    """Beside a partner we do not command, an onion fetched far from the pots goes on a counter
    that bridges to them (counter_circuit's island) while more are needed: the chef walks
    round once and carries the batch over the counter, instead of walking round per onion."""
    kitchen, state = session.kitchen, session.engine.state
    if len(claims.team) == session.n_agents:
        return None
    if any(not any(kitchen.reaches(p.position, d) for d in kitchen.onion_dispensers) for p in state.players):
        return None  # counters are the hand-overs of forced_coordination
    fillable = [p for p in kitchen.pots if kitchen.pot(state, p).fillable]
    direct = walk_cost(kitchen, state, chef, fillable)
    if direct is None or direct < STASH_FROM:
        return None
    here = state.players[chef].position
    far_sides = {c: side_cost(kitchen, c, fillable) for c in kitchen.counters if kitchen.reaches(here, c)}
    bridges = [c for c, cost in far_sides.items() if cost is not None and cost <= BRIDGE_SIDE]
    waiting = sum(1 for c in bridges if c in state.objects and state.objects[c].name == "onion")
    needed = sum(3 - kitchen.pot(state, p).onions for p in fillable)
    empty = [c for c in bridges if c not in state.objects and c not in claims.counters]
    best = kitchen.best_goal(state, chef, empty)
    if needed - waiting < 2 or best is None or best[2] > BRIDGE_SIDE or best[2] + BRIDGE_SIDE + 2 > direct:
        return None
    return Command("place", chef, kitchen.names[best[0]])


def occupied(session: OvercookedSession, claims: Claims, command: Command) -> bool:
    """Beside a partner we do not command, whether the partner stands on every cell of the chef's
    floor from which the command's station can be used (coordination_ring's one onion cell): the chef picks
    other work rather than queue beside the partner and hem it in."""
    kitchen, state = session.kitchen, session.engine.state
    if len(claims.team) == session.n_agents:
        return False
    others = {p.position for i, p in enumerate(state.players) if i not in claims.team}
    mine = kitchen.region.get(state.players[command.chef].position)
    cells = {goal[0] for station in kitchen.targets(state, command)
             for goal in kitchen.mp.motion_goals_for_pos.get(station, ()) if kitchen.region.get(goal[0]) == mine}
    return bool(cells) and cells <= others


def blocked_pots(session: OvercookedSession, chef: int, claims: Claims) -> frozenset[Pos]:
    """Pots whose every standing cell on the chef's floor a partner we do not command stands on
    (counter_circuit's pot0 has one), while some other pot is not so blocked: an onion carried
    there would wait behind the partner for as long as it stands while the rest of the work waits
    too. When the partner blocks every pot (coordination_ring's pots share one cell) nothing is
    left out: the partner moves on sooner than any other plan pays."""
    kitchen = session.kitchen
    blocked = frozenset(p for p in kitchen.pots if occupied(session, claims, Command("put_onion", chef, kitchen.names[p])))
    return frozenset() if len(blocked) == len(kitchen.pots) else blocked


def staged(engine: Engine, claims: Claims) -> list[Pos]:
    """Onions waiting on counters beside the pots for the next soup (see `stage`); beside a
    partner we do not command, where every chef has its own onion dispenser."""
    kitchen, state = engine.kitchen, engine.state
    if len(claims.team) == engine.n or not all(
            any(kitchen.reaches(p.position, d) for d in kitchen.onion_dispensers) for p in state.players):
        return []
    return [c for c in kitchen.counter_items(state, "onion") if (side_cost(kitchen, c, kitchen.pots) or 99) <= STAGE_SIDE]


def stage(session: OvercookedSession, chef: int, claims: Claims) -> Command | None:
    """Beside a partner we do not command, an onion fetched while every pot is busy goes on a
    counter beside the pots, so the next soup fills in a few timesteps once a pot is free,
    instead of the chef standing in the way with it until then."""
    kitchen, engine = session.kitchen, session.engine
    state = engine.state
    if len(claims.team) == session.n_agents or engine.held(chef) != "onion":
        return None
    if any(kitchen.pot(state, p).fillable for p in kitchen.pots) or len(staged(engine, claims)) >= STAGE_MAX:
        return None
    if not all(any(kitchen.reaches(p.position, d) for d in kitchen.onion_dispensers) for p in state.players):
        return None
    here = state.players[chef].position
    near = [c for c in kitchen.empty_counters(state) if c not in claims.counters and kitchen.reaches(here, c)
            and (side_cost(kitchen, c, kitchen.pots) or 99) <= STAGE_SIDE
            and not occupied(session, claims, Command("place", chef, kitchen.names[c]))]
    best = kitchen.best_goal(state, chef, near)
    return None if best is None else Command("place", chef, kitchen.names[best[0]])


def counter_room(session: OvercookedSession, chef: int, claims: Claims) -> bool:
    """Whether a chef who hands onions over (it reaches no pot) may bring another: beside a
    partner we do not command, one shared counter always stays free for a dish, since the
    partner may leave onions lying there for a long time."""
    kitchen, state = session.kitchen, session.engine.state
    here = state.players[chef].position
    if len(claims.team) == session.n_agents or any(kitchen.reaches(here, p) for p in kitchen.pots):
        return True
    others = [p.position for i, p in enumerate(state.players) if i != chef]
    shared = [c for c in kitchen.empty_counters(state) if c not in claims.counters and kitchen.reaches(here, c)
              and any(kitchen.reaches(o, c) for o in others)]
    return len(shared) >= 2


def hands_wanted(session: OvercookedSession, chef: int) -> bool:
    """Whether the item this chef holds keeps it from the work that waits: an onion while a
    soup wants a dish, a dish while no soup cooks and a pot wants onions. Beside a partner we
    do not command nobody else may do that work, so the item goes on a counter."""
    kitchen, state = session.kitchen, session.engine.state
    pots = [kitchen.pot(state, p) for p in kitchen.pots]
    if session.engine.held(chef) == "onion":
        return any(p.ready or p.cooking for p in pots)
    return not any(p.ready or p.cooking for p in pots) and any(p.fillable for p in pots)


def set_down(session: OvercookedSession, chef: int, claims: Claims) -> Command | None:
    """Put the held item on the nearest empty counter, one the partner cannot reach if any
    (None when there is none)."""
    kitchen, state = session.kitchen, session.engine.state
    here = state.players[chef].position
    free = [c for c in kitchen.empty_counters(state) if c not in claims.counters and kitchen.reaches(here, c)]
    others = [p.position for i, p in enumerate(state.players) if i != chef]
    private = [c for c in free if not any(kitchen.reaches(o, c) for o in others)]
    best = kitchen.best_goal(state, chef, private or free)  # keep the hand-over counters free
    if best is None:
        return None
    return Command("place", chef, kitchen.names[best[0]])


def hands_to_partner(engine: Engine, chef: int, claims: Claims) -> bool:
    """Whether `chef` reaches no pot and so only hands things to a partner we do not command."""
    here = engine.state.players[chef].position
    return len(claims.team) < engine.n and not any(engine.kitchen.reaches(here, p) for p in engine.kitchen.pots)


def await_hand_over(session: OvercookedSession, chef: int, claims: Claims) -> Command | None:
    """Beside a partner we do not command, an idle chef fed over counters (forced_coordination's
    pot side) waits facing the shared counter its partner is about to hand over on (the one the
    partner faces, else the nearest to it), so it takes the item the timestep it lands: a partner
    who presses interact twice takes it back otherwise, and the counter frees for the next one.
    None when the chef has a dispenser of its own or nothing is on its way."""
    kitchen, engine = session.kitchen, session.engine
    state = engine.state
    if len(claims.team) == session.n_agents:
        return None
    here = state.players[chef].position
    if any(kitchen.reaches(here, d) for d in (*kitchen.onion_dispensers, *kitchen.dish_dispensers)):
        return None
    mine = kitchen.region.get(here)
    if any(kitchen.region.get(p.position) == mine for i, p in enumerate(state.players) if i not in claims.team):
        return None  # a partner on this floor may need the cell the chef would wait on
    for other, player in enumerate(state.players):
        if other in claims.team or engine.held(other) not in ("onion", "dish"):
            continue
        shared = [c for c in kitchen.empty_counters(state)
                  if kitchen.reaches(here, c) and kitchen.reaches(player.position, c)]
        if not shared:
            continue
        faced = (player.position[0] + player.orientation[0], player.position[1] + player.orientation[1])
        best = kitchen.best_goal(state, other, shared)
        counter = faced if faced in shared else None if best is None else best[0]
        if counter is None:
            continue
        sides = [g for g in kitchen.mp.motion_goals_for_pos.get(counter, ()) if kitchen.region.get(g[0]) == mine]
        if not sides:
            continue
        player_me = state.players[chef]
        if any((player_me.position, player_me.orientation) == g for g in sides):
            return Command("wait", chef)
        near = kitchen.best_goal(state, chef, [counter], free_only=True)
        return None if near is None else step_to(kitchen, state, chef, near[1])
    return Command("wait", chef)  # nothing on its way yet: no partner shares this floor, so no cell needs leaving


def hand_over_counter(session: OvercookedSession, chef: int, claims: Claims, shared: list[Pos]) -> Pos | None:
    """Beside a partner we do not command, the shared counter to hand over on: the one nearest
    the partner (a person or the proxy takes what lies in front of it sooner than what lies down
    the divider), the chef's own walk breaking ties. None with the whole team commanded."""
    kitchen, engine = session.kitchen, session.engine
    state = engine.state
    if len(claims.team) == session.n_agents or not shared:
        return None
    options = []
    for counter in shared:
        theirs = [kitchen.best_goal(state, o, [counter]) for o in range(session.n_agents) if o not in claims.team]
        mine = kitchen.best_goal(state, chef, [counter])
        costs = [t[2] for t in theirs if t is not None]
        if costs and mine is not None:
            options.append((min(costs), mine[2], (counter[1], counter[0]), counter))
    return min(options)[3] if options else None
