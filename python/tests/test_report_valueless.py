"""Session 27: a sweep point whose runs all lack a value (no page finished
in any run, no message delivered). The section had nothing to judge, gave
the claim no verdict, and the report stopped (exit 2) blaming the registry
("does its report module look for these runs under another name?"). The
claim is now "not checkable", naming the point; the unfinished work is in
the report's Unfinished work section. Fails on main 7d4d8a8."""

import json
from pathlib import Path

from mptlab.report import generate

from _repro import reproduce


def test_a_point_without_a_value_in_any_run_makes_its_claims_not_checkable(tmp_path: Path) -> None:
    out = reproduce("000", tmp_path / "out", "wikipedia-wlanwlan")
    # TCP on path 1 without background: its page finished in no run
    sf = out / "runs" / "seed000" / "wikipedia-wlanwlan-tcp" / "summary.json"
    summ = json.loads(sf.read_text())
    pt = next(p for p in summ["points"] if p["values"] == {"background.enabled": False, "transport.path": 1,
                                                           "transport.protocol": "tcp"})
    for pr in pt["per_run"]:
        pr["metrics"].update(completion_time_ms=None, transfers_unfinished=pr["metrics"].get("transfers") or 1)
    sf.write_text(json.dumps(summ))
    generate(out)  # was: RegistryError, exit 2
    claims = {c["id"]: c for c in json.loads((out / "verdicts.json").read_text())["claims"]}
    c = claims["s000-fig19-mptcp-wikipedia-nobg-wlanwlan"]
    assert c["verdict"] == "not checkable", c
    assert ("no value in any run of completion_time_ms at point (background.enabled=False, transport.path=1, "
            "transport.protocol=tcp) in seed000/wikipedia-wlanwlan-tcp") in c["detail"], c
    # the unfinished transfers are reported, not averaged away
    assert "id='unfinished-table'" in (out / "report.html").read_text()


def test_seed002_with_no_download_finished_draws_no_figure_and_judges_nothing(tmp_path: Path) -> None:
    # a pass too short for any download to finish: the download-time figure
    # (log axes over no data) raised matplotlib's "cannot be log-scaled", and
    # s002-mptcp-close-to-best-path said "not reproduced: within 1.2 x in 0 of
    # N cells; median ratio nan"
    out = reproduce("002", tmp_path / "out", "att")
    for sf in (out / "runs" / "seed002").glob("*/summary.json"):
        summ = json.loads(sf.read_text())
        for pt in summ["points"]:
            for pr in pt["per_run"]:
                pr["metrics"].update(completion_time_ms=None, transfers_unfinished=pr["metrics"].get("transfers") or 1)
        sf.write_text(json.dumps(summ))
    generate(out)
    claims = {c["id"]: c for c in json.loads((out / "verdicts.json").read_text())["claims"]}
    c = claims["s002-mptcp-close-to-best-path"]
    assert c["verdict"] == "not checkable" and "no single-path download finished in any run" in c["detail"], c
    html = (out / "report.html").read_text()
    assert "id='s002-no-download-time'" in html and "s002-download-time.png" not in html


def test_a_summary_point_without_runs_or_with_a_run_of_another_shape_names_the_key(tmp_path: Path) -> None:
    # a point whose `per_run` is empty was silently left out (seed 001's
    # s001-linux-loss-recovery-heuristic went from partly to reproduced on the
    # other points; seeds 003 and 004 stopped with "look for these runs under
    # another name?"); a run without `run` or `metrics` was a KeyError
    from mptlab.report.common import ReportInputError, read_summary
    ok = {"points": [{"point": "p", "values": {}, "per_run": [{"run": 0, "seed": 1, "metrics": {}}]}]}
    sf = tmp_path / "summary.json"
    sf.write_text(json.dumps(ok))
    read_summary(sf)
    for edit, key in [(lambda pt: pt.update(per_run=[]), "`points[0].per_run`"),
                      (lambda pt: pt["per_run"][0].pop("run"), "`points[0].per_run[0].run`"),
                      (lambda pt: pt["per_run"][0].pop("metrics"), "`points[0].per_run[0].metrics`"),
                      (lambda pt: pt["per_run"][0].pop("seed"), "`points[0].per_run[0].seed`")]:
        bad = json.loads(json.dumps(ok))
        edit(bad["points"][0])
        sf.write_text(json.dumps(bad))
        try:
            read_summary(sf)
            raise AssertionError(f"read: {key}")
        except ReportInputError as err:
            assert str(err).startswith(f"{sf}: key {key}"), err


