"""How soon does each engine see a forced win? Positions of played games in
which a reference engine, searching long, reports a forced win for the side
to move; how many of them our engine sees as won at each node count, beside
how many the reference itself sees at a shorter count
(docs/strength.md#seeing-the-wins).

    R=/path/to/pbrain-rapfi
    .venv/bin/python bench/win_sight.py --label GAMES.jsonl [...] --reference $R \\
        --nodes 2000000 --check-nodes 100000 --per-game 2 --out wins.jsonl.gz
    .venv/bin/python bench/win_sight.py [wins.jsonl.gz] --budgets 100000,400000,1600000

Labelling draws up to ``--per-game`` positions of each game that a search
has to decide (``bench/label.py --horizon``'s: no five point for either
side, no open-four point for the side to move), asks the reference for its
value at ``--nodes`` (``INFO max_node``), keeps those it reports won for the
side to move, and asks it again at ``--check-nodes``: each line of the
output is one such position, with both values (``bench/blunders.py``'s
``parse_eval()`` units: a win in n plies is 100,000 - n; the second None
where the reference reported no value). The set measured in the docs is
committed (bench/labels/), so the measure replays without the reference.
The measure asks our core's analysis (``--checkout``: another checkout's
built core, an experiment's), on a new 64 MiB table a position and budget,
no deadline, and counts a position seen where one of its moves is a win,
proven or seen by its search (as ``bench/horizon.py``'s ``sees_win()``
reads an analysis). Rapfi stays outside the project: this script runs the
binary it is given.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from blunders import CORE_RULE, DECIDED
from depth_nodes import analyse, load_core
from horizon import sees_win
from label import drawn_positions, label_all, write_labels
from local_server import REPO
from tune import read_labels

sys.path.insert(0, str(REPO))

from service.engine import _core
from tests.brain.manager import Entrant

WINS = REPO / "bench" / "labels" / "rapfi-wins.jsonl.gz"


def key(position: dict[str, object]) -> str:
    """What tells one position from another: its board, rule and stones."""
    return json.dumps([position["size"], position["rule"], position["moves"]])


def label(
    games: Sequence[Path], reference: Entrant, nodes: int, check_nodes: int, per_game: int,
    workers: int, seed: int,
) -> list[dict[str, object]]:  # fmt: skip
    """The drawn positions (each once) the reference, at ``nodes``, reports
    won for the side to move, each with that value and its value at
    ``check_nodes`` (None where it reported none)."""
    drawn = drawn_positions(games, per_game, seed, horizon=True)
    positions = list({key(p): p for p in drawn}.values())
    labelled = label_all(reference, positions, nodes, workers)
    won = [p for p in labelled if int(p["value"]) >= DECIDED]  # type: ignore[call-overload]
    unlabelled = [{k: v for k, v in p.items() if k != "value"} for p in won]
    checks = {key(p): p["value"] for p in label_all(reference, unlabelled, check_nodes, workers)}
    return [
        {**p, "nodes": nodes, "check_nodes": check_nodes, "check_value": checks.get(key(p))}
        for p in won
    ]


def seen(core: ModuleType, record: dict[str, object], budget: int) -> bool:
    """Whether ``core``'s analysis, on a new table with ``budget`` nodes,
    sees the side to move's win."""
    moves = list(record["moves"])  # type: ignore[call-overload]
    size, rule = int(record["size"]), CORE_RULE[str(record["rule"])]  # type: ignore[call-overload]
    return sees_win(analyse(core, moves, 0, size, rule, budget)[0])[0]


def measure(
    records: Sequence[dict[str, object]], budgets: Sequence[int], core: ModuleType = _core
) -> dict[str, object]:
    reference = sum(
        r["check_value"] is not None and int(r["check_value"]) >= DECIDED  # type: ignore[call-overload]
        for r in records
    )
    report: dict[str, object] = {
        "positions": len(records),
        "reference": {"nodes": records[0]["nodes"] if records else None,
                      "check_nodes": records[0]["check_nodes"] if records else None,
                      "seen_at_check_nodes": reference},
        "ours": {},
    }  # fmt: skip
    for budget in budgets:
        began = time.monotonic()
        count = sum(seen(core, r, budget) for r in records)
        report["ours"][str(budget)] = {"seen": count, "seconds": round(time.monotonic() - began, 1)}  # type: ignore[index]
        print(f"ours at {budget:,} nodes: {count} of {len(records)} seen", file=sys.stderr)
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wins", type=Path, nargs="?", default=WINS)
    parser.add_argument("--budgets", default="100000,400000,1600000")
    parser.add_argument("--label", type=Path, nargs="+", metavar="GAMES")
    parser.add_argument("--reference", type=Path)
    parser.add_argument("--nodes", type=int, default=2_000_000)
    parser.add_argument("--check-nodes", type=int, default=100_000)
    parser.add_argument("--per-game", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--out", type=Path)
    parser.add_argument(
        "--checkout", type=Path, help="measure this checkout's built core instead of this one's"
    )
    args = parser.parse_args()
    if args.label:
        if args.reference is None or args.out is None:
            parser.error("--label needs --reference and --out")
        reference = args.reference.resolve()
        if not reference.is_file():
            raise SystemExit(f"{args.reference}: no such file")
        entrant = Entrant((str(reference),), cwd=reference.parent, quiet=True)
        records = label(
            args.label, entrant, args.nodes, args.check_nodes, args.per_game, args.workers,
            args.seed,
        )  # fmt: skip
        write_labels(args.out, records)
        print(f"{len(records)} positions won for the side to move -> {args.out}", file=sys.stderr)
        return 0
    budgets = [int(b) for b in args.budgets.split(",")]
    core = load_core(args.checkout) if args.checkout is not None else _core
    print(json.dumps(measure(list(read_labels(args.wins)), budgets, core)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
