"""Assembles the dispatcher's messages from switchable components.

Order matters for caching: the system text (instructions, recipes, knowledge) and the demo
come first and never change within an episode, so providers can cache them; memory, feedback,
a director's words and the current state come last.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Literal

from mindagent.core.demo import Demo
from mindagent.core.domain import PromptParts
from mindagent.dispatch.memory import DEFAULT_BUDGET_TOKENS, Memory, Turn
from mindagent.llm.base import Message

DemoMode = Literal["full", "few-step", "none"]
#: How a turn introduces a person's standing instructions when the game names no director.
DIRECTOR = "Your director says"


@dataclass(frozen=True)
class PromptConfig:
    """Which components the prompt carries; each ablation flag flips exactly one of these."""

    recipes: bool = True
    instructions: bool = True
    knowledge: bool = True
    demo: DemoMode = "full"
    demo_agents: int | None = None
    feedback: bool = True
    memory: int = 2
    #: The growing memory window's token budget; 0 is the paper's sliding window (`Memory`).
    memory_budget: int = DEFAULT_BUDGET_TOKENS

    def to_dict(self) -> dict[str, object]:
        """Every field; the budget only when it is not the paper's sliding window (0), so results
        files and recordings written before the growing layout still match their settings."""
        out = asdict(self)
        if not self.memory_budget:
            del out["memory_budget"]
        return out

    def new_memory(self) -> Memory:
        """An empty memory in this prompt's layout."""
        return Memory(self.memory, self.memory_budget)


def format_turn(step: int, state: str, feedback: Sequence[str] | None, head_chef: Sequence[str] = (),
                people: Sequence[str] = (), director: str = DIRECTOR, held: Sequence[str] = ()) -> str:
    """One user turn: what happened last step, what the director (a person's standing
    instructions) says, in the game's words (`PromptParts.director`), the standing orders the
    commands are held to (`held`, see `held_orders_text`), and the state now.

    `step` is already in the state text; it is accepted so callers need not know that.
    """
    parts = []
    if feedback is not None:
        parts.append("Feedback: " + ("\n" + "\n".join(f"- {line}" for line in feedback) if feedback else "none"))
    if head_chef:
        parts.append(f"{director}:\n" + "\n".join(f"- {line}" for line in head_chef))
    if held:
        parts.append(held_orders_text(held))
    if people:
        parts.append("\n".join(people))
    parts.append("State:\n" + state.rstrip("\n"))
    return "\n".join(parts)


# ------------------------------------------------------------ standing orders
#: How a turn introduces the director's words as read (`mindagent.core.directions`): the model is
#: told the constraints its commands are held to, not only the raw words.
HELD_ORDERS = "Standing orders (a command that breaks one is not carried out; that agent waits)"


def held_orders_text(orders: Sequence[str]) -> str:
    """The standing orders as a prompt section, e.g. ``held_orders_text(["never make tunaSushi"])``."""
    return f"{HELD_ORDERS}:\n" + "\n".join(f"- {line}" for line in orders)


def system_text(parts: PromptParts, config: PromptConfig, demo: Demo | None) -> str:
    sections = []
    if config.instructions:
        sections.append(parts.instructions)
    if config.recipes:
        sections.append(parts.recipes)
    if config.knowledge:
        sections.append(parts.knowledge)
    if demo is not None:
        sections.append(demo.intro)
    else:
        sections.append("The game begins now.")
    return "\n\n".join(sections)


def demo_messages(demo: Demo, with_feedback: bool) -> list[Message]:
    out: list[Message] = []
    for t, step in enumerate(demo.steps):
        shown = format_turn(t, step.state, list(step.feedback) if with_feedback else None)
        out.append(Message("user", shown))
        out.append(Message("assistant", "\n".join(step.commands)))
    return out


def build_messages(
    parts: PromptParts,
    config: PromptConfig,
    demo: Demo | None,
    memory: Sequence[Turn],
    current: str,
) -> list[Message]:
    """Static prefix (system + demo, the last of which carries the cache mark), then memory (its last
    answer marked too in the growing layout, which the next prompt starts with), then now."""
    chosen = None if config.demo == "none" else demo
    if chosen is not None and config.demo == "few-step":
        chosen = chosen.few_step()
    static = [Message("system", system_text(parts, config, chosen))]
    if chosen is not None:
        static += demo_messages(chosen, config.feedback)
    last = static[-1]
    static[-1] = Message(last.role, last.content, cache_prefix=True)
    dynamic: list[Message] = []
    for turn in memory:
        dynamic.append(Message("user", turn.shown))
        dynamic.append(Message("assistant", turn.answered))
    if dynamic and config.memory_budget:  # a growing window is the next prompt's prefix too: cache it
        dynamic[-1] = Message("assistant", dynamic[-1].content, cache_prefix=True)
    dynamic.append(Message("user", current))
    return static + dynamic
