"""Legal-move decoding: the kitchen's legal-move grammar derives exactly the commands legal now,
and the dispatcher asks a model for one step's answer under it (plans keep the command language).

The grammar's whole language is read as a regex (`gbnf_regex`), so "exactly" is checked over every
string it derives, along random play (hypothesis chooses the moves)."""

from __future__ import annotations

import asyncio
import itertools
import re
from dataclasses import replace

import pytest
from fakes import ScriptedModel
from gbnf_regex import gbnf_to_regex
from hypothesis import given, settings
from hypothesis import strategies as st

from cuisineworld import load_level
from cuisineworld.adapter.session import CuisineSession
from mindagent.core.capabilities import LegalGrammars, step_agent_grammar_of, step_grammar_of
from mindagent.core.episode import run_episode
from mindagent.core.gbnf import choice_grammar as legal_agent_grammar
from mindagent.core.gbnf import team_choice_grammar as legal_grammar
from mindagent.dispatch.brains import LLMBrain
from mindagent.dispatch.dispatcher import Dispatcher, DispatchSettings
from mindagent.dispatch.prompt import PromptConfig
from mindagent.llm import Message


def kitchen(agents: int = 2, steps: int = 20) -> CuisineSession:
    session = CuisineSession(load_level("level_3"), n_agents=agents, max_steps=steps)
    session.world.reset(seed=0)
    return session


def test_helpers_quote_and_refuse_an_empty_choice() -> None:
    grammar = legal_grammar([["noop_agent0", 'say_"hi"'], ["noop_agent1"]])
    language = re.compile(gbnf_to_regex(grammar))
    assert language.fullmatch('say_"hi"\nnoop_agent1') and not language.fullmatch("noop_agent1\nnoop_agent0")
    assert re.fullmatch(gbnf_to_regex(legal_agent_grammar(["a", "a", "b"])), "b")
    with pytest.raises(ValueError, match="agent1 has no legal command"):
        legal_grammar([["noop_agent0"], []])
    with pytest.raises(ValueError):
        legal_agent_grammar([])


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10_000), min_size=0, max_size=12))
def test_the_grammar_derives_exactly_the_legal_commands(picks: list[int]) -> None:
    session = kitchen()
    assert isinstance(session, LegalGrammars)
    for pick in picks:  # play a few random legal moves first
        legal = [session.legal_commands(a) for a in range(session.n_agents)]
        session.step_now([moves[pick % len(moves)] for moves in legal])
    legal = [session.legal_commands(a) for a in range(session.n_agents)]
    team = re.compile(gbnf_to_regex(session.legal_grammar()))
    for a, moves in enumerate(legal):
        one = re.compile(gbnf_to_regex(session.legal_agent_grammar(a)))
        assert all(one.fullmatch(m) for m in moves)
        assert not one.fullmatch(f"goto_agent{a}_nowhere0")
        refused = [c for c in (f"put_agent{a}_pot0", f"activate_agent{a}_pot0", f"get_agent{a}_pot1")
                   if c not in moves]
        assert not any(one.fullmatch(c) for c in refused)  # well-formed, but not legal now
        assert all(v.ok for v in session.check([m for m in moves if m.startswith("goto")][:1]))
    for answer in itertools.islice(itertools.product(*legal), 50):
        assert team.fullmatch("\n".join(answer))
    assert not team.fullmatch("\n".join(reversed([moves[0] for moves in legal])))


def test_step_dispatch_asks_under_the_legal_grammar_and_plans_under_the_language() -> None:
    session = kitchen(steps=2)
    model = ScriptedModel(["noop_agent0\nnoop_agent1"])
    asyncio.run(run_episode(session, Dispatcher(LLMBrain(model), PromptConfig(demo="none"))))
    assert model.grammars and all(g is not None and "goto_agent0_storage0" in g for g in model.grammars)
    assert all("get_agent0_\" item" not in (g or "") for g in model.grammars)  # no open command language
    session = kitchen(steps=2)
    model = ScriptedModel(["noop_agent0\nnoop_agent1"])
    plans = Dispatcher(LLMBrain(model), PromptConfig(demo="none"), dispatch=DispatchSettings(mode="plan"))
    asyncio.run(run_episode(session, plans))
    assert model.grammars and all("item" in (g or "") for g in model.grammars)  # future steps: the language


def test_the_accessors_fall_back_to_the_command_language() -> None:
    session = kitchen()
    assert step_grammar_of(session) == session.legal_grammar()
    assert step_agent_grammar_of(session, 1) == session.legal_agent_grammar(1)

    class NoLegal:
        def grammar(self) -> str:
            return "root ::= \"x\"\n"

        def agent_grammar(self, agent: int) -> str:
            return "root ::= \"y\"\n"

    assert step_grammar_of(NoLegal()) == "root ::= \"x\"\n"  # type: ignore[arg-type]
    assert step_agent_grammar_of(NoLegal(), 0) == "root ::= \"y\"\n"  # type: ignore[arg-type]


def test_a_call_records_how_its_answer_was_constrained() -> None:
    class Constrained(ScriptedModel):
        async def complete(self, messages, config, grammar=None):  # type: ignore[no-untyped-def]
            out = await super().complete(messages, config, grammar)
            return replace(out, grammar_sent="llama" if grammar else "")

    brain = LLMBrain(Constrained(["noop_agent0"]))
    with_grammar = asyncio.run(brain.ask([Message("user", "go")], 'root ::= "noop_agent0"\n'))
    free = asyncio.run(brain.ask([Message("user", "go")], None))
    assert with_grammar.to_dict()["grammar"] == "llama" and "grammar" not in free.to_dict()
