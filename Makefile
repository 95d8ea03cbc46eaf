# A thin wrapper over CMake presets, so that the quick start is two commands:
#   make tour    install what is missing, build the programs, run every chapter side by side
#   make test    install what is missing, build everything, run the tests (exercise stubs excluded)
# `make` alone lists every target. PRESET=ci makes warnings errors.
# CUDAARCHS=89 make test builds for that GPU architecture (default: this machine's GPUs, see README),
# also in a build folder configured before: it is handed to CMake as -DCMAKE_CUDA_ARCHITECTURES.

PRESET ?= default
BUILD  ?= build
JOBS   ?= $(shell nproc 2>/dev/null || echo 2)
# Test processes share one GPU, and a few tests hold over 10 GiB of it: at most 8 at a time.
TEST_JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); echo $$(( n < 8 ? n : 8 )))
# Where the system's CMake is too old, scripts/install-dependencies installs pip's for this user, into
# Python's user base (~/.local/bin): first on PATH, so that it wins over the old one.
user_base := $(shell python3 -m site --user-base 2>/dev/null)
export PATH := $(if $(user_base),$(user_base)/bin:)$(PATH):/usr/local/cuda/bin
MAKEFLAGS += --no-print-directory
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
ARCHITECTURES := $(if $(CUDAARCHS),'-DCMAKE_CUDA_ARCHITECTURES=$(CUDAARCHS)')

.DEFAULT_GOAL := help
.PHONY: help tour test build configure deps docs grade clean

help:
	@echo 'make tour       build the programs and run every chapter side by side'
	@echo 'make test       build everything and run the tests; the last line counts them'
	@echo 'make build      install what is missing, configure build/ and build everything'
	@echo 'make configure  install what is missing and configure build/ (prints the GPU architectures)'
	@echo 'make deps       install what is missing (scripts/install-dependencies; without root: says what)'
	@echo 'make docs       the book and the API documentation, into build/book/html/index.html'
	@echo 'make grade      grade your exercises (scripts/grade)'
	@echo 'make clean      remove build/'
	@echo 'Options: PRESET=ci (warnings are errors), CUDAARCHS=89 (GPU architectures), JOBS=4 (build jobs)'

deps:
	@scripts/install-dependencies

# Quiet but for the GPU architectures chosen (warnings and errors still reach the terminal).
configure: deps
	@cmake --preset $(PRESET) $(ARCHITECTURES) | sed -n 's/^-- \(CUDA architectures: .*\)/\1/p'

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The tour's programs, then the tour (build/tour.cmake), whose closing lines then end the output.
tour: configure
	cmake --build $(BUILD) -j $(JOBS) --target tour_programs
	@cmake -P $(BUILD)/tour.cmake

# Exercise tests (label "exercise") fail until a student solves them: run them with
# `ctest --test-dir build -L exercise`, or grade them with `make grade`. The last line counts what
# passed, what was skipped for want of a GPU and what failed, from CTest's JUnit file
# (scripts/test-summary); the status is non-zero when anything failed.
JUNIT := $(abspath $(BUILD))/ctest-junit.xml
test: build
	@rm -f $(JUNIT)
	@ctest --preset $(PRESET) -j $(TEST_JOBS) -LE exercise --output-junit $(JUNIT) || status=$$?; \
	  scripts/test-summary $(JUNIT) || status=1; exit $${status:-0}

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
