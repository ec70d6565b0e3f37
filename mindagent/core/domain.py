"""The one contract a game fills so the dispatcher, evaluation and server run on it unchanged.

A domain gives two things: a `DomainSession` (one live episode: reset, step, check, legal
commands, extraction, state text, prompt parts, counts, and a handful of optional hooks that
have working defaults here) and a `Domain` (how to build sessions and built-in policies from a
`GameSpec`, and which levels exist). Nothing above this module imports a concrete game; the
registry of domains is `mindagent.core.registry`.

Stepping is async because one domain (Minecraft) does real I/O; a pure domain returns at once.
"""

from __future__ import annotations

import abc
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from mindagent.core.spec import GameSpec
    from mindagent.dispatch.policy import Policy

#: Standing instructions of a person directing the team (the kitchen's head chef) a session
#: keeps, newest last; older ones drop out.
HEAD_CHEF_WINDOW = 3

JSON = Any  # what json.dumps accepts; kept loose on purpose (nested dicts and lists)


class Reason(Protocol):
    """A structured refusal (CuisineWorld's `Reason`, Minecraft's `ActionError`).

    `code` names the rule that refused; `to_dict` is what a recording keeps of it.
    """

    @property
    def code(self) -> str: ...

    def to_dict(self) -> dict[str, JSON]: ...


@dataclass(frozen=True, slots=True)
class Verdict:
    """What one command got (or would get): ok, or refused with a structured reason.

    `text` is the English line the domain's feedback layer made of the reason, ready for a
    prompt or a page. Example: ``Verdict("get_agent1_tuna_storage0", False, reason, "agent1 ...")``.
    """

    command: str
    ok: bool
    reason: Reason | None = None
    text: str | None = None

    def to_dict(self) -> dict[str, JSON]:
        return {"command": self.command, "ok": self.ok,
                "reason": None if self.reason is None else self.reason.to_dict(), "text": self.text}


@dataclass(frozen=True, slots=True)
class Counts:
    completed: int
    failed: int
    active: int


@dataclass(frozen=True, slots=True)
class PromptParts:
    """The static text a domain contributes to the dispatcher prompt (byte-stable per episode).

    Example: ``PromptParts(recipes="...", instructions="...", knowledge="...")``.
    """

    recipes: str
    instructions: str
    knowledge: str
    #: How a turn introduces a person's standing instructions, in the game's words
    #: (a kitchen: ``"The head chef says"``).
    director: str = "Your director says"


@dataclass(frozen=True, slots=True)
class DomainStep:
    """The result of one joint step: per-command verdicts in the order given, plus step notes."""

    verdicts: list[Verdict]
    notes: list[str] = field(default_factory=list)
    completed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


class CommandError(ValueError):
    """A command a person typed cannot be read; the message says why, in plain words."""


class SpecError(ValueError):
    """A `GameSpec` asks for something this domain does not have (the message names the domain)."""


class ReplayUnsupported(ValueError):
    """This domain cannot re-execute a recording offline (it needs a live world)."""


_TOKEN = re.compile(r"[A-Za-z0-9]+")


