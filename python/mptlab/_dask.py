"""Sweeps on a Dask distributed cluster: one task per (point, run).

Each task calls the compiled simulator on the point's effective scenario and
returns the run as bytes; the client persists each result as it arrives,
exactly like a local sweep, so an interrupted Dask sweep resumes (locally or
on a cluster) without redoing finished runs.
"""

from __future__ import annotations

import hashlib
from typing import Any, Callable, Optional, Tuple


def _run_task(text: str, origin: str, base_dir: str, run: int) -> Tuple[str, bytes]:
    """One run on a worker, with the identity of the model the worker's
    build simulates: the client stores the run only if it is its own."""
    from mptlab import _core  # imported on the worker

    return _core.MODEL_ID, _core.run_toml(text, origin, base_dir, run)


def run_on_dask(job: Any, scheduler: Any, progress: Optional[Callable[[int, int], None]] = None) -> int:
    """Submit the pending runs of ``job`` (a ``_core.SweepJob``) to
    ``scheduler`` (an address such as ``tcp://host:8786`` or a
    ``distributed.Client``); returns the number of runs done."""
    from ._errors import SimulationError

    try:
        from distributed import Client, as_completed
    except ImportError as e:
        raise SimulationError(f"the Dask path needs dask and distributed (pip install dask distributed): {e}") from None
    if isinstance(scheduler, Client):
        client = scheduler
    else:
        try:
            client = Client(scheduler, timeout="30s")
        except Exception as e:  # distributed raises OSError, TimeoutError, ValueError...
            raise SimulationError(f"cannot connect to the Dask scheduler {scheduler}: {e}") from None
    from mptlab import _core

    mine = _core.MODEL_ID
    try:
        pending = job.pending()
        tasks = {}
        ids = job.points
        for point, run in pending:
            text, origin, base_dir = job.task(point)
            # named by point, run and scenario text, so the dashboard shows what runs
            key = f"mptlab-run-{ids[point][0]}-{run}-{hashlib.sha1(text.encode()).hexdigest()[:8]}"
            fut = client.submit(_run_task, text, origin, str(base_dir), run, key=key, pure=False)
            tasks[fut] = (point, run)
        done = 0
        try:
            for fut in as_completed(list(tasks)):
                point, run = tasks[fut]
                model, data = fut.result()
                if model != mine:
                    # stored under the client's key, another build's run
                    # would pass for this model's on resume (docs/sweeps.md)
                    raise SimulationError(
                        f"a Dask worker runs another build of the model (model sources {model[:12]}; this "
                        f"client: {mine[:12]}): its run was not saved; install the same mptlab build on "
                        f"every worker (the runs saved so far are kept)")
                job.save(point, run, data)
                done += 1
                if progress is not None:
                    progress(done, len(pending))
        except BaseException:
            for f in tasks:
                f.cancel()
            raise
        return done
    finally:
        if client is not scheduler:
            client.close()
