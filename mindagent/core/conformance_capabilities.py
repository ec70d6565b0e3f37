"""The conformance checks of the declared capabilities (`mindagent.core.capabilities`).

A game that declares a capability by implementing its protocol promises what the protocol says;
these checks hold it to that on a reset session, with the same failure reports as the rest of the
suite. A game without a capability is not asked anything here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from mindagent.core.capabilities import (
    ASSET_MAX_BYTES,
    ASSET_NAME,
    ASSET_SUFFIXES,
    AgentPrompts,
    Demos,
    Directable,
    GoalMode,
    Grammars,
    LegalGrammars,
    LiveView,
    PageActions,
    PageAssets,
    Replayable,
    Scored,
    TaskGraphMode,
)
from mindagent.core.domain import JSON, DomainSession, PromptParts
from mindagent.dispatch.plans import GoalMenu
from mindagent.dispatch.taskgraph import TaskGraph

if TYPE_CHECKING:
    from mindagent.core.conformance import _Run

CHECK = "capabilities"
DEMANDS = ("each declared capability answers as its protocol promises: grammars are GBNF text with a root rule "
           "(or None) and a legal-move grammar names every legal command, goal menus list text options, task graphs "
           "are TaskGraphs with an executor, per-agent prompt "
           "parts are PromptParts, demos have steps and an intro, a Replayable session restored from a reset twin's "
           "header shows the same state, direction names map to their parts and a legal command makes one of them or "
           "nothing")


def declared(session: DomainSession) -> list[str]:
    """The names of the capabilities a session declares, in a fixed order."""
    kinds = (("grammars", Grammars), ("legal_grammars", LegalGrammars), ("goals", GoalMode), ("task_graph", TaskGraphMode),
             ("agent_prompts", AgentPrompts), ("demos", Demos), ("replay", Replayable), ("live_view", LiveView),
             ("page_actions", PageActions), ("scored", Scored), ("directions", Directable))
    return [name for name, kind in kinds if isinstance(session, kind)]


def page_asset_problems(domain: object) -> list[str]:
    """What is wrong with a `PageAssets` game's files, one line each (empty: nothing, or no such
    capability): a name the server would refuse, a file that is missing or too large. A game's
    tests call it; the server serves only what passes.

    Example: ``page_asset_problems(OvercookedDomain())`` → ``[]``."""
    if not isinstance(domain, PageAssets):
        return []
    problems = []
    for name, source in sorted(domain.page_assets().items()):
        if not re.fullmatch(ASSET_NAME, name) or ".." in name or not name.lower().endswith(ASSET_SUFFIXES):
            problems.append(f"{name!r}: not a servable name (a plain file name ending in {', '.join(ASSET_SUFFIXES)})")
        elif not source.is_file():
            problems.append(f"{name}: no file at {source}")
        elif len(source.read_bytes()) > ASSET_MAX_BYTES:
            problems.append(f"{name}: larger than {ASSET_MAX_BYTES} bytes")
    return problems


def _grammar_ok(text: object) -> bool:
    return text is None or (isinstance(text, str) and "root" in text and "::=" in text)


def _check_legal_grammars(run: _Run, session: DomainSession, s: LegalGrammars) -> None:
    """Legal-move grammars (`s` is `session`) are GBNF text that offers every command legal now."""
    if not _grammar_ok(s.legal_grammar()):
        raise run.fail(CHECK, "legal_grammar() must be GBNF text with a root rule, or None", session)
    for agent in range(session.n_agents):
        text = s.legal_agent_grammar(agent)
        if not _grammar_ok(text):
            raise run.fail(CHECK, f"legal_agent_grammar({agent}) must be GBNF text with a root rule, or None", session)
        missing = [c for c in session.legal_commands(agent) if text is not None and c not in text]
        if missing:
            raise run.fail(CHECK, f"legal_agent_grammar({agent}) leaves out legal {missing[0]!r}", session)


async def check_capabilities(run: _Run, s: DomainSession, start: tuple[Mapping[str, JSON], str, object] | None) -> None:
    """`start` is another session's episode header, state text and orders right after a reset
    (None for a live world: no replay check); a Replayable `s` restored from it must show them."""
    if not run.on(CHECK):
        return
    if isinstance(s, Grammars):
        if not _grammar_ok(s.grammar()):
            raise run.fail(CHECK, "grammar() must be GBNF text with a root rule, or None", s)
        for agent in range(s.n_agents):
            if not _grammar_ok(s.agent_grammar(agent)):
                raise run.fail(CHECK, f"agent_grammar({agent}) must be GBNF text with a root rule, or None", s)
    if isinstance(s, LegalGrammars):
        _check_legal_grammars(run, s, s)
    if isinstance(s, GoalMode):
        menu = s.goal_menu()
        if menu is not None and (not isinstance(menu, GoalMenu) or not all(isinstance(o, str) for o in menu.options)):
            raise run.fail(CHECK, f"goal_menu() must be None or a GoalMenu of text options, not {menu!r:.80}", s)
        if s.goal_executor() is None:
            raise run.fail(CHECK, "goal_executor() returned None for a session that declares goal mode", s)
    if isinstance(s, TaskGraphMode):
        graph = s.task_graph()
        if graph is not None and not isinstance(graph, TaskGraph):
            raise run.fail(CHECK, f"task_graph() must be None or a TaskGraph, not {type(graph).__name__}", s)
        if s.subtask_executor() is None:
            raise run.fail(CHECK, "subtask_executor() returned None for a session that declares task graphs", s)
    if isinstance(s, AgentPrompts):
        for agent in range(s.n_agents):
            parts = s.agent_prompt_parts(agent)
            if not isinstance(parts, PromptParts):
                raise run.fail(CHECK, f"agent_prompt_parts({agent}) returned {type(parts).__name__}, not PromptParts", s)
    if isinstance(s, Demos):
        demo = s.choose_demo(None)
        if demo is not None and (not demo.steps or not isinstance(demo.intro, str) or not demo.intro):
            raise run.fail(CHECK, "choose_demo(None) must be None or a demo with steps and an intro sentence", s)
    if isinstance(s, PageActions):
        for agent in range(s.n_agents):
            legal = s.legal_commands(agent)
            described = s.page_actions(agent, legal)
            if not isinstance(described, list) or not all(isinstance(a, dict) and a.get("command") in legal
                                                           and isinstance(a.get("label"), str) for a in described):
                raise run.fail(CHECK, f"page_actions({agent}, legal) must list dicts with a legal command and a "
                                      "label", s)
    if isinstance(s, Directable):
        _check_directable(run, s)
    if isinstance(s, Scored) and not isinstance(s.score, int | float):
        raise run.fail(CHECK, f"score is {type(s.score).__name__}, not a number", s)
    if isinstance(s, Replayable) and start is not None:
        header, state, orders = start
        await s.restore(header)
        if s.state_text() != state or s.orders_snapshot() != orders:
            raise run.fail(CHECK, "a session restored from a reset session's episode_header() shows another state", s)


def _check_directable(run: _Run, s: DomainSession) -> None:
    """Names are text whose parts are names; what a legal command makes is a name or None."""
    assert isinstance(s, Directable)
    names = s.direction_names()
    if not names or not all(isinstance(n, str) and isinstance(p, frozenset) and p <= set(names) - {n}
                            for n, p in names.items()):
        raise run.fail(CHECK, "direction_names() must map each name to a frozenset of the other names it is made of", s)
    for agent in range(s.n_agents):
        for command in s.legal_commands(agent):
            made = s.command_makes(command)
            if made is not None and made not in names:
                raise run.fail(CHECK, f"command_makes({command!r}) is {made!r}, not one of direction_names()", s)
