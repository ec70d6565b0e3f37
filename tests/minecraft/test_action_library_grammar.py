"""The library's GBNF grammar: it compiles under llama.cpp, and what SmolLM2-135M writes under it
is one command per agent that the parser accepts (decoding is the slow part)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from minecraft.actions import extract_actions, parse_action, select
from minecraft.actions.grammar import gbnf

AGENTS = ["Alex", "Steve"]
OFFERED = ["placeBlock", "digBlock", "takeFromContainer", "say", "equip", "goTo", "inventory"]


def test_grammar_names_each_agent_line_once(require: Callable[[str, str], None]) -> None:
    text = gbnf(AGENTS, OFFERED)
    assert text.startswith("root ::= line0 \"\\n\" line1\n")
    assert '"placeBlock(Alex"' in text and '"placeBlock(Steve"' in text and "craft(" not in text
    require("llama_cpp", "pip install 'llama-cpp-python[server]==0.3.36'")
    import llama_cpp

    llama_cpp.LlamaGrammar.from_string(gbnf(AGENTS), verbose=False)
    with pytest.raises(ValueError, match="at least one agent"):
        gbnf([])


@pytest.mark.slow
@pytest.mark.parametrize("prompt", [
    "Build the wall. Commands, one per agent:\n",
    "Alex gets planks from the chest at 1 5 3, Steve says hello.\nCommands:\n",
    "Dig out the stone at 4 5 -2 and put on a helmet.\n",
])
def test_a_small_model_under_the_grammar_writes_parseable_commands(require: Callable[[str, str], None],
                                                                   smollm2_path: Path, prompt: str) -> None:
    require("llama_cpp", "pip install 'llama-cpp-python[server]==0.3.36'")
    import llama_cpp

    llm = llama_cpp.Llama(model_path=str(smollm2_path), n_ctx=512, verbose=False, seed=0)
    try:
        grammar = llama_cpp.LlamaGrammar.from_string(gbnf(AGENTS, OFFERED), verbose=False)
        out = llm.create_completion(prompt, grammar=grammar, max_tokens=160, temperature=0.8, seed=1)
    finally:
        llm.close()
    choice = out["choices"][0]  # type: ignore[index]
    assert choice["finish_reason"] == "stop", choice
    lines = choice["text"].split("\n")
    assert len(lines) == len(AGENTS)
    calls = [parse_action(line, AGENTS, select(OFFERED)) for line in lines]
    assert [c.agent for c in calls] == AGENTS
    assert [c.text for c in extract_actions(choice["text"], AGENTS, select(OFFERED))] == [c.text for c in calls]
