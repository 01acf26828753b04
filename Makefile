# Quick start: `make serve` (the server and web client), `make play` (a terminal game
# against four bots), `make check` (the developer's loop) and `make test` (everything).
#
# Two virtual environments, so that a host who serves installs no development or
# learning stack:
#   .venv      serving and playing: the package, its runtime dependencies and the
#              PostgreSQL driver (`make cluster` adds the Redis client)
#   .venv-dev  development: every extra (tests, lint, types, the learning environments,
#              training with PyTorch), for check, test, screenshots and train
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
DEV := .venv-dev
DEV_BIN := $(DEV)/bin
STAMP := $(VENV)/.installed
CLUSTER_STAMP := $(VENV)/.installed-cluster
DEV_STAMP := $(DEV)/.installed
# pytest workers: more than the two cores, since most server, browser and cluster tests
# wait on sockets rather than compute
WORKERS ?= 6
# each stage's wall time, for .ci/run to print at the end
STAGES := test-output/stages.txt
TIMED := bash .ci/stage $(STAGES)

.PHONY: play serve cluster train install install-dev check test lint typecheck unit \
        test-compiled compiled-wheel compiled-venv compiled-tests bench bench-server clean \
        screenshots

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[postgres]'
	touch $(STAMP)

$(CLUSTER_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[postgres,cluster]'
	touch $(CLUSTER_STAMP)

$(DEV_STAMP): pyproject.toml
	test -x $(DEV_BIN)/python || $(PYTHON) -m venv $(DEV)
	$(DEV_BIN)/python -m pip install --quiet --disable-pip-version-check \
		-e '.[dev,postgres,cluster,rl,train,rl-train]'
	touch $(DEV_STAMP)

install: $(STAMP)

install-dev: $(DEV_STAMP)

play: $(STAMP)
	$(BIN)/baohuang play

serve: $(STAMP)
	$(BIN)/baohuang serve

# several nodes as one service on this machine: PostgreSQL, Redis, 3 nodes, HAProxy
# (needs Debian's postgresql, redis-server and haproxy; docs/cluster.md)
cluster: $(CLUSTER_STAMP)
	$(BIN)/baohuang cluster

# trains the `learned` bot by self-play (docs/rl.md): make train RUN=runs/mine MINUTES=30
RUN ?= runs/learned
MINUTES ?= 30
train: $(DEV_STAMP)
	$(DEV_BIN)/baohuang train $(RUN) --minutes $(MINUTES)

lint: $(DEV_STAMP)
	$(DEV_BIN)/ruff check src tests bench setup.py

# (incremental: mypy keeps what it learnt in .mypy_cache)
typecheck: $(DEV_STAMP)
	$(DEV_BIN)/mypy

# The developer's loop: lint, types and the tests that need no browser, no cluster and
# no compiled build, the slow ones left to `make test` and property tests trying a
# quarter of their examples (BAOHUANG_QUICK=1: tests/helpers.py).
check: $(DEV_STAMP)
	$(DEV_BIN)/ruff check src tests bench setup.py
	$(DEV_BIN)/mypy
	BAOHUANG_QUICK=1 $(DEV_BIN)/pytest -n $(WORKERS) --dist loadgroup \
		-m "not browser and not cluster and not slow"

# every test (browser, PostgreSQL where BAOHUANG_TEST_PG_URL is set, cluster), on
# $(WORKERS) workers
unit: $(DEV_STAMP)
	$(DEV_BIN)/pytest -n $(WORKERS) --dist loadgroup

# Everything: lint, types, every test, and the compiled build's tests.  The compiled
# build is compiled (on one core) while the suite runs (mostly waiting on sockets), and
# its tests run as soon as it is built, beside the suite's tail.  The suite runs at a
# lower priority (nice): the build is the longer path, and given an equal share of two
# cores beside six workers it took 18.9 of the 21.9 minutes.  Each stage's time goes
# to $(STAGES).
test: $(DEV_STAMP)
	@mkdir -p test-output && rm -f $(STAGES)
	$(TIMED) lint $(MAKE) --no-print-directory lint
	$(TIMED) types $(MAKE) --no-print-directory typecheck
	$(MAKE) --no-print-directory -j2 timed-unit timed-compiled
	@cat $(STAGES)

.PHONY: timed-unit timed-compiled
timed-unit:
	$(TIMED) tests nice -n 10 $(MAKE) --no-print-directory unit
timed-compiled:
	$(TIMED) "compiled build" bash -c \
		'$(MAKE) --no-print-directory compiled-wheel && $(MAKE) --no-print-directory compiled-venv'
	$(TIMED) "compiled tests" $(MAKE) --no-print-directory compiled-tests

# The compiled build (setup.py: the engine's and the environments' hot modules and the
# server's path of a move, compiled by mypyc) as a wheel, installed into its own venv,
# and the tests of what it compiles (marked `compiled`: the engine, the environments,
# the client's views, whole server games and the table's timers) run there against it
# (not against src/).  Needs a C compiler.
COMPILED_VENV := .venv-compiled
test-compiled:
	$(MAKE) --no-print-directory compiled-wheel
	$(MAKE) --no-print-directory compiled-venv
	$(MAKE) --no-print-directory compiled-tests

compiled-wheel: $(DEV_STAMP)
	rm -rf build $(COMPILED_VENV)/wheel
	BAOHUANG_COMPILE=1 $(DEV_BIN)/python -m pip wheel --quiet --disable-pip-version-check \
		--no-build-isolation --no-deps -w $(COMPILED_VENV)/wheel .

compiled-venv:
	test -x $(COMPILED_VENV)/bin/python || $(PYTHON) -m venv $(COMPILED_VENV)
	$(COMPILED_VENV)/bin/python -m pip install --quiet --disable-pip-version-check \
		"$$(ls $(COMPILED_VENV)/wheel/*.whl)[dev,rl,cluster,postgres]"
	$(COMPILED_VENV)/bin/python -m pip install --quiet --disable-pip-version-check \
		--force-reinstall --no-deps $(COMPILED_VENV)/wheel/*.whl
	$(COMPILED_VENV)/bin/python -c "import baohuang.engine.game as g; \
		assert g.__file__.endswith('.so') and '$(COMPILED_VENV)' in g.__file__, g.__file__"

compiled-tests:
	$(COMPILED_VENV)/bin/python -m pytest -n $(WORKERS) --dist loadgroup -m compiled tests

bench: $(DEV_STAMP)
	$(DEV_BIN)/python -m pip install --quiet -e '.[bench]'
	$(DEV_BIN)/python bench/engine.py

bench-server: $(DEV_STAMP)
	$(DEV_BIN)/python bench/server.py
	$(DEV_BIN)/python bench/server.py --tables 500 --think 1.0

# every screen of the web client (zh and en, desktop and phones) as PNGs for review, in
# test-output/screenshots/ (needs /usr/bin/chromium and the CJK and emoji fonts)
screenshots: $(DEV_STAMP)
	$(DEV_BIN)/python tests/web/screenshots.py

clean:
	rm -rf $(VENV) $(DEV) $(COMPILED_VENV) build .mypy_cache .pytest_cache .ruff_cache
