"""What a game may do beyond the small contract, declared by implementing a protocol.

The core asks ``isinstance(session, GoalMode)`` (runtime-checkable protocols), never whether an
attribute happens to exist, so a capability is visible in the game's class, checked by the
conformance suite, and typed. Each protocol is small; a game implements the ones it supports.
The accessor functions at the bottom are what the dispatcher, recorder and server call: they
return None (or the neutral answer) for a game without the capability.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib.resources.abc import Traversable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from mindagent.core.domain import JSON, DomainSession, PromptParts

if TYPE_CHECKING:
    from mindagent.core.demo import Demo
    from mindagent.dispatch.plans import Executor, GoalMenu
    from mindagent.dispatch.taskgraph import SubtaskExecutor, TaskGraph


@runtime_checkable
class Grammars(Protocol):
    """Constrained decoding: GBNF grammars of a well-formed answer (local models)."""

    def grammar(self) -> str | None:
        """One whole answer of the team, e.g. one command line per agent (None: none now)."""
        ...

    def agent_grammar(self, agent: int) -> str | None:
        """One command of agent `agent` alone (decentral mode and subtask executors)."""
        ...


@runtime_checkable
class LegalGrammars(Protocol):
    """Legal-move decoding: GBNF grammars of only the commands legal now (`legal_commands`).

    `Grammars` describes the command language (what a plan of future steps may say); this one
    describes this step, so a constrained model cannot write a command the game would refuse
    alone. The dispatcher prefers it for one step's answer and keeps `Grammars` for plans.
    """

    def legal_grammar(self) -> str | None:
        """One whole answer of the team, each agent's line one of its legal commands now.

        Example: line0 one of ``noop_agent0 | goto_agent0_pot0``, line1 one of agent1's."""
        ...

    def legal_agent_grammar(self, agent: int) -> str | None:
        """One command of agent `agent` alone, one of its legal commands now."""
        ...


@runtime_checkable
class GoalMode(Protocol):
    """``--dispatch goals``: the model chooses what the team works on; the game's executor acts.

    Example: ``session.goal_menu()`` → ``GoalMenu(("tunaSushi",), "orders: ...")``.
    """

    def goal_menu(self) -> GoalMenu | None:
        """The goals the model may choose now and the situation to choose from (None: nothing to choose)."""
        ...

    def goal_executor(self) -> Executor:
        """A fresh executor that turns the chosen goal into commands every step."""
        ...


@runtime_checkable
class TaskGraphMode(Protocol):
    """``--mode taskgraph``: the open work as a DAG of subtasks a manager assigns to agents."""

    def task_graph(self) -> TaskGraph | None:
        """Example: ``TaskGraph((Subtask("o1.rice", "fetch rice", "salmonSushi"),))``."""
        ...

    def subtask_executor(self) -> SubtaskExecutor:
        """A fresh executor turning each agent's subtask into its command."""
        ...


@runtime_checkable
class AgentPrompts(Protocol):
    """Agents that know different things: agent K's own static prompt in decentral mode."""

    def agent_prompt_parts(self, agent: int) -> PromptParts:
        """Example: only the recipes agent 1 knows on a level with asymmetric knowledge."""
        ...


@runtime_checkable
class Demos(Protocol):
    """A one-shot demonstration for the prompt."""

    def choose_demo(self, agents: int | None) -> Demo | None:
        """The demo made with `agents` agents (None: the session's own team size)."""
        ...


@runtime_checkable
class Replayable(Protocol):
    """Recordings re-executed offline (`mindagent replay`): a fresh session put at a recorded start."""

    async def restore(self, header: Mapping[str, JSON]) -> None:
        """Example: ``await session.restore(header)`` with a recording's header line."""
        ...


@runtime_checkable
class LiveView(Protocol):
    """A live world that can show itself to people beside the page (a 3D view of the bots)."""

    def serve_live_view(self, bind: str, hostnames: frozenset[str] | None) -> None:
        """Start serving the view on `bind` for requests naming `hostnames` (None: any)."""
        ...


