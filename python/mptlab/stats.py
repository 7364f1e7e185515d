"""The statistics of sweep summaries, computed by the same Rust code
(crates/results/src/stats.rs)."""

from __future__ import annotations

from typing import Any, Dict, Iterable, Optional

from . import _core

__all__ = ["describe", "t975"]


def describe(values: Iterable[float]) -> Optional[Dict[str, Any]]:
    """n, mean, median, stddev, min, max, ci95_low, ci95_high (95 % CI of the
    mean, Student t; None for n < 2) and boxplot (q1, median, q3, whiskers at
    1.5 IQR, outliers) of the finite values; None if there are none."""
    return _core.describe([float(v) for v in values])


def t975(df: int) -> float:
    """Two-sided 95 % Student t quantile t(0.975, df) (error < 2e-6)."""
    return _core.t975(df)
