"""How the team is organised: one dispatcher for everyone, one model call per agent, or a manager.

- ``central`` (the MindAgent paper): one call per step writes every agent's command.
- ``decentral`` (LLM-Coordination, Collab-Overcooked): every agent is its own caller. Each step,
  agent K is shown the same kitchen prompt plus its own role, its own previous turns and what the
  other agents said at the previous step; it answers with one command for itself and may add one
  short ``say:`` line for the others. N agents cost N calls per step, which is what the
  comparison in docs/figures/dispatch.md measures.
- ``taskgraph`` (VillagerAgent): a manager splits the open orders into a graph of subtasks and
  assigns them; an executor turns each agent's subtask into commands (`mindagent.dispatch.taskgraph`).

This module holds the decentral agent's prompt pieces; nothing here knows any game (a domain
gives the one-agent command grammar through `DomainSession.agent_grammar`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal

TeamMode = Literal["central", "decentral", "taskgraph"]
TEAM_MODES: tuple[TeamMode, ...] = ("central", "decentral", "taskgraph")

#: Longest message an agent may pass on (characters): a hint for the others, not a conversation.
MESSAGE_CHARS = 120

_SAY = re.compile(r"^\s*say\s*:\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)


def agent_role(agent: str, others: list[str]) -> str:
    """What agent `agent` is told about itself (appended to the step's user turn)."""
    team = ", ".join(others) if others else "nobody else"
    return (f"You are {agent}; your teammates are {team}. You control only {agent}: write exactly one "
            f"command for {agent}. You may add one line 'say: <short message>' to tell your teammates "
            "what you are doing or what you need.")


def heard_text(heard: Mapping[str, str]) -> str:
    """The other agents' messages from the previous step, one line each ('' when nobody spoke)."""
    if not heard:
        return ""
    return "Messages from your teammates at the last step:\n" + "\n".join(f"- {a}: {m}" for a, m in heard.items())


def agent_turn(shown: str, agent: str, others: list[str], heard: Mapping[str, str]) -> str:
    """The decentral agent's user turn: the central turn, its role, and what it heard."""
    parts = [shown.rstrip("\n"), heard_text(heard), agent_role(agent, others)]
    return "\n".join(p for p in parts if p)


def parse_message(text: str) -> str | None:
    """The agent's ``say:`` line, trimmed to `MESSAGE_CHARS` (None when it said nothing)."""
    match = _SAY.search(text)
    if match is None:
        return None
    said = " ".join(match[1].split())[:MESSAGE_CHARS]
    return said or None


def agent_answer_grammar(command_grammar: str) -> str:
    """GBNF for one agent's answer: its command (the domain's one-agent grammar, root renamed) and
    optionally one ``say:`` line of plain words, so the answer always ends."""
    body = re.sub(r"^root ::=", "command ::=", command_grammar, count=1, flags=re.MULTILINE)
    if body == command_grammar:
        raise ValueError("the command grammar has no root rule")
    nested = "ch"  # ch (ch (ch ...)?)?: one parse per message, so constrained sampling stays fast
    for _ in range(MESSAGE_CHARS // 2 - 1):
        nested = f"ch ({nested})?"
    return ('root ::= command ("\\nsay: " message)?\n'
            f"message ::= {nested}\n"
            "ch ::= [a-zA-Z0-9 ,.'!?_-]\n"
            + body)
