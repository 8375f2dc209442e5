# Every target does its own set-up: a fresh clone needs nothing but Python 3.11+.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The versions a fresh install gets, with their hashes: the app's, and the app's with the dev
# extra. `make lock` writes both from pyproject.toml's ranges.
LOCK := requirements.txt
DEV_LOCK := requirements-dev.txt
UV_VERSION := 0.13.9
COMPILE = $(BIN)/uv pip compile pyproject.toml --universal --python-version 3.11 \
	--generate-hashes --upgrade --quiet --custom-compile-command "make lock"

.PHONY: engine run migrate test lint typecheck pytest bench lock clean

$(STAMP): pyproject.toml $(DEV_LOCK)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --require-hashes -r $(DEV_LOCK)
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

# The engine compiled to C by mypyc (engine/compiled.py), again whenever a source of it changes.
# Where it cannot be built (no C compiler or Python headers), the engine runs from its sources:
# the same rules, slower; the test that the engine runs compiled fails under CI's flag. The build
# imports the engine from its sources (CASH_STASH_ENGINE=source): an old build is not loaded.
ENGINE_BUILT := engine/MANIFEST
ENGINE_SOURCES := $(filter-out %/__init__.py,$(wildcard engine/*.py engine/ai/*.py))

$(ENGINE_BUILT): $(STAMP) $(ENGINE_SOURCES)
	CASH_STASH_ENGINE=source $(BIN)/python -c "from engine.compiled import build; build()" \
		|| echo "The engine was not compiled: it runs from its sources."

engine: $(ENGINE_BUILT)

run: $(STAMP) $(ENGINE_BUILT)
	$(BIN)/cash-stash migrate
	$(BIN)/cash-stash serve

migrate: $(STAMP)
	$(BIN)/cash-stash migrate

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

# Tests run in parallel workers (pytest-xdist): most of a test's time is spent waiting (for a
# browser, a server starting, a timeout), so PYTEST_WORKERS outnumber the cores. worksteal
# hands out tests by their place in the collection, as load does, and an idle worker takes
# over half of a busy one's queue (the browser tests, last, take half the time). Not the
# scope-based modes (loadscope, loadfile, loadgroup): they key tests by node id, and the REST
# fuzz test's items (one per API operation) share one, so all but one would never run.
PYTEST_WORKERS ?= 4

pytest: $(STAMP) $(ENGINE_BUILT)
	$(BIN)/pytest -q --durations=40 -n $(PYTEST_WORKERS) --dist worksteal
	CASH_STASH_ENGINE=source $(BIN)/pytest -q -n $(PYTEST_WORKERS) tests/engine

test: lint typecheck pytest

bench: $(STAMP) $(ENGINE_BUILT)
	$(BIN)/python bench/engine.py

# Refresh both lock files: the newest releases pyproject.toml admits, for every platform and
# Python 3.11+. The app's lock takes the dev lock's versions, so the two never disagree.
lock:
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet 'uv==$(UV_VERSION)'
	$(COMPILE) --extra dev -o $(DEV_LOCK)
	$(COMPILE) --constraint $(DEV_LOCK) -o $(LOCK)

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache build $(ENGINE_BUILT) engine/*.so engine/ai/*.so
