"""Parsing dispatcher text into typed commands, including garbage and hostile text."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minecraft.commands import (
    Command,
    CommandSyntaxError,
    Verb,
    extract_commands,
    gbnf,
    parse_command,
)

AGENTS = ["Alex", "Steve"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("goto(Alex, furnace)", Command(Verb.GOTO, "Alex", "furnace")),
        ("killMob(Alex, cow)", Command(Verb.KILL_MOB, "Alex", "cow")),
        ("mineBlock(Steve, coal_ore)", Command(Verb.MINE_BLOCK, "Steve", "coal_ore")),
        ("putFuelFurnace(Alex, coal)", Command(Verb.PUT_FUEL_FURNACE, "Alex", "coal")),
        ("putItemFurnace(Steve, beef)", Command(Verb.PUT_ITEM_FURNACE, "Steve", "beef")),
        ("takeOutFurnace(Alex)", Command(Verb.TAKE_OUT_FURNACE, "Alex")),
        ("putInChest(Alex, cooked_beef)", Command(Verb.PUT_IN_CHEST, "Alex", "cooked_beef")),
        ("noop(Steve)", Command(Verb.NOOP, "Steve")),
        ("  KILLMOB( alex ,  'Cow' ) ", Command(Verb.KILL_MOB, "Alex", "cow")),
        ('putInChest(Steve, "minecraft:cooked_mutton")', Command(Verb.PUT_IN_CHEST, "Steve", "cooked_mutton")),
    ],
)
def test_parse_examples(text: str, expected: Command) -> None:
    assert parse_command(text, AGENTS) == expected


@pytest.mark.parametrize(
    "text",
    ["", "goto(Bob, furnace)", "takeOutFurnace(Alex, furnace)", "killMob(Alex)", "eval(Alex, x)",
     "__import__('os').system('rm -rf /')", "goto(Alex, furnace); noop(Steve)", "killMob(Alex, cow"],
)
def test_parse_rejects(text: str) -> None:
    with pytest.raises(CommandSyntaxError):
        parse_command(text, AGENTS)


def test_command_text_round_trips() -> None:
    for command in [Command(Verb.KILL_MOB, "Alex", "cow"), Command(Verb.TAKE_OUT_FURNACE, "Steve")]:
        assert parse_command(command.text, AGENTS) == command
    assert Command(Verb.KILL_MOB, "Alex", "cow").bridge_args() == {"bot": "Alex", "mob": "cow"}
    assert Command(Verb.PUT_IN_CHEST, "Alex", "coal").bridge_args() == {"bot": "Alex", "item": "coal"}


def test_extract_first_per_agent_wins_in_agent_order() -> None:
    text = """Plan: Steve mines first.
    mineBlock(Steve, coal_ore)
    killMob(Alex, cow)
    killMob(Steve, pig)   <- ignored, Steve already has one
    goto(Bob, chest)      <- unknown agent"""
    assert extract_commands(text, AGENTS) == [Command(Verb.KILL_MOB, "Alex", "cow"),
                                              Command(Verb.MINE_BLOCK, "Steve", "coal_ore")]


def test_extract_skips_malformed_and_keeps_looking() -> None:
    text = "takeOutFurnace(Alex, chest) then takeOutFurnace(Alex) xnoop(Steve) noop(Steve)"
    assert [c.text for c in extract_commands(text, AGENTS)] == ["takeOutFurnace(Alex)", "noop(Steve)"]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_extract_never_raises(text: str) -> None:
    commands = extract_commands(text, AGENTS)
    assert len({c.agent for c in commands}) == len(commands) <= len(AGENTS)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="goto(killMb,AexSv )_fnacOeIChstu'\"\n", max_size=120))
def test_parse_only_raises_syntax_errors(text: str) -> None:
    try:
        command = parse_command(text, AGENTS)
    except CommandSyntaxError:
        return
    assert command.agent in AGENTS


def test_gbnf_is_one_line_per_agent_in_team_order() -> None:
    grammar = gbnf(AGENTS, ["chest", "furnace"], ["cow"], ["coal_ore"], ["beef", "coal"])
    assert grammar.startswith('root ::= line0 "\\n" line1\n')
    for verb in ("goto(", "killMob(", "mineBlock(", "putFuelFurnace(", "putItemFurnace(", "takeOutFurnace(",
                 "putInChest(", "noop("):
        assert f'"{verb}Alex' in grammar and f'"{verb}Steve' in grammar
    for rule in ("target ::=", "mob ::=", "block ::=", "item ::="):
        assert rule in grammar
