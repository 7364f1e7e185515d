"""Issue 12 item 3: unfinished transfers and undelivered messages are counted
by the Python API and marked in the report wherever a statistic covers the
completed items only."""

import json
import warnings
from pathlib import Path

import pytest

from mptlab.report import common, generate

MB = 1024 * 1024


def test_ledger_marks_and_guard_caps_verdicts() -> None:
    done = {"transfers": 1, "transfers_unfinished": 0, "completion_time_ms": 900.0}
    cut = {"transfers": 1, "transfers_unfinished": 1}
    video = {"messages": 1000, "messages_undelivered": 3, "delay_ms_mean": 40.0}
    with common.track() as led:
        common.note(done, "completion_time_ms")
        common.note(cut, "completion_time_ms")
        common.note(cut, "completion_time_ms")  # the same run read twice counts once
        common.note(done, "fg_share_path1")     # not a completed-only metric
    assert (led.transfers, led.transfers_unfinished) == (2, 1)
    assert led.mark() == "n=1 of 2 transfers finished"
    v, d = common.guard(("reproduced", "r = -20 %"), led)
    assert v == "partly" and "n=1 of 2 transfers finished" in d and "capped at partly" in d
    # nothing unfinished: unchanged
    with common.track() as ok:
        common.note(done, "completion_time_ms")
    assert common.guard(("reproduced", "x"), ok) == ("reproduced", "x")
    # a few undelivered messages (<= 1 %) are marked but do not cap
    with common.track() as m:
        common.note(video, "delay_ms_mean")
    assert common.guard(("reproduced", "x"), m) == (
        "reproduced", "x [computed over completed items only: n=997 of 1,000 messages delivered]")
    # many do: the delays of the delivered ones are biased low
    stuck = {"messages": 1000, "messages_undelivered": 200, "delay_ms_mean": 40.0}
    with common.track() as m2:
        common.note(video, "delay_ms_mean")
        common.note(stuck, "delay_ms_p95")
    v, d = common.guard(("reproduced", "x"), m2)
    assert v == "partly" and "n=1,797 of 2,000 messages delivered" in d and "biased low" in d
    assert common.guard(("not reproduced", "x"), m2)[0] == "not reproduced"
    # Run.get notes its reads in the active ledgers
    r = common.Run(seed="002", stem="att", values={}, run=0, rng_seed=1, metrics=cut)
    with common.track() as led2:
        assert r.get("completion_time_ms") is None
    assert led2.transfers_unfinished == 1 and r.transfers_unfinished == 1


def _point(pid, values, runs):
    return {"point": pid, "label": pid, "values": values,
            "per_run": [{"run": i, "seed": 100 + i, "metrics": m} for i, m in enumerate(runs)]}


def _file(ct, unfinished=False, share=None):
    m = {"transfers": 1, "transfers_unfinished": 1 if unfinished else 0, "fg_rto_events": 0}
    if not unfinished:
        m["completion_time_ms"] = ct
    if share is not None:
        m["fg_share_path1"] = share
    return m


@pytest.fixture()
def repro(tmp_path: Path) -> Path:
    """A reproduce directory with made-up runs: seed 002 AT&T 8 MB (one
    MPTCP download unfinished) and seed 000 wikipedia WLAN-3G (one MPTCP page
    unfinished)."""
    out = tmp_path / "r"
    s2 = out / "runs/seed002/att"
    s2.mkdir(parents=True)
    pts = []
    for proto, path, cts in (("tcp", 1, [4000, 4100, 4200]), ("tcp", 2, [3000, 3100, 3200]),
                             ("mptcp", 1, [2500, 2600, None])):
        pts.append(_point(f"{proto}{path}", {"transport.protocol": proto, "transport.path": path,
                                             "traffic.size_bytes": 8 * MB},
                          [_file(c, c is None, 0.5 if proto == "mptcp" else None) for c in cts]))
    (s2 / "summary.json").write_text(json.dumps({"points": pts}))
    s0 = out / "runs/seed000/wikipedia-wlan3g-tcp"
    s0.mkdir(parents=True)
    pts = []
    for proto, path, cts in (("tcp", 1, [900, 950, 1000]), ("tcp", 2, [2000, 2100, 2200]),
                             ("mptcp", 1, [800, None, 850])):
        for bg in (False, True):
            pts.append(_point(f"{proto}{path}{bg}", {"transport.protocol": proto, "transport.path": path,
                                                     "background.enabled": bg},
                              [_file(c, c is None, 0.9) for c in cts]))
    (s0 / "summary.json").write_text(json.dumps({"points": pts}))
    (out / "reproduce.json").write_text(json.dumps({
        "seeds": ["000", "002"], "quick": True,
        "sweeps": [{"name": "seed000/wikipedia-wlan3g-tcp", "dir": "runs/seed000/wikipedia-wlan3g-tcp"},
                   {"name": "seed002/att", "dir": "runs/seed002/att"}]}))
    return out


