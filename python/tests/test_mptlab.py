"""mptlab from Python: runs, sweeps, resume, errors, Dask."""

from pathlib import Path

import polars as pl
import pytest

import mptlab

SCEN = """[scenario]
name = "py"
duration_s = 3
runs = 3
seed = 11

[topology]
preset = "two-path"
paths = ["wlan", "3g"]

[transport]
protocol = "tcp"

[traffic]
model = "video"
bitrate_kbit = 500
"""

SWEEP = SCEN + """
[sweep]
"transport.path" = [1, 2]
"transport.cc" = ["newreno", "cubic"]
runs = 3
"""


@pytest.fixture
def scen(tmp_path: Path) -> Path:
    p = tmp_path / "s.toml"
    p.write_text(SCEN)
    return p


@pytest.fixture
def sweep_file(tmp_path: Path) -> Path:
    p = tmp_path / "sw.toml"
    p.write_text(SWEEP)
    return p


def scen_ok(tmp_path: Path) -> Path:
    p = tmp_path / "ok.toml"
    p.write_text(SCEN)
    return p


def merged_bytes(d: Path) -> dict:
    return {f.name: f.read_bytes() for f in sorted(d.iterdir()) if f.is_file() and f.name != "sweep.json"}


def test_run_gives_dataframes(scen: Path, tmp_path: Path) -> None:
    r = mptlab.run(scen, runs=2, set={"transport.path": 2}, out=tmp_path / "o")
    assert isinstance(r.messages, pl.DataFrame)
    assert r.messages.columns[:3] == ["run", "seed", "flow"]
    assert sorted(r.messages["run"].unique().to_list()) == [0, 1]
    assert r.messages.height > 100
    assert r.summary["runs"] == 2 and r.summary["scenario"] == "py"
    assert "transport.path=2" not in str(r)  # repr lists tables
    pdf = r.to_pandas("flows")
    assert list(pdf.columns) == r.flows.columns
    assert set(r.names) >= {"messages", "transfers", "flows", "paths", "links", "timeseries"}
    again = mptlab.load(tmp_path / "o")
    assert again.messages.equals(r.messages)
    with pytest.raises(AttributeError):
        r.nonexistent


def test_runs_are_deterministic_and_independent_of_jobs(scen: Path) -> None:
    a = mptlab.run(scen, jobs=1)
    b = mptlab.run(scen, jobs=3)
    for n in a.names:
        assert a.table(n).equals(b.table(n)), n
    c = mptlab.run(scen, seed=12)
    assert not a.messages.equals(c.messages)


def test_names_are_the_registry_mptlab_list_prints() -> None:
    n = mptlab.names()
    assert n["transport.mptcp.scheduler"]["default"] == "alias of minrtt"
    assert "redundant" in n["transport.mptcp.scheduler"]
    assert set(n["transport.cc"]) == {"newreno", "cubic", "lia", "olia", "balia", "wvegas"}
    assert set(n["transport.sctp.scheduler"]) == {"roundrobin", "daps"}


