# Everything runs in .venv, created on first use. `make run` and `make test` are
# all a fresh machine needs: `make test` also installs the tools the suite
# drives (`make tools`), and a second run finds them and installs nothing.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q
RUN_STAMP := $(VENV)/.run-installed
DEV_STAMP := $(VENV)/.dev-installed
PROMTOOL := .tools/bin/promtool
CHECKOV := .venv-checkov/bin/checkov

.PHONY: run test tools debian-packages lint typecheck pytest bench bench-profile bench-sweep openapi readme lock clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): pyproject.toml constraints.txt | $(PY)
	$(PIP) install --constraint constraints.txt -e . 2>&1 | grep -v "is ignored" || true
	$(PY) -c "import service.app"
	touch $@

$(DEV_STAMP): pyproject.toml constraints.txt | $(PY)
	$(PIP) install --constraint constraints.txt -e '.[dev]' 2>&1 | grep -v "is ignored" || true
	$(PY) -c "import service.app, pytest, hypothesis, schemathesis"
	touch $@ $(RUN_STAMP)

# What the suite drives besides Python: Debian's chromium (the playground's
# browser tests) and nginx (the rolling restart), promtool (the /metrics
# exposition) and checkov (the manifests), each checked before anything is
# installed. The Debian packages go first: their one `apt-get update` also
# serves promtool's `apt-get download`.
tools: debian-packages $(PROMTOOL) $(CHECKOV)

debian-packages:
	@bash .ci/install-debian-packages.sh chromium nginx

$(PROMTOOL):
	@bash .ci/install-promtool.sh

$(CHECKOV): .ci/install-checkov.sh
	@bash .ci/install-checkov.sh
	@touch $@

run: $(RUN_STAMP)
	$(VENV)/bin/tictactoe-service

lint: $(DEV_STAMP)
	$(VENV)/bin/ruff check service tests bench examples
	$(VENV)/bin/ruff format --check service tests bench examples

typecheck: $(DEV_STAMP)
	$(VENV)/bin/mypy

pytest: $(DEV_STAMP) tools
	$(PY) -m pytest $(PYTEST_ARGS)

test: tools lint typecheck pytest

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

# The tools stay: .tools and .venv-checkov are slow to rebuild and rarely change.
clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build *.egg-info
