"""Property tests of the engine through the session: any joint command lists (medium-level,
primitive, garbage) never raise, each step advances 1 to STEP_CAP timesteps, check() predicts
step()'s verdicts, and the same commands from the same start give the same episode."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

from mindagent.core import registry as domains
from mindagent.core.spec import GameSpec
from overcooked_game.engine import STEP_CAP
from overcooked_game.layouts import CLASSIC
from overcooked_game.session import OvercookedSession

_VERBS = ["pickup_onion", "pickup_dish", "pickup_soup", "deliver", "wait", "move_away", "up", "down", "left",
          "right", "stay", "interact"]
_COMMAND = st.one_of(
    st.builds(lambda v, c: f"{v}(chef{c})", st.sampled_from(_VERBS), st.integers(0, 2)),
    st.builds(lambda v, c, t: f"{v}(chef{c}, pot{t})", st.sampled_from(["put_onion", "fill_dish"]), st.integers(0, 1),
              st.integers(0, 2)),
    st.builds(lambda c, k: f"place(chef{c}, k{k})", st.integers(0, 1), st.integers(0, 30)),
    st.text(max_size=30),
)
_JOINTS = st.lists(st.lists(_COMMAND, max_size=4), min_size=1, max_size=60)


def play(level: str, joints: list[list[str]]) -> tuple[list[object], str]:
    session = domains.make_session(GameSpec(domain="overcooked", level=level))
    assert isinstance(session, OvercookedSession)
    asyncio.run(session.reset(seed=0))
    trace: list[object] = []
    for joint in joints:
        if session.done:
            break
        before = session.engine.timestep
        predicted = [v.to_dict() for v in session.check(joint)]
        step = session.step_now(joint)
        assert [v.to_dict() for v in step.verdicts] == predicted
        assert 1 <= session.engine.timestep - before <= STEP_CAP
        assert step.notes[0] == f"timesteps {before}-{session.engine.timestep}"
        trace.append((predicted, step.notes, step.completed))
    return trace, session.state_text()


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(list(CLASSIC)), _JOINTS)
def test_any_commands_step_safely_and_reproducibly(level: str, joints: list[list[str]]) -> None:
    assert play(level, joints) == play(level, joints)
