# Everything runs in .venv, created on first use. `make run` and `make test` are
# all a fresh machine needs: `make test` also installs the tools the suite
# drives (`make tools`), and a second run finds them and installs nothing.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q
RUN_STAMP := $(VENV)/.run-installed
DEV_STAMP := $(VENV)/.dev-installed
# The compiled search core: a change to its source reinstalls (rebuilds) it.
# The extension holds the Gomocup brain too (setup.py): its C but main.c,
# which only the brain's executables have.
CORE_SOURCES := setup.py $(wildcard service/engine/core/*.[ch] service/engine/core/*/*.[ch]) \
	$(wildcard service/brain/native/*.[ch])
CORE_C := $(wildcard service/engine/core/*.c service/engine/core/*/*.c)
EXTENSION_C := $(CORE_C) $(filter-out service/brain/native/main.c,$(wildcard service/brain/native/*.c))
# The TypeScript client's development packages, from its committed lockfile.
TS_CLIENT := clients/typescript
NODE_STAMP := $(TS_CLIENT)/node_modules/.ci-installed
PROMTOOL := .tools/bin/promtool
CHECKOV := .venv-checkov/bin/checkov

.PHONY: run test tools debian-packages mingw brain brain-windows lint typecheck pytest sanitize fuzz mutation mutation-sample book book-8x8 prove-885 tactics match gauntlet selfplay tune tune-labels tune-threats label bench bench-profile bench-sweep openapi doc-examples lock clean

$(PY):
	$(PYTHON) -m venv $(VENV)

# pip install with the constraints, its "... is ignored" notices left out of
# what it prints; its own exit status is the recipe's, so that a core that
# fails to build stops make (a pipe into grep would hide it, and the stamp
# would then stand over the last extension built).
define pip_install
$(PIP) install --constraint constraints.txt $(1) > $(VENV)/pip.log 2>&1; status=$$?; \
	grep -v "is ignored" $(VENV)/pip.log; exit $$status
endef

$(RUN_STAMP): pyproject.toml constraints.txt $(CORE_SOURCES) | $(PY)
	$(call pip_install,-e .)
	$(PY) -c "import service.app"
	touch $@

$(DEV_STAMP): pyproject.toml constraints.txt clients/python/pyproject.toml $(CORE_SOURCES) | $(PY)
	$(call pip_install,-e '.[dev]' -e clients/python)
	$(PY) -c "import service.app, pytest, hypothesis, schemathesis, tictactoe_client"
	touch $@ $(RUN_STAMP)

# What the suite drives besides Python: Debian's chromium (the playground's
# browser tests), nginx (the rolling restart) and redis-server (the rate limits
# shared by replicas), MinGW-w64 and wine64 (the Windows brain, built and run),
# promtool (the /metrics exposition) and checkov (the manifests), each checked
# before anything is installed. The Debian packages go first: their one
# `apt-get update` also serves promtool's `apt-get download`.
tools: debian-packages $(PROMTOOL) $(CHECKOV)

MINGW_PACKAGE := gcc-mingw-w64-x86-64:x86_64-w64-mingw32-gcc
WINE_PACKAGE := wine64:/usr/lib/wine/wine64
debian-packages:
	@bash .ci/install-debian-packages.sh chromium nginx redis-server $(MINGW_PACKAGE) $(WINE_PACKAGE)

mingw:
	@bash .ci/install-debian-packages.sh $(MINGW_PACKAGE)

# The brain's executables (service/brain/native/, docs/brain.md#the-executables):
# the protocol in C over every file of the core but its Python glue, and
# main.c, one static executable with no Python, for Linux (make brain) and, cross-built with
# MinGW-w64, for Windows (make brain-windows: KERNEL32 and msvcrt its only
# DLLs; its main thread, which searches, gets Linux's 8 MiB of stack, not
# Windows' 1 MiB).
BRAIN_C := $(wildcard service/brain/native/*.c) $(filter-out service/engine/core/python/%,$(CORE_C))
BRAIN_SOURCES := $(BRAIN_C) $(wildcard service/brain/native/*.h) \
	$(filter-out service/engine/core/python/%,$(wildcard service/engine/core/*.h service/engine/core/*/*.h))
