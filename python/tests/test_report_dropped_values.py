"""Session 28: a value missing from a run is neither read as 0 nor
dropped without a word (docs/report.md "Session 28: ..."). Each section is
fed a few synthetic runs, as `report.runfiles` loads them; each test failed
on main ab5c5f6."""

from pathlib import Path
from typing import Any, Dict, List, Optional

from mptlab.report import seed001, seed002, seed003
from mptlab.report.common import Run

MB = 1024 * 1024


def _run(seed: str, stem: str, values: Dict[str, Any], run: int, metrics: Dict[str, Optional[float]]) -> Run:
    return Run(seed=seed, stem=stem, values=values, run=run, rng_seed=1000 + run, metrics=metrics)


def test_seed003_ku_hig_with_a_tcp_path_without_goodput_is_not_checkable(tmp_path: Path) -> None:
    # KU -> HiG: one TCP Cubic path with goodput, the other (PowerTech) with
    # none in any run; the worst TCP path was min() over a NaN mean and the
    # claim was judged ("partly", "TCP bad 8.00") as if it had two paths
    runs: List[Run] = []
    for r in range(3):
        for sp, g in ((1, 8.0), (2, None)):
            runs.append(_run("003", "kuhig", {"transport.protocol": "tcp", "transport.cc": "cubic",
                                               "transport.path": 1, "transport.server_path": sp}, r,
                             {"fg_throughput_mbit": g}))
            runs.append(_run("003", "kuhig", {"transport.protocol": "mptcp", "transport.mptcp.path_manager": "fullmesh",
                                               "transport.cc": "cubic", "transport.path": 1,
                                               "transport.server_path": sp}, r, {"fg_throughput_mbit": 7.0}))
    (tmp_path / "figures").mkdir()
    v = seed003.section({}, runs, [], tmp_path / "figures").verdicts["s003-ku-hig-below-best"]
    assert v[0] == "not checkable" and "TCP Cubic on KanREN->PowerTech: no goodput in any run" in v[1], v


def _tlp_run(stem: str, run: int, **m: Optional[float]) -> Run:
    return _run("001", stem, {"transport.mptcp.tlp": "subflow", "profile.altpath.delay_ms": 20.0}, run, m)


def test_seed001_a_missing_retransmission_count_is_not_read_as_0(tmp_path: Path) -> None:
    # an RTO with the retransmission counter missing was counted as "an RTO
    # without a retransmission on the original subflow" (None or 0)
    ok = [_tlp_run("failure-10seg", r, fg_rto_events=1, fg_bytes_reinjected=1000, fg_retrans_rto=2)
          for r in range(2)]
    lacking = _tlp_run("failure-10seg", 2, fg_rto_events=1, fg_bytes_reinjected=1000, fg_retrans_rto=None)
    v = seed001.section({}, ok + [lacking], [], tmp_path).verdicts["s001-linux-loss-recovery-heuristic"]
    assert v[0] == "reproduced", v
    assert "1 run(s) left out for lacking fg_retrans_rto (in failure-10seg)" in v[1], v
    assert "0 runs had an RTO without a retransmission" in v[1], v
    # every run lacking a counter: not checkable, not "reproduced" on none
    v = seed001.section({}, [lacking], [], tmp_path).verdicts["s001-linux-loss-recovery-heuristic"]
    assert v[0] == "not checkable" and "lacking fg_retrans_rto" in v[1], v


def _dl(size: int, proto: str, path: int, run: int, t: Optional[float]) -> Run:
    return _run("002", "sprint", {"transport.protocol": proto, "transport.path": path, "traffic.size_bytes": size},
                run, {"completion_time_ms": t, "transfers": 1, "transfers_unfinished": 0 if t else 1})


def test_seed002_a_size_left_out_for_no_value_is_named(tmp_path: Path) -> None:
    # 1 MB judged on 3 paired runs; at 32 MB no TCP-over-3G download finished:
    # the claim said "for 1 of 1 file sizes" without naming 32 MB
    runs = []
    for r in range(3):
        for size, slow in ((MB, 3000.0 + r), (32 * MB, None)):
            runs += [_dl(size, "tcp", 2, r, slow), _dl(size, "tcp", 1, r, 1000.0 + 10 * r),
                     _dl(size, "mptcp", 1, r, 900.0 + 10 * r)]
    (tmp_path / "figures").mkdir()
    v = seed002.section({}, runs, [], tmp_path / "figures").verdicts["s002-3g-wifi-reduces-latency"]
    assert "for 1 of 1 file sizes" in v[1], v
    assert "left out, fewer than 2 paired runs with a completion time on each side: 32 MB" in v[1], v


def test_unfinished_work_without_a_recorded_total_is_still_counted() -> None:
    # a run with 2 unfinished transfers and no `transfers` key: the
    # Unfinished work table said "-" (the total read as 0 hid the count)
    from mptlab.report.common import unfinished_rows
    r = _run("000", "f", {"x": 1}, 0, {"transfers_unfinished": 2, "messages_undelivered": 0})
    assert unfinished_rows([r]) == [["000", "f", "x=1", 1, 1, "2 (total not recorded)", "-"]]
    r.metrics.update(transfers=5, messages_undelivered=1200, messages=4000)
    assert unfinished_rows([r]) == [["000", "f", "x=1", 1, 1, "2 of 5", "1,200 of 4,000"]]
