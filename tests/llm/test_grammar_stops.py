"""Both domains' local grammars derive exactly one command per agent and then only the end.

Fast: the grammar's whole language as a regex (`gbnf_regex`): one answer matches, the same
answer with one more line does not, and no rule repeats. Slow: the real SmolLM2 under each
grammar with a generous token cap stops by itself after the last agent's line.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from gbnf_regex import RepetitionError, gbnf_to_regex

from cuisineworld.adapter.grammar import CommandSpace, command_grammar
from mindagent.llm import GenerationConfig, Message
from minecraft.commands import extract_commands, gbnf

KITCHEN = CommandSpace(2, ("storage0", "blender0", "servingtable0"), ("tuna", "tunasashimi"))
MC_AGENTS = ["Alex", "Steve"]
MC = gbnf(MC_AGENTS, ["chest", "furnace"], ["cow"], ["coal_ore"], ["beef", "coal"])


def test_the_helper_refuses_repetition() -> None:
    with pytest.raises(RepetitionError):
        gbnf_to_regex('root ::= line+\nline ::= "a" "\\n"\n')
    with pytest.raises(RepetitionError):
        gbnf_to_regex('root ::= "a" | "a" root\n')


@pytest.mark.parametrize(("grammar", "answer", "extra"), [
    (command_grammar(KITCHEN), "goto_agent0_storage0\nget_agent1_tuna_storage0", "noop_agent1"),
    (command_grammar(CommandSpace(4, ("pot0",), ())), "noop_agent0\nnoop_agent1\nnoop_agent2\nnoop_agent3", "noop_agent3"),
    (MC, "killMob(Alex, cow)\nnoop(Steve)", "noop(Steve)"),
], ids=["cuisineworld", "cuisineworld-4", "minecraft"])
def test_exactly_one_line_per_agent(grammar: str, answer: str, extra: str) -> None:
    language = re.compile(gbnf_to_regex(grammar), re.DOTALL)
    assert language.fullmatch(answer)
    assert not language.fullmatch(answer + "\n" + extra)  # no repeated or extra line
    assert not language.fullmatch(answer + "\n")  # not even a trailing newline
    lines = answer.split("\n")
    assert not language.fullmatch("\n".join(lines[:-1]))  # nor one line short
    assert not language.fullmatch("\n".join(reversed(lines)))  # agent order is fixed


def test_minecraft_lines_name_their_own_agent() -> None:
    language = re.compile(gbnf_to_regex(MC))
    assert not language.fullmatch("noop(Steve)\nnoop(Alex)")
    assert not language.fullmatch("noop(Alex)\nnoop(Alex)")
    assert language.fullmatch("goto(Alex, furnace)\nputFuelFurnace(Steve, coal)")


@pytest.mark.slow
@pytest.mark.parametrize(("grammar", "prompt", "agents"), [
    (command_grammar(KITCHEN), "Order tunasashimi. Give one kitchen command per agent.", 2),
    (MC, "Order cooked beef. Give one command for Alex and one for Steve.", 2),
], ids=["cuisineworld", "minecraft"])
def test_the_model_stops_after_the_last_agent(smollm2_path: Path, llama_cpp_module: Any, grammar: str,
                                              prompt: str, agents: int) -> None:
    from mindagent.llm.local_backend import LocalClient

    client = LocalClient(n_ctx=1024)
    messages = [Message("system", "You command a team."), Message("user", prompt)]
    for seed in (0, 1, 2):
        out = asyncio.run(client.complete(messages, GenerationConfig(temperature=1.0, max_tokens=100, seed=seed), grammar))
        assert len(out.text.split("\n")) == agents, out.text
        assert re.fullmatch(gbnf_to_regex(grammar), out.text), out.text
        assert out.usage.output_tokens < 60  # it ended by itself, far below the 100-token cap
    if grammar is MC:
        assert [c.agent for c in extract_commands(out.text, MC_AGENTS)] == MC_AGENTS