def test_scenario_error_fields(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(SCEN.replace('protocol = "tcp"', 'protocol = "tcp"\npath = 7'))
    with pytest.raises(mptlab.ScenarioError) as ei:
        mptlab.run(bad)
    e = ei.value
    assert e.file == str(bad)
    assert e.line == 13
    assert e.key == "transport.path"
    assert "found 7" in e.message
    assert str(e).startswith(f"{bad}:13:8: key `transport.path`")
    assert isinstance(e, ValueError)
    with pytest.raises(mptlab.ScenarioError) as ei:
        mptlab.run(tmp_path / "missing.toml")
    assert "file not found" in ei.value.message
    with pytest.raises(mptlab.ScenarioError) as ei:
        mptlab.run(scen_ok(tmp_path), set={"transport.colour": 1})
    assert ei.value.key == "transport.colour"
    assert "unknown key" in ei.value.message


def test_sweep_resume_is_byte_identical(sweep_file: Path, tmp_path: Path) -> None:
    whole = mptlab.sweep(sweep_file, out=tmp_path / "a", jobs=2)
    assert whole.messages.columns[:6] == ["point", "point_label", "transport.path", "transport.cc", "run", "seed"]
    assert whole.messages["point"].n_unique() == 4
    assert len(whole.summary["points"]) == 4
    with pytest.raises(KeyboardInterrupt):
        mptlab.sweep(sweep_file, out=tmp_path / "b", stop_after=5)
    assert not (tmp_path / "b" / "summary.json").exists()
    resumed = mptlab.sweep(sweep_file, out=tmp_path / "b", jobs=1)
    assert merged_bytes(tmp_path / "a") == merged_bytes(tmp_path / "b")
    assert resumed.messages.equals(whole.messages)
    # common random numbers: seeds equal across points, run by run
    seeds = whole.messages.group_by("point").agg(pl.col("seed").unique().sort())["seed"].to_list()
    assert all(s == seeds[0] for s in seeds)
    pts = whole.points
    assert set(pts.columns) >= {"point", "metric", "mean", "ci95_low", "ci95_high"}
    # a changed scenario is refused
    sweep_file.write_text(SWEEP.replace("duration_s = 3", "duration_s = 2"))
    with pytest.raises(mptlab.ScenarioError, match="different scenario"):
        mptlab.sweep(sweep_file, out=tmp_path / "b")


def test_sweep_axis_error(tmp_path: Path) -> None:
    p = tmp_path / "bad.toml"
    p.write_text(SWEEP.replace('"transport.path" = [1, 2]', '"transport.path" = [1, 5]'))
    with pytest.raises(mptlab.ScenarioError) as ei:
        mptlab.sweep(p, out=tmp_path / "o")
    assert ei.value.key == "transport.path"
    assert "transport.path = 5" in ei.value.message
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
def test_dask_sweep_equals_local(sweep_file: Path, tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    local = mptlab.sweep(sweep_file, out=tmp_path / "local")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            with pytest.raises(KeyboardInterrupt):
                mptlab.sweep(sweep_file, out=tmp_path / "dask", stop_after=4)  # part done locally
            remote = mptlab.sweep(sweep_file, out=tmp_path / "dask", scheduler=client)
            # an address works too (a fresh directory, all runs on the cluster)
            by_addr = mptlab.sweep(sweep_file, out=tmp_path / "addr", scheduler=cluster.scheduler_address)
    assert merged_bytes(tmp_path / "local") == merged_bytes(tmp_path / "dask")
    assert merged_bytes(tmp_path / "local") == merged_bytes(tmp_path / "addr")
    assert remote.messages.equals(local.messages) and by_addr.paths.equals(local.paths)


@pytest.mark.slow
def test_dask_worker_of_another_model_is_not_saved(sweep_file: Path, tmp_path: Path, monkeypatch) -> None:
    # a worker whose build simulates another model: its runs are refused,
    # not stored as this build's (they would be resumed as if they were)
    distributed = pytest.importorskip("distributed")
    from mptlab import _core, _dask

    def other_build(text: str, origin: str, base_dir: str, run: int):
        return "0" * 32, _core.run_toml(text, origin, base_dir, run)

    monkeypatch.setattr(_dask, "_run_task", other_build)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            with pytest.raises(mptlab.SimulationError, match="another build of the model"):
                mptlab.sweep(sweep_file, out=tmp_path / "d", scheduler=client)
    assert not list((tmp_path / "d" / "runs").glob("*/run-*.json"))


def test_stats_match_known_values() -> None:
    assert abs(mptlab.stats.t975(10) - 2.2281389) < 2e-6
    d = mptlab.stats.describe([2, 4, 4, 4, 5, 5, 7, 9])
    assert d["n"] == 8 and d["mean"] == 5.0 and d["median"] == 4.5
    assert abs(d["ci95_low"] - 3.212504) < 1e-5
    assert d["boxplot"]["q1"] == 4.0 and d["boxplot"]["outliers"] == [9.0]  # fence 5.5 + 1.5 * 1.5
    assert d["boxplot"]["whisker_high"] == 7.0
    assert mptlab.stats.describe([float("nan")]) is None


def _cli() -> Path:
    import os

    root = Path(__file__).resolve().parents[2]
    target = Path(os.environ.get("CARGO_TARGET_DIR", root / "target"))
    exe = target / "release" / "mptlab"
    if not exe.is_file():
        pytest.skip(f"no CLI binary at {exe} (cargo build --release)")
    return exe


@pytest.mark.slow
def test_cli_scheduler_hands_over_to_python(sweep_file: Path, tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    distributed = pytest.importorskip("distributed")
    exe = _cli()
    env = dict(os.environ, MPTLAB_PYTHON=sys.executable)
    local = subprocess.run([str(exe), "sweep", str(sweep_file), "--out", str(tmp_path / "l"), "-q"], env=env)
    assert local.returncode == 0
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, protocol="tcp",
                                  dashboard_address=None) as cluster:
        addr = cluster.scheduler_address
        r = subprocess.run([str(exe), "sweep", str(sweep_file), "--out", str(tmp_path / "d"), "-q",
                            "--scheduler", addr], env=env, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        bad = tmp_path / "bad.toml"
        bad.write_text(SWEEP.replace("[1, 2]", "[1, 9]"))
        r = subprocess.run([str(exe), "sweep", str(bad), "--out", str(tmp_path / "x"), "--scheduler", addr],
                           env=env, capture_output=True, text=True)
        assert r.returncode == 2 and "transport.path = 9" in r.stderr and "Traceback" not in r.stderr
        assert not (tmp_path / "x").exists()
    assert merged_bytes(tmp_path / "l") == merged_bytes(tmp_path / "d")


def test_load_and_set_errors(scen: Path, tmp_path: Path) -> None:
    with pytest.raises(mptlab.SimulationError, match="no summary.json"):
        mptlab.load(tmp_path)
    with pytest.raises(mptlab.ScenarioError, match="cannot express"):
        mptlab.run(scen, set={"transport.cc": object()})
    # csv only: load falls back to CSV
    r = mptlab.sweep(scen, out=tmp_path / "c", parquet=False, runs=1)
    assert not list((tmp_path / "c").glob("*.parquet"))
    assert r.messages.height > 0 and r.messages["point_label"][0] == "base"


def test_tables_load_by_name_with_the_declared_types(scen: Path, tmp_path: Path) -> None:
    from mptlab._results import SCHEMAS, STANDARD
    # the schemas come from the Rust row definitions, in documented order
    assert STANDARD == ["messages", "transfers", "flows", "paths", "links", "timeseries"]
    assert SCHEMAS["paths"]["share_bytes"] == "f64" and SCHEMAS["flows"]["penalizations"] == "u64"
    mptlab.sweep(scen, out=tmp_path / "b", runs=1)
    pq = mptlab.load(tmp_path / "b")
    for f in (tmp_path / "b").glob("*.parquet"):
        f.unlink()
    csv = mptlab.load(tmp_path / "b")
    for name, cols in SCHEMAS.items():
        p, c = pq.table(name), csv.table(name)
        # every declared column, in declared order, after the leading ones
        assert [x for x in p.columns if x in cols] == list(cols), name
        assert c.columns == p.columns, name
        # CSV read with the declared types agrees with Parquet, also for
        # columns that are empty or all null in this run
        assert c.schema == p.schema, name
        assert c.equals(p), name