class DomainSession(abc.ABC):
    """One live episode of a game, driven by the dispatcher. Subclass it; fill the abstract parts.

    Example::

        session = domains.make_session(GameSpec(level="level_3", agents=2))
        await session.reset(seed=0)
        print(session.state_text())
        step = await session.step(["goto_agent0_storage0", "noop_agent1"])
        print(step.verdicts[0].ok, session.counts)

    The hooks below the abstract ones have defaults that suit most domains. What only some games
    can do (goal mode, task graphs, grammars, per-agent prompts, demos, offline replay, a live
    view) is a declared capability in `mindagent.core.capabilities`, not a method here.
    """

    #: The registry key of the domain (a name in `mindagent.core.registry.NAMES`, e.g. ``"minecraft"``).
    domain: str = ""
    #: What is being played (a level name); shown on pages and in file names.
    name: str = ""
    n_agents: int = 0
    max_steps: int = 0

    # ------------------------------------------------------------------ required
    @property
    @abc.abstractmethod
    def agent_names(self) -> list[str]:
        """How commands and state name agent k, e.g. ``["agent0", "agent1"]`` or ``["Alex", "Steve"]``."""

    @abc.abstractmethod
    async def reset(self, seed: int | None = None) -> None:
        """Start the next episode. With a seed, reseed the episode's randomness (same seed, same
        episode); without one, carry on (the reference carries the order stream over episodes).

        Example: ``await session.reset(seed=0)``.
        """

    @abc.abstractmethod
    async def step(self, commands: Sequence[str]) -> DomainStep:
        """Execute one joint command list, in order. Never raises on bad commands: a malformed or
        impossible command gets a refused `Verdict`.

        Example: ``(await session.step(["noop_agent0", "noop_agent1"])).verdicts[0].ok``.
        """

    @abc.abstractmethod
    def check(self, commands: Sequence[str]) -> list[Verdict]:
        """The verdicts the commands would get now, changing nothing (the look-ahead validator).

        Example: ``session.check(["get_agent0_tuna_storage0"])[0].ok``.
        """

    @abc.abstractmethod
    def legal_commands(self, agent: int) -> list[str]:
        """Every command that would succeed for `agent` now, e.g. ``["noop_agent0", ...]``."""

    @abc.abstractmethod
    def extract_commands(self, text: str) -> list[str]:
        """This domain's commands found in free model text, at most one per agent (a rule set that
        reproduces a reference release's quirks may keep every match, as that release did).

        Example: ``session.extract_commands("sure!\\ngoto_agent0_storage0")`` → ``["goto_agent0_storage0"]``.
        """

    @abc.abstractmethod
    def state_text(self) -> str:
        """The current state as the dispatcher reads it (deterministic ordering)."""

    @abc.abstractmethod
    def prompt_parts(self) -> PromptParts:
        """Static prompt text: recipes, instructions, inference knowledge."""

    @abc.abstractmethod
    def idle_command(self, agent: int) -> str:
        """What an agent without a command does, e.g. ``"noop_agent0"`` or ``"noop(Alex)"``."""

    @abc.abstractmethod
    def orders_snapshot(self) -> list[dict[str, JSON]]:
        """The open orders, most urgent first: ``[{"id": 1, "dish": "tunaSashimi", "lifetime": 12}]``."""

    @property
    @abc.abstractmethod
    def step_index(self) -> int:
        """Steps taken in the current episode."""

    @property
    @abc.abstractmethod
    def done(self) -> bool:
        """True once the episode has used all its steps."""

    @property
    @abc.abstractmethod
    def counts(self) -> Counts:
        """Completed, failed and still-active orders of the current episode."""

    # ------------------------------------------------------------ optional hooks
    def agent_of(self, command: str) -> int | None:
        """The agent a command names, or None (``get_agent1_tuna_storage0`` → 1, ``killMob(Steve, cow)`` → 1)."""
        names = self.agent_names
        for token in _TOKEN.findall(command):
            if token in names:
                return names.index(token)
        return None

    def parse_command(self, text: str) -> str:
        """A command a person typed or picked, normalised; `CommandError` saying why it cannot be read."""
        found = self.extract_commands(text)
        if len(found) != 1 or found[0].strip() != text.strip():
            raise CommandError(f"not a command of this game: {text.strip()[:80]!r}")
        return found[0]

    def add_instruction(self, text: str) -> None:
        """A director's instruction; it stands (shown at every step) until newer ones push it out."""
        text = " ".join(text.split())
        if not text:
            return
        standing = self._standing_instructions()
        if text in standing:
            standing.remove(text)
        standing.append(text)
        del standing[:-HEAD_CHEF_WINDOW]

    def pending_instructions(self) -> list[str]:
        """The director's standing instructions for this step's prompt, newest last."""
        return list(self._standing_instructions())

    def _standing_instructions(self) -> list[str]:
        store: list[str] | None = self.__dict__.get("_head_chef")
        if store is None:
            store = self.__dict__.setdefault("_head_chef", [])
        return store

    def set_people_commands(self, commands: Sequence[str]) -> None:
        """The commands people chose for the coming step, known before the team's are chosen.

        They run first in the joint action, so a person wins any race for an item or a place; a
        built-in policy that reads `people_commands` plans its agents around them. The caller
        sets them before the dispatcher decides and clears them (``()``) after the step."""
        self.__dict__["_people_first"] = [str(c) for c in commands]

    def people_commands(self) -> list[str]:
        """This step's people's commands (`set_people_commands`), in the order they run; [] when unknown.
        Example: ``["goto_agent1_storage0"]``."""
        known: list[str] = self.__dict__.get("_people_first", [])
        return list(known)

    def episode_header(self) -> dict[str, JSON]:
        """What a recording header needs, beyond the spec, to rebuild this episode (taken after reset)."""
        return {}

    def credit(self, command: str) -> str | None:
        """What an accepted command adds to its agent's share at the end of an episode: ``"served"``
        (it completed an order), ``"made"`` (it produced an item) or None. Example: CuisineWorld says
        ``"made"`` for ``activate_agent0_pot0``."""
        return None

    def view(self) -> dict[str, JSON]:
        """What a page shows of the state: ``orders``, ``agents`` and ``locations`` (see docs/reference/protocol.md)."""
        return {"orders": self.orders_snapshot(),
                "agents": [{"agent": a, "name": n, "location": None, "holding": None, "busy": 0, "details": []}
                           for a, n in enumerate(self.agent_names)],
                "locations": []}

    def static_view(self) -> dict[str, JSON]:
        """The part a page needs once, on joining: what orders can ask for, the recipes, the places
        (the keys keep the names protocol v1 gave them: ``dishes``, ``kitchen``)."""
        return {"level": self.name, "domain": self.domain, "dishes": [], "recipes": [], "base_ingredients": [],
                "needed_ingredients": [], "kitchen": [], "n_agents": self.n_agents, "max_steps": self.max_steps,
                "agent_names": self.agent_names}

    async def aclose(self) -> None:
        """Release what the session holds (bots, server processes)."""
        return None


