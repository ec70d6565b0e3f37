"""Which domains exist: the games installed under the ``mindagent.domains`` entry-point group.

Everything else (the CLI, evaluation, the server, replay) asks this module for a `Domain` by
name and then speaks only the contract in `mindagent.core.domain`. A game is added by installing a
package that declares a `DomainPlugin` under that group; nothing here names a game. The names are
read from package metadata without importing anything; a plugin's descriptor is imported when its
options or commands are wanted, and its game only when a session or policy is.

Order (help texts, the lobby, the default): the games this distribution ships, in the order its
``pyproject.toml`` lists them, then other installed games by name. The default domain is the first.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from functools import cache
from importlib.metadata import EntryPoint, entry_points

from mindagent.core.domain import Domain, DomainSession, SpecError
from mindagent.core.plugin import DomainOption, DomainPlugin, PluginError
from mindagent.core.spec import GameSpec

log = logging.getLogger(__name__)

GROUP = "mindagent.domains"
_OWN_DISTRIBUTION = "mindagent"

#: Plugins registered in this process (`register`), ahead of the installed ones: for a game that
#: is being written and not installed yet, and for tests that build a game on the fly.
_extra: dict[str, DomainPlugin] = {}
_loaded: dict[str, Domain] = {}


def _ordered(found: Iterable[EntryPoint]) -> dict[str, EntryPoint]:
    own: list[EntryPoint] = []
    others: list[EntryPoint] = []
    for ep in found:
        dist = ep.dist.name.lower() if ep.dist is not None else ""
        (own if dist == _OWN_DISTRIBUTION else others).append(ep)
    chosen: dict[str, EntryPoint] = {}
    for ep in own + sorted(others, key=lambda e: (e.name, e.value)):
        key = ep.name.strip().lower()
        if key in chosen:
            if chosen[key].value != ep.value:
                log.warning("domain %r is registered twice (%s and %s); using the first", key, chosen[key].value, ep.value)
            continue
        chosen[key] = ep
    return chosen


@cache
def _entry_points() -> dict[str, EntryPoint]:
    return _ordered(entry_points(group=GROUP))


def names() -> tuple[str, ...]:
    """The installed domains' names, in the order help texts list them."""
    return tuple(_extra) + tuple(k for k in _entry_points() if k not in _extra)


def default_domain() -> str:
    """The domain used when none is named: the first one listed."""
    found = names()
    if not found:
        raise SpecError(f"no domain is installed (nothing under the {GROUP!r} entry points; reinstall mindagent)")
    return found[0]


@cache
def _plugin_from_entry_point(key: str) -> DomainPlugin:
    ep = _entry_points()[key]
    try:
        plugin = ep.load()
    except Exception as exc:  # noqa: BLE001 - someone else's package: any failure becomes one line
        raise PluginError(f"domain {key!r}: cannot load its plugin {ep.value} ({type(exc).__name__}: {exc})") from None
    if not isinstance(plugin, DomainPlugin):
        raise PluginError(f"domain {key!r}: {ep.value} is not a DomainPlugin")
    if plugin.name != key:
        raise PluginError(f"domain {key!r}: {ep.value} declares the name {plugin.name!r}")
    return plugin


def plugin(name: str | None) -> DomainPlugin:
    """The descriptor of the domain called `name` (None: the default); `SpecError` listing the known ones."""
    key = (name or default_domain()).strip().lower()
    if key in _extra:
        return _extra[key]
    if key not in _entry_points():
        raise SpecError(f"unknown domain {name!r}; choose one of: {', '.join(names())}")
    return _plugin_from_entry_point(key)


def plugins() -> list[DomainPlugin]:
    """Every installed domain's descriptor; one that cannot be loaded is logged and left out."""
    out = []
    for key in names():
        try:
            out.append(plugin(key))
        except (PluginError, SpecError) as exc:
            log.warning("%s", exc)
    return out


def register(descriptor: DomainPlugin, domain: Domain | None = None) -> None:
    """Make a domain available in this process without installing it (it is listed first);
    `domain` is the already-built `Domain` when its module cannot be imported by name (a test's)."""
    _extra[descriptor.name] = descriptor
    _loaded.pop(descriptor.name, None)
    if domain is not None:
        if domain.name != descriptor.name:
            raise PluginError(f"{descriptor.name}: the domain given is called {domain.name!r}")
        _loaded[descriptor.name] = domain


def unregister(name: str) -> None:
    """Undo `register` (tests)."""
    _extra.pop(name, None)
    _loaded.pop(name, None)


def get(name: str | None) -> Domain:
    """The domain called `name` (None: the default); `SpecError` listing the known ones."""
    descriptor = plugin(name)
    if descriptor.name not in _loaded:
        try:
            _loaded[descriptor.name] = descriptor.load()
        except PluginError as exc:
            raise SpecError(str(exc)) from None
    return _loaded[descriptor.name]


def option_owners(command: str) -> dict[str, tuple[DomainOption, list[str]]]:
    """Every domain option a core command takes, by option name, with the domains that declare it
    (two games may share an option if they declare it alike)."""
    owners: dict[str, tuple[DomainOption, list[str]]] = {}
    for descriptor in plugins():
        for option in descriptor.options:
            if command not in option.commands:
                continue
            if option.name in owners:
                first, domains = owners[option.name]
                if (first.flag, first.type) != (option.flag, option.type):
                    log.warning("%s: option %s clashes with %s's; left out", descriptor.name, option.flag, domains[0])
                    continue
                domains.append(descriptor.name)
            else:
                owners[option.name] = (option, [descriptor.name])
    return owners


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


__all__ = ["GROUP", "default_domain", "get", "level_steps", "make_session", "names", "option_owners", "plugin",
           "plugins", "register", "unregister", "validate"]
