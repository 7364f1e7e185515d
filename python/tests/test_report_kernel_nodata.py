"""Session 27, the kernel beside the simulator on no data (report/kernel.py):
a cell judged on one kernel run, a metric without a value on one side, an
interval whose bounds are NaN (null in JSON), a cell without compared
metrics, a seed whose cells all failed. Each is "not checkable" with the
reason, never "agree" / "disagree" and never "0 of 0 agree"; a kernel.json
of another shape is one message naming the key (docs/report.md, "Session
27: the kernel's verdicts on no data"). Every test here failed on main
7d4d8a8."""

import json
from pathlib import Path

import pytest

from mptlab.report.common import ReportInputError
from mptlab.report.kernel import judged, like_summary, load_kernel, section, verdicts

CRIT = "median ...: kernel/sim within 10 %; share ...: within 5 points"


def _ci(median, lo, hi, n, cov=0.75):
    return {"median": median, "lo": lo, "hi": hi, "n": n, "coverage": cov}


def _metric(name="delay_ms_median", sim=None, kernel=None, verdict="PASS", crit="kernel/sim within 10 %", **kw):
    m = {"metric": name, "sim": sim if sim is not None else _ci(77.0, 70.0, 80.0, 3),
         "kernel": kernel if kernel is not None else _ci(80.0, 79.0, 82.0, 3),
         "ratio": 80.0 / 77.0, "diff": None, "verdict": verdict, "criterion": crit}
    m.update(kw)
    return m


def _cell(point, verdict, metrics, **kw):
    c = {"seed": "000", "experiment": "seed000/video-wlan3g-tcp", "point": point, "point_id": point,
         "status": "ran", "verdict": verdict, "metrics": metrics}
    c.update(kw)
    return c


def _kern(cells, runs=3):
    return {"kernel_runs": runs, "kernel_wall_s": 1.0, "criteria": CRIT, "interval": "order statistics",
            "cells": cells}


def _table(html: str) -> str:
    return html[html.index("id='seed000-kernel-table'"):html.index("</table>")]


def test_one_kernel_run_is_not_checkable() -> None:
    # `reproduce --kernel --kernel-runs 1` (docs/data/seed000-kernel-2026-11-27
    # and others): the Rust judge's point verdict on the medians of one run
    # each was shown as "agree" / "disagree" and counted
    one = _ci(80.0, 80.0, 80.0, 1, 0.0)
    cells = [_cell("a", "agree", [_metric(sim=_ci(77.0, 77.0, 77.0, 1, 0.0), kernel=one)], decision="agree"),
             _cell("b", "disagree", [_metric(sim=_ci(40.0, 40.0, 40.0, 1, 0.0), kernel=one, verdict="FAIL",
                                             ratio=2.0)], decision="undecided",
                   undecided={"more_kernel_runs": 39, "why": "one kernel run: its spread is unknown"})]
    html = "\n".join(section("000", _kern(cells, runs=1)))
    assert "<b>0 of 2 agree like for like</b> with the simulator, 2 not checkable" in html, html
    t = _table(html)
    assert "<td>agree</td>" not in t and "<td>disagree" not in t
    assert t.count("<td>not checkable: delay_ms_median: 1 paired run: a median of one run has no spread") == 2
    # the metric's row says it too, with the criterion it could not apply
    assert "<td>not checkable: 1 paired run: a median of one run has no spread (at least 2 needed) " \
           "(kernel/sim within 10 %)</td>" in t
    # the Rust decision (kernel.json keeps it) is not said beside a cell not
    # checkable, as the verdict line does not count it (session 30)
    assert "undecided (about 39 more kernel runs)" not in t
    # counted as not checkable only, not again by its decision (session 31)
    assert verdicts(_kern(cells)) == {"000": {"ran, not checkable": 2}}
    assert like_summary(cells).startswith("0 of 2 cells agree like for like, 2 not checkable")


def test_a_metric_without_a_value_on_one_side_is_not_checkable() -> None:
    # every kernel run of the share unfinished: the Rust row is `info`, and the
    # cell "agree"d on its other metric alone
    cells = [_cell("a", "agree", [_metric(), _metric("fg_share_path2", kernel=None, verdict="info",
                                                     crit="within 5 points", ratio=None, diff=None)])]
    cells[0]["metrics"][1]["kernel"] = None
    v, why = judged(cells[0])
    assert v == "not checkable" and why == "fg_share_path2: no kernel value (no kernel run finished)", (v, why)
    t = _table("\n".join(section("000", _kern(cells))))
    assert "<td>not checkable: fg_share_path2: no kernel value (no kernel run finished)</td>" in t
    # and a simulated side without a value
    cells[0]["metrics"][1].update(kernel=_ci(0.4, 0.3, 0.5, 3), sim=None)
    assert judged(cells[0]) == ("not checkable", "fg_share_path2: no simulated value (no paired simulated run "
                                                 "finished)")
    # one metric failing on 3 paired runs still decides the cell "disagree",
    # whatever the other
    cells[0]["metrics"][0].update(verdict="FAIL", kernel=_ci(120.0, 110.0, 130.0, 3), ratio=1.56)
    cells[0]["verdict"] = "disagree"
    assert judged(cells[0]) == ("disagree", "")


