"""Model text to `ActionCall`s, checked against a catalogue: ``verb(Agent, arg, ...)``.

A hand-written scanner, not a regex over the whole line: quoted chat text may hold commas and
brackets, and every loop is bounded by MAX_COMMAND_CHARS so no input (a megabyte of brackets, a
thousand-digit number) takes more than linear time. Every refusal is one `ActionSyntaxError` line
naming the signature the model should have used. Nothing here is ever evaluated.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from minecraft.actions.catalogue import CATALOGUE
from minecraft.actions.spec import TEXT_LIMIT, ActionSpec, ArgKind, Param

# the longest single command read; free text is read in at most MAX_TEXT_CHARS
MAX_COMMAND_CHARS = 400
MAX_TEXT_CHARS = 20_000

_VERB = re.compile(r"[A-Za-z]{2,24}\(")
_AGENT = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,15}")
_ID = re.compile(r"(?:minecraft:)?([a-z][a-z0-9_]{0,39})")
_NAME = re.compile(r"[A-Za-z0-9_]{1,40}")
_INT = re.compile(r"[+-]?[0-9]{1,7}")


class ActionSyntaxError(ValueError):
    """Text that is not one well-formed action of the catalogue for this team (one line)."""


@dataclass(frozen=True, slots=True)
class ActionCall:
    """One parsed action. Example: ``parse_action("digBlock(Alex, 1, 5, -2)", ["Alex"]).text``
    is ``"digBlock(Alex, 1, 5, -2)"`` and its `bridge_args()` the `act` request's arguments."""

    spec: ActionSpec
    agent: str
    args: tuple[tuple[str, int | str], ...]

    @property
    def name(self) -> str:
        return self.spec.name

    def arg(self, name: str) -> int | str:
        return dict(self.args)[name]

    @property
    def text(self) -> str:
        shown = [self.agent] + [_show(p, v) for p, (_, v) in zip(self.spec.params, self.args, strict=True)]
        return f"{self.spec.name}({', '.join(shown)})"

    def bridge_args(self, places: Mapping[str, tuple[int, int, int]] | None = None) -> dict[str, object]:
        """Arguments of the bridge's `act` request; `places` are the task's named places (for goTo)."""
        out: dict[str, object] = {"bot": self.agent, "action": self.spec.name, "args": dict(self.args),
                                  "timeout_ms": int(self.spec.timeout_s * 1000)}
        if places:
            out["places"] = {k: list(v) for k, v in sorted(places.items())}
        return out


def _show(param: Param, value: int | str) -> str:
    if param.kind is ArgKind.TEXT:
        return '"' + str(value) + '"' if '"' not in str(value) else "'" + str(value) + "'"
    return str(value)


def _clip(text: str) -> str:
    """A piece of model text safe to quote in a one-line error."""
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= 60 else flat[:57] + "...")


def _scan_args(text: str, start: int) -> tuple[list[str], int]:
    """The raw arguments after ``verb(`` at `start`, and the index after the closing bracket."""
    raw: list[str] = []
    current: list[str] = []
    quote = ""
    end = min(len(text), start + MAX_COMMAND_CHARS)
    i = start
    while i < end:
        ch = text[i]
        if quote:
            current.append(ch)
            if ch == quote:
                quote = ""
            elif ch == "\n":
                raise ActionSyntaxError("a quoted text runs past the end of the line")
        elif ch in "\"'":
            quote = ch
            current.append(ch)
        elif ch == ",":
            raw.append("".join(current).strip())
            current = []
        elif ch == ")":
            raw.append("".join(current).strip())
            return raw, i + 1
        elif ch in "(\n":
            raise ActionSyntaxError("the bracket is not closed before " + ("a new line" if ch == "\n" else "another '('"))
        else:
            current.append(ch)
        i += 1
    if quote:
        raise ActionSyntaxError("a quoted text is not closed")
    raise ActionSyntaxError(f"no closing bracket within {MAX_COMMAND_CHARS} characters")


