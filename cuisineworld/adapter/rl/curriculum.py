"""A dish curriculum for training: ``mindagent train --curriculum dishes|rare:FRACTION`` (batched kitchens).

Why: on a level with several dishes, PPO converges on the dishes its kitchens happen to serve
first and stops trying the others. On level_4 four training seeds of five served three of the
four salads and never fetched the ingredient of the fourth, so a quarter of the orders expired
whatever the interval (docs/figures/rl.md, "a dish never learned"). A larger entropy bonus or
more steps did not find it; what does is more episodes in which the missing dish is the only
reward there is.

So for the first FRACTION of the run's steps each training kitchen's episode orders one dish
only, drawn toward the dishes served least (`DishCurriculum`: weight ``(1 - rate)**2 + 0.05``
from each dish's recent completion rate); ``rare`` multiplies those weights by a prior from the
recipe trees (`rarity`) so that, from the first episode on, every base ingredient is about as
often needed as any other. Nothing names a dish: it works for any level and number of dishes.
After that the kitchens take the level's own stream again, which is never replaced but only
overruled: a drawn dish is swapped for the kitchen's curriculum dish, so the stream's draws (and
with them every later order) are the ones the kitchen would have made without the curriculum.

Only the training kitchens change. Evaluation, checkpoint selection (``--select-seed``) and every
published figure build their own envs with the standard streams; with the option off (``none``,
the default) no filter is installed and the batched kitchens stay bit-for-bit the engine's.

Example::

    spec = parse_curriculum("rare:0.8")         # Curriculum(kind="rare", fraction=0.8)
    plan = spec.install(kitchens, seed=0)       # a DishCurriculum, installed as kitchens.order_filter
    ...                                         # train spec.until(total_steps) steps, then
    plan.stop()                                 # the level's own orders from here on
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import numpy as np

from cuisineworld import Level
from cuisineworld.adapter.rl.batched import BatchedKitchens
from cuisineworld.adapter.rl.rewards import subtree_counts

log = logging.getLogger(__name__)

CURRICULA = ("none", "dishes", "rare")
_USAGE = "--curriculum takes none, dishes:FRACTION or rare:FRACTION with 0 < FRACTION <= 1 (e.g. dishes:0.8)"


@dataclass(frozen=True)
class Curriculum:
    """A parsed ``--curriculum`` value: what is practised, and for what share of the run's steps."""

    kind: str
    fraction: float

    def install(self, kitchens: BatchedKitchens, seed: int = 0) -> DishCurriculum:
        """The curriculum's filter on `kitchens` (``rare``: with the `rarity` prior of their level)."""
        prior = rarity(kitchens.level) if self.kind == "rare" else None
        return DishCurriculum(kitchens, seed, prior)

    def until(self, steps: int) -> int:
        """The training step at which the level's own order stream takes over."""
        return max(1, math.ceil(self.fraction * steps))


def parse_curriculum(text: str) -> Curriculum | None:
    """``none`` is None; ``dishes:F`` and ``rare:F`` a `Curriculum`; anything else one ValueError line."""
    if text == "none":
        return None
    kind, sep, rest = text.partition(":")
    if kind not in CURRICULA[1:] or not sep:
        raise ValueError(f"{_USAGE}, not {text!r}")
    try:
        fraction = float(rest)
    except ValueError:
        raise ValueError(f"{_USAGE}, not {text!r}") from None
    if not 0.0 < fraction <= 1.0:  # also refuses nan
        raise ValueError(f"{_USAGE}, not {text!r}")
    return Curriculum(kind, fraction)


def rarity(level: Level) -> np.ndarray:
    """Each dish's share of the level's rare ingredients, the largest 1 (the ``rare`` curriculum's prior).

    A base ingredient needed by k of the level's dishes is worth 1/k, and a dish the sum over the
    base ingredients of its recipe tree. Drawn in proportion, every ingredient is about as often
    needed as any other, so none is worth least to a policy that does not yet read the orders
    (on level_4 the cucumber, useful in one salad of four, had its fetch probability fall below
    0.003 in the first 400k steps while lettuce and tomato rose)."""
    bases = [{item for item in subtree_counts(level, dish) if level.recipe_for(item) is None} for dish in level.dishes]
    users = {item: sum(item in used for used in bases) for used in bases for item in used}
    prior = np.array([sum(1.0 / users[item] for item in sorted(used)) for used in bases], dtype=np.float64)
    return np.asarray(prior / prior.max()) if prior.max() > 0 else np.ones(len(bases))


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
    filter counts each kitchen's episodes without a hook of its own in the kitchens' reset.

    ``prior`` (one weight per dish of the level, in its order; `rarity` for ``rare``) multiplies
    the weights, so the draws lean toward rare ingredients from the first episode on."""

    WINDOW = 64
    FLOOR = 0.05

    def __init__(self, kitchens: BatchedKitchens, seed: int = 0, prior: np.ndarray | None = None) -> None:
        self.kitchens = kitchens
        self.active = True
        w, n = kitchens.n_worlds, kitchens.draw_count
        self.episodes = np.full(w, -1, dtype=np.int64)  # the episode each kitchen plays
        self.focus = np.arange(w, dtype=np.int64) % n  # each kitchen's dish, an index into the level's dishes
        self.ended = self.focus.copy()  # the dish of each kitchen's previous episode
        self.rates = np.zeros((n, self.WINDOW), dtype=np.float64)  # completion rates, a ring per dish
        self.filled = np.zeros(n, dtype=np.int64)
        self.prior = np.ones(n) if prior is None else np.asarray(prior, dtype=np.float64)
        if self.prior.shape != (n,) or not (self.prior > 0).all():
            raise ValueError(f"a curriculum prior is one positive weight per dish ({n}), not {prior!r}")
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
        """Each dish's draw weight: (1 - its recent completion rate) squared, plus `FLOOR`, times its prior."""
        seen = np.minimum(self.filled, self.WINDOW)
        mean = np.divide(self.rates.sum(axis=1), seen, out=np.zeros(seen.size), where=seen > 0)
        return np.asarray(((1.0 - mean) ** 2 + self.FLOOR) * self.prior)

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
