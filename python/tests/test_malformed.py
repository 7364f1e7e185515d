"""The malformed-scenario corpus (crates/cli/tests/malformed) through the
Python API: every file raises mptlab.ScenarioError (never a Rust panic, never
another exception) with the file and, unless it is a TOML syntax error, the
key; `run` writes no output directory. The Rust test
crates/cli/tests/malformed.rs checks each message's wording."""

from pathlib import Path
import re

import pytest

import mptlab

CORPUS = Path(__file__).resolve().parents[2] / "crates" / "cli" / "tests" / "malformed"
FILES = sorted(CORPUS.glob("*.toml"))
# located by line and column only: the TOML itself does not parse
SYNTAX = {"01-syntax-unclosed-string.toml", "51-deeply-nested-array.toml", "52-nul-byte-in-name.toml"}


def test_the_corpus_is_there() -> None:
    assert len(FILES) >= 40


def _assert_named(e: mptlab.ScenarioError, f: Path) -> None:
    text = str(e)
    assert e.file == str(f), text
    assert text.startswith(f"{f}:"), text
    assert e.line is not None, text
    if f.name in SYNTAX:
        return
    assert e.key, text
    assert f"key `{e.key}`" in text.splitlines()[0], text
    # what was expected is said
    assert re.search(r"expected|unknown|missing|need|not measured|must|reconnects|no longer", e.message), text


@pytest.mark.parametrize("f", FILES, ids=[f.stem for f in FILES])
def test_check_raises_a_named_error(f: Path) -> None:
    with pytest.raises(mptlab.ScenarioError) as ei:
        mptlab.check(f)
    _assert_named(ei.value, f)


@pytest.mark.parametrize("f", FILES, ids=[f.stem for f in FILES])
def test_run_raises_the_same_error_and_writes_nothing(f: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    with pytest.raises(mptlab.ScenarioError) as ei:
        mptlab.run(f, out=out)
    _assert_named(ei.value, f)
    with pytest.raises(mptlab.ScenarioError) as ci:
        mptlab.check(f)
    assert str(ei.value) == str(ci.value)
    assert not out.exists()


def test_run_refuses_an_unwritable_out_before_simulating(tmp_path: Path) -> None:
    good = Path(__file__).resolve().parents[2] / "scenarios" / "video-wlan-3g.toml"
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(mptlab.ScenarioError) as ei:
        mptlab.run(good, runs=1, out=blocker / "out")
    assert "cannot write results there" in str(ei.value)
    assert not (blocker / "out").exists()


def test_run_refuses_an_out_holding_files_of_the_users_own(tmp_path: Path) -> None:
    """`run(out=)` checked for summary.json only: a flows.csv of the user's own
    was overwritten (session 26; the CLI's `run` refuses it the same way)."""
    good = Path(__file__).resolve().parents[2] / "scenarios" / "video-wlan-3g.toml"
    theirs = tmp_path / "flows.csv"
    theirs.write_text("mine\n")
    with pytest.raises(mptlab.ScenarioError) as ei:
        mptlab.run(good, runs=1, set={"scenario.duration_s": 2}, out=tmp_path)
    assert "already holds results (flows.csv)" in str(ei.value)
    assert theirs.read_text() == "mine\n"
    assert not (tmp_path / "summary.json").exists()
