# Two commands do all the set-up on a fresh machine with Python 3.11+ and make:
#   make run    the whole stack on an embedded PostgreSQL, with a demo API key
#   make test   the test suite (TEST_DATABASE_URL if set, else an embedded PostgreSQL)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: install run test bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/relay demo

test: $(STAMP)
	$(BIN)/pytest

# Benchmarks are run by hand on an otherwise idle machine; they need wrk (apt-get install wrk).
bench: $(STAMP)
	$(BIN)/python bench/sync_backfill.py
	$(BIN)/python bench/gate_bench.py
	$(BIN)/python bench/store_bench.py

clean:
	rm -rf $(VENV) .pytest_cache