BRAIN_FLAGS := -O3 -std=c11 -Wall -Wextra -Werror -fno-strict-aliasing -mpopcnt
MINGW_CC := x86_64-w64-mingw32-gcc
NATIVE_BRAIN := build/pbrain-tictactoe
WINDOWS_BRAIN := build/pbrain-tictactoe.exe

brain: $(NATIVE_BRAIN)

brain-windows: $(WINDOWS_BRAIN)

$(NATIVE_BRAIN): $(BRAIN_SOURCES)
	mkdir -p $(@D)
	$(CC) $(BRAIN_FLAGS) -static -pthread $(BRAIN_C) -lm -o $@

$(WINDOWS_BRAIN): $(BRAIN_SOURCES) | mingw
	mkdir -p $(@D)
	$(MINGW_CC) $(BRAIN_FLAGS) -static -Wl,--stack,8388608 $(BRAIN_C) -o $@

$(PROMTOOL):
	@bash .ci/install-promtool.sh

$(CHECKOV): .ci/install-checkov.sh
	@bash .ci/install-checkov.sh
	@touch $@

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

pytest: $(DEV_STAMP) $(NODE_STAMP) tools
	$(PY) -m pytest $(PYTEST_ARGS)

# The suite and the sanitized suite at once, one a core: the suite spends much
# of its time waiting on servers, browsers and brains' turns. Each one's output
# is printed whole when it ends (--output-sync).
test: tools lint typecheck
	$(MAKE) --no-print-directory -j2 --output-sync=target pytest sanitize

