"""The statistics of sweep summaries, computed by the same Rust code
(crates/results/src/stats.rs)."""

from __future__ import annotations

import math
from typing import Any, Dict, Iterable, Optional

from . import _core

__all__ = ["describe", "t975"]


def describe(values: Iterable[Optional[float]], *, of: Optional[int] = None) -> Optional[Dict[str, Any]]:
    """n, mean, median, stddev, min, max, ci95_low, ci95_high (95 % CI of the
    mean, Student t; None for n < 2) and boxplot (q1, median, q3, whiskers at
    1.5 IQR, outliers) of the finite values; None if there are none.

    Values may be None (or NaN): an item without a value, such as the
    completion time of a transfer that did not finish (a null
    ``completion_time_ms``). They are left out of the statistics but never
    silently: when any value is missing, or ``of`` (the number of items,
    e.g. transfers including unfinished ones) exceeds n, the result also has
    ``of`` and ``mark`` (``"n=27 of 30 finished"``)."""
    vals = list(values)
    finite = [float(v) for v in vals if v is not None and math.isfinite(float(v))]
    d = _core.describe(finite)
    total = max(len(vals), of or 0)
    if d is not None and total > d["n"]:
        d["of"] = total
        d["mark"] = f"n={d['n']} of {total} finished"
    return d


def t975(df: int) -> float:
    """Two-sided 95 % Student t quantile t(0.975, df) (error < 2e-6)."""
    return _core.t975(df)
