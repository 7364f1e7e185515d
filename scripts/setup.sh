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

# tshark reads the simulator's packet captures in the capture test
# (crates/cli/tests/capture_tshark.rs, docs/captures.md); without it that
# test skips with a reason. Debian/Ubuntu as root only.
if ! command -v tshark >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tshark >/dev/null) \
            || echo "setup: tshark could not be installed; the capture test will skip" >&2
    else
        echo "setup: tshark missing (apt-get install tshark); the capture test will skip" >&2
    fi
fi

# Python package tooling (docs/python.md): maturin builds mptlab._core;
# polars/pandas/pyarrow read results; dask/distributed run sweeps on clusters;
# matplotlib draws the figures of the reproduce report (python/mptlab/report.py).
if [ "${MPTLAB_NO_PYTHON:-0}" = "1" ]; then
    echo "setup: skipping Python (MPTLAB_NO_PYTHON=1)"
    exit 0
fi
# The interpreter: $PYTHON, else ./.venv if it exists, else python3; a
# system Python that refuses pip installs (PEP 668, no pip) gets ./.venv.
PY="${PYTHON:-python3}"
[ -z "${PYTHON:-}" ] && [ -x .venv/bin/python ] && PY=.venv/bin/python
if ! command -v "$PY" >/dev/null 2>&1; then
    echo "setup: WARNING: $PY not found; the Python package and its tests are skipped" >&2
    exit 0
fi
PKGS=("maturin>=1.5,<2" polars pandas pyarrow dask distributed pytest matplotlib)
have() { "$1" -c "import maturin, polars, pandas, pyarrow, dask, distributed, pytest, matplotlib" >/dev/null 2>&1; }
if have "$PY"; then
    echo "setup: $("$PY" --version) ($PY), Python tooling present"
    exit 0
fi
echo "setup: installing Python tooling for $PY with pip"
if "$PY" -m pip install --quiet "${PKGS[@]}" && have "$PY"; then
    exit 0
fi
if [ "$PY" = python3 ] && [ -z "${PYTHON:-}" ] && python3 -m venv .venv \
    && .venv/bin/python -m pip install --quiet "${PKGS[@]}" && have .venv/bin/python; then
    echo "setup: Python tooling installed in ./.venv (make uses it)"
    exit 0
fi
echo "setup: WARNING: could not install the Python tooling; the Python package and its tests are skipped" >&2
