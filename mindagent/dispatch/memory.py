"""The dispatcher's memory: the (what it was shown, what it answered) pairs of earlier steps.

Two layouts, one meaning of ``size`` (``--memory K``): the K most recent turns are always shown,
and ``size`` 0 shows none (the ablation).

- **Sliding** (``budget_tokens`` 0, the paper's): exactly the last K turns. Each step drops the
  oldest turn from the front of the dynamic part, so a prompt shares with the one before only
  the static prefix (system text and demo) plus the turns both still show: once the window is
  full, every step's prompt is evaluated again from the end of the static part (about 500 tokens
  a step for the kitchen with K=2, against 173-182 while the window still fills).
- **Growing** (``budget_tokens`` N > 0, the default): turns are only appended, so each prompt
  extends the one before and a prefix cache (llama.cpp's, a provider's) reuses all of it. When
  the window would pass about N tokens, it restarts at that step boundary with the last K turns
  only, and grows again. A step therefore shows the last K turns *and* the older turns since the
  last restart: with K >= 1 the model may see more than K turns (never fewer), which the sliding
  layout (``--memory-budget 0``) reproduces exactly when a figure needs the paper's window.

Tokens are estimated from characters (`CHARS_PER_TOKEN`), so the budget needs no tokenizer.
"""

from __future__ import annotations

from dataclasses import dataclass

#: A rough token count of English prompt text (four characters a token), for the budget only.
CHARS_PER_TOKEN = 4
#: The growing window's default budget: about eleven kitchen turns, well inside the local model's
#: context beside the static prefix (about 2,500 tokens with the demo).
DEFAULT_BUDGET_TOKENS = 2048


@dataclass(frozen=True, slots=True)
class Turn:
    shown: str
    answered: str

    @property
    def tokens(self) -> int:
        """Estimated tokens of this turn (shown and answered)."""
        return -(-(len(self.shown) + len(self.answered)) // CHARS_PER_TOKEN)


class Memory:
    """At least the last `size` turns (none for size 0); with `budget_tokens`, the growing layout.

    Example::

        memory = Memory(2, budget_tokens=2048)
        memory.push("State: ...", "noop_agent0")
        memory.turns()  # every turn since the window last restarted
    """

    def __init__(self, size: int = 2, budget_tokens: int = 0) -> None:
        if size < 0:
            raise ValueError("memory size cannot be negative")
        if budget_tokens < 0:
            raise ValueError("memory budget cannot be negative")
        self.size = size
        self.budget_tokens = budget_tokens
        self._turns: list[Turn] = []
        #: How many times the growing window restarted (each costs one step a cold cache).
        self.restarts = 0

    def push(self, shown: str, answered: str) -> None:
        """Remember one step; the window slides (sliding) or restarts when over budget (growing)."""
        if not self.size:
            return
        self._turns.append(Turn(shown, answered))
        if not self.budget_tokens:
            del self._turns[: -self.size]
        elif len(self._turns) > self.size and sum(t.tokens for t in self._turns) > self.budget_tokens:
            del self._turns[: -self.size]
            self.restarts += 1

    def turns(self) -> list[Turn]:
        return list(self._turns)

    def clear(self) -> None:
        self._turns.clear()
