"""A conformance suite for `DomainSession`: does a game keep the contract the dispatcher relies on?

The dispatcher, the evaluation loop, the server and replay speak only `mindagent.core.domain`, so a
new game (or a change to an old one) is safe exactly when its session keeps that contract. The
contract's promises are easy to state and easy to break quietly (a `check` that moves the world
a little, a state text with an object address in it, a `step` that raises on a model's garbage),
so, like PettingZoo's ``parallel_api_test`` and Gymnasium's ``env_checker``, the library ships
one function that plays a session through all of them::

    from mindagent.core import registry as domains
    from mindagent.core.conformance import domain_api_test_sync
    from mindagent.core.spec import GameSpec

    spec = GameSpec(domain=domains.default_domain(), level="level_3", rules="fixed", steps=10)
    report = domain_api_test_sync(lambda: domains.make_session(spec))
    print(report.checks, report.steps)

`domain_api_test` (async; the sync wrapper runs it with `asyncio.run`) takes a zero-argument
factory of fresh, not-yet-reset sessions, raises `ConformanceError` on the first violation (its
message names the check, where in the run it happened and what differed) and otherwise returns a
`ConformanceReport`. Give the factory a small ``max_steps`` so the end of an episode is reached.

What each check means is in `CHECKS`. Two points where the contract is deliberately read
narrowly, because a shipped rule set does otherwise on purpose:

- ``counts``: a step's ``completed`` dishes raise ``counts.completed`` by exactly their number, but
  failures may be counted per step rather than per order (CuisineWorld's reference rules count
  several orders expiring in one step as one failure, as the reference release did), so
  ``counts.failed`` rises by 1 to ``len(step.failed)`` when ``step.failed`` is non-empty, else by 0.
- ``extraction``: "at most one command per agent" is only demanded with
  ``one_command_per_agent=True``; CuisineWorld's reference rules return every match (a repeated
  agent then sinks the whole step, as in the reference release), so they are tested with False,
  which keeps the other extraction checks.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import random
import re
from collections.abc import Awaitable, Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mindagent.core.conformance_capabilities import CHECK as CAPABILITY_CHECK
from mindagent.core.conformance_capabilities import DEMANDS as CAPABILITY_DEMANDS
from mindagent.core.conformance_capabilities import check_capabilities
from mindagent.core.domain import Counts, DomainSession, DomainStep, PromptParts, Verdict
from mindagent.dispatch.policy import Policy

#: Every check by name, with what it demands. `skip=` takes these names.
CHECKS: dict[str, str] = {
    "session": "the factory returns a DomainSession with agents and a positive episode length",
    "reset_determinism": "two sessions reset with one seed agree (state, orders, counts, legal commands) and stay "
                         "identical under the same joint commands; reset(seed) again gives the first state back",
    "garbage": "step (and check) never raise on garbage joint lists and refuse what names no agent",
    "step_result": "a step returns a DomainStep with one verdict per command, in order; a refusal carries a "
                   "reason; step_index rises by one",
    "check_pure": "check() changes nothing: state, orders, counts, step index, done, legal commands, view",
    "legal_commands": "every listed command names its agent and passes check alone; a joint list that check "
                      "accepts is accepted by step",
    "counts": "counts are non-negative, start at zero, completed rises by len(step.completed), failed by 1.."
              "len(step.failed) when orders failed (else 0), active == len(orders_snapshot())",
    "orders": "orders_snapshot() lists dicts with id, dish and lifetime, most urgent (lowest lifetime) first",
    "state_text": "state_text() is a non-empty string, the same on two calls, with no object addresses",
    "extraction": "extract_commands never raises, finds one legal command per agent in plain text and (where "
                  "promised) returns at most one command per agent, each naming an agent",
    "idle": "agent_names are n_agents distinct names; idle_command(a) names a and is accepted, alone and jointly",
    "episode_end": "step_index starts at 0, never exceeds max_steps, and done turns True exactly at max_steps",
    "view": "view() is JSON with orders (== orders_snapshot()), agents (one per agent, with agent and name) and "
            "locations; static_view() is JSON",
    "prompt_parts": "prompt_parts() is byte-identical across the steps of an episode",
    "agent_of": "agent_of never raises and answers None or a team index; a command check or step accepts names "
                "an agent",
    "raises": "no session method raises during a run (reset, legal_commands, state_text, view, counts...); step "
              "and check are held to this by `garbage` and `step_result`",
    CAPABILITY_CHECK: CAPABILITY_DEMANDS,
    "agent_of_variants": "the same for case, padding and non-ASCII digit variants of real commands: agent_of does not "
                         "raise, and a variant the game accepts is attributed to the agent it came from",
}

#: Object reprs leak addresses (``<Foo object at 0x7f...>``) that differ per run and break caching.
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b|object at 0x")
_HUGE = 100_000
_NOISE_LINES = (
    "Sure! Here is what each agent should do next.",
    "Let me think step by step about the open orders.",
    "The first order is the most urgent one.",
    "Thinking about who is closest to the storage...",
    "I hope this helps the kitchen.",
    "Nobody should stand still for too long.",
)
_DECORATIONS = ("{}", "- {}", "1. {}", "* {}", "`{}`", "**{}**", "{}.", "{},", "Then {}")


class ConformanceError(AssertionError):
    """A session broke the domain contract. `check` names the broken check (a key of `CHECKS`).

    Example message: ``check_pure: check() changed state_text: line 3: 'at(agent0, storage0)' !=
    'at(agent0, servingtable0)' [<domain> level_3, seed 0, garbage phase, step 4]``.
    """

    def __init__(self, check: str, message: str) -> None:
        super().__init__(f"{check}: {message}")
        self.check = check


@dataclass(frozen=True)
class ConformanceReport:
    """What a passing run did: checks that ran, checks skipped (asked or not applicable), steps played."""

    domain: str
    name: str
    checks: tuple[str, ...]
    skipped: tuple[str, ...]
    steps: int
    sessions: int


SessionFactory = Callable[[], DomainSession | Awaitable[DomainSession]]


@dataclass(frozen=True)
class _Case:
    """One garbage joint list: `refuse` are the indices that must be refused whatever the domain."""

    label: str
    commands: list[str]
    refuse: frozenset[int] = frozenset()


@dataclass
class _Run:
    """The state of one suite run: options, what has run, and the per-session baselines."""

    skip: frozenset[str]
    determinism: bool
    lookahead_exact: bool
    one_command_per_agent: bool
    seed: int = 0
    phase: str = "setup"
    ran: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    steps: int = 0
    sessions: int = 0
    prompts: dict[int, PromptParts] = field(default_factory=dict)

    # ------------------------------------------------------------------ reporting
    def on(self, check: str) -> bool:
        """Whether `check` is wanted; counts it as run when it is."""
        if check in self.skip:
            return False
        if check not in self.ran:
            self.ran.append(check)
        return True

    def fail(self, check: str, what: str, session: DomainSession | None = None) -> ConformanceError:
        where = [f"seed {self.seed}", f"{self.phase} phase"]
        if session is not None:
            where.insert(0, f"{session.domain} {session.name}".strip())
            where.append(f"step {session.step_index}")
        return ConformanceError(check, f"{what} [{', '.join(where)}]")

    # ------------------------------------------------------------ session reads
    def state(self, s: DomainSession) -> str:
        """state_text(), read twice: a string, non-empty, the same both times, without addresses."""
        first = s.state_text()
        if not self.on("state_text"):
            return first
        second = s.state_text()
        if not isinstance(first, str) or not first:
            raise self.fail("state_text", f"state_text() returned {_short(first)}, not a non-empty string", s)
        if first != second:
            raise self.fail("state_text", f"two calls of state_text() differ: {_difference(first, second)}", s)
        hit = _ADDRESS.search(first)
        if hit:
            raise self.fail("state_text", f"state_text() shows an object address near {_near(first, hit.start())!r}", s)
        return first

    def orders(self, s: DomainSession) -> list[dict[str, Any]]:
        orders = s.orders_snapshot()
        if not self.on("orders"):
            return orders
        if not isinstance(orders, list):
            raise self.fail("orders", f"orders_snapshot() returned {type(orders).__name__}, not a list", s)
        lifetimes = []
        for order in orders:
            if not isinstance(order, dict) or not {"id", "dish", "lifetime"} <= set(order):
                raise self.fail("orders", f"an order is not a dict with id, dish and lifetime: {_short(order)}", s)
            lifetimes.append(order["lifetime"])
        if lifetimes != sorted(lifetimes):
            raise self.fail("orders", f"orders are not most urgent first: lifetimes {lifetimes}", s)
        return orders

    def counts(self, s: DomainSession) -> Counts:
        counts = s.counts
        if self.on("counts"):
            values = (counts.completed, counts.failed, counts.active)
            if not all(isinstance(v, int) and v >= 0 for v in values):
                raise self.fail("counts", f"counts must be non-negative integers: {counts}", s)
            active = len(s.orders_snapshot())
            if counts.active != active:
                raise self.fail("counts", f"counts.active is {counts.active} but orders_snapshot() lists {active} orders", s)
        return counts

    def view(self, s: DomainSession) -> None:
        if not self.on("view"):
            return
        view = s.view()
        if not isinstance(view, dict):
            raise self.fail("view", f"view() returned {type(view).__name__}, not a dict", s)
        _json(self, "view", "view()", view, s)
        missing = [k for k in ("orders", "agents", "locations") if k not in view]
        if missing:
            raise self.fail("view", f"view() has no {', '.join(missing)}", s)
        if json.loads(json.dumps(view["orders"])) != json.loads(json.dumps(s.orders_snapshot())):
            raise self.fail("view", f"view()['orders'] {_short(view['orders'])} != orders_snapshot() "
                                    f"{_short(s.orders_snapshot())}", s)
        agents = view["agents"]
        names = s.agent_names
        if not isinstance(agents, list) or len(agents) != s.n_agents:
            raise self.fail("view", f"view()['agents'] should list {s.n_agents} agents: {_short(agents)}", s)
        for a, row in enumerate(agents):
            if not isinstance(row, dict) or row.get("agent") != a or row.get("name") != names[a]:
                raise self.fail("view", f"view()['agents'][{a}] should have agent={a} and name={names[a]!r}: {_short(row)}", s)
        locations = view["locations"]
        if not isinstance(locations, list) or not all(isinstance(r, dict) and "name" in r for r in locations):
            raise self.fail("view", f"view()['locations'] should be a list of dicts with a name: {_short(locations)}", s)
        static = s.static_view()
        if not isinstance(static, dict):
            raise self.fail("view", f"static_view() returned {type(static).__name__}, not a dict", s)
        _json(self, "view", "static_view()", static, s)

    def prompt(self, s: DomainSession, baseline: bool = False) -> None:
        if not self.on("prompt_parts"):
            return
        parts = s.prompt_parts()
        if not isinstance(parts, PromptParts) or not all(
                isinstance(getattr(parts, f), str) for f in ("recipes", "instructions", "knowledge")):
            raise self.fail("prompt_parts", f"prompt_parts() returned {_short(parts)}, not PromptParts of strings", s)
        if baseline:
            self.prompts[id(s)] = parts
            return
        first = self.prompts.get(id(s))
        if first is not None and parts != first:
            part = next(f for f in ("recipes", "instructions", "knowledge") if getattr(parts, f) != getattr(first, f))
            raise self.fail("prompt_parts", f"prompt_parts().{part} changed within the episode: "
                                            f"{_difference(getattr(first, part), getattr(parts, part))}", s)

    def agent_of(self, s: DomainSession, command: str, check: str) -> int | None:
        """agent_of, which must not raise and must answer None or a team index."""
        try:
            agent = s.agent_of(command)
        except Exception as exc:
            raise self.fail(check, f"agent_of({_short(command)}) raised {exc!r}", s) from exc
        if agent is not None and (not isinstance(agent, int) or not 0 <= agent < s.n_agents):
            raise self.fail(check, f"agent_of({_short(command)}) returned {agent!r}, not None or 0..{s.n_agents - 1}", s)
        return agent

    def snapshot(self, s: DomainSession) -> dict[str, object]:
        """Everything `check` must leave alone, in comparable form."""
        return {
            "state_text": s.state_text(),
            "orders_snapshot": json.dumps(s.orders_snapshot(), sort_keys=True, default=repr),
            "counts": s.counts,
            "step_index": s.step_index,
            "done": s.done,
            "legal_commands": tuple(tuple(s.legal_commands(a)) for a in range(s.n_agents)),
            "view": json.dumps(s.view(), sort_keys=True, default=repr),
        }

    # ------------------------------------------------------------------- acting
    def look(self, s: DomainSession, commands: Sequence[str], check: str,
             refuse: Collection[int] = ()) -> list[Verdict]:
        """check(commands), verified: it does not raise, changes nothing, and answers per command."""
        pure = self.on("check_pure")
        before = self.snapshot(s) if pure else {}
        try:
            verdicts = s.check(list(commands))
        except Exception as exc:
            raise self.fail(check, f"check({_shorts(commands)}) raised {exc!r}", s) from exc
        if pure:
            after = self.snapshot(s)
            for key, old in before.items():
                if after[key] != old:
                    raise self.fail("check_pure", f"check({_shorts(commands)}) changed {key}: "
                                                  f"{_difference(old, after[key])}", s)
        self.verdicts(s, commands, verdicts, "check", refuse, check)
        return verdicts

    def verdicts(self, s: DomainSession, commands: Sequence[str], verdicts: object, call: str,
                 refuse: Collection[int], check: str) -> None:
        """One verdict per command, in order; refusals explained; `refuse` refused; accepted ones named."""
        naming = check if check.startswith("agent_of") else "agent_of"
        if not self.on("step_result"):
            return
        if not isinstance(verdicts, list) or len(verdicts) != len(commands):
            got = len(verdicts) if isinstance(verdicts, list) else type(verdicts).__name__
            raise self.fail("step_result", f"{call}() of {len(commands)} commands gave {got} verdicts: {_shorts(commands)}", s)
        for i, (command, verdict) in enumerate(zip(commands, verdicts, strict=True)):
            if not isinstance(verdict, Verdict) or not isinstance(verdict.ok, bool):
                raise self.fail("step_result", f"{call}() verdict {i} is {_short(verdict)}, not a Verdict", s)
            if verdict.command.strip() != command.strip():
                raise self.fail("step_result", f"{call}() verdict {i} is for {_short(verdict.command)}, "
                                               f"but command {i} was {_short(command)} (verdicts must follow the commands)", s)
            if not verdict.ok:
                if verdict.reason is None and not verdict.text:
                    raise self.fail("step_result", f"{call}() refused {_short(command)} without a reason or text", s)
                if verdict.reason is not None:
                    if not isinstance(verdict.reason.code, str):
                        raise self.fail("step_result", f"{call}() refusal of {_short(command)} has code "
                                                       f"{verdict.reason.code!r}, not a string", s)
                    _json(self, "step_result", f"{call}() verdict {i} to_dict()", verdict.to_dict(), s)
            elif i in refuse:
                raise self.fail(check, f"{call}() accepted {_short(command)} (command {i} of {_shorts(commands)}), "
                                       "which must be refused", s)
            elif self.on(naming) and self.agent_of(s, command, naming) is None:
                raise self.fail(naming, f"{call}() accepted {_short(command)}, but agent_of says it names no agent", s)

    async def play(self, s: DomainSession, commands: Sequence[str], check: str,
                   refuse: Collection[int] = ()) -> DomainStep:
        """step(commands), verified against every per-step promise of the contract."""
        if s.done:
            raise self.fail("episode_end", "the suite was about to step a finished episode", s)
        if self.on("episode_end") and s.step_index >= s.max_steps:
            raise self.fail("episode_end", f"step_index reached max_steps ({s.max_steps}) but done is still False", s)
        index = s.step_index
        before = self.counts(s)
        try:
            result = await s.step(list(commands))
        except Exception as exc:
            raise self.fail(check, f"step({_shorts(commands)}) raised {exc!r}", s) from exc
        self.steps += 1
        if self.on("step_result"):
            if not isinstance(result, DomainStep):
                raise self.fail("step_result", f"step() returned {_short(result)}, not a DomainStep", s)
            for name in ("notes", "completed", "failed"):
                value = getattr(result, name)
                if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
                    raise self.fail("step_result", f"step().{name} is {_short(value)}, not a list of strings", s)
            if s.step_index != index + 1:
                raise self.fail("step_result", f"step_index went from {index} to {s.step_index} in one step", s)
        self.verdicts(s, commands, result.verdicts, "step", refuse, check)
        if self.on("episode_end") and s.step_index > s.max_steps:
            raise self.fail("episode_end", f"step_index {s.step_index} exceeds max_steps {s.max_steps}", s)
        after = self.counts(s)
        if self.on("counts"):
            done, failed = after.completed - before.completed, after.failed - before.failed
            if done < 0 or failed < 0:
                raise self.fail("counts", f"counts went down in one step: {before} -> {after}", s)
            if done != len(result.completed):
                raise self.fail("counts", f"counts.completed rose by {done} ({before.completed} -> {after.completed}) "
                                          f"but the step completed {len(result.completed)}: {result.completed}", s)
            low, high = (1, len(result.failed)) if result.failed else (0, 0)
            if not low <= failed <= high:
                raise self.fail("counts", f"counts.failed rose by {failed} ({before.failed} -> {after.failed}) but the "
                                          f"step failed {len(result.failed)} orders {result.failed} (allowed {low}..{high})", s)
        self.orders(s)
        self.state(s)
        self.view(s)
        self.prompt(s)
        return result

    async def reset(self, s: DomainSession, seed: int) -> None:
        """reset(seed), then the promises of a fresh episode."""
        await s.reset(seed=seed)
        if self.on("episode_end") and (s.step_index != 0 or s.done):
            raise self.fail("episode_end", f"after reset step_index is {s.step_index} and done is {s.done} "
                                           "(expected 0 and False)", s)
        counts = self.counts(s)
        if self.on("counts") and (counts.completed, counts.failed) != (0, 0):
            raise self.fail("counts", f"a new episode starts with completed={counts.completed} failed={counts.failed}", s)
        self.orders(s)
        self.state(s)
        self.view(s)
        self.prompt(s, baseline=True)

    async def room(self, s: DomainSession) -> None:
        """Start a new episode (same seed) when the current one has no step left."""
        if s.done:
            await self.reset(s, self.seed)


# ---------------------------------------------------------------------------- the suite
async def domain_api_test(
    session_factory: SessionFactory,
    *,
    seeds: Sequence[int] = (0, 1),
    steps: int = 8,
    legal_sample: int = 6,
    legal_steps: int = 3,
    extraction_texts: int = 12,
    determinism: bool = True,
    lookahead_exact: bool = True,
    one_command_per_agent: bool = True,
    max_episode_steps: int = 200,
    skip: Iterable[str] = (),
    close: bool = True,
    policy: Policy[Any] | None = None,
) -> ConformanceReport:
    """Play fresh sessions from `session_factory` through every check in `CHECKS`; raise
    `ConformanceError` on the first violation, else return what ran.

    Per seed: two sessions (one with ``determinism=False``) reset with the seed and play `steps`
    seeded random legal joint steps side by side, then one of them goes through idle commands,
    `legal_sample` single-command checks per agent and `legal_steps` checked joint steps, check
    purity on legal, illegal and garbage lists, the garbage battery, extraction texts, agent_of
    variants and a whole episode of idle steps (skipped when ``max_steps > max_episode_steps``).

    `steps` is the length of the random play, `legal_sample` how many listed commands per agent
    are checked one by one (a seeded sample), `extraction_texts` how many model-like answers are
    made up; `seeds` are the seeds of the whole round (one round each).

    Live worlds (a real Minecraft server) cannot replay exactly: pass ``determinism=False`` (no
    second session, no replay identity) and ``lookahead_exact=False`` (a command that `check`
    accepts may still fail in the world). ``one_command_per_agent=False`` is for a rule set whose
    extraction keeps every match on purpose (CuisineWorld's ``reference``). `skip` names checks not
    to run. ``close`` calls ``aclose()`` on every session the suite made.

    Random commands rarely deliver a dish, so the counts of completions would go untested: give
    a `policy` (the domain's planner) and the suite also plays one whole episode per seed with it
    (when ``max_steps <= max_episode_steps``), checking every step as above.
    """
    unknown = set(skip) - set(CHECKS)
    if unknown:
        raise ValueError(f"unknown checks to skip: {', '.join(sorted(unknown))}; the checks are {', '.join(CHECKS)}")
    run = _Run(frozenset(skip), determinism, lookahead_exact, one_command_per_agent)
    run.on("raises")
    made: list[DomainSession] = []
    domain = name = ""

    async def fresh() -> DomainSession:
        made_now = session_factory()
        session = await made_now if inspect.isawaitable(made_now) else made_now
        if not isinstance(session, DomainSession):
            raise run.fail("session", f"the factory returned {_short(session)}, not a DomainSession")
        made.append(session)
        run.sessions += 1
        run.on("session")
        if not isinstance(session.n_agents, int) or session.n_agents < 1:
            raise run.fail("session", f"n_agents is {session.n_agents!r}; a session needs at least one agent", session)
        if not isinstance(session.max_steps, int) or session.max_steps < 1:
            raise run.fail("session", f"max_steps is {session.max_steps!r}, not a positive integer", session)
        return session

    try:
        for seed in seeds:
            run.seed = seed
            rng = random.Random(f"mindagent-conformance:{seed}")
            main = await fresh()
            domain, name = main.domain, main.name
            twin = await fresh() if determinism and "reset_determinism" not in run.skip else None
            run.phase = "reset"
            await run.reset(main, seed)
            start = (main.episode_header(), main.state_text(), main.orders_snapshot())
            await _determinism(run, main, twin, seed, steps, rng)
            run.phase = "capabilities"  # on the twin where there is one: choosing a demo may change a prompt
            await check_capabilities(run, twin or main, start if twin is not None else None)
            if twin is not None and close:
                made.remove(twin)
                await twin.aclose()
            run.phase = "idle"
            await run.room(main)
            _idle(run, main)
            run.phase = "legal"
            await _legal(run, main, rng, legal_sample, legal_steps)
            run.phase = "check purity"
            _purity(run, main, rng)
            run.phase = "garbage"
            await _garbage(run, main)
            run.phase = "extraction"
            _extraction(run, main, rng, extraction_texts)
            run.phase = "agent_of"
            _agent_of(run, main)
            run.phase = "episode end"
            await _episode_end(run, main, seed, max_episode_steps)
            if policy is not None:
                run.phase = f"{policy.name} episode"
                await _policy_episode(run, main, seed, policy, max_episode_steps)
    except ConformanceError:
        raise
    except Exception as exc:
        # Anything else escaped from the session (or the policy) mid-run: a broken promise too.
        raise run.fail("raises", f"{exc!r} escaped during the run") from exc
    finally:
        if close:
            for session in made:
                await session.aclose()
    return ConformanceReport(domain, name, tuple(run.ran), tuple(dict.fromkeys([*sorted(run.skip), *run.skipped])),
                             run.steps, run.sessions)


def domain_api_test_sync(session_factory: SessionFactory, **options: Any) -> ConformanceReport:
    """`domain_api_test` for scripts: runs it in a new event loop (`asyncio.run`)."""
    return asyncio.run(domain_api_test(session_factory, **options))


# ------------------------------------------------------------------------------ phases
def _random_joint(s: DomainSession, rng: random.Random) -> list[str]:
    """One seeded random legal command per agent, in a shuffled order now and then."""
    joint = []
    for a in range(s.n_agents):
        legal = s.legal_commands(a)
        joint.append(rng.choice(legal) if legal else s.idle_command(a))
    if rng.random() < 0.3:
        rng.shuffle(joint)
    return joint


def _comparable(s: DomainSession) -> dict[str, object]:
    return {"state_text": s.state_text(), "orders_snapshot": s.orders_snapshot(), "counts": s.counts,
            "step_index": s.step_index, "done": s.done,
            "legal_commands": [s.legal_commands(a) for a in range(s.n_agents)]}


def _same(run: _Run, what: str, left: dict[str, object], right: dict[str, object], s: DomainSession) -> None:
    for key, value in left.items():
        if right[key] != value:
            raise run.fail("reset_determinism", f"{what}: {key} differs: {_difference(value, right[key])}", s)


async def _determinism(run: _Run, main: DomainSession, twin: DomainSession | None, seed: int, steps: int,
                       rng: random.Random) -> None:
    """Two sessions, one seed: same start, same verdicts and states under the same commands."""
    start = _comparable(main)
    if twin is not None:
        await run.reset(twin, seed)
        run.on("reset_determinism")
        _same(run, "two sessions reset with the same seed", start, _comparable(twin), twin)
    run.phase = "random legal play"
    for _ in range(steps):
        if main.done:
            break
        joint = _random_joint(main, rng)
        left = await run.play(main, joint, "step_result")
        if twin is None:
            continue
        right = await run.play(twin, joint, "step_result")
        mine = [v.to_dict() for v in left.verdicts], left.notes, left.completed, left.failed
        theirs = [v.to_dict() for v in right.verdicts], right.notes, right.completed, right.failed
        if json.dumps(mine, default=repr) != json.dumps(theirs, default=repr):
            raise run.fail("reset_determinism", f"the same joint commands {_shorts(joint)} gave different step results: "
                                                f"{_difference(mine, theirs)}", twin)
        _same(run, f"after the same joint commands {_shorts(joint)}", _comparable(main), _comparable(twin), twin)
    if run.determinism and "reset_determinism" not in run.skip:
        run.phase = "reset again"
        await run.reset(main, seed)
        _same(run, f"reset(seed={seed}) after playing vs the first reset(seed={seed})", start, _comparable(main), main)


def _idle(run: _Run, s: DomainSession) -> None:
    if not run.on("idle"):
        return
    names = s.agent_names
    if (not isinstance(names, list) or len(names) != s.n_agents or len(set(names)) != len(names)
            or not all(isinstance(n, str) and n for n in names)):
        raise run.fail("idle", f"agent_names should be {s.n_agents} distinct non-empty names: {_short(names)}", s)
    joint = []
    for a in range(s.n_agents):
        command = s.idle_command(a)
        if not isinstance(command, str) or not command.strip():
            raise run.fail("idle", f"idle_command({a}) is {_short(command)}", s)
        if run.agent_of(s, command, "idle") != a:
            raise run.fail("idle", f"agent_of(idle_command({a}) = {command!r}) is {s.agent_of(command)!r}, not {a}", s)
        verdict = run.look(s, [command], "idle")[0]
        if not verdict.ok:
            raise run.fail("idle", f"check([{command!r}]) refused the idle command: {verdict.text or verdict.reason}", s)
        if run.on("legal_commands") and command not in s.legal_commands(a):
            raise run.fail("legal_commands", f"check accepts idle_command({a}) = {command!r}, but legal_commands({a}) "
                                             "does not list it", s)
        joint.append(command)
    refused = [v for v in run.look(s, joint, "idle") if not v.ok]
    if refused:
        raise run.fail("idle", f"check of every agent idling {_shorts(joint)} refused {refused[0].command!r}: "
                               f"{refused[0].text or refused[0].reason}", s)


async def _legal(run: _Run, s: DomainSession, rng: random.Random, sample: int, steps: int) -> None:
    if not run.on("legal_commands"):
        return
    for _ in range(max(1, steps)):
        await run.room(s)
        joint: list[str] = []
        for a in range(s.n_agents):
            legal = s.legal_commands(a)
            if not isinstance(legal, list) or not all(isinstance(c, str) for c in legal):
                raise run.fail("legal_commands", f"legal_commands({a}) is {_short(legal)}, not a list of strings", s)
            if len(set(legal)) != len(legal):
                twice = next(c for c in legal if legal.count(c) > 1)
                raise run.fail("legal_commands", f"legal_commands({a}) lists {twice!r} twice", s)
            for command in rng.sample(legal, min(sample, len(legal))):
                owner = run.agent_of(s, command, "legal_commands")
                if owner != a:
                    raise run.fail("legal_commands", f"legal_commands({a}) lists {command!r}, whose agent_of is {owner!r}", s)
                verdict = run.look(s, [command], "legal_commands")[0]
                if not verdict.ok:
                    raise run.fail("legal_commands", f"legal_commands({a}) lists {command!r}, but check refuses it alone: "
                                                     f"{verdict.text or verdict.reason}", s)
            pick = rng.choice(legal) if legal else s.idle_command(a)
            if all(v.ok for v in run.look(s, [*joint, pick], "legal_commands")):
                joint.append(pick)
                continue
            idle = s.idle_command(a)
            verdicts = run.look(s, [*joint, idle], "legal_commands")
            if not all(v.ok for v in verdicts):
                raise run.fail("legal_commands", f"check refuses {_shorts([*joint, idle])}, a joint list of accepted "
                                                 f"commands ending with an idle one: {_refusals(verdicts)}", s)
            joint.append(idle)
        result = await run.play(s, joint, "legal_commands")
        if run.lookahead_exact and not all(v.ok for v in result.verdicts):
            raise run.fail("legal_commands", f"check accepted {_shorts(joint)} but step refused some: "
                                             f"{_refusals(result.verdicts)}", s)


def _illegal(s: DomainSession, rng: random.Random) -> list[list[str]]:
    """Well-formed commands for the wrong agent or twice for one agent (whatever check says)."""
    names = s.agent_names
    lists: list[list[str]] = []
    for a in range(s.n_agents):
        legal = s.legal_commands(a)
        other = (a + 1) % s.n_agents
        swapped = [c.replace(names[a], names[other]) for c in rng.sample(legal, min(4, len(legal)))]
        lists.append(swapped)
        if legal:
            lists.append([rng.choice(legal), s.idle_command(a), rng.choice(legal)])
    return lists


def _purity(run: _Run, s: DomainSession, rng: random.Random) -> None:
    """check() on legal, illegal and garbage lists (each call verifies that nothing changed)."""
    if not run.on("check_pure"):
        return
    run.look(s, _random_joint(s, rng), "check_pure")
    for commands in _illegal(s, rng):
        run.look(s, commands, "check_pure")
    for case in _garbage_cases(run, s):
        refuse = _must_refuse(run, s, case) if "garbage" not in run.skip else frozenset()
        run.look(s, case.commands, "garbage", refuse)


def _garbage_cases(run: _Run, s: DomainSession) -> list[_Case]:
    n, names = s.n_agents, s.agent_names
    idle = [s.idle_command(a) for a in range(n)]
    strangers = _strangers(names)
    legal0 = s.legal_commands(0)
    busy0 = next((c for c in legal0 if c != idle[0]), idle[0])
    cases = [
        _Case("an empty joint list", []),
        _Case("fewer commands than agents", idle[:1]),
        _Case("a second command for agent 0 at the end", [*idle, idle[0]], frozenset({n})),
        _Case("empty strings", [""] * n),
        _Case("whitespace", [" ", "\n\t", "\r\n", "\u00a0"]),
        _Case("100 KB strings", ["x" * _HUGE, idle[0] * (_HUGE // len(idle[0]) + 1), "(" * _HUGE,
                                 "_".join(["get"] * (_HUGE // 4)), idle[0] + " " + "z" * _HUGE]),
        _Case("unicode", ["寿司を作って", "🍣🔥👩‍🍳", "\u202egoto\u202c", "\x00", "\ud800", "e\u0301", "ｎｏｏｐ",
                          "noop\u200b", "مرحبا"]),
        _Case("other domains' syntax", ["killMob(Alex, cow)", "putInChest(Steve, cooked_beef)", "takeOutFurnace(Alex)",
                                        "goto_agent0_storage0", "get_agent1_tuna_storage0", "activate_agent0_pot0",
                                        "noop_agent0", "noop(Alex)"]),
        _Case("agents that do not exist", [c.replace(names[0], stranger) for c in (idle[0], busy0) for stranger in strangers],
              frozenset(range(2 * len(strangers)))),
        _Case("duplicate agents", [idle[0], idle[0], *idle[1:]], frozenset({1})),
        _Case("a command then an idle one for the same agent", [busy0, idle[0]], frozenset({1})),
        _Case("nonsense", ["noop", "noop_", "_", "()", "noop()", "noop(,)", "DROP TABLE orders;", '{"command": "noop"}',
                           "__import__('os').system('true')", "None", "null", "\n".join(idle), "<script>", "%s%n"]),
        _Case("garbage first, then idle commands", ["¿¿¿", *idle[1:]], frozenset({0})),
        _Case("fifty copies of garbage", ["do the thing"] * 50, frozenset(range(50))),
        _Case("idle commands in reverse order", list(reversed(idle))),
    ]
    return cases


def _strangers(names: Sequence[str]) -> list[str]:
    """Agent names not in the team, shaped like the team's (``agent9``) and not (``Nobody``)."""
    out = []
    match = re.fullmatch(r"(.*?)(\d+)", names[0])
    if match:
        out += [f"{match.group(1)}{len(names) + 7}", f"{match.group(1)}999"]
    out += ["Nobody", "Herobrine"]
    return [n for n in out if n not in names]


def _must_refuse(run: _Run, s: DomainSession, case: _Case) -> frozenset[int]:
    """The case's own refusals plus every command that names no agent (nobody could carry it out)."""
    nameless = {i for i, command in enumerate(case.commands) if run.agent_of(s, command, "agent_of") is None}
    return case.refuse | frozenset(nameless)


async def _garbage(run: _Run, s: DomainSession) -> None:
    if not run.on("garbage"):
        return
    for case in _garbage_cases(run, s):
        await run.room(s)
        run.phase = f"garbage ({case.label})"
        await run.play(s, case.commands, "garbage", _must_refuse(run, s, case))
    run.phase = "garbage"


def _extraction(run: _Run, s: DomainSession, rng: random.Random, count: int) -> None:
    if not run.on("extraction"):
        return
    for i in range(max(1, count)):
        chosen = [rng.choice(s.legal_commands(a) or [s.idle_command(a)]) for a in range(s.n_agents)]
        text = _plain_text(chosen, rng, fenced=i % 3 == 2)
        found = _extract(run, s, text)
        if sorted(found) != sorted(chosen):
            raise run.fail("extraction", f"from a text with one legal command per agent {_shorts(chosen)} extraction "
                                         f"returned {_shorts(found)}; text: {text[:400]!r}", s)
        _one_per_agent(run, s, text, found)
        messy = _messy_text(s, rng)
        _one_per_agent(run, s, messy, _extract(run, s, messy))
    for case in _garbage_cases(run, s):
        text = "\n".join(case.commands)
        _one_per_agent(run, s, text, _extract(run, s, text))


def _extract(run: _Run, s: DomainSession, text: str) -> list[str]:
    try:
        found = s.extract_commands(text)
    except Exception as exc:
        raise run.fail("extraction", f"extract_commands({text[:200]!r}...) raised {exc!r}", s) from exc
    if not isinstance(found, list) or not all(isinstance(c, str) for c in found):
        raise run.fail("extraction", f"extract_commands returned {_short(found)}, not a list of strings", s)
    return found


def _one_per_agent(run: _Run, s: DomainSession, text: str, found: list[str]) -> None:
    """Where the domain promises it: every extracted command names an agent, no agent twice."""
    if not run.one_command_per_agent:
        return
    seen: dict[int, str] = {}
    for command in found:
        agent = run.agent_of(s, command, "extraction")
        if agent is None:
            raise run.fail("extraction", f"extract_commands returned {command!r}, which names no agent; text: {text[:400]!r}", s)
        if agent in seen:
            raise run.fail("extraction", f"extract_commands returned two commands for agent {agent}: "
                                         f"{seen[agent]!r} and {command!r}; text: {text[:400]!r}", s)
        seen[agent] = command


def _plain_text(commands: Sequence[str], rng: random.Random, fenced: bool) -> str:
    """A model-like answer that holds exactly `commands`, one per line, between chatty lines."""
    lines = [rng.choice(_NOISE_LINES)]
    for command in commands:
        if rng.random() < 0.4:
            lines.append(rng.choice(_NOISE_LINES))
        lines.append(rng.choice(_DECORATIONS).format(command))
    body = "\n".join(lines[1:])
    if fenced:
        body = f"```\n{body}\n```"
    return f"{lines[0]}\n{body}\n{rng.choice(_NOISE_LINES)}"


def _messy_text(s: DomainSession, rng: random.Random) -> str:
    """Several commands for one agent, strangers, other games' syntax, fences and delimiters."""
    pool: list[str] = []
    for a in range(s.n_agents):
        legal = s.legal_commands(a) or [s.idle_command(a)]
        pool += [rng.choice(legal) for _ in range(rng.randint(1, 3))]
    pool += [c.replace(s.agent_names[0], stranger) for stranger in _strangers(s.agent_names) for c in (s.idle_command(0),)]
    pool += ["killMob(Alex, cow)", "goto_agent0_storage0", "noop(Steve)", "noop_agent1", "ｎｏｏｐ"]
    rng.shuffle(pool)
    parts = [rng.choice(_NOISE_LINES)]
    for command in pool:
        shape = rng.random()
        if shape < 0.15:
            parts.append(f"```\n{command}\n```")
        elif shape < 0.25:
            parts.append(f"***{command}***")
        elif shape < 0.35:
            parts.append(f"Answer: {command}")
        else:
            parts.append(rng.choice(_DECORATIONS).format(command))
        if rng.random() < 0.3:
            parts.append(rng.choice(_NOISE_LINES))
    return "\n".join(parts)


def _agent_of(run: _Run, s: DomainSession) -> None:
    """agent_of on garbage, then on case and digit variants of real commands.

    Variants matter because a parser may be more lenient than agent_of (case-insensitive names)
    or agent_of more lenient than the parser (``"²".isdigit()`` is True, ``int("²")`` raises)."""
    if run.on("agent_of"):
        for case in _garbage_cases(run, s):
            for command in case.commands:
                run.agent_of(s, command, "agent_of")
    if not run.on("agent_of_variants"):
        return
    for a in range(s.n_agents):
        for base in dict.fromkeys([s.idle_command(a), *s.legal_commands(a)[:3]]):
            for variant in _variants(base, s.agent_names[a]):
                agent = run.agent_of(s, variant, "agent_of_variants")
                verdict = run.look(s, [variant], "agent_of_variants")[0]
                if verdict.ok and agent != a:
                    raise run.fail("agent_of_variants", f"check accepts {variant!r} (a variant of {base!r} for agent "
                                                        f"{a}), but agent_of says {agent!r}", s)


def _variants(command: str, name: str) -> list[str]:
    out = [command.upper(), command.lower(), command.swapcase(), f"  {command}  ", f"\t{command}\n"]
    digits = re.search(r"\d+$", name)
    if digits:
        stem = name[: digits.start()]
        for digit in ("²", "١", "０", "𝟘"):  # not ASCII; some are str.isdigit() without being int()-able
            out.append(command.replace(name, stem + digit))
    return [v for v in dict.fromkeys(out) if v != command]


async def _episode_end(run: _Run, s: DomainSession, seed: int, limit: int) -> None:
    if not run.on("episode_end"):
        return
    if s.max_steps > limit:
        run.skipped.append(f"episode_end (max_steps {s.max_steps} > max_episode_steps {limit})")
        return
    await run.reset(s, seed)
    idle = [s.idle_command(a) for a in range(s.n_agents)]
    for i in range(s.max_steps):
        if s.done:
            raise run.fail("episode_end", f"done is True after {i} of {s.max_steps} steps", s)
        await run.play(s, idle, "episode_end")
    if not s.done or s.step_index != s.max_steps:
        raise run.fail("episode_end", f"after {s.max_steps} steps done is {s.done} and step_index {s.step_index} "
                                      f"(expected True and {s.max_steps})", s)


async def _policy_episode(run: _Run, s: DomainSession, seed: int, policy: Policy[Any], limit: int) -> None:
    """A whole episode played by a real player, so completions and failures happen and are counted."""
    if s.max_steps > limit:
        run.skipped.append(f"policy episode (max_steps {s.max_steps} > max_episode_steps {limit})")
        return
    await run.reset(s, seed)
    policy.reset(s)
    while not s.done:
        await run.play(s, policy.act(s), "step_result")


# ------------------------------------------------------------------------------ helpers
def _json(run: _Run, check: str, what: str, value: object, s: DomainSession) -> None:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise run.fail(check, f"{what} is not JSON-serialisable: {exc}", s) from exc


def _short(value: object, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} chars)"


def _shorts(commands: Sequence[str]) -> str:
    return "[" + ", ".join(_short(c, 60) for c in list(commands)[:8]) + (", ...]" if len(commands) > 8 else "]")


def _refusals(verdicts: Sequence[Verdict]) -> str:
    return "; ".join(f"{v.command!r}: {v.text or v.reason}" for v in verdicts if not v.ok)


def _near(text: str, at: int) -> str:
    return text[max(0, at - 30): at + 30]


def _difference(old: object, new: object) -> str:
    """Where two values first differ: the first differing line for text, else both values, shortened."""
    if isinstance(old, str) and isinstance(new, str):
        a, b = old.splitlines(), new.splitlines()
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            if x != y:
                return f"line {i + 1}: {_short(x)} != {_short(y)}"
        return f"{len(a)} lines != {len(b)} lines" if len(a) != len(b) else f"{_short(old)} != {_short(new)}"
    return f"{_short(old, 300)} != {_short(new, 300)}"


__all__ = ["CHECKS", "ConformanceError", "ConformanceReport", "SessionFactory", "domain_api_test",
           "domain_api_test_sync"]
