"""`mptlab reproduce 000 --quick` on a small subset, and its HTML report
(static checks, then a headless Chromium render when Chromium is present)."""

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

from mptlab import report

from _repro import ROOT, reproduce
from _repro import cli as _cli
CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="module")
def reproduced(tmp_path_factory) -> Path:
    """reproduce 000 --quick, WLAN-3G only (2 sweeps x 6 points x 2 runs)."""
    out = tmp_path_factory.mktemp("repro") / "out"
    return reproduce("000", out, "video-wlan3g")


def test_categories_follow_the_rules() -> None:
    assert report.categorize(-0.2, -0.3, -0.1) == "significant-improvement"
    assert report.categorize(-0.05, -0.08, -0.01) == "slight-improvement"
    assert report.categorize(-0.2, -0.4, 0.01) == "no-change"
    assert report.categorize(0.05, 0.01, 0.09) == "no-change"  # slight degradation -> NC
    assert report.categorize(0.3, 0.1, 0.5) == "significant-degradation"
    r, lo, hi = report.paired_r(np.array([8.0, 9.0, 10.0, 11.0]), np.array([10.0, 10.0, 12.0, 12.0]))
    assert abs(r - (-6.0 / 44.0)) < 1e-12 and lo <= r <= hi


def test_report_html_references_images_and_matrix(reproduced: Path) -> None:
    html = (reproduced / "report.html").read_text()
    # the build that made the runs, as `mptlab --version` names it
    version = subprocess.run([str(_cli()), "--version"], capture_output=True, text=True).stdout
    model = re.search(r"model sources ([0-9a-f]{32})", version).group(1)
    assert f"model sources {model}" in html
    assert "id='fig19'" in html and "Fig. 19-style matrix" in html
    imgs = re.findall(r"<img src='([^']+)'", html)
    assert len(imgs) == 2  # WLAN-3G, background off / on
    for src in imgs:
        p = reproduced / src
        assert p.is_file() and p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", src
    # the comparison rule for WLAN-3G: against the WLAN path
    assert "tcp p1 (WLAN)" in html and "sctp p1 (WLAN)" in html
    # every WLAN-3G video Fig. 19 claim gets a verdict
    for mp in ("mptcp", "cmt"):
        for bg in ("bg", "nobg"):
            assert f"s000-fig19-{mp}-video-{bg}-wlan3g" in html
    # not run: no verdict row, but listed among the claims not covered
    table = html[html.index("id='claims-table'"):html.index("claims not covered")]
    assert "s000-fig19-mptcp-video-bg-wlanwlan" not in table
    assert "s000-fig19-mptcp-video-bg-wlanwlan" in html[html.index("claims not covered"):]


