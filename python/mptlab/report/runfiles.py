"""Per-run tables of a sweep (``DIR/runs/<seed>/<file>/runs/<point>/run-<r>.json``,
written by the sweep store) for the sections that need more than the
summary metrics: 1 s throughput series (seeds 003 and 004) and per-flow rows
(background flows of seed 004). Standard library and numpy only."""

from __future__ import annotations

from .common import REDO_MISSING, REDO_RUN, ReportInputError, read_json, read_summary
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import numpy as np


def _summary(out: Path, seed: str, stem: str) -> Tuple[Path, Optional[Dict[str, Any]]]:
    sf = Path(out) / "runs" / f"seed{seed}" / stem / "summary.json"
    return sf, (read_summary(sf) if sf.exists() else None)


def point_ids(out: Path, seed: str, stem: str) -> Dict[str, Dict[str, Any]]:
    """point id -> axis values of one library file's sweep."""
    _, summ = _summary(out, seed, stem)
    if summ is None:
        return {}
    return {p["point"]: p["values"] for p in summ["points"]}


def load_tables(out: Path, seed: str, stem: str, point: str, run: int) -> Optional[Dict[str, Dict[str, list]]]:
    """The run's tables as {table: {column: values}}; None if the sweep's
    summary.json does not list the run (a caller counting runs up stops
    there). A run the summary lists whose file is gone raises
    :class:`ReportInputError`: the summary and the figures drawn from the
    run files would otherwise disagree, the missing run silently left out
    (session 26)."""
    f = Path(out) / "runs" / f"seed{seed}" / stem / "runs" / point / f"run-{run}.json"
    if not f.exists():
        sf, summ = _summary(out, seed, stem)
        listed = summ is not None and any(pt["point"] == point and any(pr.get("run") == run for pr in pt["per_run"])
                                          for pt in summ["points"])
        if listed:
            raise ReportInputError(f"{f}: missing, though {sf} lists run {run} of point `{point}`: {REDO_MISSING}")
        return None
    d = read_json(f, REDO_RUN)
    # valid JSON of another shape: the key named, not a KeyError (session 27)
    if not isinstance(d, dict) or not isinstance(d.get("tables"), list):
        raise ReportInputError(f"{f}: key `tables` (a list of tables) is missing or of another type; it is not a "
                               f"run file `mptlab reproduce` wrote: {REDO_RUN}")
    for i, t in enumerate(d["tables"]):
        if not isinstance(t, dict) or not isinstance(t.get("name"), str) or not isinstance(t.get("columns"), list) \
                or not all(isinstance(c, dict) and isinstance(c.get("name"), str) and isinstance(c.get("values"), list)
                           for c in t["columns"]):
            raise ReportInputError(f"{f}: key `tables[{i}]` (a table with `name` and `columns`, each with `name` and "
                                   f"`values`) is missing or of another type; it is not a run file `mptlab reproduce` "
                                   f"wrote: {REDO_RUN}")
    return {t["name"]: {c["name"]: c["values"] for c in t["columns"]} for t in d["tables"]}


def throughput_series(tables: Dict[str, Dict[str, list]], label: str, side: str) -> np.ndarray:
    """(t_s, Mbit/s) of a flow's payload sent per sample interval, summed over
    its paths and over its failover flow if any (retransmissions included, like the interface counters of the
    papers' ifstat / NetPerfMeter plots). Shape (n, 2)."""
    ts = tables.get("timeseries", {})
    acc: Dict[float, float] = {}
    for t, lab, sd, m, v in zip(ts.get("t_ms", []), ts.get("label", []), ts.get("side", []),
                                ts.get("metric", []), ts.get("value", [])):
        # a failover transfer continues on a second flow `<label>-failover`
        if (lab == label or lab == label + "-failover") and sd == side and m == "send_mbit" and v is not None:
            acc[t] = acc.get(t, 0.0) + v
    if not acc:
        return np.zeros((0, 2))
    ks = sorted(acc)
    return np.array([[k / 1000.0, acc[k]] for k in ks])


def flow_rows(tables: Dict[str, Dict[str, list]]) -> List[Dict[str, Any]]:
    fl = tables.get("flows", {})
    cols = list(fl)
    n = len(fl.get("flow", []))
    return [{c: fl[c][i] for c in cols} for i in range(n)]


def window_mean(series: np.ndarray, t0: float, t1: float) -> float:
    """Mean rate of the samples with t0 < t <= t1 (each sample covers the
    interval before its time)."""
    if len(series) == 0:
        return float("nan")
    m = (series[:, 0] > t0) & (series[:, 0] <= t1 + 1e-9)
    return float(series[m, 1].mean()) if m.any() else float("nan")
