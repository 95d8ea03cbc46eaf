# A thin wrapper over CMake presets, so that the quick start is two commands:
#   make tour    install what is missing, build the programs, run every chapter side by side
#   make test    install what is missing, build everything, run the tests (exercise stubs excluded)
# Other targets: make build | docs | grade | clean.  PRESET=ci makes warnings errors.
# CUDAARCHS=89 make test builds for that GPU architecture (default: this machine's GPUs, see README),
# also in a build folder configured before: it is handed to CMake as -DCMAKE_CUDA_ARCHITECTURES.

PRESET ?= default
BUILD  ?= build
JOBS   ?= $(shell nproc 2>/dev/null || echo 2)
# Test processes share one GPU, and a few tests hold over 10 GiB of it: at most 8 at a time.
TEST_JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); echo $$(( n < 8 ? n : 8 )))
export PATH := $(PATH):/usr/local/cuda/bin
MAKEFLAGS += --no-print-directory
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
ARCHITECTURES := $(if $(CUDAARCHS),'-DCMAKE_CUDA_ARCHITECTURES=$(CUDAARCHS)')

.PHONY: tour test build configure deps docs grade clean

deps:
	@scripts/install-dependencies

# Quiet but for the GPU architectures chosen (warnings and errors still reach the terminal).
configure: deps
	@cmake --preset $(PRESET) $(ARCHITECTURES) | sed -n 's/^-- \(CUDA architectures: .*\)/\1/p'

build: configure
	cmake --build $(BUILD) -j $(JOBS)

tour: configure
	cmake --build $(BUILD) -j $(JOBS) --target tour

# Exercise tests (label "exercise") fail until a student solves them: run them with
# `ctest --test-dir build -L exercise`, or grade them with `make grade`.
test: build
	ctest --preset $(PRESET) -j $(TEST_JOBS) -LE exercise

# The book's tools first (Doxygen, MathJax, Chromium), then configure, so that CMake finds them on the
# first run.
docs: deps
	@scripts/install-dependencies --docs
	@$(MAKE) configure
	cmake --build $(BUILD) --target docs

grade: configure
	scripts/grade --build-dir $(BUILD)

clean:
	rm -rf $(BUILD)
