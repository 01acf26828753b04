# Quick start: `make play` (a terminal game against four bots) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: play serve cluster test lint typecheck unit test-compiled bench bench-server install clean screenshots

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,postgres,cluster,rl,train]'
	touch $(STAMP)

install: $(STAMP)

play: $(STAMP)
	$(BIN)/baohuang play

serve: $(STAMP)
	$(BIN)/baohuang serve

# several nodes as one service on this machine: PostgreSQL, Redis, 3 nodes, HAProxy
# (needs Debian's postgresql, redis-server and haproxy; docs/cluster.md)
cluster: $(STAMP)
	$(BIN)/baohuang cluster

lint: $(STAMP)
	$(BIN)/ruff check src tests bench setup.py

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest

test: lint typecheck unit test-compiled

# The compiled build (setup.py: the engine's and the environments' hot modules and the
# server's path of a move, compiled by mypyc) as a wheel, installed into its own venv,
# and the tests of what it compiles run there against it (not against src/).  Needs a C
# compiler.  About 12 minutes on two cores, so `make test` runs it.
COMPILED_VENV := .venv-compiled
COMPILED_TESTS := tests/engine tests/env tests/bots tests/learn tests/server tests/cluster tests/test_client_views.py
test-compiled: $(STAMP)
	rm -rf build $(COMPILED_VENV)/wheel
	BAOHUANG_COMPILE=1 $(BIN)/python -m pip wheel --quiet --no-build-isolation --no-deps \
		-w $(COMPILED_VENV)/wheel .
	test -x $(COMPILED_VENV)/bin/python || $(PYTHON) -m venv $(COMPILED_VENV)
	$(COMPILED_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(COMPILED_VENV)/bin/python -m pip install --quiet "$$(ls $(COMPILED_VENV)/wheel/*.whl)[dev,rl,train,cluster,postgres]"
	$(COMPILED_VENV)/bin/python -m pip install --quiet --force-reinstall --no-deps $(COMPILED_VENV)/wheel/*.whl
	$(COMPILED_VENV)/bin/python -c "import baohuang.engine.game as g; \
		assert g.__file__.endswith('.so') and '$(COMPILED_VENV)' in g.__file__, g.__file__"
	$(COMPILED_VENV)/bin/python -m pytest $(COMPILED_TESTS)

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python bench/engine.py

bench-server: $(STAMP)
	$(BIN)/python bench/server.py
	$(BIN)/python bench/server.py --tables 500 --think 1.0

# every screen of the web client (zh and en, desktop and phones) as PNGs for review, in
# test-output/screenshots/ (needs /usr/bin/chromium; installs nothing)
screenshots:
	test -x $(BIN)/python || { echo "run make install first"; exit 2; }
	$(BIN)/python tests/web/screenshots.py

clean:
	rm -rf $(VENV) $(COMPILED_VENV) build .mypy_cache .pytest_cache .ruff_cache
