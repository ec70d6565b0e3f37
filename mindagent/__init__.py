"""MindAgent: one language model dispatching a team of game agents.

The dispatcher loop, prompt, extraction, model clients, evaluation, CLI and server live here;
the game rules live in `cuisineworld` (and `minecraft`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["extract_commands"]

if TYPE_CHECKING:
    from mindagent.extraction import extract_commands


def __getattr__(name: str) -> Any:
    # Lazy so `import mindagent` stays cheap (the CLI imports heavy parts only when needed).
    if name == "extract_commands":
        from mindagent.extraction import extract_commands

        return extract_commands
    raise AttributeError(name)
