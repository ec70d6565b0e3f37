"""Overcooked as a `DomainSession`: the engine, its refusals as verdicts, its text for prompts.

Steps and timesteps differ: `step_index` counts dispatcher steps and `max_steps` is the horizon
in timesteps (400). Every step advances at least one timestep, so steps never outrun the horizon,
and an episode of idle steps (``wait``) lasts exactly `max_steps` steps. The timestep each
decision was made at is the first line of the step's notes (``timesteps 12-17``), which the
recording keeps.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mindagent.core.domain import Counts, DomainSession, DomainStep, PromptParts, Verdict
from mindagent.core.gbnf import choice_grammar, team_choice_grammar
from overcooked_game import page, text
from overcooked_game.commands import MEDIUM, PRIMITIVE, Command, extract, grammar_rules, parse
from overcooked_game.engine import HORIZON, Engine
from overcooked_game.kitchen import Kitchen, Refusal
from overcooked_game.layouts import Layout
from overcooked_game.wording import describe

#: The one standing order: Overcooked's classic layouts want onion soup, any number, until the end.
ORDER_ID = 1


class OvercookedSession(DomainSession):
    """Two chefs in one layout. Example::

        session = OvercookedSession(load_layout("cramped_room"))
        await session.reset(seed=0)
        step = await session.step(["pickup_onion(chef0)", "pickup_dish(chef1)"])
        print(step.notes[0], session.engine.timestep)
    """

    domain = "overcooked"

    def __init__(self, layout: Layout, n_agents: int = 2, horizon: int = HORIZON) -> None:
        self.layout = layout
        self.name = layout.name
        self.n_agents = n_agents
        self.max_steps = horizon
        self.kitchen = Kitchen(layout)
        self.engine = Engine(self.kitchen, n_agents, horizon)
        self._names = [f"chef{c}" for c in range(n_agents)]

    @property
    def agent_names(self) -> list[str]:
        return list(self._names)

    async def reset(self, seed: int | None = None) -> None:
        """Overcooked has no randomness: every episode starts from the layout's start state."""
        self.engine.reset()

    async def step(self, commands: Sequence[str]) -> DomainStep:
        return self.step_now(commands)

    def step_now(self, commands: Sequence[str]) -> DomainStep:
        """The synchronous step (the engine is pure); `step` is its async face."""
        judged, advance = self.engine.step(list(commands))
        notes = [f"timesteps {advance.start}-{advance.end}", *advance.notes]
        return DomainStep(self._verdicts(commands, judged.refusals), notes, advance.delivered, [])

    def check(self, commands: Sequence[str]) -> list[Verdict]:
        return self._verdicts(commands, self.engine.judge(list(commands)).refusals)

    @staticmethod
    def _verdicts(commands: Sequence[str], refusals: Sequence[Refusal | None]) -> list[Verdict]:
        return [Verdict(c, r is None, r, None if r is None else describe(r)) for c, r in zip(commands, refusals, strict=True)]

    def legal_commands(self, agent: int) -> list[str]:
        """The medium-level commands feasible now, then the six primitives (always feasible)."""
        if self.engine.done or not 0 <= agent < self.n_agents:
            return []
        return [*self.feasible(agent), *(f"{p}(chef{agent})" for p in PRIMITIVE)]

    def feasible(self, agent: int) -> list[str]:
        """LLM-Coordination's feasible medium-level actions for one chef, in a fixed order."""
        kitchen, state = self.kitchen, self.engine.state
        out = []
        for verb, kind in MEDIUM.items():
            if kind is None:
                names: list[str | None] = [None]
            elif kind == "pot":
                names = [kitchen.names[p] for p in kitchen.pots]
            else:
                names = [kitchen.names[p] for p in self._placeable(agent)]
            for target in names:
                command = Command(verb, agent, target)
                if kitchen.refusal(state, command) is None:
                    out.append(str(command))
        return out

    def _placeable(self, agent: int) -> list[tuple[int, int]]:
        """Counters worth offering for ``place``: every empty one the partner can also reach
        (a hand-over), else the nearest empty one (as LLM-Coordination lists them)."""
        kitchen, state = self.kitchen, self.engine.state
        here = state.players[agent].position
        empty = [p for p in kitchen.empty_counters(state) if kitchen.reaches(here, p)]
        partners = [p.position for i, p in enumerate(state.players) if i != agent]
        shared = [p for p in empty if all(kitchen.reaches(o, p) for o in partners)]
        if shared and len(shared) < len(empty):
            return shared
        best = kitchen.best_goal(state, agent, empty)
        return [] if best is None else [best[0]]

    def extract_commands(self, text_: str) -> list[str]:
        return [str(c) for c in extract(text_, self.n_agents)]

    def state_text(self) -> str:
        return text.state_text(self.engine, [self.feasible(a) for a in range(self.n_agents)])

    def prompt_parts(self) -> PromptParts:
        return PromptParts(recipes=text.recipes(), instructions=text.instructions(self.n_agents, self.max_steps),
                           knowledge=text.knowledge())

    def idle_command(self, agent: int) -> str:
        """A busy chef without a new command carries on; a free one waits a timestep."""
        task = self.engine.tasks[agent] if 0 <= agent < self.n_agents else None
        if task is not None and not task.command.primitive and task.command.verb not in ("wait", "move_away"):
            return str(task.command)
        return f"wait(chef{agent})"

    def agent_of(self, command: str) -> int | None:
        found = extract(command, self.n_agents)
        return found[0].chef if len(found) == 1 else None

    def grammar(self) -> str:
        return grammar_rules(self.n_agents, len(self.kitchen.pots), len(self.kitchen.counters))

    def agent_grammar(self, agent: int) -> str:
        return grammar_rules(self.n_agents, len(self.kitchen.pots), len(self.kitchen.counters), only=agent)

    def legal_grammar(self) -> str:
        """Legal-move decoding: each chef's line is one of its commands feasible now, the
        constrained-decoding form of LLM-Coordination's feasible-action filter."""
        return team_choice_grammar([self._answerable(a) for a in range(self.n_agents)])

    def legal_agent_grammar(self, agent: int) -> str:
        return choice_grammar(self._answerable(agent))

    def _answerable(self, agent: int) -> list[str]:
        """The legal commands, and the idle one when the game accepts it: a busy chef's idle
        command is its current task (carry on), which may be a counter `feasible` does not offer.
        Once the episode is over nothing is legal, and the idle line is all there is to say."""
        legal = self.legal_commands(agent)
        idle = self.idle_command(agent)
        if not legal or self.kitchen.refusal(self.engine.state, parse(idle, self.n_agents)) is None:
            legal.append(idle)
        return legal

    def orders_snapshot(self) -> list[dict[str, Any]]:
        return [{"id": ORDER_ID, "dish": "onion_soup", "lifetime": max(0, self.max_steps - self.engine.timestep),
                 "wanted": "any number"}]

    def credit(self, command: str) -> str | None:
        return "served" if command.startswith("deliver(") else "made" if command.startswith("fill_dish(") else None

    def episode_header(self) -> dict[str, Any]:
        return {"overcooked": {"layout": self.layout.source, "grid": list(self.layout.rows), "dynamics": "classic",
                               "horizon": self.max_steps}}

    async def restore(self, header: Mapping[str, Any]) -> None:
        saved = header.get("overcooked")
        if not isinstance(saved, Mapping) or saved.get("grid") != list(self.layout.rows):
            raise ValueError(f"the recording was made on another grid than {self.layout.source} has now")
        if saved.get("horizon") != self.max_steps:
            raise ValueError(f"the recording's horizon {saved.get('horizon')} is not {self.max_steps}")
        self.engine.reset()

    def view(self) -> dict[str, Any]:
        state = self.engine.state
        agents = [{"agent": a, "name": n, "location": page.where(self.engine, a), "cell": list(state.players[a].position),
                   "holding": self.engine.held(a), "busy": 0 if self.engine.tasks[a] is None else 1,
                   "details": [text.chef_line(self.engine, a)]} for a, n in enumerate(self._names)]
        return {"orders": self.orders_snapshot(), "agents": agents, "locations": page.places(self.engine, self.kitchen),
                "timestep": self.engine.timestep, "score": self.engine.reward,
                "grid": page.grid_state(self.engine, self.kitchen)}

    def static_view(self) -> dict[str, Any]:
        return {"level": self.name, "domain": self.domain, "dishes": ["onion_soup"], "recipes": [text.recipes()],
                "base_ingredients": ["onion"], "needed_ingredients": ["onion"], "kitchen": list(self.layout.rows),
                "n_agents": self.n_agents, "max_steps": self.max_steps, "agent_names": self.agent_names,
                "howto": list(page.HOWTO), "page": page.page(self.layout.rows)}

    def page_actions(self, agent: int, legal: Sequence[str]) -> list[dict[str, Any]]:
        """The person's keys as actions (declares `PageActions`; see `overcooked_game.page`)."""
        return page.actions(self.n_agents, agent, legal)

    @property
    def step_index(self) -> int:
        return self.engine.steps

    @property
    def done(self) -> bool:
        return self.engine.done

    @property
    def score(self) -> int:
        """The episode's sparse reward so far (20 per soup), the figure Overcooked papers report
        (declares the `Scored` capability: `mindagent run` puts it in its summary)."""
        return self.engine.reward

    @property
    def counts(self) -> Counts:
        return Counts(self.engine.delivered, 0, len(self.orders_snapshot()))
