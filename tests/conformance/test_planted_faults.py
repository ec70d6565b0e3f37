"""The suite catches what it claims to: real CuisineWorld sessions with one planted fault each.

Each subclass breaks exactly one promise of the contract the way a real adapter could (a check
that forgets to work on a copy, an object repr in the state, the wrong extraction rule set...),
and the run must fail with a `ConformanceError` naming that check.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import pytest

from cuisineworld import load_level
from cuisineworld.adapter.extraction import extract_commands
from cuisineworld.adapter.session import CuisineSession
from mindagent.core.conformance import CHECKS, ConformanceError, domain_api_test, domain_api_test_sync
from mindagent.core.domain import Counts, DomainStep, PromptParts, Verdict

LEVEL = "level_3"
STEPS = 12
#: The real bug the clean sessions have (see test_cuisine_conformance.py); off so it cannot mask a plant.
KNOWN_BUGS = ("agent_of_variants",)


class CheckActsOnTheRealKitchen(CuisineSession):
    """check() runs the commands on the live kitchen instead of a copy."""

    def check(self, commands: Sequence[str]) -> list[Verdict]:
        outcomes, _ = self.world._run(self.world._kitchen, list(commands), record=False)
        return self._verdicts(outcomes)


class StateTextWithAClock(CuisineSession):
    """state_text() says how often it was rendered."""

    _renders = itertools.count()

    def state_text(self) -> str:
        return f"{super().state_text()}rendered {next(self._renders)} times\n"


class StateTextWithAnAddress(CuisineSession):
    """state_text() shows an object repr (the same object each time, so only the address gives it away)."""

    def state_text(self) -> str:
        return f"{super().state_text()}engine: {self.world!r}\n"


class ExtractsEveryMatch(CuisineSession):
    """The fixed rule set's session extracting with the reference policy (several per agent)."""

    def extract_commands(self, text: str) -> list[str]:
        return extract_commands(text, self.n_agents, rules="reference")


class StepRaisesOnGarbage(CuisineSession):
    """step() trusts its input: an unreadable command raises instead of being refused."""

    async def step(self, commands: Sequence[str]) -> DomainStep:
        for command in commands:
            if not isinstance(self.world.parse(command), type(self.world.parse("noop_agent0"))):
                raise ValueError(f"cannot read {command[:40]!r}")
        return await super().step(commands)


class FailuresCountedPerStep(CuisineSession):
    """counts.failed reports the last step's failures, not the episode's, so it goes down again."""

    _last_failed = 0

    def step_now(self, commands: Sequence[str]) -> DomainStep:
        result = super().step_now(commands)
        self._last_failed = len(result.failed)
        return result

    async def reset(self, seed: int | None = None) -> None:
        await super().reset(seed)
        self._last_failed = 0

    @property
    def counts(self) -> Counts:
        c = super().counts
        return Counts(c.completed, self._last_failed, c.active)


class PromptShowsTheStep(CuisineSession):
    def prompt_parts(self) -> PromptParts:
        parts = super().prompt_parts()
        return PromptParts(parts.recipes, f"{parts.instructions}\nThis is step {self.step_index}.", parts.knowledge)


class NeverDone(CuisineSession):
    @property
    def done(self) -> bool:
        return False


class ViewWithASet(CuisineSession):
    def view(self) -> dict[str, Any]:
        return {**super().view(), "dishes": set(self.level.dishes)}


class DropsUnreadableVerdicts(CuisineSession):
    async def step(self, commands: Sequence[str]) -> DomainStep:
        result = await super().step(commands)
        kept = [v for v in result.verdicts if v.reason is None or v.reason.code not in ("malformed", "unknown_verb")]
        return DomainStep(kept, result.notes, result.completed, result.failed)


class StateRemembersEpisodes(CuisineSession):
    """reset(seed) does not give the same state twice: the text numbers the episodes."""

    def state_text(self) -> str:
        return f"episode {self.world.episode}\n{super().state_text()}"


class ListsAnIllegalCommand(CuisineSession):
    def legal_commands(self, agent: int) -> list[str]:
        return [*super().legal_commands(agent), f"activate_agent{agent}_nowhere0"]


class IdleIsNotACommand(CuisineSession):
    def idle_command(self, agent: int) -> str:
        return f"wait_agent{agent}"


class ViewBreaksMidEpisode(CuisineSession):
    """view() works on a fresh kitchen and raises after a few steps (an unexpected state)."""

    def view(self) -> dict[str, Any]:
        if self.step_index == 3:
            raise KeyError("servingtable9")
        return super().view()


def planted(cls: type[CuisineSession], rules: str = "fixed", max_steps: int = STEPS):
    def make() -> CuisineSession:
        return cls(load_level(LEVEL, rules=rules), n_agents=2, seed=0, max_steps=max_steps)

    return make


FAULTS = [
    (CheckActsOnTheRealKitchen, "check_pure", "changed"),
    (StateTextWithAClock, "state_text", "two calls of state_text"),
    (StateTextWithAnAddress, "state_text", "object address"),
    (ExtractsEveryMatch, "extraction", "extract_commands returned"),
    (StepRaisesOnGarbage, "garbage", "raised ValueError"),
    (PromptShowsTheStep, "prompt_parts", "changed within the episode"),
    (NeverDone, "episode_end", "done is still False"),
    (ViewWithASet, "view", "not JSON-serialisable"),
    (DropsUnreadableVerdicts, "step_result", "verdicts"),
    (StateRemembersEpisodes, "reset_determinism", "after playing"),
    (ListsAnIllegalCommand, "legal_commands", "check refuses it alone"),
    (IdleIsNotACommand, "idle", "refused the idle command"),
    (ViewBreaksMidEpisode, "raises", "KeyError.*escaped"),
]


@pytest.mark.asyncio
@pytest.mark.parametrize(("cls", "check", "message"), FAULTS, ids=[f[0].__name__ for f in FAULTS])
async def test_planted_fault_is_caught(cls: type[CuisineSession], check: str, message: str) -> None:
    assert check in CHECKS
    with pytest.raises(ConformanceError, match=f"^{check}: .*{message}") as caught:
        await domain_api_test(planted(cls), seeds=(0,), skip=KNOWN_BUGS)
    assert caught.value.check == check


@pytest.mark.asyncio
async def test_failures_counted_per_step_are_caught() -> None:
    """Orders must expire for the per-step count to go down: episodes long enough that they do."""
    with pytest.raises(ConformanceError, match="^counts: counts went down") as caught:
        await domain_api_test(planted(FailuresCountedPerStep, max_steps=40), seeds=(0,), skip=KNOWN_BUGS)
    assert caught.value.check == "counts"


@pytest.mark.asyncio
async def test_the_clean_session_passes() -> None:
    """The same factory without a plant passes, so each failure above is the plant's."""
    report = await domain_api_test(planted(CuisineSession), seeds=(0,), skip=KNOWN_BUGS)
    assert "agent_of_variants" in report.skipped and report.sessions == 2


def test_sync_wrapper_and_unknown_skip() -> None:
    report = domain_api_test_sync(planted(CuisineSession), seeds=(0,), skip=KNOWN_BUGS)
    assert report.domain == "cuisineworld" and report.steps > 0
    with pytest.raises(ValueError, match="unknown checks to skip: no_such_check"):
        domain_api_test_sync(planted(CuisineSession), skip=("no_such_check",))
