"""Session 27, seed 004 on no data: a claim paired by run index whose runs
share no index averaged an empty list (numpy's "Mean of empty slice", NaN)
and gave a verdict; it is now "not checkable" with the reason. The runs are
built here (the library's runs always pair). Each test failed on main
7d4d8a8."""

import json
from pathlib import Path
from typing import Any, Dict, List

import pytest

from mptlab.report import seed004
from mptlab.report.common import Run

TCP1 = {"transport.protocol": "tcp", "transport.path": 1}
TCP2 = {"transport.protocol": "tcp", "transport.path": 2}
LIA = {"transport.protocol": "mptcp", "transport.cc": "lia"}


def _runs(stem: str, points: Dict[str, Any]) -> List[Run]:
    """Runs of `stem`: per point (values, run indices, goodput)."""
    return [Run(seed="004", stem=stem, values=v, run=r, rng_seed=r, metrics={"fg_throughput_mbit": mbit,
                                                                               "sim_time_s": 600.0})
            for v, idx, mbit in points.values() for r in idx]


def _section(tmp_path: Path, runs: List[Run]) -> Dict[str, Any]:
    figdir = tmp_path / "figures"
    figdir.mkdir(parents=True)
    return seed004.section({"quick": True}, runs, [], figdir).verdicts


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_sum_of_paths_without_a_run_in_common_is_not_checkable(tmp_path: Path) -> None:
    # TCP WiFi ran 0-1, TCP 3G 2-3, MPTCP 4-5: the ratio of means over the
    # runs all three have was a mean of nothing, "not reproduced"
    runs = _runs("normal", {"tcp1": (TCP1, [0, 1], 3.0), "tcp2": (TCP2, [2, 3], 3.0), "lia": (LIA, [4, 5], 5.0)})
    v = _section(tmp_path, runs)
    verdict, detail = v["s004-mptcp-sum-of-paths"]
    assert verdict == "not checkable", v
    assert "no run in common between MPTCP LIA (2 runs), TCP WiFi (2) and TCP 3G (2)" in detail, detail
    # the run-by-run comparison with the better TCP: not checkable either
    assert v["s004-mptcp-beats-single"][0] == "not checkable", v
    # the same numbers paired: 5 / (3 + 3) = 0.83, "partly" (as before)
    runs = _runs("normal", {"tcp1": (TCP1, [0, 1], 3.0), "tcp2": (TCP2, [0, 1], 3.0), "lia": (LIA, [0, 1], 5.0)})
    verdict, detail = _section(tmp_path / "paired", runs)["s004-mptcp-sum-of-paths"]
    assert verdict == "partly" and "= 0.83" in detail, detail


def _heavy(tmp_path: Path, idx: Dict[str, List[int]]) -> List[Run]:
    """A `heavy` sweep on disk (summary.json, run files with the background
    flows' bytes) and its runs: TCP WiFi and MPTCP LIA with run indices
    `idx`."""
    out = tmp_path
    base = out / "runs" / "seed004" / "heavy"
    points, runs = [], []
    for pid, (v, key) in {"p1": (TCP1, "tcp1"), "p2": (LIA, "lia")}.items():
        per_run = []
        for r in idx[key]:
            m = {"fg_throughput_mbit": 2.0, "sim_time_s": 600.0}
            per_run.append({"run": r, "seed": r, "metrics": m})
            runs.append(Run(seed="004", stem="heavy", values=v, run=r, rng_seed=r, metrics=m))
            f = base / "runs" / pid / f"run-{r}.json"
            f.parent.mkdir(parents=True, exist_ok=True)
            flows = {"name": "flows", "columns": [{"name": "flow", "values": [1]},
                                                  {"name": "role", "values": ["background"]},
                                                  {"name": "bytes_delivered", "values": [30_000_000]}]}
            f.write_text(json.dumps({"tables": [flows]}))
        points.append({"point": pid, "values": v, "per_run": per_run})
    (base / "summary.json").write_text(json.dumps({"points": points}))
    return runs


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_heavy_load_no_harm_without_paired_runs_is_not_checkable(tmp_path: Path) -> None:
    # cross traffic with TCP in runs 0-1, with MPTCP in runs 2-3: paired_r of
    # two empty arrays, NaN, "not reproduced"
    v = _section(tmp_path, _heavy(tmp_path, {"tcp1": [0, 1], "lia": [2, 3]}))
    verdict, detail = v["s004-heavy-load-no-harm"]
    assert verdict == "not checkable" and "0 paired run(s) of the cross traffic" in detail, v
    # paired, the same bytes in every run: r = 0 with a zero-width CI, "reproduced" (as before)
    v = _section(tmp_path / "paired", _heavy(tmp_path / "paired", {"tcp1": [0, 1], "lia": [0, 1]}))
    assert v["s004-heavy-load-no-harm"][0] == "reproduced", v


def _handover(tmp_path: Path, rates: Dict[int, List[float]]) -> List[Run]:
    """A `handover` sweep on disk: TCP on WiFi, per run its 1 s send rate
    (Mbit/s) at t = 1, 2, ... s."""
    base = tmp_path / "runs" / "seed004" / "handover"
    per_run, runs = [], []
    for r, rate in rates.items():
        m = {"fg_throughput_mbit": 2.0, "sim_time_s": float(len(rate))}
        per_run.append({"run": r, "seed": r, "metrics": m})
        runs.append(Run(seed="004", stem="handover", values=TCP1, run=r, rng_seed=r, metrics=m))
        n = len(rate)
        ts = {"name": "timeseries", "columns": [
            {"name": "t_ms", "values": [1000 * (i + 1) for i in range(n)]},
            {"name": "label", "values": ["bulk"] * n}, {"name": "side", "values": ["server"] * n},
            {"name": "metric", "values": ["send_mbit"] * n}, {"name": "value", "values": rate}]}
        f = base / "runs" / "p1" / f"run-{r}.json"
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(json.dumps({"tables": [ts]}))
    (base / "summary.json").write_text(json.dumps({"points": [{"point": "p1", "values": TCP1, "per_run": per_run}]}))
    return runs


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_handover_tcp_not_back_before_the_end_is_counted(tmp_path: Path) -> None:
    # 4 Mbit/s until the outage at 100 s, nothing after it (not back by 150 s):
    # np.nanmean over no recovery time ("Mean of empty slice", "back ... nan s")
    dead = [4.0] * 100 + [0.0] * 50
    v = _section(tmp_path, _handover(tmp_path, {0: dead, 1: dead}))
    detail = v["s004-handover-tcp-zero"][1]
    assert "nan" not in detail and "is not back at half its earlier rate by the end of 2 of 2 run(s)" in detail, detail
    # one run back 5 s after the WiFi returns: its time, and the other counted
    back = [4.0] * 100 + [0.0] * 34 + [4.0] * 16
    v = _section(tmp_path / "one", _handover(tmp_path / "one", {0: back, 1: dead}))
    detail = v["s004-handover-tcp-zero"][1]
    assert ("is back at half its earlier rate 5.0 s after the WiFi returns (RTO backoff) in 1 of 2 runs; "
            "not back at half its earlier rate by the end of 1 of 2 run(s)") in detail, detail
