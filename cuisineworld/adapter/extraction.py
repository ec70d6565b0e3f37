"""Finding dispatch commands in what a model actually writes.

Models wrap their answer in reasoning, code fences, numbering, bold text, `***` delimiters and
apologies. We look for `verb_agentK[_item]_location` tokens with the `regex` package and never
evaluate anything. Two policies:

- reference: every match, in order, as the reference release does (so a repeated agent sinks
  the whole step in the reference rules);
- fixed: the answer is taken from the last delimited block (``` fence, *** pair or a line after
  "answer:") that holds commands, else from the whole text; the first command per agent wins and
  agents outside the team are dropped.
"""

from __future__ import annotations

import regex

from mindagent.recordings.limits import MAX_REPLY_CHARS

VERBS = ("noop", "goto", "get", "put", "activate")

_COMMAND = regex.compile(
    r"(?<![A-Za-z0-9_])(?:noop|goto|get|put|activate)_agent\d{1,3}(?:_[A-Za-z0-9]{1,64}){0,6}(?![A-Za-z0-9_])",
    regex.V1,
)
_AGENT = regex.compile(r"_agent(\d+)")
# Every pattern here must run in linear time on any text (a model's reply is someone else's input):
# no quantified class may span what the next token needs, and no scan may restart from each match.
# The fence's info string stops at a backtick, so a line of backticks is not rescanned from each one.
_BLOCKS = (
    regex.compile(r"```[^\n`]{0,200}\n(.*?)```", regex.S),
    regex.compile(r"\*\*\*(.*?)\*\*\*", regex.S),
)
# Leading markup stays on its own line ([ \t], not \s): `\s*` at every line start of a text of
# line breaks re-read the rest of the text from each one (quadratic; 32,000 newlines took 199 s).
_ANSWER = regex.compile(r"(?im)^[ \t#>*_-]{0,40}(?:final[ \t]{1,40})?(?:answer|actions?|commands?|plan)[ \t]{0,40}[:\-]")
MAX_TEXT = MAX_REPLY_CHARS  # parsed at most; the brain already cuts replies there


def _all(text: str) -> list[str]:
    return [m.group(0) for m in _COMMAND.finditer(text[:MAX_TEXT])]


def _answer_region(text: str) -> str:
    """The part of a chatty reply most likely to be the answer."""
    for pattern in _BLOCKS:
        blocks = [b for b in pattern.findall(text) if _COMMAND.search(b)]
        if blocks:
            return blocks[-1]
    # The last "answer:" mark with a command after it: one pass for the last command's start, one
    # for the marks (a command holds no ':' or '-', so none straddles a mark's end).
    last_command = -1
    for found in _COMMAND.finditer(text):
        last_command = found.start()
    if last_command < 0:
        return text
    best = None
    for mark in _ANSWER.finditer(text):
        if mark.end() > last_command:
            break
        best = mark.end()
    return text[best:] if best is not None else text


def extract_commands(text: str, n_agents: int, rules: str = "fixed") -> list[str]:
    """Commands found in model output, in order.

    >>> extract_commands("Sure! 1. goto_agent0_storage0\\n2. **noop_agent1**", 2)
    ['goto_agent0_storage0', 'noop_agent1']
    """
    if not isinstance(text, str) or not text:
        return []
    text = text[:MAX_TEXT]
    if rules == "reference":
        return _all(text)
    if rules != "fixed":
        raise ValueError(f"unknown rule set {rules!r}")
    chosen: dict[int, str] = {}
    for command in _all(_answer_region(text)):
        if command.count("_") > 3:  # more parts than any command has: not a command at all
            continue
        found = _AGENT.search(command)
        if found is None:  # every token `_all` returns names an agent; kept total for any pattern change
            continue
        agent = int(found.group(1))
        if agent < n_agents and agent not in chosen:
            chosen[agent] = command
    return list(chosen.values())