def test_reproduce_resumes_and_refuses_unknown_seed(reproduced: Path) -> None:
    exe = _cli()
    r = subprocess.run([str(exe), "reproduce", "000", "--quick", "--runs", "2", "--only", "video-wlan3g",
                        "--out", str(reproduced), "--no-report"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0 and "already done" in r.stderr, r.stderr
    r = subprocess.run([str(exe), "reproduce", "007", "--out", str(reproduced)], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 2 and "no scenario library" in r.stderr


def test_reproduce_without_python_package_keeps_runs(tmp_path: Path) -> None:
    env = dict(os.environ, MPTLAB_PYTHON=str(tmp_path / "no-such-python"))
    r = subprocess.run([str(_cli()), "reproduce", "000", "--quick", "--runs", "1", "--only", "video-wlan3g-tcp",
                        "--out", str(tmp_path / "o"), "-q"], cwd=ROOT, capture_output=True, text=True, env=env)
    assert r.returncode == 1 and "results are kept" in r.stderr, r.stderr
    assert (tmp_path / "o/runs/seed000/video-wlan3g-tcp/summary.json").is_file()


def _chromium(*args: str) -> subprocess.CompletedProcess:
    prof = tempfile.mkdtemp(prefix="mptlab-chromium-")
    try:
        return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                               "--disable-background-networking", "--disable-component-update", "--no-first-run",
                               f"--user-data-dir={prof}", *args], capture_output=True, text=True, timeout=120)
    finally:
        shutil.rmtree(prof, ignore_errors=True)


def test_report_renders_in_headless_chromium(reproduced: Path, tmp_path: Path) -> None:
    if not os.access(CHROMIUM, os.X_OK):
        print(f"skip: {CHROMIUM} missing (apt-get install -y chromium)")
        pytest.skip(f"{CHROMIUM} missing (apt-get install -y chromium)")
    url = (reproduced / "report.html").resolve().as_uri()
    # images that loaded have a natural width; a script writes it into the DOM
    probe = tmp_path / "probe.html"
    probe.write_text(
        "<html><body><iframe id=f src='" + url + "' width=1200 height=800></iframe><pre id=o>pending</pre><script>"
        "document.getElementById('f').onload=function(){var d=this.contentDocument;var im=d.images;var s=[];"
        "for(var i=0;i<im.length;i++){s.push(im[i].complete&&im[i].naturalWidth>0?'ok':'broken')}"
        "document.getElementById('o').textContent='imgs:'+s.join(',')+' cells:'"
        "+d.querySelectorAll('#fig19 td.cat').length};</script></body></html>")
    r = _chromium("--allow-file-access-from-files", "--virtual-time-budget=10000", "--dump-dom", probe.as_uri())
    assert r.returncode == 0, r.stderr[-2000:]
    m = re.search(r"imgs:([a-z,]*) cells:(\d+)", r.stdout)
    assert m, r.stdout[-2000:]
    states = m.group(1).split(",")
    assert states == ["ok", "ok"], states
    assert int(m.group(2)) == 2 * 2 * 6  # video x bg/nobg rows, 6 columns x (mptlab, paper)
    # and a screenshot that is not blank
    shot = tmp_path / "shot.png"
    r = _chromium("--window-size=1200,1600", f"--screenshot={shot}", url)
    assert r.returncode == 0 and shot.is_file(), r.stderr[-2000:]
    import matplotlib.image as mpimg

    a = mpimg.imread(str(shot))
    assert a.shape[0] > 100 and float(a[..., :3].std()) > 0.02


def test_report_jobs_and_figure_cache_keep_the_results(tmp_path: Path) -> None:
    """Two seeds' sections written by two processes give the same verdicts
    and figure bytes as one process; a second report keeps the figures whose
    inputs' hash is unchanged, and redraws one whose stored hash differs."""
    out = reproduce("all", tmp_path / "o", "video-wlan3g-tcp", "tail1-3seg")
    one = tmp_path / "one"
    shutil.copytree(out, one)
    shutil.rmtree(one / "figures")
    report.generate(one, jobs=1)
    two = tmp_path / "two"
    shutil.copytree(out, two)
    shutil.rmtree(two / "figures")
    report.generate(two, jobs=2)
    assert (one / "verdicts.json").read_bytes() == (two / "verdicts.json").read_bytes()
    pngs = sorted(p.name for p in (one / "figures").glob("*.png"))
    assert any(n.startswith("box-video") for n in pngs) and "s001-gain-vs-ratio.png" in pngs, pngs
    assert pngs == sorted(p.name for p in (two / "figures").glob("*.png"))
    for n in pngs:
        assert (one / "figures" / n).read_bytes() == (two / "figures" / n).read_bytes(), n
    # cached: nothing redrawn (same mtimes) and the same report
    figs = two / "figures"
    before = {n: (figs / n).stat().st_mtime_ns for n in pngs}
    html = (two / "report.html").read_text()
    box = next(n for n in pngs if n.startswith("box-video"))
    (figs / (box + ".sha256")).write_text("0" * 64 + "\n")
    report.generate(two, jobs=2)
    after = {n: (figs / n).stat().st_mtime_ns for n in pngs}
    assert after[box] != before[box], "a figure whose inputs' hash changed is redrawn"
    assert {n: t for n, t in after.items() if n != box} == {n: t for n, t in before.items() if n != box}
    assert (two / "report.html").read_text() == html
    assert (figs / box).read_bytes() == (one / "figures" / box).read_bytes()


def _pid_figure(path: Path) -> None:
    path.write_text(str(os.getpid()))


def _failing_figure(n: int) -> None:
    if n == 2:
        raise ValueError("figure 2 cannot be drawn")


def test_figures_drawn_in_parallel_are_the_same_bytes(tmp_path: Path, monkeypatch) -> None:
    """`reproduce 000` has one section, so its box plots are drawn by
    `--jobs` processes (common.draw_figures): same PNG bytes and cache
    stamps as drawn in one process, drawn by more than one process, and a
    figure that fails fails the report."""
    from mptlab.report import common, seed000

    rng = np.random.default_rng(5)
    def boxes(d: Path):
        d.mkdir()
        return [(d / f"box-{k}.png", [list(rng.normal(k + 1, 1, 20)) for _ in range(3)], ["TCP", "MPTCP", "SCTP"],
                 "delay_ms_mean", f"figure {k}", f"key{k}") for k in range(5)]
    one, two = boxes(tmp_path / "one"), boxes(tmp_path / "two")
    monkeypatch.setattr(common, "FIGURE_JOBS", 1)
    common.draw_figures(seed000._draw_box, one)
    monkeypatch.setattr(common, "FIGURE_JOBS", 2)
    # the same inputs in the other directory
    two = [(b[0],) + a[1:] for a, b in zip(one, two)]
    common.draw_figures(seed000._draw_box, two)
    for a, b in zip(one, two):
        assert a[0].read_bytes() == b[0].read_bytes(), a[0].name
        assert common.figure_fresh(b[0], b[5])
    pids = [tmp_path / f"pid{k}" for k in range(6)]
    common.draw_figures(_pid_figure, [(p,) for p in pids])
    drawers = {p.read_text() for p in pids}
    assert str(os.getpid()) in drawers and len(drawers) >= 2, drawers
    with pytest.raises(ValueError, match="figure 2"):
        common.draw_figures(_failing_figure, [(k,) for k in range(4)])


@pytest.mark.parametrize("damage", ["", '{"seeds": ["000"], "swe', '{"jobs": 2}'])
def test_a_damaged_manifest_is_one_message_not_a_traceback(tmp_path: Path, capsys, damage: str) -> None:
    # reproduce.json cut short (a full disk, an interrupted copy) or not a
    # manifest: exit 2 naming the file, nothing written
    (tmp_path / "reproduce.json").write_text(damage)
    assert report.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {tmp_path / 'reproduce.json'}: ") and "Traceback" not in err, err
    assert err.count("\n") == 1, err
    assert not (tmp_path / "report.html").exists()


def test_a_damaged_sweep_summary_is_named(reproduced: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "copy"
    shutil.copytree(reproduced, out)
    sf = next(out.glob("runs/seed000/*/summary.json"))
    sf.write_text(sf.read_text()[:100])
    assert report.main([str(out)]) == 2
    err = capsys.readouterr().err
    assert f"error: {sf}: not valid JSON" in err, err


def test_a_stale_figure_loses_its_stamp_before_it_is_redrawn(tmp_path: Path) -> None:
    # a kill between writing the new PNG and its stamp must not leave the new
    # picture under the old inputs' key
    from mptlab.report.common import figure_fresh, figure_saved
    png = tmp_path / "f.png"
    png.write_bytes(b"old picture")
    figure_saved(png, "k1")
    assert figure_fresh(png, "k1")
    assert not figure_fresh(png, "k2")  # inputs changed: will be redrawn
    png.write_bytes(b"new picture")  # ... and the run is killed here
    assert not figure_fresh(png, "k1"), "the new picture passed for the old inputs'"
