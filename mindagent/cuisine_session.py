"""CuisineWorld behind the domain protocol, so the dispatcher never imports the engine directly."""

from __future__ import annotations

from collections.abc import Sequence

from cuisineworld import Level, World
from feedback import describe, step_lines
from mindagent.domain import Counts, DomainStep, PromptParts, Verdict
from mindagent.extraction import extract_commands
from mindagent.llm.base import CommandSpace
from mindagent.prompt.cuisine_text import instructions_text, knowledge_text, recipes_text


HEAD_CHEF_WINDOW = 3


class CuisineSession:
    """One CuisineWorld kitchen as a `DomainSession`; `world` is there for planners and tests.

    Example::

        session = CuisineSession(load_level("level_3"), n_agents=2, tau=1.0, seed=0)
        await session.reset()
    """

    domain = "cuisineworld"

    def __init__(
        self, level: Level, n_agents: int = 2, tau: float = 1.0, seed: int = 0, max_steps: int | None = None,
        demo_dish: str | None = None,
    ) -> None:
        self.world = World(level, n_agents=n_agents, tau=tau, seed=seed, max_steps=max_steps)
        self.level = level
        self.name = level.name
        self.n_agents = n_agents
        self.max_steps = self.world.max_steps
        self.rules = level.rules.name
        self.demo_dish = demo_dish
        self._instructions: list[str] = []

    async def reset(self) -> None:
        self.world.reset()

    def _verdicts(self, outcomes: Sequence[object]) -> list[Verdict]:
        out = []
        for o in outcomes:
            reason = o.reason  # type: ignore[attr-defined]
            out.append(Verdict(o.command, o.ok, reason, describe(reason) if reason is not None else None))  # type: ignore[attr-defined]
        return out

    async def step(self, commands: Sequence[str]) -> DomainStep:
        return self.step_now(commands)

    def step_now(self, commands: Sequence[str]) -> DomainStep:
        """The synchronous step (the world is pure); `step` is its async face."""
        result = self.world.step(list(commands))
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
        )

    def command_space(self) -> CommandSpace:
        items = list(self.level.base_ingredients) + [r.product for r in self.level.recipes]
        return CommandSpace(self.n_agents, self.level.location_names, tuple(dict.fromkeys(items)))

    def add_instruction(self, text: str) -> None:
        """A head chef's instruction; it stands (shown at every step) until newer ones push it out."""
        text = text.strip()
        if not text:
            return
        if text in self._instructions:
            self._instructions.remove(text)
        self._instructions = (self._instructions + [text])[-HEAD_CHEF_WINDOW:]

    def pending_instructions(self) -> list[str]:
        """The head chef's standing instructions, newest last, for this step's prompt."""
        return list(self._instructions)

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

    def orders_snapshot(self) -> list[dict[str, object]]:
        return [{"id": o.id, "dish": o.dish, "lifetime": o.lifetime} for o in self.world.orders]
