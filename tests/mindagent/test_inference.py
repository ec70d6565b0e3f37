"""The statistics a reviewer accepts: t quantiles, the paired t-test, Holm, and intervals whose
coverage is checked by simulation at the seed counts sweeps use (n = 5 and n = 10)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mindagent.evaluation.inference import (
    holm,
    paired_t,
    place,
    prediction_interval,
    sign_flip_seeds_needed,
    spread,
    t_interval,
)
from mindagent.evaluation.tdist import t_quantile, two_sided_p


@pytest.mark.parametrize(("df", "q975"), [(1, 12.7062), (4, 2.7764), (9, 2.2622), (30, 2.0423)])
def test_t_quantiles_match_the_printed_tables(df: int, q975: float) -> None:
    assert t_quantile(0.975, df) == pytest.approx(q975, abs=1e-4)
    assert two_sided_p(q975, df) == pytest.approx(0.05, abs=1e-4)


def test_t_distribution_agrees_with_scipy_where_installed() -> None:
    stats = pytest.importorskip("scipy.stats")
    for df in (2, 4, 9, 50):
        for t in (0.3, 1.0, 3.0, 12.0):
            assert two_sided_p(t, df) == pytest.approx(2 * stats.t.sf(t, df), rel=1e-8, abs=1e-14)
        assert t_quantile(0.995, df) == pytest.approx(stats.t.ppf(0.995, df), rel=1e-8)


@pytest.mark.parametrize("n", [5, 10])
@pytest.mark.parametrize("shape", ["normal", "skewed"])
def test_t_interval_covers_within_two_points_of_95(n: int, shape: str) -> None:
    """The audit found the bootstrap's "95 %" at 83 % (n = 5) and 91 % (n = 10); this one holds."""
    rng = np.random.default_rng(2026 + n)
    if shape == "normal":
        truth = 0.70
        samples = [rng.normal(truth, 0.03, n) for _ in range(4000)]
    else:  # bounded and skewed like a CoS near its ceiling
        truth = 12 / 17
        samples = [rng.beta(12, 5, n) for _ in range(4000)]
    hits = 0
    for sample in samples:
        iv = t_interval(sample.tolist())
        hits += iv.lo <= truth <= iv.hi
    assert abs(hits / len(samples) - 0.95) <= 0.02, hits / len(samples)


@pytest.mark.parametrize("n", [5, 10])
def test_prediction_interval_holds_one_more_stream_95_percent_of_the_time(n: int) -> None:
    rng = np.random.default_rng(7 + n)
    hits = 0
    reps = 4000
    for _ in range(reps):
        sample = rng.normal(0.7, 0.03, n + 1)
        iv = prediction_interval(sample[:n].tolist())
        hits += iv.lo <= sample[n] <= iv.hi
    assert abs(hits / reps - 0.95) <= 0.02


def test_interval_reports_n_and_spread_and_flags_zero_spread() -> None:
    iv = t_interval([0.70, 0.72, 0.74])
    assert (iv.n, iv.sd, iv.measured) == (3, pytest.approx(0.02), True)
    assert iv.lo == pytest.approx(0.72 - 4.3027 * 0.02 / 3 ** 0.5, abs=1e-4)
    flat = t_interval([0.5] * 5)
    assert (flat.lo, flat.hi, flat.measured) == (0.5, 0.5, False)
    assert place(0.6, prediction_interval([0.5] * 5), "planner", "GPT-4") == "GPT-4 above planner (no spread in 5 seeds)"


def test_verdict_words_say_who_is_above_whom() -> None:
    pi = prediction_interval([0.70, 0.72, 0.74, 0.71, 0.73])
    assert place(0.90, pi, "planner", "GPT-4") == "GPT-4 above planner"
    assert place(0.50, pi, "planner", "GPT-4") == "planner above GPT-4"
    assert place(0.72, pi, "planner", "GPT-4") == "within planner's range"
    # a single stream inside our single-stream range is not a win, though it lies outside the mean's interval
    ci = t_interval([0.70, 0.72, 0.74, 0.71, 0.73])
    assert not ci.lo <= 0.75 <= ci.hi and pi.lo <= 0.75 <= pi.hi


