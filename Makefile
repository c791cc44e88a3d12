# Two commands do all the set-up on a fresh machine with Python 3.11+ and make:
#   make run    the whole stack on an embedded PostgreSQL, with a demo API key
#   make test   the test suite (TEST_DATABASE_URL if set, else an embedded PostgreSQL)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: install run test bench clean browser

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/relay demo

test: $(STAMP) browser
	$(BIN)/pytest

# The /status page test drives Debian's headless chromium; installed here when missing and
# run as root (CI), else that one test is skipped with the reason.
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] \
		&& (apt-get install -y -qq chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium >/dev/null)) \
		|| echo "chromium not installed: the /status browser test will be skipped"; }

# Every benchmark case, one table, appended to docs/benchmarks.md (run on an otherwise idle
# machine). BENCH_QUICK=1: small and short; BENCH_CASES=a,b: some cases. Installs wrk when root.
bench: $(STAMP)
	$(BIN)/python -m bench.run

clean:
	rm -rf $(VENV) .pytest_cache
