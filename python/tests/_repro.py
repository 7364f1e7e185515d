"""Shared by the report tests: find the CLI binary and run
`mptlab reproduce SEED --quick` on a subset, with the report generated from
this checkout's python/ (not another installed mptlab)."""

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def cli() -> Path:
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    exe = target / "release" / "mptlab"
    if not exe.is_file():
        pytest.skip(f"no CLI binary at {exe} (cargo build --release)")
    return exe


def reproduce(seed: str, out: Path, *only: str, runs: int = 2) -> Path:
    """`reproduce SEED --quick --runs RUNS --only ...` into `out`; asserts success."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "python"), os.environ.get("PYTHONPATH", "")]))
    args = [str(cli()), "reproduce", seed, "--quick", "--runs", str(runs), "--out", str(out), "-q", "--jobs", "2"]
    for o in only:
        args += ["--only", o]
    r = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    return out
