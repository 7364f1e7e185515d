"""Seed 000's "shares, explained" part: numbers computed from the runs (not
hard-coded), and present in the report of `reproduce 000 --quick`."""

import json
import re
from pathlib import Path

import pytest

from mptlab.report import seed000_shares as ss

from _repro import reproduce


def _rec(proto, ps, share2, fast, traffic="video", bg=False):
    m = {"fg_share_path1": 1 - share2, "fg_share_path2": share2, "fg_retrans_fast": fast}
    return {"traffic": traffic, "ps": ps, "bg": bg, "proto": proto, "metrics": m}


def test_mptcp_evidence_from_runs_only() -> None:
    recs = [_rec("mptcp", "wlan3g", s, f) for s, f in [(0.10, 40), (0.20, 80), (0.15, 60), (0.05, 20)]]
    # other cells must not leak in
    recs += [_rec("mptcp", "wlan3g", 0.9, 1, bg=True), _rec("tcp1", "wlan3g", 0.0, 5),
             _rec("mptcp", "wlanwlan", 0.5, 3)]
    ev = ss.mptcp_evidence(recs)
    assert ev["n"] == 4 and ev["mean"] == pytest.approx(12.5) and (ev["lo"], ev["hi"]) == (5.0, 20.0)
    assert ev["corr"] == pytest.approx(1.0)  # share exactly proportional to fast retransmits
    ev2 = ss.mptcp_evidence([_rec("mptcp", "wlan3g", s, f) for s, f in [(0.1, 80), (0.2, 40), (0.3, 20)]])
    assert ev2["corr"] < -0.9
    # constant retransmits: no correlation claimed
    assert "corr" not in ss.mptcp_evidence([_rec("mptcp", "wlan3g", s, 7) for s in (0.1, 0.2, 0.3)])
    assert ss.mptcp_evidence([]) is None and ss.html([]) == []


def test_cmt_evidence_per_path_set() -> None:
    recs = [_rec("cmt-sctp", "wlan3g", 0.5, 0), _rec("cmt-sctp", "wlan3g", 0.4, 0),
            _rec("cmt-sctp", "wlan3g", 0.1, 0, bg=True)]
    ev = ss.cmt_evidence(recs)
    assert list(ev) == ["wlan3g"] and ev["wlan3g"]["mean"] == pytest.approx(55.0) and ev["wlan3g"]["n"] == 2
    h = "".join(ss.html(recs))
    assert "WLAN-3G: path 1 55.0 %" in h and "share-probes" in h


@pytest.fixture(scope="module")
def reproduced(tmp_path_factory) -> Path:
    return reproduce("000", tmp_path_factory.mktemp("repro") / "out", "video-wlan3g", runs=3)


def test_report_explains_the_wlan3g_shares(reproduced: Path) -> None:
    html = (reproduced / "report.html").read_text()
    i = html.index("id='shares-explained'")
    part = html[i:html.index("<h3", i + 10) if "<h3" in html[i + 10:] else len(html)]
    m = re.search(r"sends ([\d.]+) % of the WLAN-3G video over 3G \(per run [\d.]+-[\d.]+ %, (\d+) runs\)", part)
    assert m, part[:400]
    # the number is the mean of the runs' own 3G shares (the MPTCP point without background)
    summary = json.loads((reproduced / "runs" / "seed000" / "video-wlan3g-tcp" / "summary.json").read_text())
    (pt,) = [p for p in summary["points"] if p["values"].get("transport.protocol") == "mptcp"
             and not p["values"]["background.enabled"]]
    shares = [100 * r["metrics"]["fg_share_path2"] for r in pt["per_run"]]
    assert int(m.group(2)) == len(shares) == 3
    assert float(m.group(1)) == pytest.approx(sum(shares) / len(shares), abs=0.051)
    assert "Pearson r" in part and "mptcp_subflow_get_send" in part
    assert re.search(r"WLAN-3G: path 1 [\d.]+ %", part)
