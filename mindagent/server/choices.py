"""What a person may choose in the lobby, and the room those choices make.

The lobby's "play" form lists the game's levels (each with the difficulty the game measured, when
it declares `LevelDifficulty`), team sizes, partners and paces; all come from here, within the
server's `PlayerLimits`, and the server checks every choice again (`room_settings`): the page is
never trusted with a bound. The choice is kept in the room's settings (`RoomSettings.chosen`), so
the recording's header and the results say what the person picked.

Example::

    lobby_choices(domain, config)["partners"]   # [{"id": "planner", "label": "the built-in planner"}, ...]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mindagent.core.capabilities import LevelDifficulty, RealTimePace
from mindagent.core.domain import Domain
from mindagent.core.spec import GameSpec
from mindagent.server.protocol import Play, ProtocolError
from mindagent.server.settings import PARTNERS, RoomSettings

if TYPE_CHECKING:
    from mindagent.server.app import ServerConfig

#: The words for each partner in the lobby (the model's own name is added where it has one).
PARTNER_WORDS = {"planner": "the built-in planner", "model": "the language model", "random": "a random team"}


def partner_models(domain: Domain, config: ServerConfig) -> dict[str, str]:
    """Each partner a person may pick on this server, with the dispatcher spec it stands for."""
    out: dict[str, str] = {}
    for partner in PARTNERS:
        if partner == "model":
            out[partner] = config.model
        elif partner in domain.policies:
            out[partner] = partner
    return out


def paces(domain: Domain, config: ServerConfig) -> tuple[float, ...]:
    """Seconds per step a person may pick: the server's, or a game with its own real-time pace
    (five steps a second) plays at that pace only."""
    if isinstance(domain, RealTimePace):
        return (domain.real_time_pace()[1],)
    return config.player_limits.paces


def lobby_choices(domain: Domain, config: ServerConfig) -> dict[str, Any] | None:
    """The lobby's form: levels (with measured difficulty), team sizes, partners and paces; None for
    a live world (each room would start a world of its own: the host opens those)."""
    if domain.live_world:
        return None
    labels = domain.level_difficulty() if isinstance(domain, LevelDifficulty) else {}
    limits = config.player_limits
    partners = [{"id": p, "label": PARTNER_WORDS[p] + (f" ({model})" if p == "model" else "")}
                for p, model in partner_models(domain, config).items()]
    return {"levels": [{"level": name, "difficulty": labels.get(name)} for name in domain.level_names()],
            "default_level": domain.default_level, "partners": partners, "agents": [limits.min_agents, limits.max_agents],
            "paces": list(paces(domain, config)),
            "default_agents": max(limits.min_agents, min(limits.max_agents, 2))}


def room_settings(msg: Play, domain: Domain, config: ServerConfig) -> RoomSettings:
    """A private real-time room with the person's choices; `ProtocolError` ("invalid") for any
    choice outside what this server offers, and ("bad_state") for a live world."""
    if domain.live_world:
        raise ProtocolError("bad_state", f"{domain.title} rooms are opened by the host; join one from the list")
    if msg.level not in domain.level_names():  # shipped levels only: never a path from the network
        raise ProtocolError("invalid", f"unknown level {msg.level!r}")
    why = config.player_limits.check(msg.agents, msg.pace, paces(domain, config))
    if why is not None:
        raise ProtocolError("invalid", f"this server offers {why}")
    models = partner_models(domain, config)
    if msg.partner not in models:
        raise ProtocolError("invalid", f"this server offers the partners {', '.join(models)}, not {msg.partner}")
    chosen = {"level": msg.level, "agents": msg.agents, "partner": msg.partner, "pace": msg.pace}
    spec = GameSpec(domain.name, msg.level, msg.agents, 1.0, 0, "reference", None)
    return RoomSettings(spec, models[msg.partner], f"{PARTNER_WORDS[msg.partner]}, chosen in the lobby", "realtime",
                        msg.pace, config.turn_timeout, False, config.prompt, config.repair, human_tick=msg.pace,
                        countdown=config.countdown, chosen=chosen, **config.room_options())


__all__ = ["PARTNER_WORDS", "lobby_choices", "partner_models", "paces", "room_settings"]
