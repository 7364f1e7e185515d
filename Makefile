# mptlab: one command to set up and run the main job, one to test.
#   make demo   - install what is missing, build, run an example scenario
#   make test   - build and run the whole test suite
SHELL := /bin/bash
CARGO ?= cargo
OUT ?= out

.PHONY: setup build demo test clean

setup:
	@bash scripts/setup.sh

build:
	$(CARGO) build --release --workspace

demo: setup build
	./target/release/mptlab run scenarios/video-wlan-3g.toml --out $(OUT)/demo

test: setup
	$(CARGO) test --release --workspace

clean:
	$(CARGO) clean
	rm -rf $(OUT)
