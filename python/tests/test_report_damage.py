"""Session 26, bad input: the report on a damaged or partial `mptlab
reproduce` tree says which file is wrong and exits 2 (never a traceback,
never a report that silently leaves runs out), and `reproduce --runs 1`
gives a report whose paired comparisons are "not checkable", not a failure
blaming the registry."""

import json
import shutil
from pathlib import Path

import pytest

from mptlab import report

from _repro import reproduce


@pytest.fixture(scope="module")
def heavy(tmp_path_factory) -> Path:
    """reproduce 004 --quick --runs 2 --only heavy (its section reads the run files)."""
    return reproduce("004", tmp_path_factory.mktemp("s26") / "out", "heavy", runs=2)


def _copy(src: Path, tmp_path: Path) -> Path:
    out = tmp_path / "copy"
    shutil.copytree(src, out)
    return out


def _one_error(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1, err
    return err


def test_a_missing_run_file_is_named_not_left_out(heavy: Path, tmp_path: Path, capsys) -> None:
    out = _copy(heavy, tmp_path)
    f = sorted(out.glob("runs/seed004/heavy/runs/*/run-1.json"))[0]
    f.unlink()
    assert report.main([str(out)]) == 2
    err = _one_error(capsys)
    assert err.startswith(f"error: {f}: missing, though ") and "lists run 1 of point" in err, err
    assert not (out / "report.html").exists() or (out / "report.html").read_bytes() == (heavy / "report.html").read_bytes()


def test_a_missing_sweep_summary_is_named(heavy: Path, tmp_path: Path, capsys) -> None:
    out = _copy(heavy, tmp_path)
    sf = out / "runs/seed004/heavy/summary.json"
    sf.unlink()
    assert report.main([str(out)]) == 2
    err = _one_error(capsys)
    assert err.startswith(f"error: {sf}: missing, though {out / 'reproduce.json'} lists sweep `seed004/heavy`"), err


@pytest.mark.parametrize("doc", [[1], {"points": {}}, {"points": [{"point": "x", "values": {}}]}])
def test_a_summary_of_another_shape_is_one_message(heavy: Path, tmp_path: Path, capsys, doc) -> None:
    out = _copy(heavy, tmp_path)
    sf = out / "runs/seed004/heavy/summary.json"
    sf.write_text(json.dumps(doc))
    assert report.main([str(out)]) == 2
    err = _one_error(capsys)
    assert err.startswith(f"error: {sf}: key `points") and "is missing or of another type" in err, err


def test_one_run_per_point_is_not_checkable_not_a_failure(tmp_path: Path) -> None:
    # the report used to stop: "no report section gave the claim a verdict
    # (does its report module look for these runs under another name?)"
    out = reproduce("004", tmp_path / "out", "subflows", runs=1)
    claims = {c["id"]: c for c in json.loads((out / "verdicts.json").read_text())["claims"]}
    c = claims["s004-two-subflows-one-interface"]
    assert c["verdict"] == "not checkable" and "1 run per sweep point in seed004/subflows" in c["detail"], c


@pytest.mark.parametrize("which", ["--claims", "--registry"])
@pytest.mark.parametrize("bad", ["missing", "dir", "binary", "toml", "empty"])
def test_a_bad_claims_or_registry_file_is_one_message(heavy: Path, tmp_path: Path, capsys, which, bad) -> None:
    # `--claims` that did not exist wrote a report without any claim (exit
    # 0); a directory, a binary file or a TOML error was a traceback
    f = tmp_path / "given.toml"
    if bad == "dir":
        f.mkdir()
    elif bad == "binary":
        f.write_bytes(b"\x00\xd0\xff" * 20)
    elif bad == "toml":
        f.write_text("x = [\n")
    elif bad == "empty":
        f.write_text("")
    if which == "--registry" and bad == "missing":
        pytest.skip("a missing registry was already one message")
    assert report.main([str(heavy), which, str(f)]) == 2
    err = _one_error(capsys)
    assert err.startswith(f"error: {f}: "), err


def test_one_run_per_cell_leaves_a_variability_claim_not_checkable(tmp_path: Path) -> None:
    # seed 002's coefficient of variation needs 2 runs per cell: with 1 its
    # section counted every cell as "not lower" and judged the claim "not
    # reproduced" on no data (numpy warned "Mean of empty slice")
    out = reproduce("002", tmp_path / "out", "att", runs=1)
    claims = {c["id"]: c for c in json.loads((out / "verdicts.json").read_text())["claims"]}
    c = claims["s002-mptcp-reduces-variability"]
    assert c["verdict"] == "not checkable" and "fewer than 2 runs" in c["detail"], c
    two = reproduce("002", tmp_path / "two", "att", runs=2)
    claims = {c["id"]: c for c in json.loads((two / "verdicts.json").read_text())["claims"]}
    assert claims["s002-mptcp-reduces-variability"]["verdict"] != "not checkable"
