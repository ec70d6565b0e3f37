"""Confidence for sweep figures: bootstrap intervals over seeds and a paired test between runs.

The paper reports one order stream per cell, so a cell within 0.02 of another is a tie more than
a win. Running the protocol on several order streams (seeds) turns each cell into a sample:

- `bootstrap_interval`: the percentile bootstrap of the mean over seeds (resampling the per-seed
  CoS values with replacement), 95 % by default. With 10 seeds it is a little narrow (the
  percentile bootstrap under-covers for small n); it says how much the figure moves with the
  order stream, not more.
- `verdict`: where a single published figure lies against that interval (inside, above, below).
- `paired_test`: two result files on the same seeds differ in a cell if the per-seed differences
  are unlikely under "the label A/B does not matter". The test is the sign-flip permutation test
  of the mean difference: under the null each paired difference is as likely positive as
  negative, so the p-value is the share of the 2^n sign patterns whose |mean| is at least the
  observed one (enumerated exactly up to `EXACT_LIMIT` pairs, else `resamples` random patterns).
  Pairing by seed removes the order stream's share of the variance, which is most of it.

Every resampling uses its own `random.Random(seed)`, so the same inputs give the same figures.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass

CONFIDENCE = 0.95
RESAMPLES = 10_000
EXACT_LIMIT = 16  # 2^16 sign patterns are still quick to enumerate
ALPHA = 0.05


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def bootstrap_interval(values: Sequence[float], confidence: float = CONFIDENCE, resamples: int = RESAMPLES,
                       seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean: ``bootstrap_interval([0.7, 0.72, 0.69])``."""
    if not values:
        raise ValueError("no values to bootstrap")
    if len(values) == 1:
        return values[0], values[0]
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(values[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples))
    tail = (1.0 - confidence) / 2.0
    lo = means[int(tail * (resamples - 1))]
    hi = means[int((1.0 - tail) * (resamples - 1) + 0.5)]
    return lo, hi


def verdict(figure: float, interval: tuple[float, float]) -> str:
    """'inside', 'above' or 'below': where `figure` lies against our interval."""
    lo, hi = interval
    if figure > hi:
        return "above"
    if figure < lo:
        return "below"
    return "inside"


@dataclass(frozen=True, slots=True)
class PairedResult:
    n: int
    mean_diff: float  # mean of B - A over the paired seeds
    interval: tuple[float, float]  # bootstrap interval of that mean
    p_value: float  # two-sided sign-flip permutation test

    @property
    def significant(self) -> bool:
        return self.n > 0 and self.p_value < ALPHA


def sign_flip_p(diffs: Sequence[float], resamples: int = RESAMPLES, seed: int = 0) -> float:
    """Two-sided p-value of the mean of paired differences under random signs."""
    n = len(diffs)
    if n == 0:
        return 1.0
    observed = abs(sum(diffs)) - 1e-12  # ties count as extreme (floating noise aside)
    if n <= EXACT_LIMIT:
        hits = total = 0
        for signs in itertools.product((1.0, -1.0), repeat=n):
            total += 1
            if abs(sum(s * d for s, d in zip(signs, diffs, strict=True))) >= observed:
                hits += 1
        return hits / total
    rng = random.Random(seed)
    hits = sum(1 for _ in range(resamples)
               if abs(sum(d if rng.random() < 0.5 else -d for d in diffs)) >= observed)
    return (hits + 1) / (resamples + 1)


def paired_test(a: Sequence[float], b: Sequence[float], seed: int = 0) -> PairedResult:
    """B against A, paired element by element (by seed): ``paired_test([.70, .71], [.74, .76])``."""
    if len(a) != len(b):
        raise ValueError("paired samples need the same length")
    diffs = [y - x for x, y in zip(a, b, strict=True)]
    if not diffs:
        return PairedResult(0, 0.0, (0.0, 0.0), 1.0)
    return PairedResult(len(diffs), mean(diffs), bootstrap_interval(diffs, seed=seed), sign_flip_p(diffs, seed=seed))


def parse_seeds(text: str) -> list[int]:
    """``"0-9"`` -> 0..9, ``"0,3,7"`` -> [0, 3, 7], ``"0-2,5"`` -> [0, 1, 2, 5] (sorted, no repeats;
    seeds are not negative)."""
    seeds: set[int] = set()
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        if "-" in part:
            first, last = part.split("-", 1)
            lo, hi = int(first), int(last)
            if hi < lo:
                raise ValueError(f"seed range {part!r} runs backwards")
            seeds.update(range(lo, hi + 1))
        else:
            seeds.add(int(part))
    if not seeds:
        raise ValueError("no seeds given")
    return sorted(seeds)