def test_nan_bounds_are_not_checkable_and_do_not_break_the_shift() -> None:
    # NaN is written as null: the interval's bounds, and the shift's
    nan = _ci(80.0, None, None, 3, None)
    shift = {"scale": "ratio", "estimate": 1.04, "lo": None, "hi": None, "coverage": 0.9, "sim_runs": 3,
             "kernel_runs": 3}
    cells = [_cell("a", "agree", [_metric(kernel=nan, shift=shift)])]
    html = "\n".join(section("000", _kern(cells)))  # was: TypeError formatting None
    t = _table(html)
    assert "<td>80.0 ms [-, -] (n=3)</td>" in t
    assert "<td>no interval (its bounds are not numbers)</td>" in t
    assert "<td>not checkable: delay_ms_median: no interval (its bounds are not numbers)</td>" in t


def test_a_cell_without_compared_metrics_is_not_checkable() -> None:
    # the Rust side's `no verdict` (a summary.json missing) with its reason
    c = _cell("a", "no verdict", [], reason="summary.json of the simulated or the kernel runs missing")
    del c["metrics"]
    html = "\n".join(section("000", _kern([c])))
    assert "<b>0 of 1 agree like for like</b> with the simulator, 1 not checkable" in html
    assert ("<td>not checkable: summary.json of the simulated or the kernel runs missing</td></tr>"
            in _table(html))
    assert verdicts(_kern([c])) == {"000": {"ran, not checkable": 1}}


def test_a_seed_whose_cells_all_failed_gives_no_count_of_agreement() -> None:
    failed = {"seed": "000", "experiment": "seed000/file-wlan3g", "point": "size=1MB", "point_id": "x",
              "status": "failed", "reason": "run 0: netns gone"}
    html = "\n".join(section("000", _kern([failed, dict(failed, point="size=2MB")])))
    assert "0 of 0" not in html, html
    assert "<b>no kernel verdict</b>: not one cell ran on the kernel" in html
    assert "0 cannot run on the kernel, 2 failed" in html and "id='seed000-kernel-failed'" in html


def test_the_seeds_mechanism_on_one_kernel_run_is_not_counted_as_agreement() -> None:
    sub = [{"key": "transport.mptcp.scheduler", "scenario": "minrtt", "kernel": "upstream"}]
    one = _ci(80.0, 80.0, 80.0, 1, 0.0)
    c = _cell("a", "agree", [_metric(sim=_ci(78.0, 78.0, 78.0, 1, 0.0), kernel=one)], substituted=sub,
              seed_mechanism={"verdict": "agree", "metrics": []})
    s = like_summary([c])
    assert "(1 cells: 0 agree like for like; 0 agree with the simulator at the seed's settings" in s, s


@pytest.mark.parametrize("edit, key", [
    (lambda k: k.pop("cells"), "`cells`"),
    (lambda k: k.update(cells={"a": 1}), "`cells`"),
    (lambda k: k.pop("criteria"), "`criteria`"),
    (lambda k: k.pop("kernel_runs"), "`kernel_runs`"),
    (lambda k: k["cells"][0].pop("status"), "`cells[0].status`"),
    (lambda k: k["cells"][0].update(status="done"), "`cells[0].status`"),
    (lambda k: k["cells"][0].pop("seed"), "`cells[0].seed`"),
    (lambda k: k["cells"][0].update(metrics=[{"sim": None}]), "`cells[0].metrics[0].metric`"),
])
def test_a_kernel_json_of_another_shape_names_the_key(tmp_path: Path, edit, key: str) -> None:
    k = _kern([_cell("a", "agree", [_metric()])])
    edit(k)
    (tmp_path / "kernel.json").write_text(json.dumps(k))
    with pytest.raises(ReportInputError) as err:
        load_kernel(tmp_path)
    assert str(err.value).startswith(f"{tmp_path / 'kernel.json'}: key {key}"), err.value
    (tmp_path / "kernel.json").write_text("[]")
    with pytest.raises(ReportInputError, match="key `cells`"):
        load_kernel(tmp_path)
