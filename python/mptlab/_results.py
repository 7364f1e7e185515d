"""Results: a result directory's tables as polars DataFrames."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

import polars as pl

from ._errors import SimulationError

#: The standard tables, in documented order (see docs/results.md).
STANDARD = ["messages", "transfers", "flows", "paths", "links", "timeseries"]


class Results:
    """Tables of a run or sweep: ``results.messages`` etc. are polars
    DataFrames (``results.to_pandas("messages")`` for pandas), ``summary`` is
    the parsed ``summary.json``; ``path`` is the directory (None when the
    results were read from a temporary directory that is gone)."""

    def __init__(self, tables: Dict[str, pl.DataFrame], summary: Dict[str, Any],
                 path: Optional[Path]) -> None:
        self.tables = tables
        self.summary = summary
        self.path = path

    def __getattr__(self, name: str) -> pl.DataFrame:
        tables = self.__dict__.get("tables", {})
        if name in tables:
            return tables[name]
        raise AttributeError(f"no table {name!r}; tables: {', '.join(tables)}")

    def __dir__(self) -> List[str]:
        return sorted(set(super().__dir__()) | set(self.tables))

    @property
    def names(self) -> List[str]:
        """Table names, standard tables first."""
        return list(self.tables)

    def table(self, name: str) -> pl.DataFrame:
        return self.tables[name]

    def to_pandas(self, name: Optional[str] = None):
        """One table (or, without a name, a dict of all) as pandas DataFrames."""
        if name is not None:
            return self.tables[name].to_pandas()
        return {k: v.to_pandas() for k, v in self.tables.items()}

    @property
    def points(self) -> pl.DataFrame:
        """Sweeps: one row per point and metric with mean, median, 95 % CI."""
        rows = []
        for p in self.summary.get("points", []):
            for metric, s in p.get("aggregate", {}).items():
                rows.append({"point": p["point"], "point_label": p["label"], "metric": metric,
                             "n": s["n"], "mean": s["mean"], "median": s["median"],
                             "ci95_low": s["ci95_low"], "ci95_high": s["ci95_high"]})
        return pl.DataFrame(rows) if rows else pl.DataFrame()

    def __repr__(self) -> str:
        shape = ", ".join(f"{k}: {v.height} rows" for k, v in self.tables.items())
        return f"Results({self.path}, {shape})"


def load(path: Union[str, Path]) -> Results:
    """Read a result directory written by ``mptlab run``/``sweep`` (or
    :func:`mptlab.run`/:func:`mptlab.sweep`). Reads Parquet, else CSV."""
    d = Path(path)
    summary_file = d / "summary.json"
    if not summary_file.is_file():
        raise SimulationError(f"{d}: no summary.json: not a complete result directory")
    summary = json.loads(summary_file.read_text())
    names = [n for n in STANDARD]
    for f in sorted(d.glob("*.parquet")) + sorted(d.glob("*.csv")):
        if f.stem not in names:
            names.append(f.stem)
    tables: Dict[str, pl.DataFrame] = {}
    for n in names:
        pq, csv = d / f"{n}.parquet", d / f"{n}.csv"
        if pq.is_file():
            tables[n] = pl.read_parquet(pq)
        elif csv.is_file():
            tables[n] = pl.read_csv(csv, infer_schema_length=None)
    return Results(tables, summary, d)
