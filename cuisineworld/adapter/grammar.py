"""GBNF grammars that make a small local model emit only well-formed kitchen commands.

A 135M-parameter model cannot be trusted to spell ``get_agent1_tuna_storage0`` or to stop after
one line per agent; constrained decoding can. The grammar is built from the `CommandSpace` so
every sampled token keeps the output inside the command language: exactly one line per agent,
in agent order (``agent0`` first), each a command of that agent over the kitchen's locations
and items. Whether the command is *sensible* is still the model's (and the game's) business.

Pure string building, no llama_cpp import: the dispatcher and tests can use it anywhere. The
result is what `mindagent.llm.LLMClient.complete` takes as ``grammar``; the model layer knows
nothing of kitchens, and a domain with another command syntax hands its own grammar string.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mindagent.core.gbnf import literal

#: Verbs that take no argument (``noop_agentK``).
NULLARY_VERBS = frozenset({"noop"})
#: The verb that also has the ``verb_agentK_item_location`` form.
ITEM_VERB = "get"


@dataclass(frozen=True, slots=True)
class CommandSpace:
    """Well-formed commands of a kitchen, for grammar-constrained decoding.

    Command strings are ``verb_agentK`` (noop), ``verb_agentK_location`` (goto/put/activate/get)
    and ``get_agentK_item_location``; one per line, one line per agent.
    """

    n_agents: int
    locations: tuple[str, ...]
    items: tuple[str, ...]
    verbs: tuple[str, ...] = ("noop", "goto", "get", "put", "activate")


def _unique(names: tuple[str, ...]) -> list[str]:
    """Order-preserving de-duplication, dropping empty names (they would make ``goto_agent0_``)."""
    return list(dict.fromkeys(n for n in names if n))


def _agent_alternatives(
    space: CommandSpace, agent: int, has_locs: bool, has_items: bool
) -> list[str]:
    alts: list[str] = []
    for verb in dict.fromkeys(space.verbs):
        head = f"{verb}_agent{agent}"
        if verb in NULLARY_VERBS:
            alts.append(literal(head))
            continue
        # Every other verb (goto/put/activate/get, or a domain's own) takes a location.
        if has_locs:
            alts.append(f"{literal(head + '_')} loc")
            if verb == ITEM_VERB and has_items:
                alts.append(f'{literal(head + "_")} item "_" loc')
    return alts


def agent_grammar(space: CommandSpace, agent: int) -> str:
    """The GBNF grammar of one command of ``agent`` alone (a decentral agent's answer)."""
    team = command_grammar(space)
    rules = [r for r in team.splitlines() if not r.startswith(("root ::=", "line"))]
    line = next(r for r in team.splitlines() if r.startswith(f"line{agent} ::="))
    return "\n".join(["root ::=" + line.split("::=", 1)[1], *rules]) + "\n"


def command_grammar(space: CommandSpace) -> str:
    """The GBNF grammar of one dispatcher answer for ``space``.

    Raises ValueError when the space admits no command at all (no agents, or no verb usable
    without locations), since an empty grammar would let the model say nothing.

    Example for 2 agents, ``locations=("storage0",)``, ``items=("tuna",)``::

        root ::= line0 "\\n" line1
        line0 ::= "noop_agent0" | "goto_agent0_" loc | ... | "get_agent0_" item "_" loc
        loc ::= "storage0"
        item ::= "tuna"
    """
    if space.n_agents < 1:
        raise ValueError(f"CommandSpace needs at least one agent, got n_agents={space.n_agents}")
    locations, items = _unique(space.locations), _unique(space.items)
    # GBNF rule names allow only letters, digits and '-': hence line0, loc, item.
    rules = ["root ::= " + ' "\\n" '.join(f"line{k}" for k in range(space.n_agents))]
    for agent in range(space.n_agents):
        alts = _agent_alternatives(space, agent, bool(locations), bool(items))
        if not alts:
            raise ValueError(f"CommandSpace admits no command for agent{agent}: {space!r}")
        rules.append(f"line{agent} ::= " + " | ".join(alts))
    if locations:
        rules.append("loc ::= " + " | ".join(literal(n) for n in locations))
    if items and locations and ITEM_VERB in space.verbs:
        rules.append("item ::= " + " | ".join(literal(n) for n in items))
    return "\n".join(rules) + "\n"


def command_pattern(space: CommandSpace, agent: int) -> str:
    """A regular expression equal to agent ``agent``'s line rule, for checking output in tests
    and logs without a grammar engine."""
    locs = "|".join(re.escape(n) for n in _unique(space.locations))
    items = "|".join(re.escape(n) for n in _unique(space.items))
    alts: list[str] = []
    for verb in dict.fromkeys(space.verbs):
        head = re.escape(f"{verb}_agent{agent}")
        if verb in NULLARY_VERBS:
            alts.append(head)
        elif locs:
            alts.append(f"{head}_(?:{locs})")
            if verb == ITEM_VERB and items:
                alts.append(f"{head}_(?:{items})_(?:{locs})")
    return "(?:" + "|".join(alts) + ")"
