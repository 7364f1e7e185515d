"""`mptlab reproduce 001/002 --quick` on small subsets and their report
sections: figures exist, the tables are there, and every verdict-bearing
claim the runs cover gets a verdict."""

import json
import re
from pathlib import Path


from _repro import reproduce as _reproduce


def _check(out: Path, seed: str, expect: set) -> str:
    html = (out / "report.html").read_text()
    assert f"id='seed{seed}'" in html
    imgs = re.findall(r"<img src='([^']+)'", html)
    assert imgs
    for src in imgs:
        assert (out / src).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", src
    got = {c["id"]: c["verdict"] for c in json.loads((out / "verdicts.json").read_text())["claims"]}
    missing = expect - set(got)
    assert not missing, missing
    assert all(got[c] in ("reproduced", "partly", "not reproduced") for c in expect), got
    return html


def test_seed001_quick_section(tmp_path: Path) -> None:
    out = _reproduce("001", tmp_path / "o1", "tail1-3seg", "probeloss-3seg", "failure-3seg")
    m = json.loads((out / "reproduce.json").read_text())
    assert m["bursts_override"] == 20
    html = _check(out, "001", {
        "s001-tlp-alt-lower-delay-helps", "s001-tlp-gain-grows-with-asymmetry", "s001-tlp-never-worse",
        "s001-tlp-probe-loss-effective", "s001-tlp-extra-retransmission-cost", "s001-tlp-up-to-50pct",
        "s001-linux-loss-recovery-heuristic"})
    assert "id='s001-table'" in html and "s001-gain-vs-ratio.png" in html


def test_seed002_quick_section(tmp_path: Path) -> None:
    out = _reproduce("002", tmp_path / "o2")
    html = _check(out, "002", {
        "s002-mptcp-close-to-best-path", "s002-lte-faster-than-wifi-except-small", "s002-3g-wifi-reduces-latency",
        "s002-small-files-like-single-path", "s002-mptcp-reduces-variability", "s002-table6-rtt",
        "s002-table6-ofo", "s002-sprint-75pct-ooo", "s002-sprint-20pct-ofo-over-150ms", "s002-sprint-e2e-200ms",
        "s002-ofo-from-slow-path"})
    assert "id='s002-table6'" in html and "s002-download-time.png" in html
    # both figures carry the hash of their inputs and are kept by a second
    # report over the same runs (not rewritten, same HTML)
    from mptlab import report

    pngs = sorted((out / "figures").glob("s002-*.png"))
    assert len(pngs) == 2 and all(p.with_name(p.name + ".sha256").is_file() for p in pngs), pngs
    before = {p.name: p.stat().st_mtime_ns for p in pngs}
    report.generate(out)
    assert {p.name: p.stat().st_mtime_ns for p in pngs} == before
    assert (out / "report.html").read_text() == html
