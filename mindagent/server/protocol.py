"""The game server's wire protocol, version 1: every frame is one JSON object ``{"v": 1, "type": ...}``.

Client messages are pydantic models in one discriminated union (on ``type``); `parse_client`
turns any frame (text or bytes, well formed or not) into either a message or a `ProtocolError`
carrying one of the error codes below, and never raises. Server messages are plain dicts made
by `server_message`. The human-readable description is docs/reference/protocol.md.

Error codes (``{"v":1,"type":"error","code":...,"message":...,"re":<your id>}``):

- ``binary_frame``    a binary frame; only JSON text frames are read
- ``too_large``       a frame over `MAX_FRAME_BYTES` (frames over `HARD_FRAME_BYTES` close the connection, 1009)
- ``bad_json``        the frame is not JSON
- ``bad_message``     JSON, but not an object with ``v`` and ``type``
- ``bad_version``     ``v`` is not a version this server speaks
- ``unknown_type``    ``type`` is not a client message type
- ``invalid``         a known type with missing, extra or wrongly typed fields
- ``rate_limited``    too many frames; this one was dropped
- ``unauthorized``    wrong admin token or room secret
- ``no_room``         no such room, or not in a room
- ``forbidden``       your role cannot do that (e.g. commanding another player's agent)
- ``seat_taken``      that agent already has a player
- ``bad_command``     a command the game cannot read
- ``bad_state``       not now (e.g. a questionnaire before the episode is over, or twice)
- ``bad_model``       the model spec could not be turned into a dispatcher
- ``server_error``    a bug on our side, logged; the room and the connection go on
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, ValidationError

VERSION = 1
MAX_FRAME_BYTES = 16 * 1024
HARD_FRAME_BYTES = 64 * 1024

ERROR_CODES = (
    "binary_frame", "too_large", "bad_json", "bad_message", "bad_version", "unknown_type", "invalid",
    "rate_limited", "unauthorized", "no_room", "forbidden", "seat_taken", "bad_command", "bad_state",
    "bad_model", "server_error",
)

Name = Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:\-]+$")]
Secret = Annotated[str, StringConstraints(min_length=1, max_length=128)]
ModelSpec = Annotated[str, StringConstraints(min_length=1, max_length=200, pattern=r"^[^\s]+$")]
Likert = Annotated[int, Field(ge=1, le=5)]


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    v: Literal[1]
    # any id the client likes; the direct reply carries it back as "re"
    id: Annotated[str, StringConstraints(max_length=64)] | Annotated[int, Field(ge=0, lt=2**53)] | None = None


class Ping(_Message):
    type: Literal["ping"]


class ListRooms(_Message):
    type: Literal["list_rooms"]
    admin_token: Secret | None = None


class CreateRoom(_Message):
    """Admin only. Example: ``{"v":1,"type":"create_room","admin_token":"...","agents":3,"mode":"turns"}``."""

    type: Literal["create_room"]
    admin_token: Secret
    domain: Name | None = None
    level: Name | None = None
    agents: Annotated[int, Field(ge=1, le=8)] = 2
    tau: Annotated[float, Field(ge=0.1, le=10.0, allow_inf_nan=False)] = 1.0
    model: ModelSpec | None = None
    mode: Literal["realtime", "turns"] = "realtime"
    tick: Annotated[float, Field(ge=0.05, le=60.0, allow_inf_nan=False)] | None = None
    turn_timeout: Annotated[float, Field(ge=1.0, le=3600.0, allow_inf_nan=False)] | None = None
    steps: Annotated[int, Field(ge=1, le=10_000)] | None = None
    seed: Annotated[int, Field(ge=0, lt=2**31)] = 0
    public: bool = False
    human_tick: Annotated[float, Field(ge=0.05, le=60.0, allow_inf_nan=False)] | None = None
    countdown: Annotated[float, Field(ge=0.0, le=120.0, allow_inf_nan=False)] | None = None


class Join(_Message):
    """Example: ``{"v":1,"type":"join","room":"ab12","secret":"...","role":"player","agent":0}``."""

    type: Literal["join"]
    room: Name
    secret: Secret | None = None
    role: Literal["player", "head_chef", "spectator"] = "spectator"
    agent: Annotated[int, Field(ge=0, le=7)] | None = None


class Practice(_Message):
    """Anyone: open a private one-agent practice kitchen and sit in it as its player (the tutorial)."""

    type: Literal["practice"]


class Play(_Message):
    """Anyone: open a private room with your choices and sit in it as its first agent, e.g.
    ``{"v":1,"type":"play","level":"level_2","agents":2,"partner":"planner","pace":3}``.

    The bounds here only keep a frame sane; the server's `PlayerLimits` decide what is allowed
    (a choice outside them is ``invalid``)."""

    type: Literal["play"]
    level: Name
    agents: Annotated[int, Field(ge=1, le=8)]
    partner: Literal["planner", "model", "random"]
    pace: Annotated[float, Field(ge=0.1, le=60.0, allow_inf_nan=False)]


class StudyConsent(_Message):
    """A participant agreed to the study's consent text (`serve --study`): the server names them a
    participant and opens their first episode, e.g. ``{"v":1,"type":"study_consent","agree":true}``."""

    type: Literal["study_consent"]
    agree: Literal[True]


class StudyNext(_Message):
    """A participant's next episode (after the questionnaire), e.g.
    ``{"v":1,"type":"study_next","participant":"0003-9f2c41d07a3be815","index":1}``."""

    type: Literal["study_next"]
    participant: Annotated[str, StringConstraints(min_length=1, max_length=32, pattern=r"^[0-9a-f\-]+$")]
    index: Annotated[int, Field(ge=0, le=1000)]


class Leave(_Message):
    type: Literal["leave"]


class Command(_Message):
    """A player's command for the next step, e.g. ``{"v":1,"type":"command","command":"goto_agent0_storage0"}``."""

    type: Literal["command"]
    command: Annotated[str, StringConstraints(min_length=1, max_length=100)]


