"""The kernel beside the simulator (`reproduce --kernel`): the section
rendered from a fixture kernel.json, and a report without kernel.json left
exactly as it was."""

import json
import re
import shutil
from pathlib import Path

from mptlab.report import generate
from mptlab.report.common import ReportInputError
from mptlab.report.kernel import like_summary, load_kernel, section, verdicts

from _repro import reproduce

CRIT = "median ...: kernel/sim within 10 %; share ...: within 5 points"


def _ci(median, lo, hi, n, cov=0.75):
    return {"median": median, "lo": lo, "hi": hi, "n": n, "coverage": cov}


def _kernel() -> dict:
    ran_ok = {"seed": "000", "experiment": "seed000/video-wlan3g-tcp", "point": "protocol=mptcp,cc=cubic",
              "point_id": "a1", "status": "ran", "verdict": "agree", "dir": "kernel/seed000/video-wlan3g-tcp/a1",
              "metrics": [
                  {"metric": "delay_ms_median", "sim": _ci(77.0, 70.0, 80.0, 3), "kernel": _ci(80.0, 79.0, 82.0, 3),
                   "sim_all": _ci(76.0, 72.0, 79.0, 10, 0.979),
                   "ratio": 80.0 / 77.0, "diff": None, "verdict": "PASS", "criterion": "kernel/sim within 10 %"},
                  {"metric": "fg_share_path2", "sim": _ci(0.45, 0.4, 0.5, 3), "kernel": _ci(0.48, 0.47, 0.5, 3),
                   "ratio": None, "diff": 0.03, "verdict": "PASS", "criterion": "within 5 points"}]}
    ran_bad = dict(ran_ok, point="protocol=mptcp,cc=cubic,scheduler=upstream", point_id="a2", verdict="disagree",
                   metrics=[dict(ran_ok["metrics"][0]),
                            dict(ran_ok["metrics"][1], kernel=_ci(0.15, 0.1, 0.2, 3), diff=-0.30, verdict="FAIL")])
    failed = {"seed": "000", "experiment": "seed000/file-wlan3g", "point": "size=<1MB>", "point_id": "a3",
              "status": "failed", "reason": "run 0: netns <boom> & gone"}
    sctp = {"seed": "000", "experiment": "seed000/video-wlan3g-sctp", "point": "protocol=sctp", "point_id": "a4",
            "status": "refused", "reason": "transport.protocol = \"sctp\" cannot be emulated"}
    sctp2 = dict(sctp, point="protocol=cmt-sctp", point_id="a5")
    lia = dict(sctp, experiment="seed000/video-wlan3g-tcp", point="cc=lia", point_id="a6",
               reason="transport.cc = \"lia\": coupled congestion controls")
    skipped = dict(ran_ok, point="x", point_id="a7", status="skipped", reason="left out by --kernel-only")
    del skipped["metrics"], skipped["verdict"]
    other = dict(lia, seed="004", experiment="seed004/normal")
    return {"kernel_runs": 3, "kernel_wall_s": 1.0, "criteria": CRIT, "interval": "order statistics",
            "pairing": "paired by run index",
            "cells": [ran_ok, ran_bad, failed, sctp, sctp2, lia, skipped, other]}


