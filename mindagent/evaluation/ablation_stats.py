"""The statistics of an ablation study: each row's CoS over seeds, and its paired test against the full prompt.

A row's value on one seed is its CoS averaged over the study's cells (levels x team sizes), so
a seed is one sample of the whole protocol. Over the seeds a row gets n, mean, spread and the t
interval of the mean (`mindagent.evaluation.inference`: it covers at five seeds). Every other row
is tested against the full prompt on the seeds both finished, paired by seed (the order stream
is most of the variance, and pairing removes it): the paired t-test of row - full, as `compare`
does, with Holm's correction over the rows tested, so "significant" keeps its meaning however
many variants a study has. One seed gives a difference but no interval and no test.

Example::

    stats = study_stats({"full": {0: 0.71, 1: 0.69}, "no-demo": {0: 0.55, 1: 0.58}})
    stats["no-demo"].delta, stats["no-demo"].p_holm
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass

from mindagent.evaluation.inference import RATE, holm, paired_t, spread, t_interval

ALPHA = 0.05
REFERENCE = "full"


@dataclass(frozen=True, slots=True)
class RowStats:
    """A row over its seeds, and (for every row but the reference) its difference from it."""

    n: int
    mean: float
    sd: float
    interval: tuple[float, float]
    #: False when the row had one seed or no spread: the interval's width 0 is not an estimate.
    measured: bool
    #: row - full, averaged over the seeds both finished (None for the reference itself)
    delta: float | None = None
    delta_interval: tuple[float, float] | None = None
    paired: int = 0  # the seeds both finished
    p: float | None = None
    p_holm: float | None = None
    significant: bool = False
    #: "one seed: untestable", "no spread" (the same difference on every seed: p is a limit) or ""
    note: str = ""

    def to_dict(self) -> dict[str, object]:
        out = asdict(self)
        out["interval"] = [round(v, 6) for v in self.interval]
        if self.delta_interval is not None:
            out["delta_interval"] = [round(v, 6) for v in self.delta_interval]
        for key in ("mean", "sd", "delta", "p", "p_holm"):
            if out[key] is not None:
                out[key] = round(out[key], 6)
        return out


def study_stats(values: Mapping[str, Mapping[int, float]], reference: str = REFERENCE,
                alpha: float = ALPHA) -> dict[str, RowStats]:
    """Per row (rows with no finished seed are left out): its interval and, against `reference`,
    the paired t-test with Holm's correction over every row tested."""
    base = values.get(reference, {})
    out: dict[str, RowStats] = {}
    tested: list[str] = []
    for name, by_seed in values.items():
        if not by_seed:
            continue
        seeds = sorted(by_seed)
        row_values = [by_seed[s] for s in seeds]
        interval = t_interval(row_values, bounds=RATE)
        row = RowStats(interval.n, spread(row_values).mean, interval.sd, (interval.lo, interval.hi),
                       interval.measured)
        common = sorted(set(seeds) & set(base)) if name != reference else []
        if common:
            test = paired_t([base[s] for s in common], [by_seed[s] for s in common])
            note = ("one seed: untestable" if test.n < 2 else
                    "no spread" if test.no_spread and abs(test.mean_diff) >= 1e-12 else
                    "identical" if test.no_spread else "")
            row = RowStats(row.n, row.mean, row.sd, row.interval, row.measured, test.mean_diff,
                           (test.interval.lo, test.interval.hi), test.n, test.p_value, note=note)
            tested.append(name)
        out[name] = row
    ps = [out[name].p for name in tested]
    adjusted = holm([1.0 if p is None else p for p in ps]) if tested else []
    for name, p_holm in zip(tested, adjusted, strict=True):
        row = out[name]
        out[name] = RowStats(row.n, row.mean, row.sd, row.interval, row.measured, row.delta, row.delta_interval,
                             row.paired, row.p, p_holm, row.paired >= 2 and p_holm < alpha, row.note)
    return out
