"""A coordination-aware planner over the medium-level commands (`--model planner`).

Each free chef takes the most useful job the team has not already claimed: deliver a soup in
hand; bring a dish to a pot whose soup is (nearly) done; carry onions to the fullest pot that
still needs them; pre-fetch the next soup's onions; otherwise stand aside. What a chef cannot
reach it hands over on a counter both can reach (forced_coordination). Busy chefs carry on.
Claims (what the partner holds, fetches or is heading to) keep the two from doing one job twice,
and an idle chef standing where its partner must pass steps away. When both chefs are free, a
generator seeded at construction decides who chooses first; every other tie goes to the lower
pot or counter number, so a seed fixes the episode.

Beside a partner it does not command (``act_for``: a person, the BC proxy) it plans its own chefs
only and counts on nothing the partner holds or does: it takes over what is left undone, sets down
an item that keeps it from waiting work, picks up what the partner left on a counter when that is
nearer than a dispenser (never from a side the partner stands on), gives way when the partner
keeps walking into it (unless it already stands where its task ends), chooses a pickup anew once
the partner stands on its only cell, batches onions over a counter that bridges two corridors,
carries one more onion in hand beside the batch while the batch does not cover what the pots lack,
goes the other way round a ring at once when the partner stands on the short way (`roundabout`),
and, when the two are fed over counters, keeps a hand-over counter free and hands over only what
the partner can use now: on the counter nearest the partner when it hands over, and facing the
counter the partner is about to hand over on when it is handed to.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from overcooked_game import partnered
from overcooked_game.commands import Command, parse
from overcooked_game.engine import Engine
from overcooked_game.kitchen import Kitchen, Pos
from overcooked_game.partnered import GivingWay
from overcooked_game.roundabout import Roundabout
from overcooked_game.session import OvercookedSession

#: Fetch a dish for a cooking pot once its soup is at most this many timesteps plus the trip away.
DISH_SLACK = 4
#: Onions fetched ahead for the next soup while every pot is busy (per team).
PREFETCH = 2


@dataclass
class Claims:
    """What the team already does: onions bound for each pot, items being fetched, dished pots."""

    onions_for: dict[Pos, int] = field(default_factory=dict)
    fetching: dict[str, int] = field(default_factory=dict)
    dished: set[Pos] = field(default_factory=set)
    counters: set[Pos] = field(default_factory=set)
    #: The chefs this planner commands; only their hands and jobs are counted on.
    team: tuple[int, ...] = ()
    #: Items in the hands of a partner we do not command that we count on for now (see `partnered.trusted`).
    trusted: dict[str, int] = field(default_factory=dict)

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
        self.giving_way = GivingWay()
        self.roundabout = Roundabout()
        self.ready_since: dict[Pos, int] = {}

    def reset(self, session: OvercookedSession) -> None:
        """Nothing carries over but the tie-breaking generator (seeded once, like the random policy)."""
        self.giving_way.reset()
        self.roundabout.reset()
        self.ready_since.clear()

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
        beside = len(team) < session.n_agents  # someone else plays the other chefs
        if beside:
            self.giving_way.watch(engine, team)
            claims.trusted = partnered.trusted(session, team, self.ready_since)
        out: dict[int, str] = {}
        free = []
        for chef in team:
            task = engine.tasks[chef]
            if beside and self.giving_way.gives_way(engine, chef):
                out[chef] = str(Command("move_away", chef))
            elif (task is not None and task.command.verb not in ("wait", "move_away") and not task.command.primitive
                  and not (beside and task.command.verb.startswith("pickup_")
                           and partnered.occupied(session, claims, task.command))):
                out[chef] = str(task.command)  # (a pickup the partner has since stepped onto the only cell of is chosen anew)
            else:
                free.append(chef)
        if len(free) > 1:  # who picks first when both are free: the seeded tie-break
            self.rng.shuffle(free)
        for chef in free:
            command = self._choose(session, chef, claims)
            claims.add(kitchen, command)
            out[chef] = str(command)
        if beside:  # a partner on the short way round a ring: round the other way at once (`roundabout`)
            for chef in team:
                steered = self.roundabout.steer(session, chef, team, parse(out[chef], session.n_agents))
                if steered is not None:
                    out[chef] = str(steered)
        return [out[chef] for chef in controlled]

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
            pot = self._pot_to_fill(engine, chef, claims, partnered.blocked_pots(session, chef, claims))
            if pot is not None:
                return partnered.stash(session, chef, claims) or Command("put_onion", chef, engine.kitchen.names[pot])
            return partnered.stage(session, chef, claims) or self._hand_over_or_wait(session, chef, claims, reach_pot=True)
        return self._empty_handed(session, chef, claims)

    def _carry(self, session: OvercookedSession, chef: int, command: Command, claims: Claims) -> Command:
        if session.kitchen.refusal(session.engine.state, command) is None:
            return command
        return self._hand_over_or_wait(session, chef, claims, reach_pot=False)

    def _empty_handed(self, session: OvercookedSession, chef: int, claims: Claims) -> Command:
        engine, kitchen = session.engine, session.kitchen
        state = engine.state

        def can(verb: str) -> bool:
            command = Command(verb, chef)
            return kitchen.refusal(state, command) is None and not partnered.occupied(session, claims, command)

        if can("pickup_soup") and any(kitchen.reaches(state.players[chef].position, s) for s in kitchen.serving):
            return Command("pickup_soup", chef)
        urgent, later = self._dish_need(engine, chef, claims)
        if urgent > 0 and can("pickup_dish"):
            return partnered.fetch(session, chef, "dish", claims)
        onions, prefetch = self._onion_need(engine, chef, claims)
        if not partnered.counter_room(session, chef, claims):
            onions = prefetch = 0
        if partnered.hands_to_partner(engine, chef, claims):
            prefetch = 0  # an onion it cannot use yet may stay in the partner's hands while soups wait
        if onions > 0 and can("pickup_onion"):
            return partnered.fetch(session, chef, "onion", claims)
        if later > 0 and can("pickup_dish"):
            return partnered.fetch(session, chef, "dish", claims)
        if prefetch > 0 and can("pickup_onion"):
            return partnered.fetch(session, chef, "onion", claims)
        return (partnered.clear_hand_over(session, chef, claims) or partnered.await_hand_over(session, chef, claims)
                or self._stand_aside(session, chef))

    # ------------------------------------------------------------------ pots
    def _pot_to_fill(self, engine: Engine, chef: int, claims: Claims, skip: frozenset[Pos] = frozenset()) -> Pos | None:
        """The reachable pot closest to full that still has room after the onions already bound
        for it (the nearest among equals), leaving out `skip`."""
        kitchen, state = engine.kitchen, engine.state
        options = []
        for pot_pos in kitchen.pots:
            pot = kitchen.pot(state, pot_pos)
            filled = pot.onions + claims.onions_for.get(pot_pos, 0)
            if (not pot.fillable or filled >= 3 or pot_pos in skip
                    or not kitchen.reaches(state.players[chef].position, pot_pos)):
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
        handing = partnered.hands_to_partner(engine, chef, claims)
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
        spare += claims.trusted.get("dish", 0)
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
        if not lacking:  # staged onions hold back more fetching ahead; once a pot wants them, they are fetched
            spare += len(partnered.staged(engine, claims))
        need = lacking - spare
        # beside a partner we do not command, onions fetched ahead are staged by the pots (up to a soup's worth)
        most = PREFETCH if len(claims.team) == engine.n else max(PREFETCH, partnered.STAGE_MAX)
        ahead = min(most, 3 * busy) - max(0, -need)
        return max(0, need), max(0, ahead)

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
            # an onion goes down for a dish only when the team still lacks one (not when the partner holds it)
            dish_wanted = session.engine.held(chef) != "onion" or (
                sum(self._dish_need(session.engine, chef, claims)) > 0
                and not partnered.occupied(session, claims, Command("pickup_dish", chef)))
            if len(claims.team) < session.n_agents and partnered.hands_wanted(session, chef) and dish_wanted:
                return partnered.set_down(session, chef, claims) or self._stand_aside(session, chef)
            return self._stand_aside(session, chef)
        partners = [p.position for i, p in enumerate(state.players) if i != chef]
        shared = [c for c in kitchen.empty_counters(state) if c not in claims.counters and kitchen.reaches(here, c)
                  and any(kitchen.reaches(o, c) for o in partners)]
        counter = partnered.hand_over_counter(session, chef, claims, shared)
        if counter is not None:
            return Command("place", chef, kitchen.names[counter])
        best = kitchen.best_goal(state, chef, shared)
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
