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

Every resampling uses its own seeded generator, so the same inputs give the same figures. Up to
`SMALL_DRAWS` draws (every sweep of a few seeds) a figure is drawn as it always was, one value at a
time from Python's generator, so the published intervals reproduce exactly; past that, resampling
is vectorised with numpy and bounded: at most `MAX_DRAWS` values are drawn per figure (fewer
resamples for larger n, never under `MIN_RESAMPLES`), in chunks of `CHUNK_DRAWS`, so the cost grows
linearly with the number of seeds and the memory stays flat (100,000 seeds: 200 resamples, which
for so large an n moves the interval's ends by well under its own width's rounding).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

CONFIDENCE = 0.95
RESAMPLES = 10_000
EXACT_LIMIT = 16  # 2^16 sign patterns are still quick to enumerate
ALPHA = 0.05
#: Most values drawn for one bootstrap interval or permutation p-value (resamples x n).
MAX_DRAWS = 20_000_000
#: Fewest resamples, however large n is.
MIN_RESAMPLES = 200
#: Values drawn at once; bounds the memory of one chunk (8 bytes each).
CHUNK_DRAWS = 2_000_000
#: Up to this many draws (resamples x n) a figure is drawn one value at a time from Python's
#: generator, as before the vectorised path, so published intervals and p-values reproduce exactly.
SMALL_DRAWS = 1_000_000

Floats = npt.NDArray[np.float64]


def resamples_for(n: int, wanted: int = RESAMPLES) -> int:
    """How many resamples a sample of `n` gets: `wanted`, cut so ``resamples * n <= MAX_DRAWS``."""
    return max(1, min(wanted, max(MIN_RESAMPLES, MAX_DRAWS // max(1, n))))


def _chunks(total: int, n: int) -> list[int]:
    """`total` resamples split into chunks of at most `CHUNK_DRAWS` values."""
    per = max(1, CHUNK_DRAWS // max(1, n))
    return [min(per, total - start) for start in range(0, total, per)]


def _finite(values: Sequence[float], what: str) -> Floats:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1 or not np.all(np.isfinite(array)):
        raise ValueError(f"{what}: every value must be a finite number")
    return array


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if len(values) else 0.0


def bootstrap_interval(values: Sequence[float], confidence: float = CONFIDENCE, resamples: int = RESAMPLES,
                       seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean: ``bootstrap_interval([0.7, 0.72, 0.69])``."""
    if len(values) == 0:
        raise ValueError("no values to bootstrap")
    array = _finite(values, "bootstrap")
    if len(array) == 1:
        return float(array[0]), float(array[0])
    n = len(array)
    if n * resamples <= SMALL_DRAWS:
        return _bootstrap_small([float(v) for v in values], confidence, resamples, seed)
    total = resamples_for(n, resamples)
    rng = np.random.default_rng(seed)
    means = np.concatenate([array[rng.integers(0, n, size=(size, n))].mean(axis=1) for size in _chunks(total, n)])
    means.sort()
    tail = (1.0 - confidence) / 2.0
    lo = means[int(tail * (total - 1))]
    hi = means[int((1.0 - tail) * (total - 1) + 0.5)]
    return float(lo), float(hi)


def _bootstrap_small(values: list[float], confidence: float, resamples: int, seed: int) -> tuple[float, float]:
    """The same interval drawn one value at a time from `random.Random(seed)`: for the sizes
    sweeps have (a few seeds), so every interval published before the vectorised path reproduces."""
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(values[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples))
    tail = (1.0 - confidence) / 2.0
    return means[int(tail * (resamples - 1))], means[int((1.0 - tail) * (resamples - 1) + 0.5)]


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
    array = _finite(diffs, "sign-flip test")
    if n <= EXACT_LIMIT or n * resamples <= SMALL_DRAWS:
        return _sign_flip_small([float(d) for d in diffs], resamples, seed)
    observed = abs(float(array.sum())) - 1e-12  # ties count as extreme (floating noise aside)
    total = resamples_for(n, resamples)
    rng = np.random.default_rng(seed)
    hits = 0
    for size in _chunks(total, n):
        signs = np.where(rng.random((size, n)) < 0.5, 1.0, -1.0)
        hits += int(np.count_nonzero(np.abs(signs @ array) >= observed))
    return (hits + 1) / (total + 1)


def _sign_flip_small(diffs: list[float], resamples: int, seed: int) -> float:
    """Exact enumeration up to `EXACT_LIMIT` pairs, else patterns drawn from `random.Random(seed)`,
    summed one value at a time: the p-values published before the vectorised path reproduce."""
    observed = abs(sum(diffs)) - 1e-12  # ties count as extreme (floating noise aside)
    if len(diffs) <= EXACT_LIMIT:
        hits = total = 0
        for signs in itertools.product((1.0, -1.0), repeat=len(diffs)):
            total += 1
            if abs(sum(s * d for s, d in zip(signs, diffs, strict=True))) >= observed:
                hits += 1
        return hits / total
    rng = random.Random(seed)
    hits = sum(1 for _ in range(resamples) if abs(sum(d if rng.random() < 0.5 else -d for d in diffs)) >= observed)
    return (hits + 1) / (resamples + 1)


def paired_test(a: Sequence[float], b: Sequence[float], seed: int = 0) -> PairedResult:
    """B against A, paired element by element (by seed): ``paired_test([.70, .71], [.74, .76])``."""
    if len(a) != len(b):
        raise ValueError("paired samples need the same length")
    _finite(a, "A"), _finite(b, "B")
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
