"""What a game declares to be found: its name, its options and commands, and where its `Domain` is.

A game registers one `DomainPlugin` under the ``mindagent.domains`` entry-point group, e.g. in its
``pyproject.toml``::

    [project.entry-points."mindagent.domains"]
    gridfetch = "gridfetch.plugin:PLUGIN"

The descriptor is read when the command line is built, so its module must stay light: it names
the `Domain` by import path and the game's code is imported only when that domain is used. Why a
descriptor and not the `Domain` itself: `mindagent --help` lists every game's options without
loading any game (a Minecraft adapter pulls in a Node bridge, a kitchen its engine).
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field

from mindagent.core.domain import Domain

#: The core commands a domain option can attach to.
OPTION_COMMANDS = ("run", "eval", "serve", "ablate", "prompt")
_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")
_FLAG = re.compile(r"--[a-z][a-z0-9-]{0,39}")


class PluginError(ValueError):
    """A plugin's declaration is malformed (the message names the plugin and what is wrong)."""


@dataclass(frozen=True)
class DomainOption:
    """A command-line option a domain owns; its value reaches the domain in ``GameSpec.options[name]``.

    The core adds it to the commands named in `commands` (in its own help panel), refuses it for any
    other domain, and passes it through untouched: the domain's `validate` judges the value.
    Example: ``DomainOption("mc_host", "--mc-host", str, "use this server instead of the embedded one")``.
    """

    name: str
    flag: str
    type: type = str
    help: str = ""
    min: float | None = None
    max: float | None = None
    commands: tuple[str, ...] = ("run", "eval", "serve")
    #: The value names something one episode holds at a time (a port): a sweep refuses to run
    #: units at once with it.
    single_use: bool = False

    def __post_init__(self) -> None:
        if not _NAME.fullmatch(self.name):
            raise PluginError(f"option name {self.name!r} must be a lower-case identifier")
        if not _FLAG.fullmatch(self.flag):
            raise PluginError(f"option {self.name}: flag {self.flag!r} must look like --some-flag")
        if self.type not in (str, int, float):
            raise PluginError(f"option {self.name}: type must be str, int or float")
        unknown = [c for c in self.commands if c not in OPTION_COMMANDS]
        if unknown:
            raise PluginError(f"option {self.name}: unknown commands {unknown} (known: {', '.join(OPTION_COMMANDS)})")


@dataclass(frozen=True)
class DomainPlugin:
    """A game as the registry sees it before loading it.

    `domain` is ``"package.module:ATTRIBUTE"`` naming the `Domain` object; `commands` are modules
    with a ``register(app)`` function adding the game's own sub-commands (imported when the command
    line is built, so keep their top level light too).
    """

    name: str
    title: str
    domain: str
    options: tuple[DomainOption, ...] = ()
    commands: tuple[str, ...] = ()
    summary: str = ""
    #: ``"package.module:function"``: the game's trainer, a Typer command function that
    #: ``mindagent train --domain NAME ...`` runs with the rest of its arguments (None: no trainer).
    train: str | None = None
    _flags: dict[str, str] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not _NAME.fullmatch(self.name):
            raise PluginError(f"domain name {self.name!r} must be a lower-case identifier")
        if ":" not in self.domain:
            raise PluginError(f"{self.name}: domain must be 'module:ATTRIBUTE', not {self.domain!r}")
        seen: set[str] = set()
        for option in self.options:
            if option.name in seen:
                raise PluginError(f"{self.name}: option {option.name} declared twice")
            seen.add(option.name)

    def load(self) -> Domain:
        """Import the game and return its `Domain` (its `name` must be the plugin's)."""
        module, _, attribute = self.domain.partition(":")
        try:
            loaded = getattr(importlib.import_module(module), attribute)
        except (ImportError, AttributeError) as exc:
            raise PluginError(f"{self.name}: cannot load {self.domain} ({exc})") from exc
        if not isinstance(loaded, Domain):
            raise PluginError(f"{self.name}: {self.domain} is not a Domain (see mindagent.core.domain.DomainBase)")
        if loaded.name != self.name:
            raise PluginError(f"{self.name}: {self.domain} is a domain called {loaded.name!r}")
        return loaded


__all__ = ["OPTION_COMMANDS", "DomainOption", "DomainPlugin", "PluginError"]
