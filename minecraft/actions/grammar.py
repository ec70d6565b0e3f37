"""A GBNF grammar of the library's commands, for a local model's constrained decoding.

Exactly one command per agent, one per line, in agent order (as the kitchen's grammar in
minecraft/commands.py, so a small model cannot run on repeating lines). Every string the grammar
allows is accepted by `parse_action` with the same catalogue: numbers stay inside each argument's
bounds, chat text uses a plain character set and cannot start with '/'.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from mindagent.core.gbnf import literal
from minecraft.actions.prompt import select
from minecraft.actions.spec import ActionSpec, ArgKind, Param

# Coordinates the grammar offers (the parser takes up to 30000; a site is never that far).
_COORD_RULE = 'coord ::= "-"? [0-9] | "-"? [1-9] [0-9] | "-"? [1-9] [0-9] [0-9] | "-"? [1-9] [0-9] [0-9] [0-9]'
_FIXED_RULES = {
    "coord": _COORD_RULE,
    "id": "id ::= [a-z] [a-z0-9_]{0,30}",
    "name": "name ::= [A-Za-z0-9_]{1,16}",
    "text": 'text ::= "\\"" [A-Za-z0-9] [A-Za-z0-9 ,.!?\'-]{0,80} "\\""',
}


def _rule_for(param: Param, rules: dict[str, str]) -> str:
    if param.kind is ArgKind.COORD:
        rules["coord"] = _FIXED_RULES["coord"]
        return "coord"
    if param.kind is ArgKind.COUNT:
        name = f"count-{param.lo}-{param.hi}"
        rules[name] = f"{name} ::= " + " | ".join(literal(str(n)) for n in range(param.lo, param.hi + 1))
        return name
    if param.kind is ArgKind.CHOICE:
        name = f"choice-{param.name}"
        rules[name] = f"{name} ::= " + " | ".join(literal(c) for c in param.choices)
        return name
    if param.kind is ArgKind.TEXT:
        rules["text"] = _FIXED_RULES["text"]
        return "text"
    if param.kind in (ArgKind.ITEM, ArgKind.BLOCK, ArgKind.MOB):
        rules["id"] = _FIXED_RULES["id"]
        return "id"
    rules["name"] = _FIXED_RULES["name"]
    return "name"


def _call(spec: ActionSpec, agent: str, rules: dict[str, str]) -> str:
    parts = [literal(f"{spec.name}({agent}")]
    optional = []
    for param in spec.params:
        piece = f'", " {_rule_for(param, rules)}'
        if param.default is None:
            parts.append(piece)
        else:
            optional.append(piece)
    # optional arguments only in order: none, the first, the first two, ...
    tail = ""
    for piece in reversed(optional):
        tail = f"({piece} {tail})?" if tail else f"({piece})?"
    return " ".join(parts + ([tail] if tail else []) + ['")"'])


def gbnf(agents: Sequence[str], names: Iterable[str] | None = None) -> str:
    """The grammar for `agents` over the chosen actions (all of them for None). Example:
    ``gbnf(["Alex"], ["digBlock"])`` starts ``root ::= line0``."""
    if not agents:
        raise ValueError("a grammar needs at least one agent")
    specs = select(names)
    rules: dict[str, str] = {}
    lines = ["root ::= " + ' "\\n" '.join(f"line{k}" for k in range(len(agents)))]
    for k, agent in enumerate(agents):
        lines.append(f"line{k} ::= " + " | ".join(_call(spec, agent, rules) for spec in specs))
    return "\n".join(lines + [rules[name] for name in sorted(rules)]) + "\n"
