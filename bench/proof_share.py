"""The 8x8 mid-game proven share at a chosen node budget, with and without the
shipped stores of proven positions (issue 29), in the engine alone.

``bench/engine.py`` measures the share through a fresh server at the
service's defaults; this asks what more nodes, or the stores, would change:

    .venv/bin/python bench/proof_share.py                       # both, 1 M nodes
    .venv/bin/python bench/proof_share.py --budget 30000000 --only plain
    .venv/bin/python bench/proof_share.py --threats             # the threat search alone
    .venv/bin/python bench/proof_share.py --sides --budget 20000000  # each side's proof apart
    .venv/bin/python bench/proof_share.py --two-marks 3 --budget 400000000  # a store's next layer

The positions are ``bench/engine.py``'s (100 random 8x8 positions, 2 to 10
marks, k = 4 and 5, seed 80); each is searched by a fresh engine (a 256 MiB
table, the book not installed: an empty board is not among them).
``--threats`` asks instead in how many of them the threat search alone
(``_core.quiet_threat_win``, the root's first proof on these boards) proves
the side to move's win; ``--sides`` runs the zone search (``_core.can_win``)
for each side apart, as the root's two proofs that a side cannot win.
``--two-marks N`` asks what a store of every two-mark 8x8 k = 5 position
would cost: the same two proofs, on one core with a 1 GiB table, for N
random positions of one X and one O mark, X to move, with their nodes and
seconds.
"""

from __future__ import annotations

import argparse
import json
import random
import time

from engine import mid_game_positions

from service.engine import Board, Engine, Player, _core, store
from service.engine.search import core_shape


def threat_wins(positions: list[Board], budget: int) -> dict[str, object]:
    """Per k: the positions where the threat search proves the side to move's win."""
    won = {4: 0, 5: 0}
    for board in positions:
        x_to_move = board.side_to_move is Player.X
        move, _ = _core.quiet_threat_win(
            core_shape(board.shape), board.x, board.o, x_to_move, budget
        )
        won[board.k] += move >= 0
    counts = {k: sum(b.k == k for b in positions) for k in won}
    print(f"a win by threats: k=4 {won[4]} of {counts[4]}, k=5 {won[5]} of {counts[5]}")
    return {"budget": budget, "threat_wins_k4": won[4], "threat_wins_k5": won[5]}


def sides_apart(positions: list[Board], budget: int) -> dict[str, object]:
    """Per k: the positions where the zone search settles both sides (a win or
    a draw), one side only (that it cannot win), or neither."""
    figures: dict[str, object] = {"budget": budget}
    for k in (4, 5):
        settled = {"both": 0, "one": 0, "neither": 0}
        for board in (b for b in positions if b.k == k):
            shape, x_to_move = core_shape(board.shape), board.side_to_move is Player.X
            answers = []
            for attacker_x in (x_to_move, not x_to_move):
                table = _core.Table(64 << 20)
                found, _ = _core.can_win(
                    shape, table, board.x, board.o, x_to_move, attacker_x, budget
                )
                answers.append(found)
            if True in answers or answers == [False, False]:
                settled["both"] += 1
            else:
                settled["one" if False in answers else "neither"] += 1
        print(
            f"k={k}: both sides settled {settled['both']}, one side cannot win and the "
            f"other unknown {settled['one']}, neither {settled['neither']}",
            flush=True,
        )
        figures |= {f"k{k}_{name}": count for name, count in settled.items()}
    return figures


def two_marks(count: int, budget: int) -> dict[str, object]:
    """Each side's zone search on ``count`` random two-mark 8x8 k = 5 positions
    (seed 1): what it settles, in how many nodes and seconds."""
    shape = core_shape(Board.from_moves([], rows=8, cols=8, k=5).shape)
    rng = random.Random(1)
    rows = []
    for _ in range(count):
        x_cell, o_cell = rng.sample(range(64), 2)
        for attacker_x in (True, False):
            table = _core.Table(1 << 30)
            started = time.perf_counter()
            found, nodes = _core.can_win(
                shape, table, 1 << x_cell, 1 << o_cell, True, attacker_x, budget
            )
            seconds = time.perf_counter() - started
            side = "X" if attacker_x else "O"
            verdict = {None: "unknown", False: "cannot win", True: "wins"}[found]
            print(
                f"X at {x_cell}, O at {o_cell}: {side} {verdict} "
                f"({nodes:,} nodes, {seconds:.1f} s)",
                flush=True,
            )
            rows.append(
                {
                    "x": x_cell,
                    "o": o_cell,
                    "attacker": side,
                    "found": found,
                    "nodes": nodes,
                    "seconds": round(seconds, 1),
                }
            )
    return {"budget": budget, "positions": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=int, default=1_000_000, help="nodes per position")
    parser.add_argument(
        "--only", choices=("plain", "stores"), help="one of the two runs (default: both)"
    )
    parser.add_argument("--threats", action="store_true", help="the threat search alone")
    parser.add_argument("--sides", action="store_true", help="each side's zone search apart")
    parser.add_argument(
        "--two-marks", type=int, metavar="N", help="each side's proof on N two-mark positions"
    )
    args = parser.parse_args()
    if args.two_marks:
        print(json.dumps(two_marks(args.two_marks, args.budget)))
        return
    positions = mid_game_positions(100, seed=80, marks=(2, 10), sides=(8,))
    if args.threats or args.sides:
        report = threat_wins if args.threats else sides_apart
        print(json.dumps(report(positions, args.budget)))
        return
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
