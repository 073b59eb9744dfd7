"""Evidence for "the default budget solves every 4x4 position exactly".

Positions near the empty board are the hard ones (later positions are subtrees
of them), so this solves, each from a cold engine, every 4x4 position with one
or two marks, for k = 3 and 4 and either side first, and reports the largest
node count against the share of the default budget the exact solve may use.
It takes about two minutes: ``make bench-sweep``. Exits 1 if any position is
not solved exactly within the budget.
"""

from __future__ import annotations

import json
import time

from service.engine import DEFAULT_NODE_BUDGET, Board, Engine, Player
from service.engine.analysis import DISTANCE_SHARE


def main() -> int:
    limit = int(DEFAULT_NODE_BUDGET * DISTANCE_SHARE)
    report: dict[str, object] = {"solve_budget": limit}
    ok = True
    for k in (3, 4):
        started = time.perf_counter()
        shape = Board.parse("." * 16, k=k).shape
        worst, worst_board, count = 0, "", 0
        for first in Player:
            empty = Board(shape, 0, 0, first)
            for a in range(16):
                one = empty.play(a)
                for board in [one, *(one.play(b) for b in range(16) if b != a)]:
                    analysis = Engine().analyze(board)
                    count += 1
                    ok &= analysis.exact
                    if analysis.nodes > worst:
                        worst, worst_board = analysis.nodes, repr(board)
        seconds = time.perf_counter() - started
        print(
            f"k={k}: {count} positions, all exact: {ok}, most nodes {worst:,} "
            f"({worst / limit:.0%} of the solve budget) for {worst_board}, {seconds:.0f} s"
        )
        report[f"k{k}_positions"] = count
        report[f"k{k}_max_nodes"] = worst
    ok &= all(report[f"k{k}_max_nodes"] <= limit for k in (3, 4))  # type: ignore[operator]
    report["all_exact_within_budget"] = ok
    print(json.dumps(report))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
