"""Overcooked keeps the domain contract on the five classic layouts and a user layout file, with a
whole 400-timestep planner episode each (so deliveries happen and their counts are checked)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mindagent.core import registry as domains
from mindagent.core.conformance import CHECKS, domain_api_test
from mindagent.core.domain import DomainSession
from mindagent.core.spec import GameSpec
from overcooked_game.layouts import CLASSIC

EXAMPLE = str(Path(__file__).resolve().parents[2] / "overcooked_game" / "data" / "two_rooms.layout")


@pytest.mark.asyncio
@pytest.mark.parametrize("level", [*CLASSIC, EXAMPLE])
async def test_layout_keeps_the_contract(level: str) -> None:
    spec = GameSpec(domain="overcooked", level=level, agents=2)

    def make() -> DomainSession:
        return domains.make_session(spec)

    planner = domains.get("overcooked").make_policy("planner", seed=0)
    report = await domain_api_test(make, policy=planner, max_episode_steps=400)
    assert report.domain == "overcooked" and set(report.checks) == set(CHECKS) and not report.skipped
    assert report.steps > 400