class Instruct(_Message):
    """Head chef: ``{"v":1,"type":"instruct","text":"agent1, make the tuna sushi"}``."""

    type: Literal["instruct"]
    text: Annotated[str, StringConstraints(min_length=1, max_length=300)]


class Start(_Message):
    type: Literal["start"]
    admin_token: Secret | None = None


class Restart(_Message):
    type: Literal["restart"]
    admin_token: Secret | None = None


class SetModel(_Message):
    """Admin only: change the dispatcher of a room, e.g. ``"model": "planner"``."""

    type: Literal["set_model"]
    admin_token: Secret
    room: Name
    model: ModelSpec


class CloseRoom(_Message):
    """Admin only: end a room; everyone in it gets ``room_closed``."""

    type: Literal["close_room"]
    admin_token: Secret
    room: Name


class Answers(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    enjoyment: Likert
    productivity: Likert
    trust: Likert
    predictability: Likert
    dependability: Likert
    helpfulness: Likert


class Questionnaire(_Message):
    type: Literal["questionnaire"]
    answers: Answers
    comment: Annotated[str, StringConstraints(max_length=1000)] = ""


ClientMessage = Annotated[
    Ping | ListRooms | CreateRoom | Join | Practice | Play | Leave | Command | Instruct | Start | Restart | SetModel | CloseRoom
    | Questionnaire | StudyConsent | StudyNext,
    Field(discriminator="type"),
]
CLIENT_TYPES = ("ping", "list_rooms", "create_room", "join", "practice", "play", "leave", "command", "instruct", "start",
                "restart", "set_model", "close_room", "questionnaire", "study_consent", "study_next")
_adapter: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)

# The paper's post-episode survey (appendix G, Figure 27): 5-point Likert items.
QUESTIONNAIRE: tuple[dict[str, str], ...] = (
    {"id": "enjoyment", "text": "How much did you enjoy the game?", "low": "no fun at all", "high": "a lot of fun"},
    {"id": "productivity", "text": "How productive were you and the agents as a team?",
     "low": "very low productivity", "high": "very high productivity"},
    {"id": "trust", "text": "How much do you trust the agents?", "low": "no trust at all", "high": "complete trust"},
    {"id": "predictability", "text": "How predictable were the agents' actions?",
     "low": "unpredictable", "high": "very predictable"},
    {"id": "dependability", "text": "How much did you depend on the agents to get orders done?",
     "low": "not at all", "high": "completely"},
    {"id": "helpfulness", "text": "How much did the agents' help make the game better for you?",
     "low": "no help, or only worse", "high": "much less fun without them"},
)


class ProtocolError(Exception):
    """A frame or a request the server refuses; `code` is one of `ERROR_CODES`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def server_message(kind: str, **fields: Any) -> dict[str, Any]:
    """A server-to-client message: ``server_message("pong", re=3)`` → ``{"v":1,"type":"pong","re":3}``."""
    return {"v": VERSION, "type": kind, **fields}


def error_message(code: str, message: str, re: object = None) -> dict[str, Any]:
    return server_message("error", code=code, message=message, **({"re": re} if re is not None else {}))


def _summary(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors(include_url=False, include_input=False)[:4]:
        where = ".".join(str(p) for p in err["loc"] if p not in CLIENT_TYPES) or "message"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)[:300]


def parse_client(frame: str | bytes) -> tuple[ClientMessage | None, ProtocolError | None, object]:
    """Read one frame: ``(message, None, id)`` or ``(None, error, id)``; never raises.

    Example::

        msg, err, re = parse_client('{"v":1,"type":"ping","id":7}')   # (Ping(...), None, 7)
        msg, err, re = parse_client('nope')                           # (None, ProtocolError('bad_json'), None)
    """
    if not isinstance(frame, str):
        return None, ProtocolError("binary_frame", "binary frames are not read; send JSON text frames"), None
    if len(frame) > MAX_FRAME_BYTES // 4 and len(frame.encode("utf-8", "surrogatepass")) > MAX_FRAME_BYTES:
        return None, ProtocolError("too_large", f"frames are limited to {MAX_FRAME_BYTES} bytes"), None
    try:
        raw = json.loads(frame)
    except (ValueError, RecursionError) as exc:
        return None, ProtocolError("bad_json", f"not JSON: {str(exc)[:120]}"), None
    if not isinstance(raw, dict):
        return None, ProtocolError("bad_message", 'a message is a JSON object like {"v":1,"type":"ping"}'), None
    re = raw.get("id") if isinstance(raw.get("id"), (str, int)) and not isinstance(raw.get("id"), bool) else None
    if isinstance(re, str) and len(re) > 64:
        re = None
    if "v" not in raw or "type" not in raw:
        return None, ProtocolError("bad_message", 'every message needs "v" (the protocol version) and "type"'), re
    if raw["v"] != VERSION or isinstance(raw["v"], bool):
        return None, ProtocolError("bad_version", f"this server speaks protocol version {VERSION}"), re
    if not isinstance(raw["type"], str) or raw["type"] not in CLIENT_TYPES:
        shown = raw["type"][:40] if isinstance(raw["type"], str) else type(raw["type"]).__name__
        known = ", ".join(CLIENT_TYPES)
        return None, ProtocolError("unknown_type", f"unknown message type {shown!r}; known: {known}"), re
    try:
        return _adapter.validate_python(raw), None, re
    except ValidationError as exc:
        return None, ProtocolError("invalid", _summary(exc)), re