def test_report_marks_statistics_over_finished_transfers(repro: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy on 2-run cells
        html = generate(repro).read_text()
    # the overview names every point with unfinished work
    sec = html[html.index("<h2 id='unfinished'>"):]
    assert "<b>3 transfer(s) did not finish</b> by the end of their run, in 3 sweep point(s)" in sec
    table = sec[:sec.index("</table>")]
    assert table.count("<tr>") == 1 + 3, table  # header + mptcp of seed 002 + 2 of seed 000
    assert "att" in table and "1 of 3" in table
    # seed 002 download-time table: the cell over finished downloads only, marked
    s002 = html[html.index("id='s002-times'"):]
    row = s002[:s002.index("</table>")].split("<tr>")[1:]
    assert any("0 / 0 / 1 (n=8 of 9 transfers finished)" in r for r in row), row
    # seed 000 comparison table: MPTCP vs TCP on WLAN, page completion times
    comp = html[html.index("id='comparisons'"):]
    comp = comp[:comp.index("</table>")]
    # (9: MPTCP, TCP on WLAN, and TCP on 3G for the context column)
    assert comp.count("n=8 of 9 transfers finished") == 2, comp  # background off and on
    v = json.loads((repro / "verdicts.json").read_text())
    assert v["unfinished"]["transfers_unfinished"] == 3
    assert len(v["unfinished"]["points"]) == 3
    cells = [c for c in v["cells"] if c["traffic"] == "wikipedia" and c["mp"] == "mptcp"]
    assert cells and all(c["completeness"] == {"transfers": 9, "transfers_unfinished": 1, "messages": 0,
                                               "messages_undelivered": 0} for c in cells)
    # seed 002 marks its verdicts with what the whole section read: every
    # judged claim carries the mark, and none stays "reproduced"
    s002 = [c for c in v["claims"] if c["id"].startswith("s002-") and c["verdict"] != "method"]
    assert len(s002) >= 3, s002
    for c in s002:
        assert "[computed over completed items only: n=8 of 9 transfers finished" in c["detail"], c
        assert c["verdict"] != "reproduced", c
    assert any("capped at partly" in c["detail"] for c in s002)
    # shares include every run (bytes sent, finished or not): not marked
    share = [c for c in v["claims"] if c["id"] == "s000-share-table11-wikipedia-nobg-wlan3g"]
    assert share and "completed items" not in share[0]["detail"]
    fig19 = [c for c in v["claims"] if c["id"].startswith("s000-fig19-mptcp-wikipedia")]
    assert fig19 and all("n=8 of 9 transfers finished" in c["detail"] for c in fig19), fig19
    assert all(c["verdict"] != "reproduced" for c in fig19)


def _scenario(tmp_path: Path, duration: float) -> Path:
    p = tmp_path / "f.toml"
    p.write_text(f"""
[scenario]
name = "f"
duration_s = {duration}
runs = 2
[profile.p]
rate_mbit = 2
delay_ms = 20
[topology]
preset = "single-path"
paths = ["p"]
[traffic]
model = "file"
size_bytes = 4000000
""")
    return p


def test_python_api_counts_and_warns(tmp_path: Path) -> None:
    import mptlab

    with pytest.warns(mptlab.UnfinishedWarning, match="2 of 2 transfer") as w:
        r = mptlab.run(_scenario(tmp_path, 5.0))
    assert w[0].message.unfinished["transfers_unfinished"] == 2
    assert r.unfinished["transfers_unfinished"] == 2 and r.unfinished_count == 2
    assert r.unfinished["runs_with_unfinished_transfers"] == [0, 1]
    assert r.transfers["completed"].to_list() == [False, False]
    assert r.transfers["end_ms"].null_count() == 2
    # enough time: no warning, counted as completed
    with warnings.catch_warnings():
        warnings.simplefilter("error", mptlab.UnfinishedWarning)
        r = mptlab.run(_scenario(tmp_path, 60.0))
    assert r.unfinished_count == 0 and r.transfers["completed"].to_list() == [True, True]
    assert r.unfinished["completed_only"]["completion_time_ms"] == {"completed": 2, "of": 2}


def test_sweep_points_say_over_how_many_transfers(tmp_path: Path) -> None:
    import mptlab

    p = _scenario(tmp_path, 8.0)
    p.write_text(p.read_text() + '\n[sweep]\n"traffic.size_bytes" = [100000, 4000000]\n')
    with pytest.warns(mptlab.UnfinishedWarning, match="size_bytes=4000000"):
        r = mptlab.sweep(p, out=tmp_path / "sw", jobs=1)
    pts = r.points.filter(r.points["metric"] == "completion_time_ms")
    assert pts["completed"].to_list() == [2] and pts["of"].to_list() == [2]  # only the small file has a value
    u = r.unfinished
    assert u["transfers_unfinished"] == 2 and [q["label"] for q in u["points"]] == ["size_bytes=4000000"]
    assert r.summary["points"][1]["unfinished"]["completed_only"]["completion_time_ms"] == {"completed": 0, "of": 2}


def test_stats_describe_marks_missing_values() -> None:
    import mptlab

    full = mptlab.stats.describe([1.0, 2.0, 3.0])
    assert "mark" not in full and "of" not in full
    # a null completion time (an unfinished transfer) is left out, visibly
    d = mptlab.stats.describe([1.0, None, 3.0, float("nan")])
    assert d["n"] == 2 and d["mean"] == 2.0 and d["of"] == 4 and d["mark"] == "n=2 of 4 finished"
    # or the number of items is given
    d = mptlab.stats.describe([1.0, 3.0], of=3)
    assert d["mark"] == "n=2 of 3 finished"
    assert mptlab.stats.describe([None, None]) is None
