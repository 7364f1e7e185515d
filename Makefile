# mptlab: one command to set up and run the main job, one to test.
#   make demo   - install what is missing, build, run the example scenario
#   make test   - build and run the whole test suite
SHELL := /bin/bash
CARGO ?= cargo
OUT ?= out

.PHONY: setup build demo test bench clean

setup:
	@bash scripts/setup.sh

build: setup
	$(CARGO) build --release --workspace

demo: build
	./target/release/mptlab run scenarios/video-wlan-3g.toml --out $(OUT)/demo --force

test: setup
	$(CARGO) test --release --workspace

bench: build
	./target/release/mptlab bench

clean:
	$(CARGO) clean
	rm -rf $(OUT)
