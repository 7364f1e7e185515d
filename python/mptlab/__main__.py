"""``python -m mptlab sweep SCENARIO --out DIR --scheduler ADDRESS``: what the
``mptlab sweep --scheduler`` command runs. Exit codes as the CLI: 0 done,
2 bad input (nothing run), 1 a run failed."""

from __future__ import annotations

import argparse
import sys

from . import ScenarioError, SimulationError, _RawToml, sweep


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="mptlab")
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sweep", help="run a sweep, locally or on a Dask cluster")
    s.add_argument("scenario")
    s.add_argument("--out", "-o", required=True)
    s.add_argument("--runs", type=int)
    s.add_argument("--seed", type=int)
    s.add_argument("--jobs", "-j", type=int)
    s.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    s.add_argument("--quiet", "-q", action="store_true")
    s.add_argument("--force", action="store_true")
    s.add_argument("--no-csv", action="store_true")
    s.add_argument("--no-parquet", action="store_true")
    s.add_argument("--scheduler", metavar="ADDRESS")
    a = ap.parse_args(argv)
    sets = {}
    for kv in a.set:
        k, sep, v = kv.partition("=")
        if not sep:
            print(f"error: --set {kv}: expected key=value", file=sys.stderr)
            return 2
        sets[k.strip()] = _RawToml(v.strip())
    def progress(done: int, total: int) -> None:
        if not a.quiet and sys.stderr.isatty():
            print(f"\r{done}/{total} runs", end="", file=sys.stderr, flush=True)
    try:
        sweep(a.scenario, out=a.out, runs=a.runs, seed=a.seed, set=sets, jobs=a.jobs,
              force=a.force, scheduler=a.scheduler, progress=progress,
              csv=not a.no_csv, parquet=not a.no_parquet)
    except ScenarioError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (SimulationError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ninterrupted; finished runs are kept, run the same command again to resume", file=sys.stderr)
        return 130
    if not a.quiet:
        print(f"\nwrote results to {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
