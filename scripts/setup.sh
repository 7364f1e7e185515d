#!/usr/bin/env bash
# Install what a fresh machine lacks. Idempotent: skips what is present.
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
