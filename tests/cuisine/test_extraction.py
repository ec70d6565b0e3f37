"""Extraction over a corpus of messy model outputs, and properties: it never raises or evaluates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cuisineworld.adapter import extract_commands

CORPUS = json.loads((Path(__file__).parent / "corpus" / "messy_outputs.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CORPUS, ids=[c["name"] for c in CORPUS])
def test_corpus_fixed(case):
    assert extract_commands(case["text"], case["agents"], rules="fixed") == case["fixed"]


@pytest.mark.parametrize("case", CORPUS, ids=[c["name"] for c in CORPUS])
def test_corpus_reference_keeps_every_match(case):
    assert extract_commands(case["text"], case["agents"], rules="reference") == case["reference"]


@settings(max_examples=300)
@given(st.text(max_size=400), st.integers(1, 6))
def test_any_text_gives_at_most_one_command_per_agent(text, n):
    found = extract_commands(text, n)
    agents = [int(c.split("_")[1][5:]) for c in found]
    assert len(agents) == len(set(agents)) and all(a < n for a in agents)


@settings(max_examples=200)
@given(st.lists(st.sampled_from(["goto_agent0_pot0", "noop_agent1", "__import__('os')", "\n", "***", "```", " ",
                                 "get_agent1_tuna_storage0", "eval(", "agent0"]), max_size=30))
def test_noise_around_commands(parts):
    text = "".join(parts)
    for command in extract_commands(text, 2, rules="reference"):
        assert command.split("_")[0] in {"goto", "noop", "get"}


def test_huge_input_is_bounded():
    assert extract_commands("noop_agent0 " * 100_000, 1) == ["noop_agent0"]