@runtime_checkable
class PageActions(Protocol):
    """What each legal command means on the shared page: its exact command, words for people, the
    button group it belongs to and the tile it acts on (see `mindagent.server.views`).

    Example: ``session.page_actions(0, ["noop_agent0"])`` →
    ``[{"command": "noop_agent0", "label": "wait", "group": "wait", "tile": None, "item": None}]``."""

    def page_actions(self, agent: int, legal: Sequence[str]) -> list[dict[str, Any]]:
        """One action per command of `legal` that the game describes, in any order."""
        ...


#: A page asset's name: a plain file name (no folders), and the suffixes a page may load.
ASSET_NAME = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,79}"
ASSET_SUFFIXES: tuple[str, ...] = (".png", ".json", ".webp", ".jpg", ".gif")
#: The largest page asset served.
ASSET_MAX_BYTES = 4 * 1024 * 1024


@runtime_checkable
class PageAssets(Protocol):
    """A game whose page draws with files of its own (sprite sheets), declared on its `Domain`.

    The server serves exactly the names listed, at ``/assets/<game>/<name>``, read where the game
    says they are (an installed package's data, never copied into this repository); any other name
    is not found. Names match `ASSET_NAME` and end in one of `ASSET_SUFFIXES` (the conformance
    check `page_asset_problems` says which do not).

    Example: ``domain.page_assets()`` → ``{"chefs.png": files("overcooked") / "data/graphics/chefs.png"}``."""

    def page_assets(self) -> Mapping[str, Traversable]:
        """Each servable file's public name and where it is read from."""
        ...


@runtime_checkable
class Scored(Protocol):
    """A game that reports its own score beside completed orders (Overcooked's sparse reward)."""

    @property
    def score(self) -> float:
        """The current episode's score so far, e.g. 20 per soup delivered."""
        ...


@runtime_checkable
class Directable(Protocol):
    """What a director's words may name, and what a command makes, so every dispatcher's commands
    can be held to them (`mindagent.core.directions`).

    Example: ``session.direction_names()["mixedSashimi"]`` → ``frozenset({"salmonSashimi", "tunaSashimi"})``;
    ``session.command_makes("activate_agent0_mixer0")`` → ``"salmonSushi"`` (what the mixer holds makes)."""

    def direction_names(self) -> Mapping[str, frozenset[str]]:
        """Each name a director may use (a dish, an order's item), with the names it is made of."""
        ...

    def command_makes(self, command: str) -> str | None:
        """The name of `direction_names` that `command`, run now, makes, delivers or works toward
        for that name alone; None for any other command."""
        ...


@runtime_checkable
class DishShares(Protocol):
    """A game that credits every completed order to the agents who worked on it, not only to the
    one who served it (a person who passed every part of a dish over a counter has a share of it)."""

    def dish_shares(self) -> list[float]:
        """Each agent's share of this episode's completed orders (they add up to the completed
        orders it could follow). Example: ``[1.5, 0.5]``: agent1 did half the work of one of two."""
        ...


@runtime_checkable
class ActsFor(Protocol):
    """A built-in policy that can command a subset of the team (people or partners play the rest)."""

    def act_for(self, session: Any, controlled: list[int]) -> list[str]:
        """Commands for the agents in `controlled` only."""
        ...


@runtime_checkable
class TakesReplies(Protocol):
    """A built-in policy that answers a director's words (e.g. "cannot make that here")."""

    def take_replies(self) -> list[str]:
        """Replies made since the last call, oldest first."""
        ...


# ------------------------------------------------------------------ accessors


def grammar_of(session: DomainSession) -> str | None:
    return session.grammar() if isinstance(session, Grammars) else None


def agent_grammar_of(session: DomainSession, agent: int) -> str | None:
    return session.agent_grammar(agent) if isinstance(session, Grammars) else None


def step_grammar_of(session: DomainSession) -> str | None:
    """The grammar of this step's whole answer: the legal moves when the game offers them, else
    its command language (None: the game offers neither)."""
    legal = session.legal_grammar() if isinstance(session, LegalGrammars) else None
    return legal if legal is not None else grammar_of(session)


def step_agent_grammar_of(session: DomainSession, agent: int) -> str | None:
    """One agent's command this step: its legal moves when offered, else its command language."""
    legal = session.legal_agent_grammar(agent) if isinstance(session, LegalGrammars) else None
    return legal if legal is not None else agent_grammar_of(session, agent)


