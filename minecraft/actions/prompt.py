"""The catalogue as prompt text, so every task family describes its actions from one source.

A family passes the names it offers (in the order it wants them shown); the text lists each
action's signature, what it does, its arguments and, separately, the queries.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from minecraft.actions.catalogue import CATALOGUE, CATALOGUE_BY_NAME
from minecraft.actions.spec import ActionSpec, ArgKind


def select(names: Iterable[str] | None = None) -> tuple[ActionSpec, ...]:
    """The entries called `names` (all of them for None); an unknown name is a ValueError."""
    if names is None:
        return CATALOGUE
    wanted = list(dict.fromkeys(names))
    unknown = [n for n in wanted if n not in CATALOGUE_BY_NAME]
    if unknown:
        raise ValueError(f"no action called {', '.join(unknown)} in the catalogue")
    return tuple(CATALOGUE_BY_NAME[n] for n in wanted)


def _arguments(spec: ActionSpec) -> str:
    parts = []
    for p in spec.params:
        extra = ""
        if p.kind is ArgKind.CHOICE:
            extra = " (" + " | ".join(p.choices) + ")"
        elif p.kind is ArgKind.COUNT:
            extra = f" ({p.lo}-{p.hi})"
        if p.default is not None:
            extra += f", default {p.default}"
        parts.append(f"{p.name}: {p.doc}{extra}")
    return "; ".join(parts)


def describe(specs: Sequence[ActionSpec], agent: str = "Agent") -> str:
    """One block of lines per entry: ``- signature: description [arguments]``."""
    lines = []
    for spec in specs:
        line = f"- {spec.signature().replace('(Agent', '(' + agent, 1)}: {spec.description}"
        if spec.params:
            line += f" [{_arguments(spec)}]"
        lines.append(line)
    return "\n".join(lines)


def render(names: Iterable[str] | None = None, agent: str = "Agent") -> str:
    """The prompt text for the chosen actions and queries. Example: ``render(["digBlock", "inventory"])``
    starts with ``Actions (one per agent per step):`` and ends with the queries section."""
    specs = select(names)
    actions = [s for s in specs if not s.query]
    queries = [s for s in specs if s.query]
    out = []
    if actions:
        out.append("Actions (one per agent per step; each answers once the world shows it done, or says why not):")
        out.append(describe(actions, agent))
    if queries:
        out.append("Queries (answer at once from what the agent sees; they change nothing):")
        out.append(describe(queries, agent))
    out.append('Write each command as verb(Agent, arguments...): ids in lowercase (oak_planks), whole-number '
               'coordinates, chat text in double quotes.')
    return "\n".join(out)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown_table(specs: Sequence[ActionSpec] = CATALOGUE) -> str:
    """The catalogue as a Markdown table (the how-to page holds this exact text; a test keeps them equal)."""
    rows = ["| Command | Group | What it does | Confirmed by | Timeout |", "|---|---|---|---|---|"]
    for spec in specs:
        kind = " (query)" if spec.query else ""
        rows.append(f"| `{spec.signature()}`{kind} | {spec.group} | {_cell(spec.description)} | "
                    f"{_cell(spec.confirms)} | {spec.timeout_s:g} s |")
    return "\n".join(rows)
