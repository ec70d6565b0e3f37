"""The options games declare, added to the core commands without the core naming any of them.

Each game's `DomainPlugin` lists its `DomainOption`s; `with_domain_options("run")` appends them to
a command's signature (each game in its own help panel), collects what was given into one
``domain_options`` mapping for the command, and refuses an option that belongs to another game in
one line. Why here and not in each command: so a new game's flags need no edit in the core.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

import typer

from mindagent.cli.common import fail
from mindagent.core import registry as domains
from mindagent.core.plugin import DomainOption

F = TypeVar("F", bound=Callable[..., Any])
#: The keyword a decorated command receives the given domain options under.
KEYWORD = "domain_options"


def _parameter(option: DomainOption, panel: str) -> inspect.Parameter:
    extra: dict[str, Any] = {}
    if option.min is not None:
        extra["min"] = option.type(option.min)
    if option.max is not None:
        extra["max"] = option.type(option.max)
    default = typer.Option(None, option.flag, help=option.help, rich_help_panel=panel, **extra)
    return inspect.Parameter(option.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                             annotation=option.type | None)


def with_domain_options(command: str) -> Callable[[F], F]:
    """Give `command`'s function every installed game's options for it; the function must take
    ``domain: str`` and ``domain_options: dict[str, object]``."""

    def decorate(func: F) -> F:
        owners = domains.option_owners(command)
        titles = {p.name: p.title for p in domains.plugins()}
        signature = inspect.signature(func)
        kept = [p for p in signature.parameters.values() if p.name != KEYWORD]
        taken = {p.name for p in kept}
        added = []
        for name, (option, games) in owners.items():
            if name in taken:
                continue
            added.append(_parameter(option, " / ".join(f"{titles.get(g, g)} options" for g in games)))
        keyword_only = [p for p in kept if p.kind is inspect.Parameter.KEYWORD_ONLY]
        positional = [p for p in kept if p.kind is not inspect.Parameter.KEYWORD_ONLY]
        added_names = [p.name for p in added]

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            given = {name: kwargs.pop(name) for name in added_names if name in kwargs}
            chosen = given_options(str(kwargs.get("domain") or domains.default_domain()), given, owners)
            return func(*args, **kwargs, **{KEYWORD: chosen})

        wrapper.__signature__ = signature.replace(parameters=[*positional, *keyword_only, *added])  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


def given_options(domain: str, given: dict[str, Any],
                  owners: dict[str, tuple[DomainOption, list[str]]]) -> dict[str, object]:
    """The options set on the command line, checked to belong to `domain` (else one line and exit 2)."""
    chosen: dict[str, object] = {}
    for name, value in given.items():
        if value is None:
            continue
        option, games = owners[name]
        if domain.strip().lower() not in games:
            fail(f"{domain} takes no {name} ({option.flag} is an option of {' and '.join(games)})")
        chosen[name] = value
    return chosen


def single_use_given(domain_options: dict[str, object], command: str = "eval") -> list[str]:
    """The flags given that name a resource one unit holds at a time (a port), so units cannot
    run at once with them."""
    owners = domains.option_owners(command)
    return [owners[name][0].flag for name in sorted(domain_options) if name in owners and owners[name][0].single_use]
