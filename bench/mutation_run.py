"""Run a sample of mutants as mutmut would, in the sample's order, so that every
prefix of a uniform sample is a uniform sample run whole.

    .venv/bin/mutmut run NAME              # any one name: mutants/, the stats run, mypy
    .venv/bin/python bench/mutation_run.py bench/mutation/sample-api.txt \\
        --results mutants/sample-runs-api.json
    .venv/bin/python bench/mutation_score.py --names bench/mutation/sample-api.txt \\
        --results mutants/sample-runs-api.json

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

``--check FILE`` then runs each mutant of the sample that neither mutmut nor
this caught against the tests the file names for its function (tests written
after the run, which mutmut's stats do not know), and records what they say.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from mutation_score import CAUGHT, verdicts
from mutmut.mutation.file_mutation import filter_mutants_with_type_checker

TIME_CONSTANT, TIME_MULTIPLIER = 30.0, 5.0  # as [tool.mutmut] in pyproject.toml


def time_limit(test_seconds: float) -> float:
    """mutmut's wall-clock limit for a mutant whose tests take ``test_seconds``."""
    return (test_seconds + TIME_CONSTANT) * TIME_MULTIPLIER


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


def run(
    names: list[str],
    by_mutmut: dict[str, str],
    results: dict[str, dict[str, object]],
    mutants: Path,
    where: Path,
) -> Iterator[tuple[str, dict[str, object]]]:
    """Run each named mutant that neither mutmut nor an earlier run judged."""
    stats = json.loads((mutants / "mutmut-stats.json").read_text())
    seconds, reaching = stats["duration_by_test"], stats["tests_by_mangled_function_name"]
    todo = [n for n in names if by_mutmut.get(n, "not run") == "not run" and n not in results]
    rejected = rejected_by_mypy(mutants) if todo else set()
    for name in todo:
        if name in rejected:
            yield name, {"verdict": "caught by mypy"}
            continue
        function = name.rsplit("__mutmut_", 1)[0]
        tests = [t for t in reaching.get(function, []) if (where / t.split("::")[0]).exists()]
        tests.sort(key=lambda test: seconds.get(test, 0.0))
        limit = time_limit(sum(seconds.get(t, 0.0) for t in tests))
        yield (
            name,
            (run_one(name, tests, limit, where) if tests else {"verdict": "no test reaches it"}),
        )


def check(
    names: list[str],
    now: dict[str, str],
    at_run: dict[str, str],
    checks: dict[str, list[str]],
    where: Path,
) -> Iterator[tuple[str, dict[str, object]]]:
    """Run each named mutant not caught against the tests ``checks`` gives its
    function (the tests written since the run that let it through)."""
    for name in names:
        function = name.rsplit("__mutmut_", 1)[0]
        tests = next((t for prefix, t in checks.items() if function.startswith(prefix)), None)
        if now.get(name) in CAUGHT or not tests:
            continue
        # No stats time for tests newer than the run: a minute each.
        limit = time_limit(len(tests) * 60.0)
        yield (
            name,
            {
                **run_one(name, tests, limit, where),
                "checked against": tests,
                "at the run": at_run.get(name, "not run"),
            },
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", type=Path, help="the sample, one mutant name a line")
    parser.add_argument("--mutants", type=Path, default=Path("mutants"), help="mutmut's tree")
    parser.add_argument("--tests", type=Path, help="run in this copy of the tree (newer tests)")
    parser.add_argument("--results", type=Path, required=True, help="verdicts, resumed")
    parser.add_argument(
        "--check",
        type=Path,
        help="JSON: function prefix -> tests; run the mutants not caught against them",
    )
    arguments = parser.parse_args()
    mutants, out = arguments.mutants.resolve(), arguments.results.resolve()
    where = (arguments.tests or arguments.mutants).resolve()
    names = arguments.names.read_text().split()
    by_mutmut = {n: v for named in verdicts(mutants).values() for n, v in named.items()}
    results = json.loads(out.read_text()) if out.exists() else {}
    if arguments.check:
        now = {n: by_mutmut.get(n, "not run") for n in names}
        at_run = dict(now)
        for name, result in results.items():
            now[name] = str(result["verdict"])
            at_run[name] = str(result.get("at the run", result["verdict"]))
        checks = json.loads(arguments.check.read_text())
        verdicts_found = check(names, now, at_run, checks, where)
    else:
        verdicts_found = run(names, by_mutmut, results, mutants, where)
    for name, result in verdicts_found:
        results[name] = result
        out.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
        print(time.strftime("%H:%M:%S"), result["verdict"], name, flush=True)


if __name__ == "__main__":
    main()
