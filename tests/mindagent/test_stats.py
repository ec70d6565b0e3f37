"""Bootstrap intervals, the sign-flip test and seed lists: the arithmetic behind `--seeds` and `compare`."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindagent.evaluation.stats import bootstrap_interval, paired_test, parse_seeds, sign_flip_p, verdict


def test_parse_seeds():
    assert parse_seeds("0-9") == list(range(10))
    assert parse_seeds("0-2,5,1") == [0, 1, 2, 5]
    with pytest.raises(ValueError):
        parse_seeds("5-2")
    with pytest.raises(ValueError):
        parse_seeds(",")


def test_interval_is_deterministic_and_brackets_the_mean():
    values = [0.70, 0.72, 0.69, 0.75, 0.71, 0.73, 0.68, 0.74, 0.70, 0.72]
    lo, hi = bootstrap_interval(values)
    assert (lo, hi) == bootstrap_interval(values)
    assert lo < sum(values) / len(values) < hi
    assert min(values) <= lo and hi <= max(values)
    assert bootstrap_interval([0.5, 0.5, 0.5]) == (0.5, 0.5)


def test_verdict():
    assert verdict(0.80, (0.70, 0.75)) == "above"
    assert verdict(0.60, (0.70, 0.75)) == "below"
    assert verdict(0.72, (0.70, 0.75)) == "inside"


def test_sign_flip_matches_a_hand_count():
    # differences 1, 2, 3: of the 8 sign patterns only +++ and --- reach |sum| 6
    assert sign_flip_p([1.0, 2.0, 3.0]) == pytest.approx(2 / 8)
    assert sign_flip_p([0.0, 0.0]) == 1.0


def test_a_consistent_gain_over_ten_seeds_is_significant_and_noise_is_not():
    a = [0.70, 0.72, 0.69, 0.75, 0.71, 0.73, 0.68, 0.74, 0.70, 0.72]
    better = paired_test(a, [x + 0.03 for x in a])
    assert better.significant and better.mean_diff == pytest.approx(0.03)
    noise = paired_test(a, [x + d for x, d in zip(a, [0.01, -0.01] * 5, strict=True)])
    assert not noise.significant
    assert not paired_test([0.7], [0.9]).significant  # one pair: p = 1


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-1, 1, allow_nan=False), min_size=1, max_size=8))
def test_sign_flip_p_is_the_exact_enumeration(diffs: list[float]):
    observed = abs(sum(diffs))
    patterns = list(itertools.product((1, -1), repeat=len(diffs)))
    hits = sum(1 for s in patterns if abs(sum(x * d for x, d in zip(s, diffs, strict=True))) >= observed - 1e-12)
    assert sign_flip_p(diffs) == pytest.approx(hits / len(patterns))


def test_small_samples_keep_their_published_intervals() -> None:
    """Sweeps of a few seeds draw as before the vectorised path (Python's generator, one value at a
    time): these are the figures of a 5-seed cell drawn by the earlier code, to the last digit."""
    from mindagent.evaluation.stats import bootstrap_interval, sign_flip_p

    values = [0.745, 0.712, 0.769, 0.701, 0.733]
    assert bootstrap_interval(values) == (0.7118, 0.7528)
    assert sign_flip_p([v - 0.7 for v in values]) == 0.0625
