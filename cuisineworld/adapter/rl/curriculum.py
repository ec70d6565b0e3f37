"""A dish curriculum for training: ``mindagent train --curriculum dishes:FRACTION`` (batched kitchens).

Why: on a level with several dishes, PPO converges on the dishes its kitchens happen to serve
first and its entropy falls before it ever tries the others. On level_4 four training seeds of
five served three of the four salads and never fetched the ingredient of the fourth, so a quarter
of the orders expired whatever the interval (docs/figures/rl.md, "a dish never learned"). A larger
entropy bonus or more steps did not find it; what does is making each dish, for a while, the only
reward there is.

So for the first FRACTION of the run's steps each training kitchen orders one dish only: kitchen
i in its e-th episode orders dish ``(i + e) mod n`` of the level's dish list (its ``dishes``, the
list the order stream draws from). Every dish is practised by about 1/n of the kitchens at any
time and by every kitchen in turn, whatever the number of kitchens, the level or its dishes.
After that the kitchens take the level's own stream again, which is never replaced but only
overruled: a drawn dish is swapped for the kitchen's curriculum dish, so the stream's draws (and
with them every later order) are the ones the kitchen would have made without the curriculum.

Only the training kitchens change. Evaluation, checkpoint selection (``--select-seed``) and every
published figure build their own envs with the standard streams; with the option off (``none``,
the default) no filter is installed and the batched kitchens stay bit-for-bit the engine's.

Example::

    spec = parse_curriculum("dishes:0.25")      # Curriculum(kind="dishes", fraction=0.25)
    plan = DishCurriculum(kitchens)             # installs itself as kitchens.order_filter
    ...                                         # train spec.until(total_steps) steps, then
    plan.stop()                                 # the level's own orders from here on
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import numpy as np

from cuisineworld.adapter.rl.batched import BatchedKitchens

log = logging.getLogger(__name__)

CURRICULA = ("none", "dishes")
_USAGE = "--curriculum takes none or dishes:FRACTION with 0 < FRACTION <= 1 (e.g. dishes:0.25)"


@dataclass(frozen=True)
class Curriculum:
    """A parsed ``--curriculum`` value: what is practised, and for what share of the run's steps."""

    kind: str
    fraction: float

    def until(self, steps: int) -> int:
        """The training step at which the level's own order stream takes over."""
        return max(1, math.ceil(self.fraction * steps))


def parse_curriculum(text: str) -> Curriculum | None:
    """``none`` is None; ``dishes:F`` a `Curriculum`; anything else one ValueError line."""
    if text == "none":
        return None
    kind, sep, rest = text.partition(":")
    if kind != "dishes" or not sep:
        raise ValueError(f"{_USAGE}, not {text!r}")
    try:
        fraction = float(rest)
    except ValueError:
        raise ValueError(f"{_USAGE}, not {text!r}") from None
    if not 0.0 < fraction <= 1.0:  # also refuses nan
        raise ValueError(f"{_USAGE}, not {text!r}")
    return Curriculum(kind, fraction)


class DishCurriculum:
    """Each kitchen's episode orders one dish, drawn toward the dishes served least; installed as the order filter.

    A kitchen's first episode orders dish ``i mod n`` (every dish from the start); after that each
    episode's dish is drawn with weight ``(1 - rate)**2 + FLOOR``, where rate is the completion rate
    of that dish's last `WINDOW` single-dish episodes (`finished` reports them). A dish the policy
    has never served keeps weight about 1, a mastered one about FLOOR and a half-learned one about
    a quarter, so the kitchens crowd onto the recipe still missing instead of replaying the ones
    learned first (squared: a pilot with ``1 - rate`` left half the kitchens on dishes already
    half served, and one seed of two never found the missing one). Draws come from a generator
    seeded with `seed`: the run stays deterministic.

    An episode starts with an order before any step (its first order has id 0), which is how the
    filter counts each kitchen's episodes without a hook of its own in the kitchens' reset."""

    WINDOW = 64
    FLOOR = 0.05

    def __init__(self, kitchens: BatchedKitchens, seed: int = 0) -> None:
        self.kitchens = kitchens
        self.active = True
        w, n = kitchens.n_worlds, kitchens.draw_count
        self.episodes = np.full(w, -1, dtype=np.int64)  # the episode each kitchen plays
        self.focus = np.arange(w, dtype=np.int64) % n  # each kitchen's dish, an index into the level's dishes
        self.ended = self.focus.copy()  # the dish of each kitchen's previous episode
        self.rates = np.zeros((n, self.WINDOW), dtype=np.float64)  # completion rates, a ring per dish
        self.filled = np.zeros(n, dtype=np.int64)
        self._rng = np.random.default_rng(seed)
        self.dishes = tuple(kitchens.dishes[int(d)] for d in kitchens.draw_dish)  # the level's, in draw order
        kitchens.order_filter = self

    def __call__(self, kitchens: BatchedKitchens, rows: np.ndarray, drawn: np.ndarray) -> np.ndarray:
        if not self.active:
            return drawn
        starts = rows[kitchens.next_id[rows] == 0]
        if starts.size:
            self.episodes[starts] += 1
            later = starts[self.episodes[starts] > 0]
            self.ended[later] = self.focus[later]
            if later.size:
                weights = self.weights()
                self.focus[later] = self._rng.choice(weights.size, size=later.size, p=weights / weights.sum())
        return np.asarray(kitchens.draw_dish[self.focus[rows]])

    def finished(self, kitchen: int, completed: int, failed: int, active: int) -> None:
        """A kitchen's episode ended (its counts): its dish's completion rate enters the window."""
        if not self.active or self.episodes[kitchen] < 1:
            return
        d = int(self.ended[kitchen])
        total = completed + failed + active
        self.rates[d, self.filled[d] % self.WINDOW] = completed / total if total else 0.0
        self.filled[d] += 1

    def weights(self) -> np.ndarray:
        """Each dish's draw weight: (1 - its recent completion rate) squared, plus `FLOOR` (1 + FLOOR unplayed)."""
        seen = np.minimum(self.filled, self.WINDOW)
        mean = np.divide(self.rates.sum(axis=1), seen, out=np.zeros(seen.size), where=seen > 0)
        return np.asarray((1.0 - mean) ** 2 + self.FLOOR)

    def dish_of(self, kitchen: int) -> str:
        """The dish `kitchen` orders in its current episode while the curriculum runs."""
        k = self.kitchens
        return k.dishes[int(k.draw_dish[self.focus[kitchen]])]

    def stop(self) -> None:
        """From the next order on, every kitchen takes its own stream's draws (the filter goes)."""
        if self.active:
            log.info("dish curriculum over (draw weights %s): the level's own orders from here",
                     dict(zip(self.dishes, np.round(self.weights(), 3).tolist(), strict=True)))
        self.active = False
        if self.kitchens.order_filter is self:
            self.kitchens.order_filter = None
