"""The mutation score of a ``make mutation`` run, per half, and every mutant not caught.

    .venv/bin/python bench/mutation_score.py                 # mutants/ of this tree
    .venv/bin/python bench/mutation_score.py /tmp/wt/mutants --survivors
    .venv/bin/python bench/mutation_score.py --sample 400 --seed 21 > names.txt
    .venv/bin/mutmut run $(cat names.txt)
    .venv/bin/python bench/mutation_score.py --names names.txt      # its score
    .venv/bin/python bench/mutation_score.py --names names.txt --results runs.json

Reads mutmut's verdicts (``mutants/**/*.py.meta``) and counts them for the two
halves ``[tool.mutmut]`` mutates: ``service/api/`` and the engine's Python
modules. A mutant is **caught** when a test failed on it (killed), it ran past
its time limit (timed out), or mypy rejected it (``make test`` type-checks, so
it could not land). The score is the caught share of *all* mutants: a mutant
that survived, that no in-process test reaches, or that is not run yet counts
against it. ``--survivors`` lists the mutants not caught, by function.

A whole run takes hours on two cores, so a run can be a uniform random
sample: ``--sample N --seed S`` prints N mutant names drawn from each half
(give them to ``mutmut run``), and ``--names FILE`` scores only the mutants
named in the file, with a 95% Wilson interval for the whole half's score;
``--results`` adds the verdicts ``bench/mutation_run.py`` gave the mutants
mutmut had not run, and ``--record`` writes the whole sample's verdicts, each
with what gave it. The samples and their records behind docs/reliability.md
are in bench/mutation/; a record scores without a mutants tree:

    .venv/bin/python bench/mutation_score.py --names bench/mutation/sample-api.txt \\
        --results bench/mutation/record-api.json
"""

from __future__ import annotations

import argparse
import json
import math
import random
from collections import Counter
from pathlib import Path

# mutmut's exit codes (mutmut/stats.py), grouped as this report counts them.
VERDICTS = {
    1: "killed",
    3: "killed",
    -24: "timed out",
    24: "timed out",
    36: "timed out",
    152: "timed out",
    255: "timed out",
    37: "caught by mypy",
    0: "survived",
    5: "no test reaches it",
    33: "no test reaches it",
    None: "not run",
}
CAUGHT = ("killed", "timed out", "caught by mypy")
NOT_CAUGHT = ("survived", "no test reaches it", "not run", "other")
HALVES = {"service/api": "service/api/", "service/engine (Python)": "service/engine/"}


def half_of(name: str) -> str | None:
    """``service.api.guards.x_f__mutmut_3`` -> ``service/api``."""
    path = name.replace(".", "/")
    return next((h for h, prefix in HALVES.items() if path.startswith(prefix)), None)


def verdicts(mutants: Path) -> dict[str, dict[str, str]]:
    """Each half's mutants by name, with mutmut's verdict."""
    found: dict[str, dict[str, str]] = {half: {} for half in HALVES}
    for meta in sorted(mutants.glob("service/**/*.py.meta")):
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        for name, code in codes.items():
            half = half_of(name)
            if half is not None:
                found[half][name] = VERDICTS.get(code, "other")
    return found


def sample_verdicts(
    found: dict[str, dict[str, str]], names: list[str], runs: dict[str, dict[str, object]]
) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, object]]]:
    """The named mutants' verdicts by half, mutmut's where it ran them, else the
    runs' (``bench/mutation_run.py``'s, or a record of a whole sample), a run's
    catch overriding mutmut's miss (``--check``: tests written since), and the
    record of each: its verdict and what gave it."""
    picked: dict[str, dict[str, str]] = {half: {} for half in HALVES}
    record: dict[str, dict[str, object]] = {}
    for name in names:
        half = half_of(name)
        if half is None:
            continue
        verdict = found[half].get(name, "not run")
        if verdict != "not run":
            record[name] = {"verdict": verdict, "by": "mutmut"}
        # A run's verdict where mutmut has none, or where a check caught what it did not.
        if name in runs and (verdict == "not run" or runs[name]["verdict"] in CAUGHT):
            record[name] = {"by": "bench/mutation_run.py", **runs[name]}
            verdict = str(record[name]["verdict"])
        picked[half][name] = verdict
    return picked, record


