"""The 8x8 mid-game proven share at a chosen node budget, with and without the
shipped stores of proven positions (issue 29), in the engine alone.

``bench/engine.py`` measures the share through a fresh server at the
service's defaults; this asks what more nodes, or the stores, would change:

    .venv/bin/python bench/proof_share.py                       # both, 1 M nodes
    .venv/bin/python bench/proof_share.py --budget 30000000 --only plain

The positions are ``bench/engine.py``'s (100 random 8x8 positions, 2 to 10
marks, k = 4 and 5, seed 80); each is searched by a fresh engine (a 256 MiB
table, the book not installed: an empty board is not among them).
"""

from __future__ import annotations

import argparse
import json
import time

from engine import mid_game_positions

from service.engine import Engine, store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=int, default=1_000_000, help="nodes per position")
    parser.add_argument(
        "--only", choices=("plain", "stores"), help="one of the two runs (default: both)"
    )
    args = parser.parse_args()
    positions = mid_game_positions(100, seed=80, marks=(2, 10), sides=(8,))
    stores = [store.load(path) for path in store.paths()]
    figures: dict[str, object] = {"budget": args.budget}
    runs = {None: (False, True), "plain": (False,), "stores": (True,)}[args.only]
    for with_stores in runs:
        proven = {4: 0, 5: 0}
        started = time.perf_counter()
        for board in positions:
            engine = Engine(node_budget=args.budget, table_bytes=256 << 20)
            if with_stores:
                for kept in stores:
                    kept.install(engine)
            proven[board.k] += engine.search(board).outcome is not None
        seconds = time.perf_counter() - started
        name = "with the stores" if with_stores else "without"
        counts = {k: sum(b.k == k for b in positions) for k in proven}
        print(
            f"{name}: k=4 {proven[4]} of {counts[4]}, k=5 {proven[5]} of {counts[5]} proven "
            f"({seconds:.0f} s)",
            flush=True,
        )
        key = "stores" if with_stores else "plain"
        figures[f"{key}_proven_k4"], figures[f"{key}_proven_k5"] = proven[4], proven[5]
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
