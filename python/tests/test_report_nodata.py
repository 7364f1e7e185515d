"""Session 26, verdicts on no data: with 1 run per sweep point
(`reproduce --runs 1`) a paired comparison has no confidence interval. The
sections read its NaN bounds as "not significant" (Python comparisons with
NaN are False) or counted 0 of 0 cells as all good, and judged claims
"reproduced" / "partly" / "not reproduced" on no data. Each such claim must
now be "not checkable" and say why (docs/report.md, "Session 26: verdicts on
no data"). Every test here failed on main 38f500a."""

import json
from pathlib import Path
from typing import Dict

import pytest

from mptlab.report import seed004

from _repro import reproduce


def _claims(out: Path) -> Dict[str, Dict[str, str]]:
    return {c["id"]: c for c in json.loads((out / "verdicts.json").read_text())["claims"]}


@pytest.fixture(scope="module")
def s002_one(tmp_path_factory) -> Dict[str, Dict[str, str]]:
    """reproduce 002 --quick --runs 1 --only att --only sprint"""
    return _claims(reproduce("002", tmp_path_factory.mktemp("s002") / "out", "att", "sprint", runs=1))


@pytest.mark.parametrize("cid, was", [
    # 0 of 0 (carrier, size) cells: `big_ok == big_n` held, "reproduced"
    ("s002-lte-faster-than-wifi-except-small", "reproduced"),
    # 0 of 0 Sprint file sizes: `ok_n == n`, "reproduced"
    ("s002-3g-wifi-reduces-latency", "reproduced"),
    # every cell without a paired comparison counted as failing
    ("s002-small-files-like-single-path", "not reproduced"),
])
def test_seed002_one_run_is_not_checkable(s002_one, cid: str, was: str) -> None:
    c = s002_one[cid]
    assert c["verdict"] == "not checkable" and "fewer than 2 paired runs" in c["detail"], (was, c)


@pytest.fixture(scope="module")
def s000_one(tmp_path_factory) -> Dict[str, Dict[str, str]]:
    """reproduce 000 --quick --runs 1 --only video-wlanwlan --only nornet-gaming --only wikipedia-wlanwlan"""
    return _claims(reproduce("000", tmp_path_factory.mktemp("s000") / "out", "video-wlanwlan", "nornet-gaming",
                             "wikipedia-wlanwlan", runs=1))


@pytest.mark.parametrize("cid, was", [
    # r of one paired run each, no CI: "reproduced"
    ("s000-video-mptcp-wlanwlan-better-than-cmt", "reproduced"),
    # `c["lo"] > 0` on a NaN bound: "partly"
    ("s000-video-cmt-wlanwlan-reordering", "partly"),
    # equivalence test without a CI: "not reproduced"
    ("s000-nornet-gaming-homog-similar", "not reproduced"),
    # |r| < 10 % on one run: "reproduced"
    ("s000-web-wikipedia-initial-window", "reproduced"),
])
def test_seed000_one_run_is_not_checkable(s000_one, cid: str, was: str) -> None:
    c = s000_one[cid]
    assert c["verdict"] == "not checkable" and "fewer than 2 paired runs" in c["detail"], (was, c)


@pytest.fixture(scope="module")
def s001_one(tmp_path_factory) -> Dict[str, Dict[str, str]]:
    """reproduce 001 --quick --runs 1 --only tail1 --only probeloss"""
    return _claims(reproduce("001", tmp_path_factory.mktemp("s001") / "out", "tail1", "probeloss", runs=1))


@pytest.mark.parametrize("cid, was", [
    # 0 significantly faster (NaN CIs): "partly" on the mean r
    ("s001-tlp-alt-lower-delay-helps", "partly"),
    # rho's bootstrap resampled one run per cell: a zero-width CI, "reproduced"
    ("s001-tlp-gain-grows-with-asymmetry", "reproduced"),
    # 0 significantly faster, 0 slower: "not reproduced"
    ("s001-tlp-never-worse", "not reproduced"),
    ("s001-tlp-probe-loss-effective", "partly"),
])
def test_seed001_one_run_is_not_checkable(s001_one, cid: str, was: str) -> None:
    c = s001_one[cid]
    assert c["verdict"] == "not checkable" and "fewer than 2 paired runs" in c["detail"], (was, c)


@pytest.fixture(scope="module")
def s003_one(tmp_path_factory) -> Dict[str, Dict[str, str]]:
    """reproduce 003 --quick --runs 1 --only udehu"""
    return _claims(reproduce("003", tmp_path_factory.mktemp("s003") / "out", "udehu", runs=1))


@pytest.mark.parametrize("cid, was", [
    # best / worst TCP path ratio of one run, no CI: "partly"
    ("s003-tcp-depends-on-path", "partly"),
    # r = +0.0 % [nan, nan]: "partly"
    ("s003-tcp-cubic-slightly-better", "partly"),
])
def test_seed003_one_run_is_not_checkable(s003_one, cid: str, was: str) -> None:
    c = s003_one[cid]
    assert c["verdict"] == "not checkable" and "fewer than 2 paired runs" in c["detail"], (was, c)


def test_seed004_a_comparison_without_paired_runs_is_not_checkable() -> None:
    # `_cmp` with no run in common took the mean of an empty array (NaN,
    # numpy's "Mean of empty slice") and said "not reproduced"; `_combine`
    # then counted it as a failed comparison
    v, det = seed004._cmp({1: 3.0, 2: 4.0}, {})
    assert v == "not checkable" and "no paired runs" in det, (v, det)
    assert seed004._combine(["reproduced", "not checkable"]) == "reproduced"
    assert seed004._combine(["not checkable"]) == "not checkable"


def test_seed001_never_worse_is_not_judged_on_zero_configurations(tmp_path: Path) -> None:
    # with only the cloud runs (no tail/probe-loss/failure configuration),
    # `not slower and len(faster) * 2 >= len(pat)` held on 0 of 0 and judged
    # s001-tlp-never-worse "reproduced", even with 2 runs per point
    claims = _claims(reproduce("001", tmp_path / "out", "cloud", runs=2))
    assert "s001-tlp-never-worse" not in claims, claims.get("s001-tlp-never-worse")


def test_seed001_an_undefined_rho_says_why(tmp_path: Path) -> None:
    # tail2 with 3 segments: the gain is the same at every delay ratio, so
    # Spearman's rho is NaN and the claim was "not reproduced" with a bare
    # "+nan"; the verdict stands (no growth), the numbers now say why
    claims = _claims(reproduce("001", tmp_path / "out", "tail2-3seg", runs=2))
    c = claims["s001-tlp-gain-grows-with-asymmetry"]
    assert c["verdict"] == "not reproduced" and "rho undefined: the gain is the same" in c["detail"], c
