"""mptlab: multipath transport lab, from Python.

>>> import mptlab
>>> r = mptlab.run("scenarios/video-wlan-3g.toml", runs=3, set={"transport.path": 2})
>>> r.messages.group_by("run").agg(pl.col("delay_ms").median())
>>> s = mptlab.sweep("scenarios/sweep-video.toml", out="out/sv")   # resumable
>>> s.summary["points"][0]["aggregate"]["delay_ms_median"]["ci95_low"]

See docs/python.md.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Union

import warnings

from . import _core, stats
from ._errors import MptlabError, ScenarioError, SimulationError, UnfinishedWarning
from ._results import Results, load

__version__ = _core.__version__
__all__ = ["run", "sweep", "load", "check", "names", "stats", "Results", "ScenarioError", "SimulationError",
           "MptlabError", "UnfinishedWarning", "__version__"]

PathLike = Union[str, Path]


class _RawToml(str):
    """A `set` value that is TOML text already (from the command line)."""


def _toml(v: Any) -> str:
    """A Python value as the TOML text `--set` expects."""
    if isinstance(v, _RawToml):
        return str(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    raise ScenarioError(f"set: cannot express {v!r} in TOML", message=f"cannot express {v!r} in TOML")


def _sets(set: Optional[Mapping[str, Any]]) -> list:
    return [f"{k}={_toml(v)}" for k, v in (set or {}).items()]


def _counts(**kw: Any) -> None:
    """`runs`, `seed`, `jobs`, `stop_after` given as negative numbers (or
    not whole numbers): a ScenarioError naming the argument (was an
    OverflowError "out of range integral type conversion attempted" from the
    compiled module, naming nothing). The upper limits are the parser's."""
    for k, v in kw.items():
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ScenarioError(f"{k} = {v!r}: expected a whole number >= 0", key=k,
                                message=f"expected a whole number >= 0, found {v!r}")


def _warn_unfinished(r: Results) -> Results:
    """Warn (UnfinishedWarning) when some transfer or message did not complete."""
    if r.unfinished_count:
        warnings.warn(UnfinishedWarning(r.unfinished_text(), r.unfinished), stacklevel=4)
    return r


def _into(out: Optional[PathLike], fn: Callable[[Path], None]) -> Results:
    """Run `fn` into `out`, or into a temporary directory read and removed."""
    if out is not None:
        fn(Path(out))
        return _warn_unfinished(load(out))
    tmp = Path(tempfile.mkdtemp(prefix="mptlab-"))
    try:
        d = tmp / "out"
        fn(d)
        r = load(d)
        r.path = None
        return _warn_unfinished(r)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def names() -> dict:
    """Every name a scenario may use, by scenario key: ``{key: {name: description}}``,
    e.g. ``names()["transport.mptcp.scheduler"]["minrtt"]``. The same registry
    ``mptlab list`` prints and the parser accepts (mptlab-core's mechanism enums)."""
    return {key: dict(entries) for _title, key, entries in _core.names()}


def check(scenario: PathLike, *, set: Optional[Mapping[str, Any]] = None) -> int:
    """Validate a scenario (and its [sweep]); returns the number of points.
    Raises ScenarioError."""
    return _core.check(str(scenario), _sets(set))


def run(scenario: PathLike, *, runs: Optional[int] = None, seed: Optional[int] = None,
        set: Optional[Mapping[str, Any]] = None, jobs: Optional[int] = None,
        out: Optional[PathLike] = None, force: bool = False) -> Results:
    """Run every repetition of a scenario (like ``mptlab run``).

    ``set`` overrides dotted keys (``{"transport.cc": "newreno"}``); ``out``
    keeps the result directory (else a temporary one is used and removed).
    Raises ScenarioError for bad input, SimulationError if a run fails.
    """
    _counts(runs=runs, seed=seed, jobs=jobs)
    return _into(out, lambda d: _core.run(str(scenario), str(d), runs, seed, _sets(set), jobs, force))


def sweep(scenario: PathLike, *, out: Optional[PathLike] = None, runs: Optional[int] = None,
          seed: Optional[int] = None, set: Optional[Mapping[str, Any]] = None,
          jobs: Optional[int] = None, force: bool = False, scheduler: Any = None,
          stop_after: Optional[int] = None, csv: bool = True, parquet: bool = True,
          progress: Optional[Callable[[int, int], None]] = None) -> Results:
    """Run every point x run of the scenario's ``[sweep]`` (like ``mptlab sweep``).

    With ``out`` every finished run is persisted at once and calling again
    with the same arguments resumes; ``scheduler`` (``"tcp://host:8786"`` or
    a ``distributed.Client``) runs one Dask task per (point, run) instead of
    local threads. ``stop_after`` stops after that many runs (raising
    KeyboardInterrupt), to test interruptions.
    """

    _counts(runs=runs, seed=seed, jobs=jobs, stop_after=stop_after)

    def go(d: Path) -> None:
        job = _core.SweepJob(str(scenario), str(d), runs, seed, _sets(set), force)
        if scheduler is not None:
            from ._dask import run_on_dask

            if stop_after is not None:
                raise ValueError("stop_after is for local sweeps")
            run_on_dask(job, scheduler, progress)
        else:
            job.run_local(jobs, stop_after)
        job.finish(csv, parquet)

    return _into(out, go)
