# Two commands on a fresh Debian/Ubuntu machine:  make demo   and   make test
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# llama-cpp-python (the real-model extra) builds llama.cpp from source. Its native x86 build multiplies with AMX
# where the CPU has it, and that crashes on the first request (llama.cpp issue #20824): build for AVX2 instead.
LLAMA_CMAKE_ARGS := $(if $(filter x86_64,$(shell uname -m)),-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON)

.PHONY: demo test check schemas system clean

demo: $(STAMP)  ## the main job: every built-in task (core and multi suites) with the oracle agent, per-app table and report
	$(BIN)/asil bench --agent oracle --workers 2 --out asil-results/demo
	$(BIN)/asil report asil-results/demo

test: $(STAMP)  ## the whole test suite (real applications), two workers
	$(BIN)/python -m pytest -n 2 --dist worksteal

check: $(STAMP)  ## lint, strict typing, and the package layers (import-linter contracts in pyproject.toml)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

schemas: $(STAMP)  ## regenerate the committed JSON Schemas after changing a contract model
	$(BIN)/python -m asil.contracts schemas

system:
	@./scripts/install-system.sh

$(STAMP): pyproject.toml | system
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	CMAKE_ARGS='$(LLAMA_CMAKE_ARGS)' $(BIN)/pip install -q -e '.[test,dev]'
	touch $(STAMP)

clean:
	rm -rf $(VENV) asil-results .pytest_cache .mypy_cache .ruff_cache