def function_of(mutant: str) -> str:
    """``pkg.mod.xǁClassǁmethod__mutmut_3`` -> ``pkg.mod.Class.method``, and
    ``pkg.mod.x_function__mutmut_3`` -> ``pkg.mod.function``."""
    module, _, mangled = mutant.rsplit("__mutmut_", 1)[0].rpartition(".")
    if mangled.startswith("xǁ"):
        return f"{module}.{mangled[2:].replace('ǁ', '.')}"
    return f"{module}.{mangled.removeprefix('x_')}"


def wilson(caught: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a share ``caught / total``."""
    share = caught / total
    centre = (share + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(share * (1 - share) / total + z * z / (4 * total * total))
    return centre - half / (1 + z * z / total), centre + half / (1 + z * z / total)


def _share(caught: int, total: int, *, interval: bool) -> str:
    """``caught`` of ``total`` as a percentage, with its 95% interval for a sample."""
    if not total:
        return "-"
    text = f"{caught:,} of {total:,}, {100 * caught / total:.1f}%"
    if interval:
        low, high = wilson(caught, total)
        text += f" (95%: {100 * low:.1f}-{100 * high:.1f}%)"
    return text


def sampled(found: dict[str, dict[str, str]], size: int, seed: int) -> dict[str, dict[str, str]]:
    """``size`` mutants of each half, drawn uniformly with ``seed``."""
    draw = random.Random(seed)
    return {
        half: {name: named[name] for name in draw.sample(sorted(named), min(size, len(named)))}
        for half, named in found.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mutants", nargs="?", default="mutants", type=Path)
    parser.add_argument("--survivors", action="store_true", help="list the mutants not caught")
    parser.add_argument("--sample", type=int, help="a uniform sample of this many per half")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--names", type=Path, help="score only the mutants named in this file")
    parser.add_argument(
        "--results",
        type=Path,
        action="append",
        default=[],
        help="verdicts for the named mutants mutmut has not run (bench/mutation_run.py's)",
    )
    parser.add_argument(
        "--record", type=Path, help="write the named mutants' verdicts, and what gave each"
    )
    arguments = parser.parse_args()
    found = verdicts(arguments.mutants)
    if arguments.sample:
        picked = sampled(found, arguments.sample, arguments.seed)
        print("\n".join(name for named in picked.values() for name in named))
        return
    if arguments.names:
        runs: dict[str, dict[str, object]] = {}
        for results in arguments.results:
            runs.update(json.loads(results.read_text()))
        found, record = sample_verdicts(found, arguments.names.read_text().split(), runs)
        if arguments.record:
            text = json.dumps(record, indent=1, ensure_ascii=False, sort_keys=True)
            arguments.record.write_text(text + "\n")
    columns = [*CAUGHT, *NOT_CAUGHT]
    print("| half | mutants | " + " | ".join(columns) + " | score | of the mutants mypy accepts |")
    print("|---" * (len(columns) + 4) + "|")
    for half, named in found.items():
        counts = Counter(named.values())
        caught = sum(counts[v] for v in CAUGHT)
        run = len(named) - counts["caught by mypy"]
        shares = [
            _share(caught, len(named), interval=bool(arguments.names)),
            _share(caught - counts["caught by mypy"], run, interval=bool(arguments.names)),
        ]
        cells = " | ".join(f"{counts[v]:,}" for v in columns)
        print(f"| {half} | {len(named):,} | {cells} | {' | '.join(shares)} |")
    if arguments.survivors:
        for half, named in found.items():
            left = Counter(
                (function_of(name), verdict)
                for name, verdict in named.items()
                if verdict not in CAUGHT
            )
            print(f"\n{half}: {sum(left.values())} not caught")
            for (function, verdict), count in sorted(left.items()):
                print(f"  {count:4d}  {verdict:20s} {function}")


if __name__ == "__main__":
    main()
