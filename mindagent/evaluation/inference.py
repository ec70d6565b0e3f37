"""Tests that can reject at five seeds, intervals that cover, and a fair place for one published stream.

`mindagent.evaluation.stats` keeps the percentile bootstrap and the exact sign-flip test as they
were (published figures reproduce). Audited at the sizes sweeps have, both mislead: the bootstrap's
"95 %" interval covered 83 % of the time at n = 5 and 91 % at n = 10, and the sign-flip test's
smallest p-value is 2 / 2^n (0.0625 at n = 5), so it cannot reject anything, let alone after a
correction over 36 cells. What is here instead:

- `t_interval`: mean +- t(n-1) * sd / sqrt(n); exact under normal per-seed values and close to
  nominal for the bounded, mildly skewed CoS values (the simulation in the tests checks 95 % +- 2
  points at n = 5 and n = 10). It carries n and the spread, so a table can print both.
- `prediction_interval`: where one more single stream would fall (mean +- t * sd * sqrt(1 + 1/n)).
  A published figure from one order stream (the paper's GPT-4) is compared against this, not
  against the mean's interval, which is narrower by sqrt(n + 1) and would call noise a win.
- `paired_t`: the paired t-test of B - A per seed; it can reject from n = 2 when the differences
  have spread. A difference that is the same on every seed has no spread to measure: its p is 0
  in the limit, and the result says so (`no_spread`) so a table can mark it instead of hiding it.
- `holm`: Holm's step-down correction over cells (controls the chance of any false "significant"
  at alpha, uniformly more powerful than Bonferroni).
- `sign_flip_seeds_needed`: the fewest seeds with which the exact sign-flip test can reject at
  all, after the correction, printed by `compare` before its table.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from mindagent.evaluation.tdist import t_quantile, two_sided_p

CONFIDENCE = 0.95
ALPHA = 0.05
#: What a completion rate (CoS) can be: the `bounds` of its intervals.
RATE = (0.0, 1.0)


def _checked(values: Sequence[float], what: str) -> list[float]:
    out = [float(v) for v in values]
    if not all(math.isfinite(v) for v in out):
        raise ValueError(f"{what}: every value must be a finite number")
    return out


@dataclass(frozen=True, slots=True)
class Spread:
    """A sample's n, mean and standard deviation (n - 1 in the denominator; 0 for one value)."""

    n: int
    mean: float
    sd: float

    @property
    def none(self) -> bool:
        """True when every value is the same (or there is one): no spread to build an interval on."""
        return self.n < 2 or self.sd == 0.0


def spread(values: Sequence[float]) -> Spread:
    """``spread([0.70, 0.72, 0.74])`` -> Spread(n=3, mean=0.72, sd=0.02)."""
    xs = _checked(values, "spread")
    if not xs:
        raise ValueError("spread of no values")
    n = len(xs)
    centre = math.fsum(xs) / n
    if n == 1:
        return Spread(1, centre, 0.0)
    sd = math.sqrt(math.fsum((x - centre) ** 2 for x in xs) / (n - 1))
    return Spread(n, centre, 0.0 if sd < 1e-12 else sd)


@dataclass(frozen=True, slots=True)
class Interval:
    lo: float
    hi: float
    n: int
    sd: float
    #: False when the sample had no spread (one value, or all equal): the width 0 is not an estimate.
    measured: bool

    def within(self, low: float, high: float) -> Interval:
        """The interval cut to the values the quantity can take.

        A t interval is symmetric, so for a rate near 0 or 1 at small n its far end leaves the
        range (seeds 0.0 and 0.2 give -1.171..1.371); nobody can read a negative completion rate, and
        cutting loses no coverage, since the true mean lies inside the range anyway."""
        return Interval(min(max(self.lo, low), high), max(min(self.hi, high), low), self.n, self.sd, self.measured)


def _t_interval(s: Spread, confidence: float, scale: float) -> Interval:
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must lie strictly between 0 and 1")
    if s.none:
        return Interval(s.mean, s.mean, s.n, s.sd, measured=False)
    half = t_quantile((1.0 + confidence) / 2.0, s.n - 1) * s.sd * scale
    return Interval(s.mean - half, s.mean + half, s.n, s.sd, measured=True)