def goal_menu_of(session: DomainSession) -> GoalMenu | None:
    return session.goal_menu() if isinstance(session, GoalMode) else None


def task_graph_of(session: DomainSession) -> TaskGraph | None:
    return session.task_graph() if isinstance(session, TaskGraphMode) else None


def agent_prompt_parts_of(session: DomainSession, agent: int) -> PromptParts:
    return session.agent_prompt_parts(agent) if isinstance(session, AgentPrompts) else session.prompt_parts()


def demo_of(session: DomainSession, agents: int | None) -> Demo | None:
    return session.choose_demo(agents) if isinstance(session, Demos) else None


def policy_commands(policy: Any, session: DomainSession, controlled: Sequence[int] | None) -> list[str]:
    """A built-in policy's commands for `controlled` (None: the whole team)."""
    if controlled is not None and isinstance(policy, ActsFor):
        return policy.act_for(session, list(controlled))
    commands: list[str] = policy.act(session)
    return commands


def dish_shares_of(session: DomainSession) -> list[float] | None:
    return session.dish_shares() if isinstance(session, DishShares) else None


def policy_replies(policy: Any) -> list[str]:
    return policy.take_replies() if isinstance(policy, TakesReplies) else []


@runtime_checkable
class RealTimePace(Protocol):
    """A game played at its own real-time pace, declared on its `Domain`: `mindagent serve` and
    the lobby's room form start from it where the host gives no ``--tick``/``--human-tick``.

    Example: ``domain.real_time_pace()`` → ``(0.2, 0.2)`` (Overcooked: five timesteps a second)."""

    def real_time_pace(self) -> tuple[float, float]:
        """Seconds per step with machines only, and while a person plays an agent."""
        ...


@runtime_checkable
class LevelDifficulty(Protocol):
    """How hard each level is, as the game measured it, declared on its `Domain`: the lobby's
    level picker shows it beside each level a person may choose.

    Example: ``domain.level_difficulty()`` → ``{"level_0": "medium", "level_2": "easy"}`` (a level
    left out has no label)."""

    def level_difficulty(self) -> dict[str, str]:
        """A short label per measured level (the game's words)."""
        ...


@runtime_checkable
class ProcessColumns(Protocol):
    """Process metrics worth a column of `mindagent eval`'s table beside the completion rate,
    declared on its `Domain`: a game whose score has companions (a second score, team figures)
    names them here and the table shows each cell's mean over its episodes.

    Example: ``domain.eval_columns("construction:easy:0")`` → ``(("view_hit_rate", "VHR"),)``
    (keys of `Domain.process_metrics`; a level without any gives ``()``)."""

    def eval_columns(self, level: str) -> tuple[tuple[str, str], ...]:
        """(process-metric key, column header) pairs for this level, in column order."""
        ...


#: Capabilities a game's `Domain` (not its sessions) may declare.
DOMAIN_CAPABILITIES: tuple[type, ...] = (PageAssets, RealTimePace, LevelDifficulty, ProcessColumns)

#: Every session capability, for listings and the conformance suite.
SESSION_CAPABILITIES: tuple[type, ...] = (Grammars, LegalGrammars, GoalMode, TaskGraphMode, AgentPrompts, Demos,
                                          Replayable, LiveView, PageActions, Scored, Directable, DishShares)

__all__ = ["ASSET_MAX_BYTES", "ASSET_NAME", "ASSET_SUFFIXES", "ActsFor", "AgentPrompts", "DOMAIN_CAPABILITIES",
           "Demos", "Directable", "DishShares", "GoalMode", "Grammars", "LegalGrammars", "LevelDifficulty",
           "LiveView", "PageActions", "PageAssets", "ProcessColumns", "RealTimePace", "Replayable", "SESSION_CAPABILITIES", "Scored",
           "TakesReplies", "TaskGraphMode", "agent_grammar_of", "agent_prompt_parts_of", "demo_of", "dish_shares_of",
           "goal_menu_of", "grammar_of", "policy_commands", "policy_replies", "step_agent_grammar_of",
           "step_grammar_of", "task_graph_of"]
