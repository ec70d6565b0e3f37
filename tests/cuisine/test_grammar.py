"""`command_grammar` as text, and as llama.cpp's own GBNF parser sees it."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from cuisineworld.adapter.grammar import CommandSpace, command_grammar, command_pattern
from mindagent.core.gbnf import literal

KITCHEN = CommandSpace(n_agents=2, locations=("storage0", "blender0", "servingtable0"),
                       items=("tuna", "salmon", "tunasashimi"))


def test_structure_for_two_agents() -> None:
    gbnf = command_grammar(KITCHEN)
    rules = dict(line.split(" ::= ", 1) for line in gbnf.strip().splitlines())
    assert rules["root"] == 'line0 "\\n" line1'
    assert rules["loc"] == '"storage0" | "blender0" | "servingtable0"'
    assert rules["item"] == '"tuna" | "salmon" | "tunasashimi"'
    alts = rules["line1"].split(" | ")
    assert '"noop_agent1"' in alts
    for verb in ("goto", "put", "activate", "get"):
        assert f'"{verb}_agent1_" loc' in alts
    assert '"get_agent1_" item "_" loc' in alts
    assert "agent0" not in rules["line1"]


def test_errors() -> None:
    with pytest.raises(ValueError, match="at least one agent"):
        command_grammar(CommandSpace(0, ("a",), ()))
    with pytest.raises(ValueError, match="no command"):
        command_grammar(CommandSpace(1, (), (), verbs=("goto",)))


def test_no_locations_means_noop_only() -> None:
    gbnf = command_grammar(CommandSpace(3, (), ("tuna",)))
    assert "loc" not in gbnf and "item" not in gbnf
    assert 'line2 ::= "noop_agent2"' in gbnf


def test_escaping() -> None:
    assert literal('a"b\\c\nd') == '"a\\"b\\\\c\\nd"'


def test_pattern_matches_the_language() -> None:
    pat = re.compile(command_pattern(KITCHEN, 1))
    for ok in ("noop_agent1", "goto_agent1_blender0", "get_agent1_tuna_storage0",
               "get_agent1_storage0", "activate_agent1_blender0"):
        assert pat.fullmatch(ok), ok
    for bad in ("noop_agent0", "goto_agent1_kitchen", "put_agent1_tuna_storage0", "goto_agent1_"):
        assert not pat.fullmatch(bad), bad


def _parses(llama_cpp: Any, vocab_model: Any, gbnf: str) -> bool:
    sampler = llama_cpp.llama_sampler_init_grammar(vocab_model._model.vocab, gbnf.encode(), b"root")
    if not sampler:
        return False
    llama_cpp.llama_sampler_free(sampler)
    return True


@pytest.fixture
def vocab_model(require: Callable[[str, str], None], smollm2_path: Path) -> Iterator[Any]:
    """Only the tokenizer of SmolLM2 (vocab_only): what llama.cpp's grammar parser needs."""
    require("llama_cpp", "pip install 'llama-cpp-python[server]==0.3.36'")
    import llama_cpp

    model = llama_cpp.Llama(model_path=str(smollm2_path), vocab_only=True, verbose=False)
    yield model
    model.close()


@pytest.mark.parametrize(
    "space",
    [
        KITCHEN,
        CommandSpace(1, ("storage0",), ()),
        CommandSpace(4, ("storage0", "pot0", "chopboard0"), ("tuna", "rice", 'odd"name')),
        CommandSpace(2, (), ()),
        CommandSpace(2, ("furnace",), ("iron_ore",), verbs=("noop", "goto", "get", "craft")),
    ],
)
def test_llama_cpp_parses_the_grammar(vocab_model: Any, space: CommandSpace) -> None:
    import llama_cpp

    assert _parses(llama_cpp, vocab_model, command_grammar(space))


def test_llama_cpp_rejects_a_broken_grammar(vocab_model: Any) -> None:
    import llama_cpp

    # Rule names may not contain '_' in GBNF: the reason command_grammar uses line0, loc, item.
    assert not _parses(llama_cpp, vocab_model, 'root ::= "a" | line_0\nline_0 ::= "b"\n')
