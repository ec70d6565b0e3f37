"""The command language: exact parsing, extraction from chatty text, the grammar's language, and
property tests where the only outcomes allowed are "parsed" or a documented refusal, fast."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from gbnf_regex import gbnf_to_regex
from hypothesis import given, settings
from hypothesis import strategies as st

from overcooked_game.commands import MAX_COMMAND, MEDIUM, PRIMITIVE, Command, Unreadable, extract, grammar_rules, parse


@pytest.mark.parametrize(("text", "command"), [
    ("pickup_onion(chef0)", Command("pickup_onion", 0)),
    ("  put_onion( chef1 ,  pot0 ) \n", Command("put_onion", 1, "pot0")),
    ("place(chef1, k12)", Command("place", 1, "k12")),
    ("interact(chef0)", Command("interact", 0)),
])
def test_parse_reads_both_levels(text: str, command: Command) -> None:
    assert parse(text, 2) == command


@pytest.mark.parametrize(("text", "code"), [
    ("pickup_onion(chef2)", "no_such_chef"),
    ("pickup_onion(chef01)", "no_such_chef"),
    ("put_onion(chef0)", "missing_target"),
    ("put_onion(chef0, k1)", "wrong_target"),
    ("wait(chef0, pot0)", "unexpected_target"),
    ("Wait(Chef0)", "unreadable"),
    ("wait(chef²)", "unreadable"),
    ("wait(chef0) and more", "unreadable"),
    ("put_onion(chef0, pot01)", "unreadable"),
    ("x" * 10_000, "unreadable"),
])
def test_parse_refuses_with_a_code(text: str, code: str) -> None:
    with pytest.raises(Unreadable) as caught:
        parse(text, 2)
    assert caught.value.code == code


def test_extract_keeps_the_first_command_of_each_chef_in_chatty_text() -> None:
    text = ("Analysis: chef1 could also pickup_dish(chef1) later.\nAction: **pickup_onion(chef0)**\n"
            "```\nfill_dish(chef1, pot0)\n```\nrewait(chef0) wait(chef7) pickup_onion(chef0)")
    assert extract(text, 2) == [Command("pickup_dish", 1), Command("pickup_onion", 0)]


def test_grammar_language_is_exactly_the_well_formed_commands() -> None:
    pattern = re.compile(gbnf_to_regex(grammar_rules(2, pots=2, counters=3, only=1)))
    for verb in (*MEDIUM, *PRIMITIVE):
        kind = MEDIUM.get(verb)
        target = {"pot": "pot1", "counter": "k2"}.get(kind or "")
        command = str(Command(verb, 1, target))
        assert pattern.fullmatch(command), command
        assert parse(command, 2) == Command(verb, 1, target)
    for wrong in ("wait(chef0)", "put_onion(chef1, pot2)", "place(chef1, k3)", "put_onion(chef1)"):
        assert not pattern.fullmatch(wrong)
    team = re.compile(gbnf_to_regex(grammar_rules(2, pots=1, counters=1)))
    assert team.fullmatch("pickup_onion(chef0)\nfill_dish(chef1, pot0)")


@settings(max_examples=300, deadline=200)
@given(st.text(max_size=400))
def test_any_text_parses_or_is_refused_with_a_code(text: str) -> None:
    try:
        command = parse(text, 2)
    except Unreadable as exc:
        assert exc.code in {"unreadable", "no_such_chef", "unexpected_target", "missing_target", "wrong_target"}
    else:
        assert parse(str(command), 2) == command and len(text.strip()) <= MAX_COMMAND


_PIECES = st.sampled_from(["pickup_onion", "put_onion", "place", "wait", "(", ")", "chef0", "chef1", "chef9", ",",
                           " pot0", " k3", "\n", "```", "**", "(((", "chef", "٣", "_", " "])


@settings(max_examples=300, deadline=200)
@given(st.lists(_PIECES, max_size=200))
def test_extraction_of_adversarial_fragments_is_one_per_chef_and_each_reparses(pieces: list[str]) -> None:
    found = extract("".join(pieces), 2)
    assert len({c.chef for c in found}) == len(found)
    for command in found:
        assert parse(str(command), 2) == command


def test_extraction_stays_linear_on_a_megabyte_of_near_misses() -> None:
    text = "put_onion(chef0, " * 60_000 + "wait(chef1)"
    started = time.perf_counter()
    assert extract(text, 2) == [Command("wait", 1)]
    assert time.perf_counter() - started < 2.0


@pytest.fixture
def vocab_model(require: Callable[[str, str], None], smollm2_path: Path) -> Iterator[Any]:
    """SmolLM2's tokenizer alone: all llama.cpp's grammar parser needs."""
    require("llama_cpp", "pip install 'llama-cpp-python[server]==0.3.36'")
    import llama_cpp

    model = llama_cpp.Llama(model_path=str(smollm2_path), vocab_only=True, verbose=False)
    yield model
    model.close()


@pytest.mark.parametrize("only", [None, 0, 1])
def test_llama_cpp_accepts_the_grammar(vocab_model: Any, only: int | None) -> None:
    import llama_cpp

    gbnf = grammar_rules(2, pots=2, counters=11, only=only)
    sampler = llama_cpp.llama_sampler_init_grammar(vocab_model._model.vocab, gbnf.encode(), b"root")
    assert sampler
    llama_cpp.llama_sampler_free(sampler)
