"""CuisineWorld behind the domain contract, so the dispatcher never imports the engine directly."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cuisineworld import Level, Outcome, Reason, World
from cuisineworld.adapter import directing, page, view
from cuisineworld.adapter.credit import DishLedger
from cuisineworld.adapter.extraction import extract_commands
from cuisineworld.adapter.goals import GoalExecutor, goal_menu
from cuisineworld.adapter.grammar import CommandSpace, agent_grammar, command_grammar
from cuisineworld.adapter.prompt_text import instructions_text, knowledge_text, recipes_text
from cuisineworld.adapter.taskgraph import TaskExecutor, task_graph
from cuisineworld.demos import Demo, DemoError, load_demo
from cuisineworld.feedback import describe, step_lines
from mindagent.core.domain import CommandError, Counts, DomainSession, DomainStep, PromptParts, Verdict
from mindagent.core.gbnf import choice_grammar, team_choice_grammar
from mindagent.dispatch.plans import GoalMenu
from mindagent.dispatch.taskgraph import TaskGraph

#: How the kitchen's prompt introduces a person's standing instructions.
DIRECTOR = "The head chef says"


class CuisineSession(DomainSession):
    """One CuisineWorld kitchen as a `DomainSession`; `world` is there for planners and tests.

    Example::

        session = CuisineSession(load_level("level_3"), n_agents=2, tau=1.0, seed=0)
        await session.reset()
    """

    domain = "cuisineworld"

    def __init__(self, level: Level, n_agents: int = 2, tau: float = 1.0, seed: int = 0,
                 max_steps: int | None = None, demo_dish: str | None = None) -> None:
        self.world = World(level, n_agents=n_agents, tau=tau, seed=seed, max_steps=max_steps)
        self.level = level
        self.name = level.name
        self.n_agents = n_agents
        self.max_steps = self.world.max_steps
        self.rules = level.rules.name
        self.demo_dish = demo_dish
        self._names = [f"agent{a}" for a in range(n_agents)]
        self._types = {loc.name: loc.type for loc in level.locations}
        #: who contributed to every item, and each agent's share of the served dishes (`credit.py`)
        self.ledger = DishLedger(self.world)
        #: what the planner needs a person to do when the person holds the block (page: ``needs``)
        self.team_needs: list[str] = []

    @property
    def agent_names(self) -> list[str]:
        return list(self._names)

    async def reset(self, seed: int | None = None) -> None:
        self.world.reset(seed=seed)
        self.ledger.reset(self.world)
        self.team_needs = []

    @staticmethod
    def _verdicts(outcomes: Sequence[Outcome]) -> list[Verdict]:
        return [Verdict(o.command, o.ok, o.reason, describe(o.reason) if o.reason is not None else None)
                for o in outcomes]

    async def step(self, commands: Sequence[str]) -> DomainStep:
        return self.step_now(commands)

    def step_now(self, commands: Sequence[str]) -> DomainStep:
        """The synchronous step (the world is pure); `step` is its async face."""
        result = self.world.step(list(commands))
        self.ledger.record(self.world, result)
        return DomainStep(self._verdicts(result.outcomes), step_lines(result), result.completed, result.failed)

    def check(self, commands: Sequence[str]) -> list[Verdict]:
        return self._verdicts(self.world.check(list(commands)))

    def legal_commands(self, agent: int) -> list[str]:
        return self.world.legal_commands(agent)

    def extract_commands(self, text: str) -> list[str]:
        return extract_commands(text, self.n_agents, rules=self.rules)

    def state_text(self) -> str:
        return self.world.state_text()

    def prompt_parts(self) -> PromptParts:
        return PromptParts(
            recipes=recipes_text(self.level, self.demo_dish),
            instructions=instructions_text(self.level, self.n_agents),
            knowledge=knowledge_text(),
            director=DIRECTOR,
        )

    def agent_prompt_parts(self, agent: int) -> PromptParts:
        """Agent `agent`'s own prompt (decentral mode): only the recipes it knows on a level with
        asymmetric knowledge; the dispatcher's `prompt_parts` tell every agent's knowledge."""
        profiles = self.level.team_profiles(self.n_agents)
        if profiles is None or profiles[agent].knows is None:
            return self.prompt_parts()
        return PromptParts(
            recipes=recipes_text(self.level, self.demo_dish, profiles[agent].knows),
            instructions=instructions_text(self.level, self.n_agents, only=agent),
            knowledge=knowledge_text(),
            director=DIRECTOR,
        )

    def idle_command(self, agent: int) -> str:
        return f"noop_agent{agent}"

    def agent_of(self, command: str) -> int | None:
        parts = command.strip().split("_")
        digits = parts[1][5:] if len(parts) >= 2 and parts[1].startswith("agent") else ""
        if digits.isascii() and digits.isdigit():  # '²' is a digit to str.isdigit, not to int()
            agent = int(digits)
            return agent if agent < self.n_agents else None
        return None

    def parse_command(self, text: str) -> str:
        parsed = self.world.parse(text.strip())
        if isinstance(parsed, Reason):
            raise CommandError(describe(parsed))
        return str(parsed)

    def grammar(self) -> str:
        items = list(self.level.base_ingredients) + [r.product for r in self.level.recipes]
        return command_grammar(CommandSpace(self.n_agents, self.level.location_names, tuple(dict.fromkeys(items))))

    def goal_menu(self) -> GoalMenu | None:
        return goal_menu(self)

    def direction_names(self) -> dict[str, frozenset[str]]:
        """The dishes a head chef may name, with their dish parts (the `Directable` capability)."""
        return directing.direction_names(self.level)

    def command_makes(self, command: str) -> str | None:
        return directing.command_makes(self.world, command)

    def goal_executor(self) -> GoalExecutor:
        return GoalExecutor()

    def agent_grammar(self, agent: int) -> str:
        """One command of `agent` alone: the team grammar's line for that agent."""
        items = list(self.level.base_ingredients) + [r.product for r in self.level.recipes]
        space = CommandSpace(self.n_agents, self.level.location_names, tuple(dict.fromkeys(items)))
        return agent_grammar(space, agent)

    def legal_grammar(self) -> str:
        """This step's answer, each agent's line one of its legal commands now."""
        return team_choice_grammar([self._legal_or_idle(a) for a in range(self.n_agents)])

    def legal_agent_grammar(self, agent: int) -> str:
        return choice_grammar(self._legal_or_idle(agent))

    def _legal_or_idle(self, agent: int) -> list[str]:
        return self.legal_commands(agent) or [self.idle_command(agent)]

    def task_graph(self) -> TaskGraph:
        return task_graph(self.world)

    def subtask_executor(self) -> TaskExecutor:
        return TaskExecutor()

    def choose_demo(self, agents: int | None) -> Demo | None:
        """A shipped demo for the team size, on a dish this level does not serve (its recipes join
        the prompt's); None when no shipped demo fits."""
        try:
            demo = load_demo(agents or self.n_agents, avoid_dishes=self.level.dishes)
        except DemoError:
            return None
        self.demo_dish = demo.dish
        return demo

    def orders_snapshot(self) -> list[dict[str, Any]]:
        return [{"id": o.id, "dish": o.dish, "lifetime": o.lifetime} for o in self.world.orders]

    def episode_header(self) -> dict[str, Any]:
        return {"generator_state": self.world.episode_start_state}

    async def restore(self, header: Mapping[str, Any]) -> None:
        state = header.get("generator_state")
        if not isinstance(state, list) or len(state) != 3:
            raise ValueError("the recording header has no order generator state")
        self.world.reset(generator_state=state)
        self.ledger.reset(self.world)

    def credit(self, command: str) -> str | None:
        parts = command.split("_")
        if parts[0] == "activate":
            return "made"
        if parts[0] == "put" and self._types.get(parts[-1]) == "servingtable":
            return "served"
        return None

    def dish_shares(self) -> list[float]:
        """Each agent's share of the dishes served this episode: every served dish split equally
        among the agents that fetched, passed, cooked or served a part of it (`credit.py`)."""
        return list(self.ledger.shares)

    def view(self) -> dict[str, Any]:
        return view.kitchen_view(self)

    def static_view(self) -> dict[str, Any]:
        return {**view.level_view(self), "domain": self.domain, "agent_names": self.agent_names}

    def page_actions(self, agent: int, legal: Sequence[str]) -> list[dict[str, Any]]:
        """What each legal command means on the shared page (the `PageActions` capability)."""
        return page.page_actions(self, agent, legal)

    @property
    def step_index(self) -> int:
        return self.world.time

    @property
    def done(self) -> bool:
        return self.world.done

    @property
    def counts(self) -> Counts:
        c = self.world.counts
        return Counts(c.completed, c.failed, c.active)
