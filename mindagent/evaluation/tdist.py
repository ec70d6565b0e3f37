"""Student's t distribution: its two-sided tail and its quantile, without SciPy.

The t-test and the t intervals of `mindagent.evaluation.inference` need the t distribution at
small degrees of freedom (4 for five seeds), where the normal approximation is far off (1.96 against
2.776 for a 95 % interval). SciPy is not a dependency, so the distribution is computed here from the
regularized incomplete beta function: for ``T ~ t(df)``, ``P(|T| >= t) = I_x(df/2, 1/2)`` with
``x = df / (df + t^2)``. The continued fraction converges in a few dozen terms for every df a sweep
has; the quantile is found by bisection on that tail, so both are accurate to about 1e-10.

Example::

    two_sided_p(2.776, 4)   # 0.05
    t_quantile(0.975, 4)    # 2.776...
"""

from __future__ import annotations

import functools
import math

_EPS = 1e-15
_TINY = 1e-300
_MAX_TERMS = 500


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz evaluation)."""
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    result = d
    for m in range(1, _MAX_TERMS + 1):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
            result *= c * d
        if abs(c * d - 1.0) < _EPS:
            break
    return result


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b) for a, b > 0 and 0 <= x <= 1."""
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"incomplete beta needs 0 <= x <= 1, got {x}")
    if x in (0.0, 1.0):
        return x
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    # the fraction converges fast on one side of the mean; use the symmetry I_x(a,b) = 1 - I_{1-x}(b,a)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b


def two_sided_p(t: float, df: float) -> float:
    """P(|T| >= |t|) for T ~ t(df): the two-sided p-value of a t statistic."""
    if df <= 0:
        raise ValueError("the t distribution needs df > 0")
    if math.isinf(t):
        return 0.0
    if math.isnan(t):
        raise ValueError("a t statistic must be a number")
    return min(1.0, incomplete_beta(df / 2.0, 0.5, df / (df + t * t)))


@functools.lru_cache(maxsize=1024)
def t_quantile(probability: float, df: float) -> float:
    """The value q with P(T <= q) = `probability` for T ~ t(df), for 0.5 <= probability < 1."""
    if not 0.5 <= probability < 1.0:
        raise ValueError("t_quantile takes a probability in [0.5, 1)")
    if probability == 0.5:
        return 0.0
    tail = 2.0 * (1.0 - probability)  # two-sided tail at q
    lo, hi = 0.0, 1.0
    while two_sided_p(hi, df) > tail:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if two_sided_p(mid, df) > tail:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12:
            break
    return (lo + hi) / 2.0
