"""`mptlab reproduce 003 / 004 --quick` on small subsets: the report gets a
section per seed with its figures, and the covered claims get verdicts."""

import re
from pathlib import Path

import pytest

from _repro import reproduce

VERDICTS = ("reproduced", "partly", "not reproduced")


def _reproduce(tmp_path_factory, seed: str, only) -> Path:
    return reproduce(seed, tmp_path_factory.mktemp(f"repro{seed}") / "out", *only)


def _claims_table(html: str) -> str:
    return html[html.index("id='claims-table'"):]


def _verdict(table: str, claim: str) -> str:
    row = re.search(r"<tr[^>]*><td>" + re.escape(claim) + r"</td><td>[^<]*</td><td>([^<]*)</td>", table)
    assert row, f"{claim}: no verdict row"
    return row.group(1)


def _images_ok(out: Path, html: str, prefix: str) -> int:
    imgs = [s for s in re.findall(r"<img src='([^']+)'", html) if Path(s).name.startswith(prefix)]
    for src in imgs:
        p = out / src
        assert p.is_file() and p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", src
    return len(imgs)


@pytest.fixture(scope="module")
def seed003(tmp_path_factory) -> Path:
    """UDE -> HU only (the 60 s file and the 300 s convergence file, cut to 20 s)."""
    return _reproduce(tmp_path_factory, "003", ["udehu"])


@pytest.fixture(scope="module")
def seed004(tmp_path_factory) -> Path:
    """Handover and heavy load (runs cut 20 s after the last event: 150 s, 320 s)."""
    return _reproduce(tmp_path_factory, "004", ["handover", "heavy"])


def test_seed003_section_figures_and_verdicts(seed003: Path) -> None:
    html = (seed003 / "report.html").read_text()
    assert "id='seed003'" in html and "UDE -&gt; HU" in html
    assert _images_ok(seed003, html, "s003-") >= 4  # bars, two short-term series, 300 s series
    t = _claims_table(html)
    for c in ("s003-tcp-depends-on-path", "s003-tcp-cubic-slightly-better", "s003-cubic-more-variation-short-term",
              "s003-default-ndiffports-depend-on-initial-path", "s003-fullmesh-independent-of-initial-path",
              "s003-fullmesh-beats-best-tcp-ude-hu", "s003-cubic-beats-olia-general"):
        assert _verdict(t, c).split(" (")[0] in VERDICTS, c
    assert _verdict(t, "s003-binder-like-default") == "not checkable"
    # the pairs not run are listed as not covered
    assert "s003-ku-hig-below-best" in html[html.index("claims not covered"):]


def test_seed004_section_figures_and_verdicts(seed004: Path) -> None:
    html = (seed004 / "report.html").read_text()
    assert "id='seed004'" in html and "one run per configuration" in html
    assert _images_ok(seed004, html, "s004-") >= 4  # handover series, heavy series x2, heavy bars
    t = _claims_table(html)
    for c in ("s004-handover-mptcp-keeps-flowing", "s004-heavy-load-mptcp-keeps-more", "s004-heavy-load-no-harm",
              "s004-cc-heavy-balia-best", "s004-cc-heavy-wvegas-beats-lia-olia"):
        assert _verdict(t, c).split(" (")[0] in VERDICTS, c
    assert _verdict(t, "s004-handover-tcp-zero").split(" (")[0] in VERDICTS
    # the quick cut kept the events: the handover runs last 150 s, the heavy ones 320 s
    man = (seed004 / "reproduce.json").read_text()
    assert "last such event" in man
    import json
    for f, want in (("handover", 150.0), ("heavy", 320.0)):
        s = json.loads((seed004 / "runs" / "seed004" / f / "summary.json").read_text())
        assert s["points"][0]["per_run"][0]["metrics"]["sim_time_s"] == want, f


def _kept_when_unchanged(out: Path, prefix: str) -> None:
    """Every figure of the section has the hash of its inputs beside it, and
    a second report over the same runs keeps them all (same bytes, not
    rewritten) and writes the same HTML."""
    from mptlab import report

    figs = out / "figures"
    pngs = sorted(figs.glob(prefix + "*.png"))
    assert pngs
    for p in pngs:
        assert (figs / (p.name + ".sha256")).is_file(), p.name
    before = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in pngs}
    html = (out / "report.html").read_text()
    report.generate(out)
    assert {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in pngs} == before
    assert (out / "report.html").read_text() == html


def test_seed003_figures_kept_when_unchanged(seed003: Path) -> None:
    _kept_when_unchanged(seed003, "s003-")


def test_seed004_figures_kept_when_unchanged(seed004: Path) -> None:
    _kept_when_unchanged(seed004, "s004-")
