# mptlab: one command to set up and run the main job, one to test.
#   make demo   - install what is missing, build, run the example scenario and
#                 reproduce all seeds in quick mode (HTML report in out/reproduce)
#   make test   - build and run the whole test suite (Rust, then Python)
#   make agreement - the simulator against the kernel runs committed in docs/data/
#   make lint   - cargo fmt --check and clippy -D warnings (CI runs it first)
#   make fuzz-smoke - every fuzz target for 20 s (nightly + cargo-fuzz; else SKIP)
#   make python - build the Python package in place (pip install -e .)
#   make pgo    - profile-guided build for speed measurements: target/pgo/release/mptlab
SHELL := /bin/bash
CARGO ?= cargo
OUT ?= out

.PHONY: setup build demo test lint fuzz-smoke python pytest bench pgo clean agreement
# ./.venv when setup made one (see scripts/setup.sh)
PYTHON ?= $(if $(wildcard .venv/bin/python),.venv/bin/python,python3)

setup:
	@bash scripts/setup.sh

build: setup
	$(CARGO) build --release

# the report runs in the interpreter `make python` installed into (./.venv when
# setup made one), not whatever python3 is first on PATH
demo: build python
	./target/release/mptlab run scenarios/video-wlan-3g.toml --out $(OUT)/demo --force
	MPTLAB_PYTHON=$(if $(findstring /,$(PYTHON)),$(abspath $(PYTHON)),$(PYTHON)) ./target/release/mptlab reproduce all --quick --out $(OUT)/reproduce
	@echo "report: $(OUT)/reproduce/report.html"

# the simulator against every kernel run committed in docs/data/ (no root;
# docs/validation.md, "Where agreement with the kernel stands")
agreement: build
	NICE=0 bash scripts/kernel-agreement.sh target/release/mptlab $(OUT)/agreement/ka

test: setup
	$(CARGO) test --release --workspace
	MPTLAB_PLAIN_RELEASE=1 $(CARGO) test --release -p mptlab-core
	@if [ "$${MPTLAB_NO_PYTHON:-0}" = 1 ]; then echo "make test: Python tests skipped (MPTLAB_NO_PYTHON=1)"; \
	elif $(PYTHON) -c "import maturin, polars, pytest" 2>/dev/null; then $(MAKE) --no-print-directory pytest PYTHON=$(PYTHON); \
	else echo "make test: WARNING: Python tests SKIPPED: no Python tooling (see scripts/setup.sh)"; fi

# formatting and lints, as CI checks them before the tests (fuzz/ is a
# workspace of its own: its targets are checked with rustfmt directly)
lint:
	$(CARGO) fmt --all --check
	rustfmt --check --edition 2021 fuzz/fuzz_targets/*.rs
	$(CARGO) clippy --workspace --all-targets -- -D warnings

fuzz-smoke:
	bash scripts/fuzz-smoke.sh

# editable install: python/mptlab plus the compiled mptlab._core (incremental cargo build)
python: setup
	$(PYTHON) -m pip install --quiet --no-build-isolation -e .

pytest: python
	$(PYTHON) -m pytest -q python/tests

bench: build
	./target/release/mptlab bench

# same code and results as the release build (checked by the script); docs/performance.md
pgo: setup
	bash scripts/build-pgo.sh

clean:
	$(CARGO) clean
	rm -rf $(OUT)
