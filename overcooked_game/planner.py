"""A coordination-aware planner over the medium-level commands (`--model planner`).

Each free chef takes the most useful job the team has not already claimed: deliver a soup in
hand; bring a dish to a pot whose soup is (nearly) done; carry onions to the fullest pot that
still needs them; pre-fetch the next soup's onions; otherwise stand aside. What a chef cannot
reach it hands over on a counter both can reach (forced_coordination). Busy chefs carry on.
Claims (what the partner holds, fetches or is heading to) keep the two from doing one job twice,
and an idle chef standing where its partner must pass steps away. When both chefs are free, a
generator seeded at construction decides who chooses first; every other tie goes to the lower
pot or counter number, so a seed fixes the episode.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from overcooked_game.commands import Command
from overcooked_game.engine import Engine
from overcooked_game.kitchen import Kitchen, Pos
from overcooked_game.session import OvercookedSession
from overcooked_game.steering import cost_to, side_cost, step_to, step_toward, via

#: Fetch a dish for a cooking pot once its soup is at most this many timesteps plus the trip away.
DISH_SLACK = 4
#: Onions fetched ahead for the next soup while every pot is busy (per team).
PREFETCH = 2
#: Beside a partner we do not command: an onion this many timesteps or more from the pots...
STASH_FROM = 7
#: ... goes on a counter this close to the chef whose far side is this close to a pot.
BRIDGE_SIDE = 3
#: Beside a partner we do not command: once the partner has stood facing a chef (pushing into it)
#: for this many decisions, the chef gives way...
PUSH_AFTER = 2
#: ... stepping away for this many timesteps, so the partner (who does not detour) can move on.
YIELD_FOR = 3


@dataclass
class Claims:
    """What the team already does: onions bound for each pot, items being fetched, dished pots."""

    onions_for: dict[Pos, int] = field(default_factory=dict)
    fetching: dict[str, int] = field(default_factory=dict)
    dished: set[Pos] = field(default_factory=set)
    counters: set[Pos] = field(default_factory=set)
    #: The chefs this planner commands; only their hands and jobs are counted on.
    team: tuple[int, ...] = ()

    def add(self, kitchen: Kitchen, command: Command) -> None:
        station = kitchen.by_name.get(command.target or "")
        if command.verb == "put_onion" and station is not None:
            self.onions_for[station] = self.onions_for.get(station, 0) + 1
        elif command.verb == "fill_dish" and station is not None:
            self.dished.add(station)
        elif command.verb == "place" and station is not None:
            self.counters.add(station)
        elif command.verb.startswith("pickup_"):
            item = command.verb.removeprefix("pickup_")
            self.fetching[item] = self.fetching.get(item, 0) + 1


class OvercookedPlanner:
    """Example: ``OvercookedPlanner().act(session)`` → ``["pickup_onion(chef0)", "pickup_dish(chef1)"]``."""

    name = "planner"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self._yield_until: dict[int, int] = {}
        self._last_seen: dict[int, tuple[Pos, tuple[int, int]]] = {}
        self._pushes: dict[int, int] = {}

    def reset(self, session: OvercookedSession) -> None:
        """Nothing carries over but the tie-breaking generator (seeded once, like the random policy)."""
        self._yield_until.clear()
        self._last_seen.clear()
        self._pushes.clear()

    def act(self, session: OvercookedSession) -> list[str]:
        return self.act_for(session, list(range(session.n_agents)))

    def act_for(self, session: OvercookedSession, controlled: list[int]) -> list[str]:
        """Commands for the chefs in `controlled` only (in that order). The others are someone
        else's (a person, the BC proxy): their hands and moves are not counted on, so whatever
        they leave undone is taken over, and nothing waits for them."""
        engine, kitchen = session.engine, session.kitchen
        strays = [c for c in controlled if not 0 <= c < session.n_agents]
        if strays:
            raise ValueError(f"no chef{strays[0]} here: the chefs are chef0 to chef{session.n_agents - 1}")
        team = tuple(sorted(set(controlled)))
        claims = Claims(team=team)
        for chef in team:
            task = engine.tasks[chef]
            if task is not None and not task.command.primitive:
                claims.add(kitchen, task.command)
        out: dict[int, str] = {}
        free = []
        for chef in team:
            task = engine.tasks[chef]
            if self._gives_way(engine, chef, len(team) < session.n_agents):
                out[chef] = str(Command("move_away", chef))
            elif task is not None and task.command.verb not in ("wait", "move_away") and not task.command.primitive:
                out[chef] = str(task.command)
            else:
                free.append(chef)
        if len(free) > 1:  # who picks first when both are free: the seeded tie-break
            self.rng.shuffle(free)
        for chef in free:
            command = self._choose(session, chef, claims)
            claims.add(kitchen, command)
            out[chef] = str(command)
        return [out[chef] for chef in controlled]

    def _gives_way(self, engine: Engine, chef: int, partnered: bool) -> bool:
        """Whether `chef` steps aside now: beside a partner we do not command, a chef the partner
        keeps pushing into backs off for a few timesteps (a person or the proxy does not detour,
        so the two could stand nose to nose until the episode ends). Pushing into a chef that
        merely waits on the partner, by contrast, costs nothing, so that alone is no reason."""
        if not partnered:
            return False
        here = engine.state.players[chef].position
        for other, player in enumerate(engine.state.players):
            if other == chef:
                continue
            faced = (player.position[0] + player.orientation[0], player.position[1] + player.orientation[1])
            pushing = faced == here and self._last_seen.get(other) == (player.position, player.orientation)
            self._pushes[other] = self._pushes.get(other, 0) + 1 if pushing else 0
            self._last_seen[other] = (player.position, player.orientation)
            if self._pushes[other] >= PUSH_AFTER:
                self._yield_until[chef] = engine.timestep + YIELD_FOR
        return self._yield_until.get(chef, -1) > engine.timestep

    # ------------------------------------------------------------------ choosing
    def _choose(self, session: OvercookedSession, chef: int, claims: Claims) -> Command:
        engine = session.engine
        held = engine.held(chef)
        if held == "soup":
            return self._carry(session, chef, Command("deliver", chef), claims)
        if held == "dish":
            pot = self._pot_to_dish(engine, chef, claims)
            if pot is not None:
                return Command("fill_dish", chef, engine.kitchen.names[pot])
            return self._hand_over_or_wait(session, chef, claims, reach_pot=True)
        if held == "onion":
            pot = self._pot_to_fill(engine, chef, claims)
            if pot is not None:
                return self._stash(session, chef, claims) or Command("put_onion", chef, engine.kitchen.names[pot])
            return self._hand_over_or_wait(session, chef, claims, reach_pot=True)
        return self._empty_handed(session, chef, claims)

    def _carry(self, session: OvercookedSession, chef: int, command: Command, claims: Claims) -> Command:
        if session.kitchen.refusal(session.engine.state, command) is None:
            return command
        return self._hand_over_or_wait(session, chef, claims, reach_pot=False)

    def _empty_handed(self, session: OvercookedSession, chef: int, claims: Claims) -> Command:
        engine, kitchen = session.engine, session.kitchen
        state = engine.state

        def can(verb: str) -> bool:
            return kitchen.refusal(state, Command(verb, chef)) is None

        if can("pickup_soup") and any(kitchen.reaches(state.players[chef].position, s) for s in kitchen.serving):
            return Command("pickup_soup", chef)
        urgent, later = self._dish_need(engine, chef, claims)
        if urgent > 0 and can("pickup_dish"):
            return self._fetch(session, chef, "dish", claims)
        onions, prefetch = self._onion_need(engine, chef, claims)
        if not self._counter_room(session, chef, claims):
            onions = prefetch = 0
        if self._hands_to_partner(engine, chef, claims):
            prefetch = 0  # an onion it cannot use yet may stay in the partner's hands while soups wait
        if onions > 0 and can("pickup_onion"):
            return self._fetch(session, chef, "onion", claims)
        if later > 0 and can("pickup_dish"):
            return self._fetch(session, chef, "dish", claims)
        if prefetch > 0 and can("pickup_onion"):
            return self._fetch(session, chef, "onion", claims)
        return self._clear_hand_over(session, chef, claims) or self._stand_aside(session, chef)

    @staticmethod
    def _clear_hand_over(session: OvercookedSession, chef: int, claims: Claims) -> Command | None:
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

    @staticmethod
    def _fetch(session: OvercookedSession, chef: int, item: str, claims: Claims) -> Command:
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
        every = kitchen.onion_dispensers if item == "onion" else kitchen.dish_dispensers
        if any(not any(kitchen.reaches(p.position, d) for d in every) for p in state.players):
            return command  # what lies on counters is a hand-over to a chef without a dispenser
        dispensers = [d for d in every if kitchen.reaches(here, d)]
        if item == "onion":  # judged by the whole trip: a counter between corridors has a far side
            pots = [p for p in kitchen.pots if kitchen.pot(state, p).fillable] or list(kitchen.pots)
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

    @staticmethod
    def _stash(session: OvercookedSession, chef: int, claims: Claims) -> Command | None:
        """Beside a partner we do not command, an onion fetched far from the pots goes on a counter
        that bridges to them (counter_circuit's island) while more are needed: the chef walks
        round once and carries the batch over the counter, instead of walking round per onion."""
        kitchen, state = session.kitchen, session.engine.state
        if len(claims.team) == session.n_agents:
            return None
        if any(not any(kitchen.reaches(p.position, d) for d in kitchen.onion_dispensers) for p in state.players):
            return None  # counters are the hand-overs of forced_coordination
        fillable = [p for p in kitchen.pots if kitchen.pot(state, p).fillable]
        direct = cost_to(kitchen, state, chef, fillable)
        if direct is None or direct < STASH_FROM:
            return None
        here = state.players[chef].position
        bridges = [c for c in kitchen.counters if kitchen.reaches(here, c)
                   and (side_cost(kitchen, c, fillable) or STASH_FROM) <= BRIDGE_SIDE]
        waiting = sum(1 for c in bridges if c in state.objects and state.objects[c].name == "onion")
        needed = sum(3 - kitchen.pot(state, p).onions for p in fillable)
        empty = [c for c in bridges if c not in state.objects and c not in claims.counters]
        best = kitchen.best_goal(state, chef, empty)
        if needed - waiting < 2 or best is None or best[2] > BRIDGE_SIDE or best[2] + BRIDGE_SIDE + 2 > direct:
            return None
        return Command("place", chef, kitchen.names[best[0]])

    # ------------------------------------------------------------------ pots
    def _pot_to_fill(self, engine: Engine, chef: int, claims: Claims) -> Pos | None:
        """The reachable pot closest to full that still has room after the onions already bound
        for it (the nearest among equals)."""
        kitchen, state = engine.kitchen, engine.state
        options = []
        for pot_pos in kitchen.pots:
            pot = kitchen.pot(state, pot_pos)
            filled = pot.onions + claims.onions_for.get(pot_pos, 0)
            if not pot.fillable or filled >= 3 or not kitchen.reaches(state.players[chef].position, pot_pos):
                continue
            best = kitchen.best_goal(state, chef, [pot_pos])
            options.append((-filled, best[2] if best else 99, kitchen.pots.index(pot_pos), pot_pos))
        return min(options)[3] if options else None

    def _pot_to_dish(self, engine: Engine, chef: int, claims: Claims) -> Pos | None:
        """The reachable pot with a soup (ready first, then soonest done) no other dish is bound for."""
        kitchen, state = engine.kitchen, engine.state
        options = []
        for pot_pos in kitchen.pots:
            pot = kitchen.pot(state, pot_pos)
            if pot_pos in claims.dished or not (pot.cooking or pot.ready):
                continue
            if kitchen.reaches(state.players[chef].position, pot_pos):
                options.append((pot.remaining, kitchen.pots.index(pot_pos), pot_pos))
        return min(options)[2] if options else None

    def _dish_need(self, engine: Engine, chef: int, claims: Claims) -> tuple[int, int]:
        """Dishes the pots want now (soup done or nearly) and later (cooking, or full once the
        onions on their way arrive), less the dishes already held, fetched or left on counters."""
        kitchen, state = engine.kitchen, engine.state
        trip = self._trip(engine, chef, kitchen.dish_dispensers)
        # A dish handed to a partner we do not command before any soup cooks may sit in its hands
        # while the pots wait for the onions it can no longer carry.
        handing = self._hands_to_partner(engine, chef, claims)
        urgent = later = 0
        for pot_pos in kitchen.pots:
            if pot_pos in claims.dished:
                continue
            pot = kitchen.pot(state, pot_pos)
            if pot.ready or (pot.cooking and pot.remaining <= trip + DISH_SLACK):
                urgent += 1
            elif pot.cooking or (pot.onions + claims.onions_for.get(pot_pos, 0) >= 3 and not handing):
                later += 1
        spare = self._in_play(engine, "dish", chef, claims.team) + claims.fetching.get("dish", 0)
        spare -= sum(1 for c in claims.team if engine.held(c) == "dish" and self._bound(engine, c, "fill_dish"))
        used = min(spare, urgent)
        return urgent - used, max(0, later - (spare - used))

    def _onion_need(self, engine: Engine, chef: int, claims: Claims) -> tuple[int, int]:
        """Onions the fillable pots still lack, and how many to fetch ahead for the next soups,
        after the onions already held, fetched or left on counters."""
        kitchen, state = engine.kitchen, engine.state
        lacking = busy = 0
        for pot_pos in kitchen.pots:
            pot = kitchen.pot(state, pot_pos)
            if pot.fillable:
                lacking += 3 - pot.onions
            else:
                busy += 1
        spare = self._in_play(engine, "onion", chef, claims.team) + claims.fetching.get("onion", 0)
        need = lacking - spare
        ahead = min(PREFETCH, 3 * busy) - max(0, -need)
        return max(0, need), max(0, ahead)

    @staticmethod
    def _hands_to_partner(engine: Engine, chef: int, claims: Claims) -> bool:
        """Whether `chef` reaches no pot and so only hands things to a partner we do not command."""
        here = engine.state.players[chef].position
        return len(claims.team) < engine.n and not any(engine.kitchen.reaches(here, p) for p in engine.kitchen.pots)

    @staticmethod
    def _in_play(engine: Engine, item: str, chef: int, team: tuple[int, ...]) -> int:
        """Items of a kind already out: held by a chef of the team, plus those left on counters when `chef`
        would fetch from a dispenser (for a chef who picks up from counters they are its supply)."""
        kitchen = engine.kitchen
        players = engine.state.players
        # A chef who reaches no pot only supplies; what its partner holds, the partner must use.
        supplier = not any(kitchen.reaches(players[chef].position, p) for p in kitchen.pots)
        held = sum(1 for c in range(engine.n) if engine.held(c) == item and (c in team or supplier))
        dispensers = kitchen.onion_dispensers if item == "onion" else kitchen.dish_dispensers

        def supplied(c: int) -> bool:
            return any(kitchen.reaches(players[c].position, d) for d in dispensers)

        # Counter items are a supply the whole team uses; beside a partner we do not command, only
        # when some other chef has no dispenser and must take from counters (forced_coordination):
        # what a partner with its own dispenser drops there may never be picked up again.
        whole = len(team) == engine.n
        if supplied(chef) and (whole or any(not supplied(c) for c in range(engine.n) if c != chef)):
            held += len(kitchen.counter_items(engine.state, item))
        return held

    @staticmethod
    def _bound(engine: Engine, chef: int, verb: str) -> bool:
        task = engine.tasks[chef]
        return task is not None and task.command.verb == verb

    @staticmethod
    def _trip(engine: Engine, chef: int, stations: tuple[Pos, ...]) -> int:
        best = engine.kitchen.best_goal(engine.state, chef, stations)
        return 0 if best is None else best[2]

    # ------------------------------------------------------------------ hand-overs and standing aside
    def _hand_over_or_wait(self, session: OvercookedSession, chef: int, claims: Claims, reach_pot: bool) -> Command:
        """Put what this chef cannot use on a counter its partner reaches, if the partner can use it."""
        kitchen, state = session.kitchen, session.engine.state
        here = state.players[chef].position
        stations = kitchen.pots if reach_pot else kitchen.serving
        if any(kitchen.reaches(here, s) for s in stations):
            if len(claims.team) < session.n_agents and self._hands_wanted(session, chef):
                return self._set_down(session, chef, claims)
            return self._stand_aside(session, chef)
        partners = [p.position for i, p in enumerate(state.players) if i != chef]
        shared = [c for c in kitchen.empty_counters(state) if c not in claims.counters and kitchen.reaches(here, c)
                  and any(kitchen.reaches(o, c) for o in partners)]
        best = kitchen.best_goal(state, chef, shared)
        if best is None:
            return self._stand_aside(session, chef)
        return Command("place", chef, kitchen.names[best[0]])

    @staticmethod
    def _counter_room(session: OvercookedSession, chef: int, claims: Claims) -> bool:
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

    @staticmethod
    def _hands_wanted(session: OvercookedSession, chef: int) -> bool:
        """Whether the item this chef holds keeps it from the work that waits: an onion while a
        soup wants a dish, a dish while no soup cooks and a pot wants onions. Beside a partner we
        do not command nobody else may do that work, so the item goes on a counter."""
        kitchen, state = session.kitchen, session.engine.state
        pots = [kitchen.pot(state, p) for p in kitchen.pots]
        if session.engine.held(chef) == "onion":
            return any(p.ready or p.cooking for p in pots)
        return not any(p.ready or p.cooking for p in pots) and any(p.fillable for p in pots)

    def _set_down(self, session: OvercookedSession, chef: int, claims: Claims) -> Command:
        """Put the held item on the nearest empty counter, one the partner cannot reach if any
        (stand aside when there is none)."""
        kitchen, state = session.kitchen, session.engine.state
        here = state.players[chef].position
        free = [c for c in kitchen.empty_counters(state) if c not in claims.counters and kitchen.reaches(here, c)]
        others = [p.position for i, p in enumerate(state.players) if i != chef]
        private = [c for c in free if not any(kitchen.reaches(o, c) for o in others)]
        best = kitchen.best_goal(state, chef, private or free)  # keep the hand-over counters free
        if best is None:
            return self._stand_aside(session, chef)
        return Command("place", chef, kitchen.names[best[0]])

    def _stand_aside(self, session: OvercookedSession, chef: int) -> Command:
        """Wait, unless standing where the partner is heading or at a pot or serving spot's side."""
        engine, kitchen = session.engine, session.kitchen
        here = engine.state.players[chef].position
        if here in self._partner_path(engine, chef) or here in self._station_sides(kitchen):
            return Command("move_away", chef)
        return Command("wait", chef)

    @staticmethod
    def _station_sides(kitchen: Kitchen) -> set[Pos]:
        sides: set[Pos] = set()
        for station in (*kitchen.pots, *kitchen.serving):
            sides.update(goal[0] for goal in kitchen.mp.motion_goals_for_pos.get(station, ()))
        return sides

    @staticmethod
    def _partner_path(engine: Engine, chef: int) -> set[Pos]:
        cells: set[Pos] = set()
        for other, task in enumerate(engine.tasks):
            if other == chef or task is None or task.command.primitive:
                continue
            best = engine.kitchen.best_goal(engine.state, other, engine.kitchen.targets(engine.state, task.command))
            if best is None:
                continue
            player = engine.state.players[other]
            plan = engine.kitchen.mp.all_plans.get(((player.position, player.orientation), best[1]))
            if plan is not None:
                cells.update(pos for pos, _ in plan[1])
        return cells