def t_interval(values: Sequence[float], confidence: float = CONFIDENCE,
               bounds: tuple[float, float] | None = None) -> Interval:
    """The t interval of the mean: ``t_interval([0.70, 0.72, 0.74])`` -> 0.670..0.770, n 3, sd 0.02;
    `bounds` (e.g. ``(0.0, 1.0)`` for a rate) cuts it to the values the quantity can take."""
    s = spread(values)
    out = _t_interval(s, confidence, 1.0 / math.sqrt(s.n))
    return out if bounds is None else out.within(*bounds)


def prediction_interval(values: Sequence[float], confidence: float = CONFIDENCE,
                        bounds: tuple[float, float] | None = None) -> Interval:
    """Where one more single-stream value would fall with `confidence`: mean +- t * sd * sqrt(1 + 1/n)."""
    s = spread(values)
    out = _t_interval(s, confidence, math.sqrt(1.0 + 1.0 / s.n))
    return out if bounds is None else out.within(*bounds)


def place(figure: float, interval: Interval, ours: str, theirs: str) -> str:
    """Verdict words that say who is above whom: ``place(0.80, pi, "planner", "GPT-4")`` ->
    "GPT-4 above planner" when 0.80 lies above the prediction interval `pi` of our streams."""
    if figure > interval.hi:
        words = f"{theirs} above {ours}"
    elif figure < interval.lo:
        words = f"{ours} above {theirs}"
    else:
        words = f"within {ours}'s range"
    if not interval.measured:
        words += f" (no spread in {interval.n} seed{'s' if interval.n != 1 else ''})"
    return words


@dataclass(frozen=True, slots=True)
class PairedT:
    n: int
    mean_diff: float  # mean of B - A over the paired seeds
    sd_diff: float
    interval: Interval  # t interval of the mean difference
    p_value: float  # two-sided, before any correction
    #: Every pair differed by the same amount (sd 0): p is the limit 0 (or 1 for no difference).
    no_spread: bool


def paired_t(a: Sequence[float], b: Sequence[float], confidence: float = CONFIDENCE) -> PairedT:
    """Paired t-test of B against A, pair by pair (by seed): ``paired_t([.70, .71], [.74, .76])``."""
    xs, ys = _checked(a, "A"), _checked(b, "B")
    if len(xs) != len(ys):
        raise ValueError("paired samples need the same length")
    if not xs:
        raise ValueError("a paired test needs at least one pair")
    diffs = [y - x for x, y in zip(xs, ys, strict=True)]
    s = spread(diffs)
    interval = _t_interval(s, confidence, 1.0 / math.sqrt(s.n))
    if s.n < 2:
        return PairedT(s.n, s.mean, s.sd, interval, 1.0, no_spread=True)
    if s.sd == 0.0:
        return PairedT(s.n, s.mean, 0.0, interval, 1.0 if abs(s.mean) < 1e-12 else 0.0, no_spread=True)
    statistic = s.mean / (s.sd / math.sqrt(s.n))
    return PairedT(s.n, s.mean, s.sd, interval, two_sided_p(statistic, s.n - 1), no_spread=False)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values, in the input order: reject cell i at level alpha when out[i] < alpha.

    ``holm([0.01, 0.04, 0.03])`` -> [0.03, 0.06, 0.06]."""
    ps = _checked(p_values, "Holm")
    m = len(ps)
    order = sorted(range(m), key=lambda i: (ps[i], i))
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * ps[i]))
        adjusted[i] = running
    return adjusted


def sign_flip_seeds_needed(cells: int, alpha: float = ALPHA, corrected: bool = True) -> int:
    """Fewest pairs n with which the exact sign-flip test can reject: its smallest p, 2 / 2^n, must
    fall below alpha (below alpha / cells, Holm's first step, when corrected over `cells`)."""
    if not 0.0 < alpha < 1.0 or cells < 1:
        raise ValueError("alpha must lie in (0, 1) and cells be at least 1")
    threshold = alpha / cells if corrected else alpha
    n = 1
    while 2.0 / 2.0 ** n >= threshold:
        n += 1
    return n
