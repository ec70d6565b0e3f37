"""Does the team play with a person or past them? Simulated people on a seat beside each built-in team.

A person of one of three kinds sits at one agent; the team plays the others, exactly as in a
served room: the person's command for the step is chosen first and known to the team before it
decides (`DomainSession.set_people_commands`), and runs first in the joint action
(`mindagent.server.decisions.joint_commands`). The kinds:

- ``keen``: acts every step with a sensible greedy policy (the scheduler planning the person's
  agent alone, counting on no teammate);
- ``slow``: the same, but only every other step (idle in between, as a person who is still reading);
- ``random``: a uniformly random legal command every step (seeded).

For each team (``planner``, ``random``, ``planner`` with ``--mode decentral`` and with
``--mode taskgraph``) it prints, over the episodes: the person's refused commands (count and %),
their share of the served dishes (each served dish split equally among the agents that worked on
it, `cuisineworld.adapter.credit`), the team's served and expired orders and the CoS, beside the
same team with no person (the baseline every row is read against). ``--team-first`` plays the
order rooms used before: the team decides without the person's command and its commands run
first (the person's run after and lose every race), for comparison.

    PYTHONPATH=. python3 benchmarks/simulated_people.py [--level level_3] [--agents 4] [--seat 3]
        [--episodes 3] [--teams planner,random,decentral,taskgraph] [--people none,keen,slow,random]
        [--team-first]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import time
from dataclasses import dataclass

from cuisineworld import load_level
from cuisineworld.adapter.planners import CuisinePlanner
from cuisineworld.adapter.session import CuisineSession
from mindagent.core import registry as domains
from mindagent.core.episode import Episode
from mindagent.dispatch.brains import make_brain
from mindagent.dispatch.dispatcher import Dispatcher, DispatchSettings
from mindagent.dispatch.prompt import PromptConfig
from mindagent.evaluation.scoring import collaboration_score
from mindagent.server.decisions import joint_commands, people_order

TEAMS = {"planner": ("planner", "central"), "random": ("random", "central"),
         "decentral": ("planner", "decentral"), "taskgraph": ("planner", "taskgraph")}
PEOPLE = ("none", "keen", "slow", "random")


class SimulatedPerson:
    """One person's choice for the step, from the state they see (before the team's commands)."""

    def __init__(self, kind: str, agent: int, seed: int) -> None:
        self.kind, self.agent = kind, agent
        self.rng = random.Random(seed)
        self.greedy = CuisinePlanner(lookahead_team=0)

    def choose(self, session: CuisineSession) -> str | None:
        if self.kind == "slow" and session.step_index % 2 == 1:
            return None  # still reading: no command this step
        if self.kind == "random":
            return self.rng.choice(session.legal_commands(self.agent))
        return self.greedy.act_for(session, [self.agent])[0]


@dataclass
class Tally:
    commands: int = 0
    refused: int = 0
    share: float = 0.0
    dishes: int = 0
    completed: int = 0
    failed: int = 0
    active: int = 0


async def play(team: str, person: str, level: str, agents: int, seat: int, episodes: int, seed: int,
               team_first: bool = False) -> Tally:
    model, mode = TEAMS[team]
    domain = domains.get("cuisineworld")
    tally = Tally()
    for episode in range(episodes):
        session = CuisineSession(load_level(level), n_agents=agents, tau=1.0, seed=seed + episode)
        await session.reset()
        brain = make_brain(model, domain, seed=seed + episode)
        dispatcher = Dispatcher.for_session(session, brain, PromptConfig(), dispatch=DispatchSettings(team=mode))
        run = Episode(session, dispatcher)
        someone = SimulatedPerson(person, seat, seed * 1000 + episode) if person != "none" else None
        players = {seat} if someone is not None else set()
        controlled = [a for a in range(agents) if a not in players]
        while not session.done:
            chosen = someone.choose(session) if someone is not None else None
            human = {seat: chosen} if chosen is not None else {}
            session.set_people_commands(() if team_first else people_order(human, players))
            try:
                decision = await run.act(controlled if players else None)
            finally:
                session.set_people_commands(())
            commands, actors = joint_commands(session, decision, human, players)
            if team_first:  # the old order: the team's commands, then the person's
                order = sorted(range(len(commands)), key=lambda i: actors[i] == "human")
                commands, actors = [commands[i] for i in order], [actors[i] for i in order]
            result = await run.advance(decision, commands, actors)
            for actor, verdict in zip(actors, result.verdicts, strict=True):
                if actor == "human":
                    tally.commands += 1
                    tally.refused += not verdict.ok
        counts = session.counts
        tally.completed += counts.completed
        tally.failed += counts.failed
        tally.active += counts.active
        tally.dishes += session.ledger.dishes
        if someone is not None:
            tally.share += session.ledger.shares[seat]
    return tally


def row(team: str, person: str, t: Tally) -> str:
    cos = collaboration_score(t.completed, t.failed, t.active)
    if person == "none":
        return f"| {team} | none | - | - | {t.completed} | {t.failed} | {cos:.3f} |"
    pct = 100.0 * t.refused / t.commands if t.commands else 0.0
    share = 100.0 * t.share / t.dishes if t.dishes else 0.0
    return (f"| {team} | {person} | {t.refused}/{t.commands} ({pct:.1f} %) | {share:.1f} % | "
            f"{t.completed} | {t.failed} | {cos:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level", default="level_3")
    parser.add_argument("--agents", type=int, default=4)
    parser.add_argument("--seat", type=int, default=None, help="the person's agent (default: the last)")
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--teams", default=",".join(TEAMS))
    parser.add_argument("--people", default=",".join(PEOPLE))
    parser.add_argument("--team-first", action="store_true", help="the old order, for comparison")
    args = parser.parse_args()
    seat = args.agents - 1 if args.seat is None else args.seat
    teams = [t for t in args.teams.split(",") if t]
    people = [p for p in args.people.split(",") if p]
    bad = [t for t in teams if t not in TEAMS] + [p for p in people if p not in PEOPLE]
    if bad:
        parser.error(f"unknown team or person kind: {', '.join(bad)} (teams: {', '.join(TEAMS)}; people: "
                     f"{', '.join(PEOPLE)})")
    started = time.perf_counter()
    lines = ["| team | person | person's refused commands | person's share of served dishes | served | expired | CoS |",
             "|---|---|---|---|---|---|---|"]
    for team in teams:
        for person in people:
            tally = asyncio.run(play(team, person, args.level, args.agents, seat, args.episodes, args.seed,
                                     args.team_first))
            lines.append(row(team, person, tally))
    print(f"{args.level}, {args.agents} agents, person on agent{seat}, {args.episodes} episodes (tau 1, seeds "
          f"{args.seed}..{args.seed + args.episodes - 1}){', team first (old order)' if args.team_first else ''} "
          f"in {time.perf_counter() - started:.1f} s, "
          f"load average {os.getloadavg()[0]:.2f}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
