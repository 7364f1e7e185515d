#!/usr/bin/env bash
# Install what a fresh machine lacks. Idempotent: skips what is present.
#   MPTLAB_NO_PYTHON=1  skip the Python tooling (Rust only)
set -euo pipefail
if ! command -v cargo >/dev/null 2>&1; then
    if [ -x "$HOME/.cargo/bin/cargo" ]; then
        export PATH="$HOME/.cargo/bin:$PATH"
    else
        echo "setup: cargo (Rust) is required; install it with rustup or your package manager" >&2
        exit 1
    fi
fi
echo "setup: $(cargo --version)"

# Python package tooling (docs/python.md): maturin builds mptlab._core;
# polars/pandas/pyarrow read results; dask/distributed run sweeps on clusters.
if [ "${MPTLAB_NO_PYTHON:-0}" = "1" ]; then
    echo "setup: skipping Python (MPTLAB_NO_PYTHON=1)"
    exit 0
fi
PY="${PYTHON:-python3}"
if ! command -v "$PY" >/dev/null 2>&1; then
    echo "setup: $PY not found; the Python package and its tests are skipped" >&2
    exit 0
fi
if "$PY" -c "import maturin, polars, pandas, pyarrow, dask, distributed, pytest" >/dev/null 2>&1; then
    echo "setup: $("$PY" --version), Python tooling present"
else
    echo "setup: installing Python tooling with pip"
    "$PY" -m pip install --quiet "maturin>=1.5,<2" polars pandas pyarrow dask distributed pytest
fi
