"""Renju's forbidden moves, the compiled core against the plain reference, on
many generated positions: every empty cell of each, the same verdict and kind.

    .venv/bin/python bench/renju.py                 # 10,000 positions, both cores
    .venv/bin/python bench/renju.py --positions 500 --seed 3

The positions are the reference's own (``tests/renju_reference.py``,
``random_renju_positions``): 8 to 30 Black stones and 2 to 8 White ones in a
cluster, no five, on 9x9, 15x15 and 20x20 boards in turn, from one seed. The
core is asked through ``_core.renju_forbidden`` (what ``Board.forbidden`` and
the search use); the reference decides each cell from the rule's text, slowly.
The test suite compares a few hundred positions (``tests/engine/test_renju.py``);
this is the large sample. Prints one JSON line; exits 1 on any disagreement.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

from local_server import REPO

sys.path.insert(0, str(REPO))

from tests import renju_reference as reference
from tests.engine.test_renju import core_verdicts  # the suite's own reading of the core

SIZES = (9, 15, 20)
CHUNK = 100  # positions per task


def compare(task: tuple[int, int, int]) -> dict[str, object]:
    """One chunk: ``count`` positions of side ``size`` from ``seed``."""
    seed, size, count = task
    positions = reference.random_renju_positions(random.Random(seed), count, size)
    kinds: Counter[str] = Counter()
    disagreements: list[dict[str, object]] = []
    cells = 0
    for grid in positions:
        expected = reference.forbidden_cells(grid)
        got = core_verdicts(grid)
        cells += sum(row.count(".") for row in grid)
        kinds.update(expected.values())
        if got != expected:
            disagreements.append({"grid": grid, "core": str(got), "reference": str(expected)})
    return {"cells": cells, "kinds": kinds, "disagreements": disagreements}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=2028)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    tasks = []
    for index, start in enumerate(range(0, args.positions, CHUNK)):
        count = min(CHUNK, args.positions - start)
        tasks.append((args.seed * 1_000_003 + index, SIZES[index % len(SIZES)], count))
    started = time.monotonic()
    kinds: Counter[str] = Counter()
    disagreements: list[dict[str, object]] = []
    cells = 0
    with ProcessPoolExecutor(args.workers) as pool:
        for result in pool.map(compare, tasks):
            cells += result["cells"]  # type: ignore[operator]
            kinds.update(result["kinds"])  # type: ignore[arg-type]
            disagreements += result["disagreements"]  # type: ignore[arg-type]
    summary = {
        "renju": {
            "positions": args.positions,
            "sizes": list(SIZES),
            "seed": args.seed,
            "cells_compared": cells,
            "forbidden_cells": dict(kinds),
            "disagreements": len(disagreements),
            "seconds": round(time.monotonic() - started, 1),
        }
    }
    print(json.dumps(summary))
    for found in disagreements[:5]:
        print(json.dumps(found), file=sys.stderr)
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
