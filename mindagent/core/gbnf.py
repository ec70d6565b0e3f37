"""GBNF building blocks every game's grammars are made of.

Legal-move decoding (`LegalGrammars`) is the same grammar in every game: line K of the answer is
exactly one of agent K's commands legal now. The kitchen and Minecraft each wrote it and its
quoting once; a new game (a plugin) should not have to write it a third time, nor get the
escaping of a quote or backslash inside a command subtly wrong (llama.cpp then rejects the whole
grammar and the model runs unconstrained).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["choice_grammar", "literal", "team_choice_grammar"]


def literal(text: str) -> str:
    """`text` as a double-quoted GBNF literal: ``literal('say "hi"')`` -> ``"say \\"hi\\""``
    (backslash, quote and control characters escaped)."""
    escaped = (text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
               .replace("\t", "\\t"))
    return f'"{escaped}"'


def _alternatives(commands: Sequence[str], who: str) -> str:
    choices = list(dict.fromkeys(commands))  # first mention wins: the game's own order is kept
    if not choices:
        raise ValueError(f"{who} has no legal command to choose from")
    return " | ".join(literal(c) for c in choices)


def team_choice_grammar(per_agent: Sequence[Sequence[str]]) -> str:
    """One answer of the team: line K is exactly one of ``per_agent[K]`` (agent K's legal commands).

    ``team_choice_grammar([["noop_agent0", "goto_agent0_pot0"], ["noop_agent1"]])`` ->
    ``root ::= line0 "\\n" line1`` / ``line0 ::= "noop_agent0" | "goto_agent0_pot0"`` / ...
    Raises ValueError for no agents or an agent with no command (the caller adds its idle one)."""
    if not per_agent:
        raise ValueError("a legal-move grammar needs at least one agent")
    rules = ["root ::= " + ' "\\n" '.join(f"line{k}" for k in range(len(per_agent)))]
    rules += [f"line{k} ::= {_alternatives(commands, f'agent{k}')}" for k, commands in enumerate(per_agent)]
    return "\n".join(rules) + "\n"


def choice_grammar(commands: Sequence[str]) -> str:
    """One command of one agent, one of `commands`: ``root ::= "a" | "b"``."""
    return f"root ::= {_alternatives(commands, 'the agent')}\n"
