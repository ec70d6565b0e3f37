"""Which domains exist: the one place that names them.

Everything else (the CLI, evaluation, the server, replay) asks this module for a `Domain` by
name and then speaks only the contract in `mindagent.domain`. Adding a game means adding it to
`_LOADERS`; nothing above the contract changes. Adapters are imported on first use, so running
CuisineWorld never imports the Minecraft side (and vice versa).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from mindagent.domain import Domain, DomainSession, SpecError
from mindagent.spec import GameSpec

DEFAULT_DOMAIN = "cuisineworld"


def _load(module: str) -> Callable[[], Domain]:
    def load() -> Domain:
        domain: Domain = importlib.import_module(module).DOMAIN
        return domain

    return load


_LOADERS: dict[str, Callable[[], Domain]] = {
    "cuisineworld": _load("mindagent.cuisine.domain"),
    "minecraft": _load("minecraft.domain"),
    "overcooked": _load("overcooked_game.domain"),
}
_loaded: dict[str, Domain] = {}

#: The domain names, in the order help texts list them.
NAMES: tuple[str, ...] = tuple(_LOADERS)


def get(name: str | None) -> Domain:
    """The domain called `name` (None: the default); `SpecError` listing the known ones."""
    key = (name or DEFAULT_DOMAIN).strip().lower()
    if key not in _LOADERS:
        raise SpecError(f"unknown domain {name!r}; choose one of: {', '.join(NAMES)}")
    if key not in _loaded:
        _loaded[key] = _LOADERS[key]()
    return _loaded[key]


def validate(spec: GameSpec) -> GameSpec:
    """The spec checked by its domain, with that domain's defaults filled in."""
    return get(spec.domain).validate(spec)


def make_session(spec: GameSpec) -> DomainSession:
    """A new (not yet reset) session for a spec, after its domain has validated it."""
    domain = get(spec.domain)
    return domain.make_session(domain.validate(spec))


async def level_steps(spec: GameSpec) -> int | None:
    """The episode length the spec's level sets (None for a live world, whose episodes last as
    long as asked). A `steps` asked for at a boundary (a flag, a network message) may only
    shorten it: the level's orders and lifetimes are made for its length."""
    domain = get(spec.domain)
    if domain.live_world:
        return None
    session = domain.make_session(domain.validate(spec.with_(steps=None)))
    try:
        return session.max_steps
    finally:
        await session.aclose()


#: Modules with sub-commands that belong to one domain (each has ``register(app)``).
COMMAND_MODULES: tuple[str, ...] = ("mindagent.cuisine.commands", "mindagent.cuisine.train_command")


__all__ = ["COMMAND_MODULES", "DEFAULT_DOMAIN", "NAMES", "get", "level_steps", "make_session", "validate"]
