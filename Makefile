# mptlab: one command to set up and run the main job, one to test.
#   make demo   - install what is missing, build, run the example scenario and
#                 reproduce all seeds in quick mode (HTML report in out/reproduce)
#   make test   - build and run the whole test suite (Rust, then Python)
#   make python - build the Python package in place (pip install -e .)
SHELL := /bin/bash
CARGO ?= cargo
OUT ?= out

.PHONY: setup build demo test python pytest bench clean
# ./.venv when setup made one (see scripts/setup.sh)
PYTHON ?= $(if $(wildcard .venv/bin/python),.venv/bin/python,python3)

setup:
	@bash scripts/setup.sh

build: setup
	$(CARGO) build --release

demo: build python
	./target/release/mptlab run scenarios/video-wlan-3g.toml --out $(OUT)/demo --force
	./target/release/mptlab reproduce all --quick --out $(OUT)/reproduce
	@echo "report: $(OUT)/reproduce/report.html"

test: setup
	$(CARGO) test --release --workspace
	@if [ "$${MPTLAB_NO_PYTHON:-0}" = 1 ]; then echo "make test: Python tests skipped (MPTLAB_NO_PYTHON=1)"; \
	elif $(PYTHON) -c "import maturin, polars, pytest" 2>/dev/null; then $(MAKE) --no-print-directory pytest PYTHON=$(PYTHON); \
	else echo "make test: WARNING: Python tests SKIPPED: no Python tooling (see scripts/setup.sh)"; fi

# editable install: python/mptlab plus the compiled mptlab._core (incremental cargo build)
python: setup
	$(PYTHON) -m pip install --quiet --no-build-isolation -e .

pytest: python
	$(PYTHON) -m pytest -q python/tests

bench: build
	./target/release/mptlab bench

clean:
	$(CARGO) clean
	rm -rf $(OUT)
