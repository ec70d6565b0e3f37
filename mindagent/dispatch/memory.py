"""Windowed memory: the last K (what the dispatcher was shown, what it answered) pairs."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Turn:
    shown: str
    answered: str


class Memory:
    """Keeps at most `size` turns; size 0 remembers nothing (the ablation)."""

    def __init__(self, size: int = 2) -> None:
        if size < 0:
            raise ValueError("memory size cannot be negative")
        self.size = size
        self._turns: deque[Turn] = deque(maxlen=size or 1)

    def push(self, shown: str, answered: str) -> None:
        if self.size:
            self._turns.append(Turn(shown, answered))

    def turns(self) -> list[Turn]:
        return list(self._turns) if self.size else []

    def clear(self) -> None:
        self._turns.clear()
