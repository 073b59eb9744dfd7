"""Run a sample of mutants as mutmut would, in the sample's order, so that every
prefix of a uniform sample is a uniform sample run whole.

    .venv/bin/mutmut run NAME              # any one name: mutants/, the stats run, mypy
    .venv/bin/python bench/mutation_run.py bench/results/mutation-sample-api.txt \\
        --results bench/results/mutation-runs-api.json
    .venv/bin/python bench/mutation_score.py --names bench/results/mutation-sample-api.txt \\
        --results bench/results/mutation-runs-api.json

mutmut runs the cheapest mutants first, so a sample it has half run is the
cheap half of the sample, not a smaller sample. This runs the mutants mutmut
has not judged yet in the order of the names file and keeps of mutmut what
decides a verdict:

* a mutant's tests are the ones mutmut's stats run saw reach its function
  (``mutmut-stats.json``), run with ``-x``; none: "no test reaches it";
* mypy's rejection comes first, found by mutmut's own filter;
* the time limit is (those tests' time in the stats run + 30 s) x 5, wall
  clock, as ``[tool.mutmut]`` sets it; past it, "timed out";
* a verdict mutmut recorded stands (``mutation_score.py`` reads it first).

What differs: the tests run fastest first (mutmut: in collection order), which
changes how long a killed mutant takes and not whether it is killed; and each
mutant runs in a fresh pytest process, not in a fork of one that has collected
the tests, so a mutant that breaks the import of a test module (a module-level
``Board.parse``) is caught, as ``make test`` would be, where a fork would have
imported it unmutated. ``--tests DIR`` runs the mutants of one tree against the
tests of another (a copy of the mutants with newer tests). Resumes from
``--results``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from mutmut.mutation.file_mutation import filter_mutants_with_type_checker

TIME_CONSTANT, TIME_MULTIPLIER = 30.0, 5.0  # as [tool.mutmut] in pyproject.toml


def recorded(mutants: Path) -> dict[str, int | None]:
    """mutmut's exit code for each mutant (None: not run)."""
    codes: dict[str, int | None] = {}
    for meta in mutants.glob("service/**/*.py.meta"):
        codes.update(json.loads(meta.read_text())["exit_code_by_key"])
    return codes


def rejected_by_mypy(mutants: Path) -> set[str]:
    """The mutants mypy rejects, by mutmut's filter (run where mutmut runs)."""
    os.chdir(mutants.resolve().parent)
    return set(filter_mutants_with_type_checker())


def run_one(name: str, tests: list[str], limit: float, cwd: Path) -> dict[str, object]:
    env = {**os.environ, "MUTANT_UNDER_TEST": name, "HYPOTHESIS_PROFILE": "mutation"}
    command = [sys.executable, "-m", "pytest", "--rootdir=.", "--tb=line", "-x", "-q"]
    command += ["-p", "no:cacheprovider", "-p", "no:randomly", "--timeout=3600", *tests]
    started = time.monotonic()
    try:
        done = subprocess.run(
            command, check=False, cwd=cwd, env=env, capture_output=True, text=True, timeout=limit
        )
    except subprocess.TimeoutExpired:
        return {"verdict": "timed out", "seconds": round(limit), "limit": round(limit)}
    verdict = {0: "survived", 1: "killed", 2: "killed", 3: "killed"}.get(done.returncode, "other")
    result: dict[str, object] = {
        "verdict": verdict,
        "seconds": round(time.monotonic() - started, 1),
        "limit": round(limit),
        "tests": len(tests),
    }
    if done.returncode == 2:
        result["how"] = "the tests do not load"
    elif verdict == "other":
        result["how"] = f"pytest exit code {done.returncode}"
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", type=Path, help="the sample, one mutant name a line")
    parser.add_argument("--mutants", type=Path, default=Path("mutants"), help="mutmut's tree")
    parser.add_argument("--tests", type=Path, help="run in this copy of the tree (newer tests)")
    parser.add_argument("--results", type=Path, required=True, help="verdicts, resumed")
    arguments = parser.parse_args()
    mutants, out = arguments.mutants.resolve(), arguments.results.resolve()
    where = (arguments.tests or arguments.mutants).resolve()
    stats = json.loads((mutants / "mutmut-stats.json").read_text())
    seconds, reaching = stats["duration_by_test"], stats["tests_by_mangled_function_name"]
    codes = recorded(mutants)
    results = json.loads(out.read_text()) if out.exists() else {}
    todo = [n for n in arguments.names.read_text().split() if codes.get(n) is None]
    todo = [n for n in todo if n not in results]
    rejected = rejected_by_mypy(mutants) if todo else set()
    for name in todo:
        if name in rejected:
            results[name] = {"verdict": "caught by mypy"}
        else:
            function = name.rsplit("__mutmut_", 1)[0]
            tests = [t for t in reaching.get(function, []) if (where / t.split("::")[0]).exists()]
            tests.sort(key=lambda test: seconds.get(test, 0.0))
            limit = (sum(seconds.get(t, 0.0) for t in tests) + TIME_CONSTANT) * TIME_MULTIPLIER
            results[name] = (
                run_one(name, tests, limit, where) if tests else {"verdict": "no test reaches it"}
            )
        out.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
        print(time.strftime("%H:%M:%S"), results[name]["verdict"], name, flush=True)


if __name__ == "__main__":
    main()