def test_paired_t_rejects_a_steady_gain_at_five_seeds_and_not_noise() -> None:
    gain = paired_t([0.70, 0.71, 0.69, 0.72, 0.70], [0.74, 0.76, 0.75, 0.77, 0.73])
    assert gain.n == 5 and gain.p_value < 0.001 and gain.mean_diff == pytest.approx(0.046)
    assert gain.interval.lo > 0 and not gain.no_spread
    noise = paired_t([0.70, 0.71, 0.69, 0.72, 0.70], [0.71, 0.70, 0.70, 0.71, 0.70])
    assert noise.p_value > 0.5
    same = paired_t([0.7, 0.8, 0.6], [0.7, 0.8, 0.6])
    assert same.p_value == 1.0 and same.no_spread
    shifted = paired_t([0.7, 0.8, 0.6], [0.8, 0.9, 0.7])
    assert shifted.p_value == 0.0 and shifted.no_spread  # a constant gain: the limit, and marked as such
    assert paired_t([0.7], [0.9]).p_value == 1.0  # one pair cannot be tested


def test_bad_samples_get_one_clear_error() -> None:
    with pytest.raises(ValueError, match="same length"):
        paired_t([0.1, 0.2], [0.1])
    with pytest.raises(ValueError, match="finite"):
        t_interval([0.1, float("nan")])
    with pytest.raises(ValueError, match="no values"):
        spread([])


def test_holm_and_the_seeds_the_exact_test_needs() -> None:
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([]) == []
    assert sign_flip_seeds_needed(1, 0.05, corrected=False) == 6  # 2/2^5 = 0.0625 >= 0.05
    assert sign_flip_seeds_needed(36, 0.05) == 11  # 2/2^11 < 0.05/36


@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=40))
def test_holm_never_lowers_a_p_value_and_keeps_the_order(ps: list[float]) -> None:
    adjusted = holm(ps)
    assert all(a >= p and a <= 1.0 for a, p in zip(adjusted, ps, strict=True))
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    assert all(adjusted[i] <= adjusted[j] for i, j in zip(order, order[1:], strict=False))


@given(st.floats(0.01, 50.0), st.floats(0.01, 50.0), st.integers(1, 200))
def test_the_t_tail_falls_with_t_and_the_quantile_inverts_it(t1: float, t2: float, df: int) -> None:
    lo, hi = sorted((t1, t2))
    assert two_sided_p(hi, df) <= two_sided_p(lo, df) <= 1.0
    p = two_sided_p(lo, df)
    if 1e-9 < p < 1.0 - 1e-9:
        assert t_quantile(1.0 - p / 2.0, df) == pytest.approx(lo, rel=1e-6, abs=1e-6)


@given(st.lists(st.floats(0.0, 1.0), min_size=2, max_size=12))
def test_a_rate_interval_stays_within_0_and_1_and_keeps_what_fits(rates: list[float]) -> None:
    raw, cut = t_interval(rates), t_interval(rates, bounds=(0.0, 1.0))
    assert 0.0 <= cut.lo <= cut.hi <= 1.0
    assert cut.lo == max(raw.lo, 0.0) and cut.hi == min(raw.hi, 1.0)
    assert (cut.n, cut.sd, cut.measured) == (raw.n, raw.sd, raw.measured)
    pi = prediction_interval(rates, bounds=(0.0, 1.0))
    assert 0.0 <= pi.lo <= pi.hi <= 1.0


def test_two_seeds_near_zero_no_longer_print_a_negative_rate() -> None:
    raw = t_interval([0.0, 0.2])
    assert raw.lo < -1.0  # what the printer showed before: t(1) is 12.7
    cut = t_interval([0.0, 0.2], bounds=(0.0, 1.0))
    assert (cut.lo, cut.hi) == (0.0, 1.0)
