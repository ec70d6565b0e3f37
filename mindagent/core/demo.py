"""What the prompt needs of a one-shot demonstration; a game ships the demos themselves.

A demo is a short recorded episode shown before the real one. The core only reads it, so it is a
protocol here: the kitchen keeps its demo files, schema and loader in its own package.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class DemoStep(Protocol):
    """One shown step: the state text, the commands given, the feedback they got."""

    @property
    def state(self) -> str: ...

    @property
    def commands(self) -> Sequence[str]: ...

    @property
    def feedback(self) -> Sequence[str]: ...


class Demo(Protocol):
    """Example: a kitchen demo of 2 agents cooking a dish that is not in the level being played."""

    @property
    def agents(self) -> int: ...

    @property
    def steps(self) -> Sequence[DemoStep]: ...

    @property
    def intro(self) -> str:
        """The sentence that introduces the demo in the system text (the game's own words)."""
        ...

    def few_step(self) -> Demo:
        """The same demo cut to its first few steps (the paper's "few-step" ablation)."""
        ...


__all__ = ["Demo", "DemoStep"]