@dataclass(frozen=True)
class RunProtocol:
    """The settings of a sweep that decide which orders a team faces: a bound must be computed for
    the run that was made (its order stream, its episode length), not for the paper's defaults."""

    rules: str = "reference"
    seed: int = 0
    episodes: int = 3
    steps: int | None = None  # None: the level's own episode length
    taus: tuple[float, ...] = (1.0, 1.5, 2.0, 2.5, 3.0)


@dataclass(frozen=True)
class ReferenceFigures:
    """What `eval --compare paper` prints beside a run: a published CoS per (level, agents) and,
    where the domain has one, an upper bound per (level, agents) for the run's own protocol."""

    published_name: str
    published: Callable[[str, int], float | None]
    bound: Callable[[str, int, RunProtocol], float] | None = None


#: ``--model policy:DIR/model.zip``: a trained policy, which the domain loads in `make_policy`
#: (a domain without trained policies refuses the name with a `SpecError`).
TRAINED_PREFIX = "policy:"


@runtime_checkable
class Domain(Protocol):
    """How a game plugs in: sessions from a spec, its built-in policies and its levels.

    `mindagent.core.registry` holds one per game. Example::

        domain = domains.get("minecraft")
        domain.validate(spec)                 # SpecError naming the domain for a flag it refuses
        session = domain.make_session(spec)
        policy = domain.make_policy("planner", seed=0)
    """

    name: str
    title: str
    default_level: str
    default_agents: int
    policies: tuple[str, ...]
    has_demo: bool
    live_world: bool  # a world with its own clients and clock (cannot be replayed offline)
    serve_agents: int  # the team of a room `mindagent serve` opens
    #: The level of the one-agent practice room the page's tutorial opens (None: no tutorial).
    practice_level: str | None
    #: The built-in policy whose next command the practice room offers as a hint.
    practice_coach: str
    #: What ``eval --levels`` means when not given (``"all"``, or a named set `parse_levels` knows).
    default_levels: str
    #: Prefixes of policy names with an argument the domain builds in `make_policy` besides
    #: ``policy:`` (e.g. ``("bc:",)`` for a behaviour-cloning proxy ``bc:DIR``).
    policy_prefixes: tuple[str, ...]
    #: ``eval``'s team sizes, task intervals and episode length when not given (the paper's protocol
    #: for order-stream games; a game with one standing task and a fixed horizon sets its own).
    eval_agents: str
    eval_taus: str
    eval_steps: int

    def validate(self, spec: GameSpec) -> GameSpec:
        """The spec with this domain's defaults filled in; `SpecError` for what it cannot honour."""
        ...

    def run_notes(self, spec: GameSpec) -> list[str]:
        """Lines to say before a run starts (which clock a live world runs on; ``warning: ...`` for a
        risk); none for most games."""
        ...

    def serving_spec(self, spec: GameSpec) -> GameSpec:
        """The spec a served room plays (a live world may open a port people join on)."""
        ...

    def practice_spec(self) -> GameSpec | None:
        """The one-person practice room the page's tutorial opens (None: no tutorial)."""
        ...

    def make_session(self, spec: GameSpec) -> DomainSession:
        """A new session for a validated spec (not reset yet)."""
        ...

    def make_policy(self, name: str, seed: int) -> Policy[Any]:
        """A built-in dispatcher named in `policies`, or a trained one (``policy:...``) where the domain has them."""
        ...

    def level_names(self) -> list[str]:
        """The levels a page or `eval --levels all` offers."""
        ...

    def reference_figures(self) -> ReferenceFigures | None:
        """The paper's figures (and an upper bound) to compare a sweep with; None when there are none."""
        ...

    def process_metrics(self, header: Mapping[str, JSON], steps: Sequence[Mapping[str, JSON]]) -> dict[str, JSON]:
        """Metrics of how a recorded episode was played that need this game's rules (efficiency,
        hand-offs, progress); `{}` when the domain has none. See `mindagent.evaluation.metrics`."""
        ...

    def parse_levels(self, text: str) -> list[str]:
        """`--levels` text (``paper``, ``all``, names or paths) → level names; `SpecError` for a bad one."""
        ...


