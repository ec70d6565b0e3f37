"""The Minecraft grammar under llama.cpp itself: constrained decoding with SmolLM2-135M stops
after exactly one command line per agent (it used to repeat lines up to the token limit)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from minecraft.commands import extract_commands, gbnf
from minecraft.kitchen import BLOCKS, ITEMS, MOBS, TARGETS

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("agents", [["Alex", "Steve"], ["Alex", "Steve", "Ellie", "Kai"]])
def test_decoding_stops_after_one_line_per_agent(require: Callable[[str, str], None], smollm2_path: Path,
                                                 agents: list[str]) -> None:
    require("llama_cpp", "pip install 'llama-cpp-python[server]==0.3.36'")
    import llama_cpp

    llm = llama_cpp.Llama(model_path=str(smollm2_path), n_ctx=512, verbose=False, seed=0)
    try:
        grammar = llama_cpp.LlamaGrammar.from_string(gbnf(agents, TARGETS, MOBS, BLOCKS, ITEMS), verbose=False)
        prompt = "Commands, one per agent:\nnoop(Alex)\nnoop(Steve)\nnoop(Steve)\nnoop(Steve)\n\nCommands:\n"
        out = llm.create_completion(prompt, grammar=grammar, max_tokens=200, temperature=0.0)
    finally:
        llm.close()
    choice = out["choices"][0]  # type: ignore[index]
    lines = choice["text"].splitlines()
    assert choice["finish_reason"] == "stop", choice
    assert [c.agent for c in extract_commands(choice["text"], agents)] == agents
    assert len(lines) == len(agents)