def test_a_run_file_of_another_shape_names_the_key(tmp_path: Path) -> None:
    # valid JSON without `tables`, or a table without columns: was a KeyError
    from mptlab.report.common import ReportInputError
    from mptlab.report.runfiles import load_tables
    f = tmp_path / "runs" / "seed004" / "normal" / "runs" / "p1" / "run-0.json"
    f.parent.mkdir(parents=True)
    for doc, key in [({}, "`tables`"), ([], "`tables`"), ({"tables": [{"name": "flows"}]}, "`tables[0]`"),
                     ({"tables": [{"name": "flows", "columns": [{"values": []}]}]}, "`tables[0]`")]:
        f.write_text(json.dumps(doc))
        try:
            load_tables(tmp_path, "004", "normal", "p1", 0)
            raise AssertionError(f"read: {doc}")
        except ReportInputError as err:
            assert str(err).startswith(f"{f}: key {key}"), err
    f.write_text(json.dumps({"tables": [{"name": "flows", "columns": [{"name": "flow", "values": [1]}]}]}))
    assert load_tables(tmp_path, "004", "normal", "p1", 0) == {"flows": {"flow": [1]}}


def test_seed002_table6_rtt_without_an_rtt_is_not_checkable(tmp_path: Path) -> None:
    # MPTCP runs without a mean RTT on either path: "0 of 0 RTT values within
    # +-30 %" was `within == total`, "reproduced"
    out = reproduce("002", tmp_path / "out", "att")
    for sf in (out / "runs" / "seed002").glob("*/summary.json"):
        summ = json.loads(sf.read_text())
        for pt in summ["points"]:
            for pr in pt["per_run"]:
                pr["metrics"].update(srtt_ms_mean_path1=None, srtt_ms_mean_path2=None)
        sf.write_text(json.dumps(summ))
    generate(out)
    claims = {c["id"]: c for c in json.loads((out / "verdicts.json").read_text())["claims"]}
    c = claims["s002-table6-rtt"]
    assert c["verdict"] == "not checkable" and c["detail"].startswith("0 of 0 RTT values"), c


def test_seed002_table6_claims_without_out_of_order_values_are_not_checkable(tmp_path: Path) -> None:
    # MPTCP downloads without out-of-order metrics: their means were NaN, NaN
    # compared False and the claims were judged on no data ("nan% of the
    # segments arrive out of order", "not reproduced")
    out = reproduce("002", tmp_path / "out")
    for sf in (out / "runs" / "seed002").glob("*/summary.json"):
        summ = json.loads(sf.read_text())
        for pt in summ["points"]:
            for pr in pt["per_run"]:
                pr["metrics"].update(ofo_delay_ms_mean=None, ofo_fraction=None, ofo_fraction_over_150ms=None)
        sf.write_text(json.dumps(summ))
    generate(out)
    claims = {c["id"]: c for c in json.loads((out / "verdicts.json").read_text())["claims"]}
    for cid in ("s002-table6-ofo", "s002-sprint-75pct-ooo", "s002-sprint-20pct-ofo-over-150ms",
                "s002-sprint-e2e-200ms", "s002-ofo-from-slow-path"):
        c = claims[cid]
        assert c["verdict"] == "not checkable" and "nan" not in c["detail"], c
    # the RTT claim reads other metrics: still judged
    assert claims["s002-table6-rtt"]["verdict"] != "not checkable"