def _value(spec: ActionSpec, param: Param, raw: str) -> int | str:
    where = f"{spec.signature()}: {param.name}"
    if param.kind in (ArgKind.COORD, ArgKind.COUNT):
        if _INT.fullmatch(raw) is None or not param.lo <= int(raw) <= param.hi:
            raise ActionSyntaxError(f"{where} must be a whole number from {param.lo} to {param.hi}, got {_clip(raw)}")
        return int(raw)
    if param.kind is ArgKind.TEXT:
        if len(raw) < 2 or raw[0] not in "\"'" or raw[-1] != raw[0]:
            raise ActionSyntaxError(f"{where} must be quoted text, got {_clip(raw)}")
        body = raw[1:-1]
        if not body.strip() or len(body) > TEXT_LIMIT or not body.isprintable():
            raise ActionSyntaxError(f"{where} must be 1 to {TEXT_LIMIT} printable characters")
        if body.lstrip().startswith("/"):
            raise ActionSyntaxError(f"{where} may not be a server command (starts with '/')")
        return body
    word = raw.strip("\"'") if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'" else raw
    if param.kind is ArgKind.CHOICE:
        if word.lower() not in param.choices:
            raise ActionSyntaxError(f"{where} must be one of {', '.join(param.choices)}, got {_clip(raw)}")
        return word.lower()
    if param.kind in (ArgKind.ITEM, ArgKind.BLOCK, ArgKind.MOB):
        match = _ID.fullmatch(word.lower())
        if match is None:
            raise ActionSyntaxError(f"{where} must be a Minecraft id such as oak_planks, got {_clip(raw)}")
        return match[1]
    # TARGET and PLAYER keep their case: a player's name is case-sensitive on the server
    if _NAME.fullmatch(word) is None or (param.kind is ArgKind.PLAYER and len(word) > 16):
        raise ActionSyntaxError(f"{where} must be a name of letters, digits and _, got {_clip(raw)}")
    return word


def _build(spec: ActionSpec, raw: list[str], agents: Sequence[str]) -> ActionCall:
    if not raw or not raw[0]:
        raise ActionSyntaxError(f"{spec.signature()}: the agent comes first")
    by_lower = {a.lower(): a for a in agents}
    if _AGENT.fullmatch(raw[0]) is None or raw[0].lower() not in by_lower:
        raise ActionSyntaxError(f"{spec.signature()}: unknown agent {_clip(raw[0])} (agents: {', '.join(agents)})")
    given = raw[1:]
    if given == [""]:
        given = []
    if not spec.required <= len(given) <= len(spec.params):
        want = str(spec.required) if spec.required == len(spec.params) else f"{spec.required} to {len(spec.params)}"
        raise ActionSyntaxError(f"{spec.signature()}: takes {want} argument(s) after the agent, got {len(given)}")
    args: list[tuple[str, int | str]] = []
    for k, param in enumerate(spec.params):
        if k < len(given):
            args.append((param.name, _value(spec, param, given[k])))
        else:
            assert param.default is not None
            args.append((param.name, param.default))
    return ActionCall(spec, by_lower[raw[0].lower()], tuple(args))


def _index(catalogue: Iterable[ActionSpec]) -> dict[str, ActionSpec]:
    return {spec.name.lower(): spec for spec in catalogue}


def parse_action(text: str, agents: Sequence[str], catalogue: Iterable[ActionSpec] = CATALOGUE) -> ActionCall:
    """Exactly one action (surrounding whitespace allowed); raise ActionSyntaxError otherwise.
    Verbs and agent names match case-insensitively; the catalogue may be any subset."""
    stripped = text.strip()
    if len(stripped) > MAX_COMMAND_CHARS:
        raise ActionSyntaxError(f"a command is at most {MAX_COMMAND_CHARS} characters, got {len(stripped)}")
    head = _VERB.match(stripped)
    if head is None:
        raise ActionSyntaxError(f"not a command of the form verb(Agent, ...): {_clip(stripped)}")
    spec = _index(catalogue).get(head.group()[:-1].lower())
    if spec is None:
        raise ActionSyntaxError(f"unknown action {_clip(head.group()[:-1])}")
    raw, end = _scan_args(stripped, head.end())
    if stripped[end:].strip():
        raise ActionSyntaxError(f"text after the command: {_clip(stripped[end:])}")
    return _build(spec, raw, agents)


def extract_actions(text: str, agents: Sequence[str], catalogue: Iterable[ActionSpec] = CATALOGUE) -> list[ActionCall]:
    """Every well-formed action in free text (its first MAX_TEXT_CHARS), the first per agent, in
    agent order; malformed candidates are skipped."""
    index = _index(catalogue)
    text = text[:MAX_TEXT_CHARS]
    first: dict[str, ActionCall] = {}
    for head in _VERB.finditer(text):
        if head.start() > 0 and (text[head.start() - 1].isalnum() or text[head.start() - 1] == "_"):
            continue
        spec = index.get(head.group()[:-1].lower())
        if spec is None:
            continue
        try:
            raw, _ = _scan_args(text, head.end())
            call = _build(spec, raw, agents)
        except ActionSyntaxError:
            continue
        first.setdefault(call.agent, call)
    return [first[a] for a in agents if a in first]
