#!/usr/bin/env bash
# Create the virtualenv with the ns-3 Python wheel used by ns3_reference.py.
# Usage: tools/ns3/setup_venv.sh [VENV_DIR]   (default /work/ns3venv)
set -euo pipefail
VENV="${1:-/work/ns3venv}"
PY="${PYTHON:-python3.11}"
"$PY" -m venv "$VENV"
"$VENV/bin/pip" install -q "ns3==3.44.post0"
echo "ok: run   $VENV/bin/python tools/ns3/ns3_reference.py"
