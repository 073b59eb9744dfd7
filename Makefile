# Everything runs in .venv, created on first use. `make run` and `make test` are
# all a fresh machine needs.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q
RUN_STAMP := $(VENV)/.run-installed
DEV_STAMP := $(VENV)/.dev-installed
# The TypeScript client's development packages, from its committed lockfile.
TS_CLIENT := clients/typescript
NODE_STAMP := $(TS_CLIENT)/node_modules/.ci-installed

.PHONY: run test lint typecheck pytest bench bench-profile bench-sweep openapi readme lock clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): pyproject.toml constraints.txt | $(PY)
	$(PIP) install --constraint constraints.txt -e . 2>&1 | grep -v "is ignored" || true
	$(PY) -c "import service.app"
	touch $@

$(DEV_STAMP): pyproject.toml constraints.txt clients/python/pyproject.toml | $(PY)
	$(PIP) install --constraint constraints.txt -e '.[dev]' -e clients/python 2>&1 | grep -v "is ignored" || true
	$(PY) -c "import service.app, pytest, hypothesis, schemathesis, tictactoe_client"
	touch $@ $(RUN_STAMP)

run: $(RUN_STAMP)
	$(VENV)/bin/tictactoe-service

lint: $(DEV_STAMP) $(NODE_STAMP)
	$(VENV)/bin/ruff check service tests bench examples clients/python
	$(VENV)/bin/ruff format --check service tests bench examples clients/python
	cd $(TS_CLIENT) && npm run --silent lint

typecheck: $(DEV_STAMP)
	$(VENV)/bin/mypy

$(NODE_STAMP): $(TS_CLIENT)/package.json $(TS_CLIENT)/package-lock.json
	cd $(TS_CLIENT) && npm ci --no-audit --no-fund
	touch $@

pytest: $(DEV_STAMP) $(NODE_STAMP)
	$(PY) -m pytest $(PYTEST_ARGS)

test: lint typecheck pytest

bench: $(DEV_STAMP)
	bash .ci/install-bench-tools.sh
	$(PY) bench/engine.py
	$(PY) bench/load.py
	$(PY) bench/memory.py

bench-profile: $(DEV_STAMP)
	bash .ci/install-bench-tools.sh
	$(PY) bench/load.py --profile

bench-sweep: $(DEV_STAMP)
	$(PY) bench/budget_sweep.py

openapi: $(DEV_STAMP)
	$(PY) -m service.api.openapi > openapi/openapi.json

readme: $(DEV_STAMP)
	$(PY) -m tests.api.test_examples

# Re-resolve the newest versions pyproject.toml allows and pin them.
lock:
	rm -rf .venv-lock && $(PYTHON) -m venv .venv-lock
	.venv-lock/bin/pip install -q -e '.[dev]' 2>&1 | grep -v "is ignored" || true
	(echo "# Exact versions for make test, make run and the image (make lock regenerates it)."; \
	 .venv-lock/bin/pip freeze --exclude-editable | grep -v '^tictactoe') > constraints.txt
	rm -rf .venv-lock

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build *.egg-info \
		$(TS_CLIENT)/node_modules $(TS_CLIENT)/dist
