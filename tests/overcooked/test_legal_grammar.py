"""Legal-move decoding in Overcooked: the grammar derives exactly the commands the game accepts
now (LLM-Coordination's feasible-action filter, as constrained decoding), along random play, and
llama.cpp's parser takes it. The grammar's language is read as a regex (`gbnf_regex`)."""

from __future__ import annotations

import asyncio
import itertools
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from gbnf_regex import gbnf_to_regex
from hypothesis import given, settings
from hypothesis import strategies as st

from mindagent.core import registry as domains
from mindagent.core.capabilities import LegalGrammars, step_agent_grammar_of, step_grammar_of
from mindagent.core.spec import GameSpec
from overcooked_game.session import OvercookedSession

WELL_FORMED_BUT_NOT_NOW = ("fill_dish({c}, pot0)", "deliver_soup({c})", "put_onion({c}, pot1)", "pickup_soup({c})")


def session(level: str) -> OvercookedSession:
    made = domains.make_session(GameSpec(domain="overcooked", level=level))
    assert isinstance(made, OvercookedSession)
    asyncio.run(made.reset(seed=0))
    return made


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["cramped_room", "forced_coordination", "counter_circuit"]),
       st.lists(st.integers(min_value=0, max_value=10_000), max_size=10))
def test_the_grammar_derives_exactly_what_the_game_accepts_now(level: str, picks: list[int]) -> None:
    s = session(level)
    assert isinstance(s, LegalGrammars)
    for pick in picks:  # a few random legal moves first: held items, busy chefs, filled pots
        s.step_now([moves[pick % len(moves)] for moves in (s.legal_commands(a) for a in range(s.n_agents))])
    answers = []
    for a in range(s.n_agents):
        one = re.compile(gbnf_to_regex(s.legal_agent_grammar(a)))
        offered = [*s.legal_commands(a), s.idle_command(a)]
        derived = [c for c in offered if one.fullmatch(c)]
        assert set(s.legal_commands(a)) <= set(derived)
        assert all(s.check([c])[0].ok for c in derived)
        for refused in (f.format(c=f"chef{a}") for f in WELL_FORMED_BUT_NOT_NOW):
            if not s.check([refused])[0].ok:
                assert not one.fullmatch(refused), refused
        assert not one.fullmatch(f"wait(chef{1 - a})")  # another chef's command is not this line
        answers.append(derived)
    team = re.compile(gbnf_to_regex(s.legal_grammar()))
    for answer in itertools.islice(itertools.product(*answers), 40):
        assert team.fullmatch("\n".join(answer))
    assert not team.fullmatch("\n".join([answers[1][0], answers[0][0]]))  # lines keep chef order


def test_a_busy_chef_may_carry_on_and_the_dispatcher_asks_under_the_legal_grammar() -> None:
    s = session("cramped_room")
    s.step_now(["pickup_onion(chef0)", "wait(chef1)"])  # chef1 frees first; chef0 is still walking
    assert s.engine.tasks[0] is not None
    carry_on = s.idle_command(0)
    assert carry_on == "pickup_onion(chef0)"
    assert re.fullmatch(gbnf_to_regex(s.legal_agent_grammar(0)), carry_on)
    assert step_grammar_of(s) == s.legal_grammar() and step_agent_grammar_of(s, 1) == s.legal_agent_grammar(1)


def test_after_the_horizon_the_idle_line_is_all_there_is() -> None:
    s = session("cramped_room")
    while not s.done:
        s.step_now(["wait(chef0)", "wait(chef1)"])
    assert s.legal_commands(0) == []
    assert re.fullmatch(gbnf_to_regex(s.legal_grammar()), "wait(chef0)\nwait(chef1)")


@pytest.mark.parametrize("level", ["cramped_room", "counter_circuit"])
def test_llama_cpp_accepts_the_legal_grammar(require: Callable[[str, str], None], smollm2_path: Path,
                                             level: str) -> None:
    require("llama_cpp", "pip install 'llama-cpp-python[server]==0.3.36'")
    import llama_cpp

    s = session(level)
    model = llama_cpp.Llama(model_path=str(smollm2_path), vocab_only=True, verbose=False)
    try:
        for gbnf in (s.legal_grammar(), s.legal_agent_grammar(1)):
            sampler = llama_cpp.llama_sampler_init_grammar(model._model.vocab, gbnf.encode(), b"root")
            assert sampler
            llama_cpp.llama_sampler_free(sampler)
    finally:
        model.close()