# The differential suite, the library's boundary, renju and the fuzzer's
# corpus against a build of the extension (the core, and the brain its
# run_brain calls) with AddressSanitizer and
# UndefinedBehaviorSanitizer: any out-of-bounds access, overflow or undefined
# shift aborts the run. The interpreter is not built with ASan, so the runtime
# is preloaded and leak checking (which would report the interpreter's own
# allocations) is off. Before them, 30 seconds of fuzzing (see fuzz below).
EXT_SUFFIX := $(shell $(PYTHON) -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
SANITIZED_CORE := build/sanitized/_core$(EXT_SUFFIX)
CHECKED_CORE_FLAGS := -O1 -g -std=c11 -Wall -Wextra -Werror -shared -fPIC -fno-omit-frame-pointer
PY_INCLUDE = "$$($(PY) -c "import sysconfig; print(sysconfig.get_paths()['include'])")"
WITH_SANITIZED_CORE = LD_PRELOAD="$$($(CC) -print-file-name=libasan.so) $$($(CC) -print-file-name=libubsan.so)" \
	ASAN_OPTIONS=detect_leaks=0 TTT_TEST_CORE=$(SANITIZED_CORE)
SANITIZED_TESTS := tests/engine/test_differential.py tests/engine/test_knowledge.py \
	tests/engine/test_core_boundary.py tests/engine/test_wide_boards.py tests/engine/test_renju.py \
	tests/fuzz/test_corpus.py

$(SANITIZED_CORE): $(CORE_SOURCES) | $(DEV_STAMP)
	mkdir -p $(@D)
	$(CC) $(CHECKED_CORE_FLAGS) -fsanitize=address,undefined -fno-sanitize-recover=all \
		-I$(PY_INCLUDE) $(EXTENSION_C) -o $@

# The fuzzer's build of the extension. Its coverage comes from the Python side
# (atheris instruments the modules; GCC cannot build libFuzzer's coverage),
# and AddressSanitizer's runtime, preloaded, would take libFuzzer's coverage
# hooks from it: so this build checks without a runtime (undefined behaviour
# and out-of-bounds indexing trap, the stack is guarded), and everything the
# fuzzer keeps is replayed on the ASan build (tests/fuzz/test_corpus.py).
FUZZ_CORE := build/fuzz/_core$(EXT_SUFFIX)
FUZZ_SECONDS ?= 600
FUZZ_FLAGS := -timeout=10 -artifact_prefix=build/fuzz/
$(FUZZ_CORE): $(CORE_SOURCES) | $(DEV_STAMP)
	mkdir -p $(@D)
	$(CC) $(CHECKED_CORE_FLAGS) -fsanitize=undefined -fsanitize-undefined-trap-on-error \
		-fstack-protector-all -I$(PY_INCLUDE) $(EXTENSION_C) -o $@

# The native brain with both sanitizers, driven through protocol sessions by
# tests/brain/test_native.py (which builds it with make when it is missing).
CHECKED_BRAIN_FLAGS := -O1 -g -std=c11 -Wall -Wextra -Werror -fno-omit-frame-pointer -pthread
SANITIZED_BRAIN := build/sanitized/pbrain-tictactoe
$(SANITIZED_BRAIN): $(BRAIN_SOURCES)
	mkdir -p $(@D)
	$(CC) $(CHECKED_BRAIN_FLAGS) -fsanitize=address,undefined -fno-sanitize-recover=all \
		$(BRAIN_C) -lm -o $@

# And with ThreadSanitizer, for the helper threads of INFO thread_num, the
# shared table and STOP (tests/brain/test_native.py again).
THREAD_CHECKED_BRAIN := build/tsan/pbrain-tictactoe
$(THREAD_CHECKED_BRAIN): $(BRAIN_SOURCES)
	mkdir -p $(@D)
	$(CC) $(CHECKED_BRAIN_FLAGS) -fsanitize=thread $(BRAIN_C) -lm -o $@

sanitize: $(DEV_STAMP) $(SANITIZED_CORE) $(FUZZ_CORE)
	rm -rf build/fuzz/new && mkdir -p build/fuzz/new
	TTT_TEST_CORE=$(FUZZ_CORE) $(PY) -m tests.fuzz.run build/fuzz/new tests/fuzz/corpus \
		-max_total_time=30 $(FUZZ_FLAGS)
	$(WITH_SANITIZED_CORE) $(PY) -m pytest -p tests.core_under_test $(SANITIZED_TESTS) -q -p no:cacheprovider

# Fuzz the library's boundary for FUZZ_SECONDS, adding what is new to the
# committed corpus, then replay the corpus on the ASan build. A finding stops
# it, written to build/fuzz/crash-*: copy it to tests/fuzz/crashes.
fuzz: $(DEV_STAMP) $(SANITIZED_CORE) $(FUZZ_CORE)
	TTT_TEST_CORE=$(FUZZ_CORE) $(PY) -m tests.fuzz.run tests/fuzz/corpus \
		-max_total_time=$(FUZZ_SECONDS) $(FUZZ_FLAGS)
	$(WITH_SANITIZED_CORE) $(PY) -m pytest -p tests.core_under_test tests/fuzz/test_corpus.py -q -p no:cacheprovider

# Mutation testing (not part of make test; the whole run takes many hours on
# the project's two cores, so docs/reliability.md scores a uniform sample):
# mutmut mutates service/api/ and the engine's Python modules and runs, for
# each mutant, the in-process tests that reach the mutated function
# (pyproject.toml's [tool.mutmut]). It resumes where it stopped;
# bench/mutation_score.py scores it, `mutmut show NAME` shows one mutant.
MUTATION_STAMP := $(VENV)/.mutation-installed
$(MUTATION_STAMP): $(DEV_STAMP)
	$(call pip_install,-e '.[dev,mutation]')
	touch $@

MUTMUT_ENV := PATH="$(CURDIR)/$(VENV)/bin:$$PATH" HYPOTHESIS_PROFILE=mutation
mutation: $(MUTATION_STAMP) tools
	$(MUTMUT_ENV) $(VENV)/bin/mutmut run
	$(VENV)/bin/python bench/mutation_score.py --survivors

# The score of docs/reliability.md: a uniform sample of each half, run whole
# (about two hours for both on two cores). mutmut builds mutants/ and its stats
# with the sample's first mutant; bench/mutation_run.py runs the rest in the
# sample's order (mutants/sample-runs-*.json, resumed).
MUTATION_SAMPLES := api engine
mutation-sample: $(MUTATION_STAMP) tools
	$(MUTMUT_ENV) $(VENV)/bin/mutmut run $$(head -1 bench/mutation/sample-api.txt)
	for half in $(MUTATION_SAMPLES); do \
		$(MUTMUT_ENV) $(PY) bench/mutation_run.py bench/mutation/sample-$$half.txt \
			--results mutants/sample-runs-$$half.json || exit 1; \
		$(PY) bench/mutation_score.py --survivors --names bench/mutation/sample-$$half.txt \
			--results mutants/sample-runs-$$half.json; \
	done

# The opening book (service/engine/book.json): every empty board's first moves,
# proved by the engine itself with a node budget per board. Deterministic.
book: $(DEV_STAMP)
	$(PY) -m service.engine.book

# The book's shapes with a side of 8 (about 20 minutes, (8,8,5) 7 of them on
# every core, with its store of proven positions; make book keeps them).
book-8x8: $(DEV_STAMP)
	$(PY) -m service.engine.book --wide

# The tactical suite (bench/tactics.json), rebuilt from its seed (bench/tactics.py).
tactics: $(DEV_STAMP)
	$(PY) bench/tactics.py --generate

bench: $(DEV_STAMP)
	@echo "Matches are not part of make bench (minutes to hours each); docs/strength.md has their"
	@echo "commands and results. A change against its parent:  make match"
	@echo "Against Rapfi (built outside the project, docs/strength.md#rapfi):"
	@echo "  make match OPPONENT=/path/to/pbrain-rapfi MATCH_ARGS='--turn-ms 1000 --pairs 32'"
	@echo "A change measured against Rapfi, paired by opening with its parent:"
	@echo "  make gauntlet REFERENCE=/path/to/pbrain-rapfi"
	@echo "A change at a fixed count of nodes, the clock left out (docs/strength.md#fixed-node-matches):"
	@echo "  make match MATCH_ARGS='--nodes 100000 --turn-ms 60000 --pause-ms 0 --pairs 845 --openings bench/openings/contested.txt'"
	@echo "A change against Rapfi at a fixed count of nodes (both sides; docs/strength.md#fixed-node-matches):"
	@echo "  make gauntlet REFERENCE=/path/to/pbrain-rapfi BASELINE=brain@main GAUNTLET_ARGS='--nodes 100000 --turn-ms 60000 --pairs 256 --openings bench/openings/contested.txt'"
	@echo "A change screened and not kept, played again from its patch (docs/experiments/, docs/strength.md):"
	@echo "  git worktree add -b exp-x ../exp-x BASE && git -C ../exp-x apply \$$PWD/docs/experiments/exp-x.patch && git -C ../exp-x commit -qam exp-x"
	@echo "Where the lost games of a match or a gauntlet were lost, in Rapfi's eyes:"
	@echo "  .venv/bin/python bench/blunders.py GAMES.jsonl --reference /path/to/pbrain-rapfi --ours brain@main"
	@echo "How far ahead each engine sees the win at one of those positions:"
	@echo "  .venv/bin/python bench/horizon.py GAMES.jsonl --reference /path/to/pbrain-rapfi --ours brain@main --game 0 --ply 6"
	@echo "Where our move order ranks the reference's moves in those games (and a fitted correction):"
	@echo "  .venv/bin/python bench/move_order.py GAMES.jsonl ... --fit"
	@echo "How many of the reference's forced wins our engine sees at a node count (the committed set):"
	@echo "  .venv/bin/python bench/win_sight.py --budgets 100000,400000,1600000"
	@echo "The clock with the machine busy:  make match OPPONENT=brain MATCH_ARGS='--turn-ms 300 --pairs 24 --busy 2'"
	@echo "A match clock kept by the referee (a side out of time loses):  make match MATCH_ARGS='--turn-ms 3000 --match-ms 18000 --pairs 64'"
	bash .ci/install-bench-tools.sh
	$(PY) bench/engine.py
	$(PY) bench/load.py
	$(PY) bench/fairness.py
	$(PY) bench/memory.py
	$(PY) bench/gomoku.py
	$(PY) bench/tactics.py
	$(PY) bench/renju_tactics.py
	$(PY) bench/renju.py
	$(PY) bench/strength.py
	$(PY) bench/first_move.py
	$(PY) bench/brain_stop.py

# A match of this working tree's brain (bench/match.py): by default against
# the commit before it, until the sequential test decides (docs/strength.md).
OPPONENT ?= brain@HEAD~1
MATCH_ARGS ?= --turn-ms 300 --sprt 0,60 --pairs 200
match: $(DEV_STAMP)
	$(PY) bench/match.py --opponent $(OPPONENT) $(MATCH_ARGS)

# A change measured against a reference engine (bench/gauntlet.py): this
# working tree's brain and BASELINE's each play the same openings against
# REFERENCE (a brain's path, e.g. Rapfi), and the gain is their difference,
# opening by opening (docs/strength.md#the-gauntlet).
BASELINE ?= brain@HEAD~1
GAUNTLET_ARGS ?= --turn-ms 1000 --pairs 64
gauntlet: $(DEV_STAMP)
	@test -n "$(REFERENCE)" || { echo "make gauntlet REFERENCE=/path/to/brain"; exit 2; }
	$(PY) bench/gauntlet.py --reference $(REFERENCE) --baseline $(BASELINE) $(GAUNTLET_ARGS)

# The evaluation fitted to results (docs/strength.md#the-evaluation): self-play
# games at a fixed node budget (about 15 minutes on two cores), then the
# weights fitted to them, written to service/engine/evaluation.json.
SELFPLAY_GAMES ?= 4000
selfplay: $(DEV_STAMP)
	$(PY) bench/selfplay.py --games $(SELFPLAY_GAMES) --out bench/results/selfplay.jsonl

tune: $(DEV_STAMP)
	$(PY) bench/tune.py bench/results/selfplay.jsonl

# The evaluation in force: fitted to a reference engine's searched values
# (docs/strength.md#the-evaluation). tune-labels refits it from the committed
# positions and values (bench/labels/, or LABELS and HORIZON_LABELS) in four
# steps: the weights, the threat masks' values over them, the combinations'
# corrections over both, and the network over all three (both sets). label makes a new set from games (LABEL_GAMES:
# bench/match.py --games or self-play files), each quiet position valued by
# REFERENCE (e.g. Rapfi) at 20,000 nodes, into bench/results/ (not over the
# committed set): refit with LABELS=that file.
LABELS ?= bench/labels/rapfi-20k.jsonl.gz
HORIZON_LABELS ?= bench/labels/rapfi-20k-horizon.jsonl.gz
MORE_LABELS ?= bench/labels/rapfi-20k-horizon2.jsonl.gz
NEW_LABELS := bench/results/labels.jsonl.gz
tune-labels: $(DEV_STAMP)
	$(PY) bench/tune.py $(LABELS) --labels
	$(PY) bench/tune.py --threats $(HORIZON_LABELS) --labels --seed 5
	$(PY) bench/tune.py --combinations $(LABELS) --labels
	$(PY) bench/tune.py --network $(LABELS) $(HORIZON_LABELS) $(MORE_LABELS) --labels --seed 2

label: $(DEV_STAMP)
	@test -n "$(REFERENCE)" -a -n "$(LABEL_GAMES)" || { echo "make label REFERENCE=/path/to/brain LABEL_GAMES='games.jsonl ...'"; exit 2; }
	mkdir -p bench/results
	$(PY) bench/label.py $(LABEL_GAMES) --reference $(REFERENCE) --per-game 6 --out $(NEW_LABELS)

# The threat masks' values over those weights, fitted to the self-play games and
# any others given (REFERENCE_GAMES: a reference engine's, bench/match.py --games).
tune-threats: $(DEV_STAMP)
	$(PY) bench/tune.py --threats bench/results/selfplay.jsonl $(REFERENCE_GAMES) --seed 5

# (8,8,5) proven from the empty board without the book, on every core: about
# 6.5 minutes on two (the target: 10); it stops after an hour.
prove-885: $(DEV_STAMP)
	$(PY) bench/engine.py --prove-885

bench-profile: $(DEV_STAMP)
	bash .ci/install-bench-tools.sh
	$(PY) bench/load.py --profile

bench-sweep: $(DEV_STAMP)
	$(PY) bench/budget_sweep.py

openapi: $(DEV_STAMP)
	$(PY) -m service --openapi > openapi/openapi.json

# The answers under the docs' curl requests (README.md, docs/api.md), rewritten
# from what the app answers now; tests/api/test_examples.py checks them.
doc-examples: $(DEV_STAMP)
	$(PY) -m tests.api.test_examples

# Re-resolve the newest versions pyproject.toml allows and pin them.
lock:
	rm -rf .venv-lock && $(PYTHON) -m venv .venv-lock
	.venv-lock/bin/pip install -q -e '.[dev,mutation]' 2>&1 | grep -v "is ignored" || true
	(echo "# Exact versions for make test, make run and the image (make lock regenerates it)."; \
	 .venv-lock/bin/pip freeze --exclude-editable | grep -v '^tictactoe') > constraints.txt
	rm -rf .venv-lock

# The tools stay: .tools and .venv-checkov are slow to rebuild and rarely change.
clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build *.egg-info \
		$(TS_CLIENT)/node_modules $(TS_CLIENT)/dist
