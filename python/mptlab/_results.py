"""Results: a result directory's tables as polars DataFrames."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

import polars as pl

from . import _core
from ._errors import SimulationError

#: The standard tables' columns and types, from the Rust row definitions
#: (``mptlab_results::rows``, the one definition the simulator and emulation
#: fill): ``{table: {column: type}}``, tables in documented order (see
#: docs/results.md). Every table also starts with ``run`` and ``seed`` (and a
#: sweep's with ``point``, ``point_label`` and the swept keys).
SCHEMAS: Dict[str, Dict[str, str]] = {t: dict(cols) for t, cols in _core.schemas()}

#: The standard tables, in documented order.
STANDARD = list(SCHEMAS)

_DTYPES = {"u64": pl.UInt64, "i64": pl.Int64, "f64": pl.Float64, "string": pl.Utf8, "bool": pl.Boolean}


def _read_csv(name: str, path: Path) -> pl.DataFrame:
    """A table from CSV with the declared types of the standard columns
    (as Parquet has them), so a column that is all null in CSV, or a float
    column whose values happen to be whole, keeps its type; columns are
    matched by name, never by position."""
    header = pl.read_csv(path, n_rows=0).columns
    declared = SCHEMAS.get(name, {})
    overrides = {c: _DTYPES[declared[c]] for c in header if c in declared}
    for c in ("run", "seed"):
        if c in header:
            overrides[c] = pl.UInt64
    return pl.read_csv(path, infer_schema_length=None, schema_overrides=overrides)


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
        """Sweeps: one row per point and metric with mean, median, 95 % CI;
        for metrics computed over completed items only (completion_time_ms,
        delay_ms_*) ``completed`` and ``of`` say over how many of how many
        transfers or messages (null for other metrics)."""
        rows = []
        for p in self.summary.get("points", []):
            over = p.get("unfinished", {}).get("completed_only", {})
            for metric, s in p.get("aggregate", {}).items():
                c = over.get(metric, {})
                rows.append({"point": p["point"], "point_label": p["label"], "metric": metric,
                             "n": s["n"], "mean": s["mean"], "median": s["median"],
                             "ci95_low": s["ci95_low"], "ci95_high": s["ci95_high"],
                             "completed": c.get("completed"), "of": c.get("of")})
        return pl.DataFrame(rows) if rows else pl.DataFrame()

    @property
    def unfinished(self) -> Dict[str, Any]:
        """Transfers that did not finish and messages not delivered by the end
        of their run: ``summary.json``'s ``unfinished`` object (totals; for a
        run the runs concerned and ``completed_only``: over how many of how
        many items each completion-time / delay statistic was computed; for a
        sweep the points concerned). Empty for results written before mptlab
        counted them."""
        return self.summary.get("unfinished", {})

    @property
    def unfinished_count(self) -> int:
        """Transfers not finished plus messages not delivered, over all runs."""
        u = self.unfinished
        return int(u.get("transfers_unfinished", 0)) + int(u.get("messages_undelivered", 0))

    def unfinished_text(self) -> str:
        """One sentence on the unfinished work ("" if there is none)."""
        u = self.unfinished
        if not self.unfinished_count:
            return ""
        where = ""
        if "points" in u:
            where = " in point(s) " + ", ".join(f"`{p['label']}`" for p in u["points"][:10])
        parts = []
        if u.get("transfers_unfinished"):
            parts.append(f"{u['transfers_unfinished']} of {u.get('transfers', 0)} transfer(s) did not finish")
        if u.get("messages_undelivered"):
            parts.append(f"{u['messages_undelivered']} of {u.get('messages', 0)} message(s) were not delivered")
        return (" and ".join(parts) + f" by the end of their run{where}; completion times and message delays "
                "cover the completed ones only")

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
    # a damaged directory (a copy cut short, a file from another tool): one
    # error naming the file, not a JSONDecodeError / polars traceback
    try:
        summary = json.loads(summary_file.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise SimulationError(f"{summary_file}: not valid JSON ({err}); the result directory is damaged: "
                              "run it again") from None
    if not isinstance(summary, dict):
        raise SimulationError(f"{summary_file}: not a summary mptlab wrote (expected a table, found "
                              f"{type(summary).__name__})")
    names = [n for n in STANDARD]
    for f in sorted(d.glob("*.parquet")) + sorted(d.glob("*.csv")):
        if f.stem not in names:
            names.append(f.stem)
    tables: Dict[str, pl.DataFrame] = {}
    for n in names:
        pq, csv = d / f"{n}.parquet", d / f"{n}.csv"
        f = pq if pq.is_file() else csv
        try:
            if pq.is_file():
                tables[n] = pl.read_parquet(pq)
            elif csv.is_file():
                tables[n] = _read_csv(n, csv)
        except (pl.exceptions.PolarsError, OSError) as err:
            raise SimulationError(f"{f}: cannot be read as table `{n}` ({type(err).__name__}: "
                                  f"{str(err).splitlines()[0] if str(err) else ''}); the result directory is "
                                  "damaged: run it again") from None
    return Results(tables, summary, d)