def test_section_shows_both_medians_the_verdicts_and_every_refusal() -> None:
    html = "\n".join(section("000", _kernel()))
    assert "id='seed000-kernel'" in html
    assert "the kernel ran <b>2</b> (3 run(s) each" in html
    assert "<b>1 of 2 agree like for like</b>" in html
    # no cell ran with a substitution: no seed-mechanism column
    assert "seed's mechanism" not in html
    assert "3 cannot run on the kernel, 1 failed, 1 were left out by --kernel-only" in html
    t = html[html.index("id='seed000-kernel-table'"):html.index("</table>")]
    # one row per compared metric: both medians with interval, runs, coverage;
    # the judged simulator median is over the kernel's run indices, the one
    # over all simulated runs beside the verdict
    assert "<th>sim median, same runs</th>" in t and "<th>sim median, all runs</th>" in t
    assert "<td>77.0 ms [70.0, 80.0] (n=3, 75 %)</td><td>80.0 ms [79.0, 82.0] (n=3, 75 %)</td><td>x1.039</td>" in t
    assert "<td>PASS (kernel/sim within 10 %)</td><td>76.0 ms [72.0, 79.0] (n=10, 98 %)</td>" in t
    assert "Pairing: paired by run index." in html
    assert "<td>45.0 % [40.0, 50.0] (n=3, 75 %)</td><td>48.0 % [47.0, 50.0] (n=3, 75 %)</td><td>+3.0 points</td>" in t
    # (a single kernel run has no interval and no verdict: test_report_kernel_nodata.py)
    assert "<td>15.0 % [10.0, 20.0] (n=3, 75 %)</td><td>-30.0 points</td><td>FAIL (within 5 points)</td>" in t
    assert len(re.findall(r"<td>agree</td>", t)) == 1 and len(re.findall(r"<td>disagree</td>", t)) == 1
    # the failed cell is listed with its error (escaped), not averaged away
    f = html[html.index("id='seed000-kernel-failed'"):]
    assert "<td>size=&lt;1MB&gt;</td><td>failed</td><td>run 0: netns &lt;boom&gt; &amp; gone</td>" in f
    # refusals grouped by reason, each cell named
    r = html[html.index("id='seed000-kernel-refused'"):]
    assert r.count("cannot be emulated") == 1 and "2 cell(s)" in r and "protocol=cmt-sctp" in r
    assert "coupled congestion controls" in r and "cc=lia" in r
    # other seeds' cells stay in their own section
    assert "seed004" not in html and section("001", _kernel()) == []


def test_a_cell_with_runs_that_did_not_finish_says_how_many() -> None:
    k = _kernel()
    note = ("1 of 5 simulated run(s) did not finish (run 4), 0 of 5 kernel run(s); "
            "judged on the runs both finished")
    k["cells"][1] = dict(k["cells"][1], unfinished={"kernel_runs": 5, "sim": [4], "kernel": [], "note": note})
    html = "\n".join(section("000", k))
    t = html[html.index("id='seed000-kernel-table'"):html.index("</table>")]
    assert f"<td>disagree [{note}]</td>" in t
    assert "<td>agree</td>" in t
    assert "(1 of them with runs that did not finish on one side: judged on the runs both finished" in html
    # without `unfinished` nothing is said
    assert "did not finish" not in "\n".join(section("000", _kernel()))


def test_cells_run_differently_are_listed_with_what_differs() -> None:
    k = _kernel()
    why = "the kernel sends with Linux 6.18's scheduler and send path, not the scenario's v0.9x \"minrtt\""
    k["cells"][1] = dict(k["cells"][1], differs=why)
    html = "\n".join(section("000", k))
    d = html[html.index("id='seed000-kernel-differs'"):]
    d = d[:d.index("</ul></details></li>")]
    assert "Cells the kernel ran differently from the scenario (1)" in html
    assert "6.18&#x27;s scheduler and send path" in d and "1 cell(s)" in d
    # the cell is named with its verdict; the agreeing cell without `differs` is not listed
    assert "protocol=mptcp,cc=cubic,scheduler=upstream (disagree)" in d
    assert "(agree)" not in d
    # without `differs` there is no such list
    assert "kernel-differs" not in "\n".join(section("000", _kernel()))


def test_verdict_counts_per_seed() -> None:
    v = verdicts(_kernel())
    assert v == {"000": {"ran, agree": 1, "ran, disagree": 1, "failed": 1, "refused": 3, "skipped": 1},
                 "004": {"refused": 1}}


