# Two commands do all the set-up on a fresh machine with Python 3.11+ and make:
#   make run    the whole stack on an embedded PostgreSQL, with a demo API key
#   make test   the test suite (TEST_DATABASE_URL if set, else an embedded PostgreSQL)
#   make test-fast  the same without the slow end-to-end tests
# Dependencies install from the lock files in requirements/ (exact versions and hashes, from
# PyPI): `make lock` refreshes them after a change of pyproject.toml's dependencies.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
# Everything make run and make test need: the dependencies, the embedded PostgreSQL, the tests'.
DEV_LOCK   := requirements/dev.lock
# What the container image installs: the dependencies only.
IMAGE_LOCK := requirements/image.lock

.PHONY: install run test test-fast bench clean browser lock citus client

$(STAMP): pyproject.toml $(DEV_LOCK)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --no-deps --require-hashes -r $(DEV_LOCK)
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/relay demo

# The suite runs in TEST_WORKERS processes (pytest-xdist): each has its own database and
# sandbox; the Citus cluster's tests share one process. test-fast leaves out the tests marked
# slow (processes started and killed, long end-to-end runs).
TEST_WORKERS ?= 4
PYTEST_PARALLEL := -n $(TEST_WORKERS) --dist loadgroup

test: $(STAMP) browser citus
	$(BIN)/pytest $(PYTEST_PARALLEL)

test-fast: $(STAMP)
	$(BIN)/pytest $(PYTEST_PARALLEL) -m "not slow"

# The typed Python client in clients/python/, generated from the document the API serves
# (built in-process: no server) by the locked openapi-python-client; commit what it writes
# (tests/client/ fails while the committed client differs). clients/python/README.md: its use.
client: $(STAMP)
	$(BIN)/python clients/generate.py

# The /status page test drives Debian's headless chromium; installed here when missing and
# run as root (CI), else that one test is skipped with the reason.
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] \
		&& (apt-get install -y -qq chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium >/dev/null)) \
		|| echo "chromium not installed: the /status browser test will be skipped"; }

# The lock files, resolved by uv (in a virtual environment of its own) for every platform and
# Python 3.11+: versions already locked stay unless pyproject.toml rules them out; to move
# every package to its newest allowed version: make lock UPGRADE=--upgrade. The image leaves
# out litestar's example generator (polyfactory, faker): the API never turns it on.
LOCK_VENV  := .venv-lock
UV         := $(LOCK_VENV)/bin/uv
LOCK_FLAGS := --quiet --universal --python-version 3.11 --generate-hashes \
              --custom-compile-command "make lock" $(UPGRADE)

$(UV):
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/python -m pip install --quiet "uv>=0.5"

lock: $(UV)
	$(UV) pip compile $(LOCK_FLAGS) --extra embedded --extra test -o $(DEV_LOCK) pyproject.toml
	$(UV) pip compile $(LOCK_FLAGS) --no-emit-package polyfactory --no-emit-package faker \
		-o $(IMAGE_LOCK) pyproject.toml

# The Citus cluster tests (tests/fixtures/citus.py) need the extension for the server whose
# pg_config is on PATH: built here when missing and run as root (CI), else those tests are
# skipped with the reason. RELAY_CITUS_BUILD names the build script (default: the shared one
# beside the repository).
CITUS_BUILD ?= $(or $(RELAY_CITUS_BUILD),../shared/citus/build.sh)
citus:
	@if [ "$$(id -u)" = 0 ] && [ -f "$(CITUS_BUILD)" ]; then bash "$(CITUS_BUILD)"; \
	elif [ ! -f "$$(pg_config --pkglibdir 2>/dev/null)/citus.so" ]; then \
		echo "Citus not installed (building it needs root and $(CITUS_BUILD)): the Citus cluster tests will be skipped"; fi

# Every benchmark case, one table, appended to docs/benchmarks.md (run on an otherwise idle
# machine). BENCH_QUICK=1: small and short; BENCH_CASES=a,b: some cases. Installs wrk when root.
bench: $(STAMP)
	$(BIN)/python -m bench.run

clean:
	rm -rf $(VENV) $(LOCK_VENV) .pytest_cache
