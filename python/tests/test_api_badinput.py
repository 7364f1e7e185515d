"""Session 27: the Python API's bad input, one error naming the file or
argument, no traceback from numpy, polars or the compiled module. Each
case failed on main 7d4d8a8 (JSONDecodeError, an AttributeError "no table
'points'", polars' ComputeError, OverflowError)."""

import re
import shutil
import warnings
from pathlib import Path

import pytest

import mptlab

SRC = Path(__file__).with_name("test_mptlab.py").read_text()
SCEN = re.search(r'SCEN = """(.*?)"""', SRC, re.S).group(1)


@pytest.fixture(scope="module")
def result(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("api")
    (d / "s.toml").write_text(SCEN)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mptlab.UnfinishedWarning)
        mptlab.run(d / "s.toml", out=d / "r", runs=1)
    return d / "r"


@pytest.mark.parametrize("damage, said", [
    (lambda d: (d / "summary.json").write_text(""), "summary.json: not valid JSON"),
    (lambda d: (d / "summary.json").write_text("[]"), "summary.json: not a summary mptlab wrote"),
    (lambda d: (d / "messages.parquet").write_bytes((d / "messages.parquet").read_bytes()[:50]),
     "messages.parquet: cannot be read as table `messages`"),
])
def test_load_of_a_damaged_directory_names_the_file(result: Path, tmp_path: Path, damage, said: str) -> None:
    d = tmp_path / "r"
    shutil.copytree(result, d)
    damage(d)
    with pytest.raises(mptlab.SimulationError) as err:
        mptlab.load(d)
    assert str(err.value).startswith(str(d / said.split(":")[0])) and said in str(err.value), err.value


@pytest.mark.parametrize("arg", ["runs", "seed", "jobs"])
def test_a_negative_count_names_the_argument(result: Path, arg: str) -> None:
    scen = result.parent / "s.toml"
    for fn in (mptlab.run, mptlab.sweep):
        with pytest.raises(mptlab.ScenarioError) as err:
            fn(scen, **{arg: -1})
        assert str(err.value) == f"{arg} = -1: expected a whole number >= 0" and err.value.key == arg, err.value