def test_report_without_kernel_json_is_unchanged_and_with_it_has_the_section(tmp_path) -> None:
    out = reproduce("004", tmp_path / "out", "normal")
    assert load_kernel(out) is None
    before = (out / "report.html").read_text()
    verdicts_before = json.loads((out / "verdicts.json").read_text())
    assert "kernel" not in verdicts_before and "-kernel'" not in before
    # regenerated without kernel.json: byte for byte the same
    generate(out)
    assert (out / "report.html").read_text() == before
    k = _kernel()
    k["cells"] = [c for c in k["cells"] if c["seed"] == "004"]
    (out / "kernel.json").write_text(json.dumps(k))
    generate(out)
    html = (out / "report.html").read_text()
    assert "id='seed004-kernel'" in html and "Cells the kernel cannot run (1)" in html
    # after the seed's own section, before the claims
    assert html.index("id='seed004'") < html.index("id='seed004-kernel'") < html.index("id='claims'")
    assert json.loads((out / "verdicts.json").read_text())["kernel"] == {"004": {"refused": 1}}
    # kernel.json judged against another build's simulated runs (an older
    # pass left in the directory, or a file without `model`): said above the
    # kernel sections
    model = json.loads((out / "reproduce.json").read_text())["model"]
    for was in ("0123456789abcdef0123456789abcdef", None):
        k2 = dict(k, model=was) if was else k
        (out / "kernel.json").write_text(json.dumps(k2))
        generate(out)
        html = (out / "report.html").read_text()
        assert "id='kernel-stale'" in html and f"model sources {model}" in html
        assert html.index("id='kernel-stale'") < html.index("id='seed004-kernel'")
    (out / "kernel.json").write_text(json.dumps(dict(k, model=model)))
    generate(out)
    assert "id='kernel-stale'" not in (out / "report.html").read_text()
    # a damaged kernel.json: one message naming it
    (out / "kernel.json").write_text('{"cells": [')
    try:
        generate(out)
        raise AssertionError("a damaged kernel.json was read")
    except ReportInputError as err:
        assert str(err).startswith(f"{out / 'kernel.json'}: not valid JSON"), err
    shutil.rmtree(out)


def test_no_kernel_json_loads_none(tmp_path: Path) -> None:
    assert load_kernel(tmp_path) is None


def test_rejudged_kernel_json_says_where_its_kernel_runs_come_from() -> None:
    k = _kernel()
    assert "Re-judged" not in "\n".join(section("000", k))
    k["rejudged_from"] = "docs/data/seed000-kernel-2026-11-27/kernel.json"
    html = "\n".join(section("000", k))
    assert ("Re-judged: the kernel runs saved in docs/data/seed000-kernel-2026-11-27/kernel.json "
            "against these simulated runs (reproduce --kernel-from).") in html


def test_a_cell_run_with_a_substitution_is_shown_like_for_like_with_the_seeds_mechanism() -> None:
    """Issue 15 (like13): the judged simulator median of a cell the kernel ran
    with a substitution is the one with the kernel's settings; the seed's
    settings are beside it, with seed / like for like, not as agreement."""
    k = _kernel()
    sub = [{"key": "transport.mptcp.scheduler", "scenario": "minrtt", "kernel": "upstream", "why": "one scheduler"}]
    mech = {"verdict": "disagree", "metrics": [
        {"metric": "delay_ms_median", "sim": _ci(40.0, 38.0, 41.0, 3), "like": _ci(77.0, 70.0, 80.0, 3),
         "ratio": 40.0 / 77.0, "diff": None, "kernel_ratio": 2.0, "kernel_diff": None, "kernel_verdict": "FAIL"},
        {"metric": "fg_share_path2", "sim": _ci(0.10, 0.05, 0.2, 3), "like": _ci(0.45, 0.4, 0.5, 3),
         "ratio": None, "diff": -0.35, "kernel_ratio": None, "kernel_diff": 0.38, "kernel_verdict": "FAIL"}]}
    k["cells"][0] = dict(k["cells"][0], substituted=sub, seed_mechanism=mech)
    html = "\n".join(section("000", k))
    assert "<b>1 of 2 agree like for like</b> with the simulator; <span id='seed000-kernel-like'>" in html
    assert like_summary([c for c in k["cells"] if c["status"] == "ran"]).startswith(
        "1 of 2 cells agree like for like; 1 cells ran with a substitution")
    like = html[html.index("id='seed000-kernel-like'"):]
    like = like[:like.index("</span>")]
    assert ("1 cells ran with a substitution: transport.mptcp.scheduler = "
            "minrtt -&gt; upstream (1 cells: 1 agree like for like; 0 agree with the simulator at the seed&#x27;s "
            "settings, the seed&#x27;s mechanism, not agreement); 0 of 1 cells without one agree") in like
    t = html[html.index("id='seed000-kernel-table'"):html.index("</table>")]
    assert "<th>seed&#x27;s mechanism: sim at the seed&#x27;s settings, same runs (not judged)</th>" in t
    assert "<td>agree (like for like: transport.mptcp.scheduler = minrtt -&gt; upstream)</td>" in t
    assert "<td>40.0 ms [38.0, 41.0] (n=3, 75 %), seed / like for like x0.519</td>" in t
    assert "<td>10.0 % [5.0, 20.0] (n=3, 75 %), seed / like for like -35.0 points</td>" in t
    # the cell without a substitution: nothing in that column
    assert t.count("<td>-</td></tr>") >= 2