class DomainBase:
    """Working defaults for a `Domain`: subclass it and fill what your game has.

    A minimal game sets `name`, `title`, `default_level` and implements `make_session`; it then
    has one level, a `random` policy, no reference figures, and refuses options it does not know.
    Example::

        class GridDomain(DomainBase):
            name, title, default_level = "grid", "Grid", "small"

            def make_session(self, spec: GameSpec) -> DomainSession:
                return GridSession(spec)
    """

    name: str = ""
    title: str = ""
    default_level: str = ""
    default_agents: int = 2
    policies: tuple[str, ...] = ("random",)
    has_demo: bool = False
    live_world: bool = False
    serve_agents: int = 2
    practice_level: str | None = None
    #: The built-in policy whose next command the practice room offers as a hint.
    practice_coach: str = "random"
    default_levels: str = "all"
    policy_prefixes: tuple[str, ...] = ()
    eval_agents: str = "2,3,4"
    eval_taus: str = "1.0,1.5,2.0,2.5,3.0"
    eval_steps: int = 60
    #: The option names (`DomainOption.name`) this game takes in `GameSpec.options`.
    option_names: tuple[str, ...] = ()
    #: The most agents a team may have.
    max_agents: int = 8

    def validate(self, spec: GameSpec) -> GameSpec:
        """Refuses unknown options, levels not in `level_names` and team sizes out of range."""
        unknown = sorted(set(spec.options) - set(self.option_names))
        if unknown:
            raise SpecError(f"{self.name} takes no {', '.join(unknown)}")
        level = spec.level or self.default_level
        if level not in self.level_names():
            raise SpecError(f"{self.name}: no level {level!r}; choose one of: {', '.join(self.level_names())}")
        if not 1 <= spec.agents <= self.max_agents:
            raise SpecError(f"{self.name}: 1 to {self.max_agents} agents, not {spec.agents}")
        return spec.with_(domain=self.name, level=level)

    def make_session(self, spec: GameSpec) -> DomainSession:
        raise NotImplementedError(f"{type(self).__name__} must implement make_session")

    def make_policy(self, name: str, seed: int) -> Policy[Any]:
        """`random` (legal commands drawn with a seeded generator); other names are refused."""
        from mindagent.dispatch.policy import RandomLegalPolicy

        if name == "random":
            return RandomLegalPolicy(seed=seed)
        raise SpecError(f"{self.name} has no built-in policy {name!r}; choose one of: {', '.join(self.policies)}")

    def level_names(self) -> list[str]:
        return [self.default_level]

    def reference_figures(self) -> ReferenceFigures | None:
        return None

    def process_metrics(self, header: Mapping[str, JSON], steps: Sequence[Mapping[str, JSON]]) -> dict[str, JSON]:
        return {}

    def parse_levels(self, text: str) -> list[str]:
        """``all`` or comma-separated names from `level_names`."""
        known = self.level_names()
        if text.strip() == "all":
            return known
        names = [t.strip() for t in text.split(",") if t.strip()]
        unknown = [n for n in names if n not in known]
        if not names or unknown:
            raise SpecError(f"{self.name}: no level {', '.join(unknown) or repr(text)}; choose from: {', '.join(known)}")
        return names

    def run_notes(self, spec: GameSpec) -> list[str]:
        return []

    def serving_spec(self, spec: GameSpec) -> GameSpec:
        return spec

    def practice_spec(self) -> GameSpec | None:
        """The practice level with one agent, the default rules and the level's own length."""
        from mindagent.core.spec import GameSpec

        if self.practice_level is None:
            return None
        return GameSpec(self.name, self.practice_level, 1, 3.0, 0)
