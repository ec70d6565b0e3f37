"""`GameSpec`: what game to play, as every command, room and recording header states it.

One spec type for every domain: the fields mean the same everywhere, and a domain refuses (with
`SpecError`) what it cannot honour, so a flag never silently does nothing. Domain-only settings
(a Minecraft server address, cook ticks) go in `options`, which the domain validates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any


@dataclass(frozen=True)
class GameSpec:
    """Example: ``GameSpec(domain="minecraft", agents=2, tau=1.0, seed=0)``.

    `level` None means the domain's default level; `steps` None the level's own episode length.
    """

    domain: str = ""
    level: str | None = None
    agents: int = 2
    tau: float = 1.0
    seed: int = 0
    rules: str = "reference"
    steps: int | None = None
    recipes: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)

    def with_(self, **changes: Any) -> GameSpec:
        return replace(self, **changes)

    def header(self) -> dict[str, Any]:
        """The recording-header fields that rebuild this spec (`from_header` reads them back)."""
        return {"domain": self.domain, "level": self.level, "agents": self.agents, "tau": self.tau,
                "seed": self.seed, "rules": self.rules, "max_steps": self.steps, "recipes": self.recipes,
                "options": dict(sorted(self.options.items()))}

    @classmethod
    def from_header(cls, header: Mapping[str, Any], default_domain: str) -> GameSpec:
        """The spec a recording header describes; `ValueError` naming the field that is wrong."""
        try:
            steps = header.get("max_steps")
            options = header.get("options") or {}
            if not isinstance(options, dict):
                raise TypeError("options is not an object")
            return cls(domain=str(header.get("domain") or default_domain), level=str(header["level"]),
                       agents=int(header["agents"]), tau=float(header["tau"]), seed=int(header["seed"]),
                       rules=str(header.get("rules") or "reference"), steps=None if steps is None else int(steps),
                       recipes=None if header.get("recipes") is None else str(header["recipes"]), options=options)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"the recording header does not describe a game: {exc}") from None