def test_a_failing_cell_says_whether_its_runs_decide() -> None:
    """Issue 15 (judge15): a failing cell disagrees beyond its 95 % interval
    or is undecided with the kernel runs that would decide it; the line, the
    table and verdicts.json say so; a kernel.json without decisions is shown
    as before."""
    k = _kernel()
    assert "kernel-decided'>" in "\n".join(section("000", k))
    assert "undecided" not in "\n".join(section("000", k))
    shift = {"scale": "difference (Hodges-Lehmann)", "estimate": -0.28, "lo": -0.35, "hi": 0.01,
             "coverage": 0.951, "sim_runs": 30, "kernel_runs": 3}
    bad = k["cells"][1]
    bad["metrics"][1] = dict(bad["metrics"][1], shift=shift, decision="undecided",
                             undecided={"why": "the point is outside the band, the 95 % interval reaches it",
                                        "kernel_runs": 9, "more_kernel_runs": 6})
    bad.update(decision="undecided", undecided={"why": "fg_share_path2: the point is outside the band",
                                                "kernel_runs": 9, "more_kernel_runs": 6})
    k["cells"][0]["decision"] = "agree"
    html = "\n".join(section("000", k))
    assert ("<b>1 of 2 agree like for like</b> with the simulator<span id='seed000-kernel-decided'>; 0 disagree "
            "beyond their 95 % interval; 1 undecided (about 6 more kernel runs each)</span>") in html
    t = html[html.index("id='seed000-kernel-table'"):html.index("</table>")]
    assert "<td>-28.0 [-35.0, +1.0] points (30 sim, 3 kernel runs, 95 %), undecided</td>" in t
    assert "disagree; undecided (about 6 more kernel runs): fg_share_path2: the point is outside the band" in t
    assert verdicts(k)["000"]["ran, decision undecided"] == 1
    ran = [c for c in k["cells"] if c["status"] == "ran"]
    bad["decision"] = "disagree"
    assert like_summary(ran) == ("1 of 2 cells agree like for like (no cell ran with a substitution); "
                                 "1 disagree beyond their 95 % interval; 0 undecided")


def test_until_decided_says_per_cell_how_many_runs_and_why_it_stopped() -> None:
    """Session 16 (`reproduce --until-decided`): a cell that got runs or
    stopped undecided says so beside its verdict, with the runs before and
    after and why it stopped; the section names the rule; a cell decided
    without new runs reads as before."""
    k = _kernel()
    before = "\n".join(section("000", k))
    k["until_decided"] = {"max": 10, "added_runs": 7, "rule": "the judge's estimate, capped at max"}
    k["cells"][0]["until_decided"] = {"runs": 3, "runs_before": 3, "batches": 0, "stopped": "decided: agree"}
    k["cells"][1]["until_decided"] = {"runs": 10, "runs_before": 3, "batches": 2,
                                      "stopped": "MAX reached, still undecided"}
    html = "\n".join(section("000", k))
    assert "until decided: 3 -&gt; 10 kernel runs in 2 batch(es), MAX reached, still undecided" in html
    assert html.count("until decided:") == 1, "the cell decided without new runs reads as before"
    assert "Until decided (at most 10 kernel runs per cell, 7 added): the judge" in html
    assert before != html
