"""Self-play games for fitting the evaluation (``make selfplay``; ``bench/tune.py``
fits the weights to them).

    .venv/bin/python bench/selfplay.py --games 2000 --out bench/results/selfplay.jsonl

Each game starts from a random opening (two to five stones within three cells
of the centre, alternating from X) on 15x15 (a quarter of the games on 20x20,
a third under exactly five) and is played by the engine against itself at a
fixed node budget a move, in process, so a game depends only on its seed and
the engine. For variety, each side's first ``--random-moves`` moves are drawn
among the moves scored within ``--spread`` of the best. One JSON line a game:
the board, the rule, the moves (the opening's included), how many were the
opening, and the winner ("X", "O" or null for a full board).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.engine import Board, Engine, Rule

DEFAULT_NODES = 20_000


def opening(rng: random.Random, size: int) -> list[int]:
    centre = size // 2
    cells: list[int] = []
    for _ in range(rng.randint(2, 5)):
        while (cell := (centre + rng.randint(-3, 3)) * size + centre + rng.randint(-3, 3)) in cells:
            pass
        cells.append(cell)
    return cells


def play_game(seed: int, nodes: int, random_moves: int, spread: float) -> dict[str, object]:
    rng = random.Random(seed)
    size = 20 if rng.random() < 0.25 else 15
    rule = Rule.EXACT if rng.random() < 1 / 3 else Rule.FREESTYLE
    moves = opening(rng, size)
    board = Board.from_moves(moves, rows=size, rule=rule)
    engine = Engine(node_budget=nodes, table_bytes=16 << 20, one_game=True)
    played = 0
    while not board.is_game_over():
        analysis = engine.analyze(board)
        if played < 2 * random_moves:
            best = float(analysis.best_score)
            near = [m.cell for m in analysis.moves if float(m.score) >= best - spread]
            cell = rng.choice(near)
        else:
            cell = analysis.best_moves[0]
        board = board.play(cell)
        moves.append(cell)
        played += 1
    winner = board.winner
    return {
        "seed": seed,
        "size": size,
        "rule": rule.value,
        "opening": len(moves) - played,
        "moves": moves,
        "winner": None if winner is None else winner.value,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--nodes", type=int, default=DEFAULT_NODES, help="node budget a move")
    parser.add_argument("--random-moves", type=int, default=3)
    parser.add_argument("--spread", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("bench/results/selfplay.jsonl"))
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    began = time.monotonic()
    seeds = [args.seed * 1_000_003 + i for i in range(args.games)]
    with ProcessPoolExecutor(args.workers) as pool, args.out.open("w") as out:
        futures = [
            pool.submit(play_game, seed, args.nodes, args.random_moves, args.spread)
            for seed in seeds
        ]
        for done, future in enumerate(futures, 1):
            out.write(json.dumps(future.result()) + "\n")
            if done % 100 == 0:
                print(
                    f"{done} games, {time.monotonic() - began:.0f} s", file=sys.stderr, flush=True
                )
    print(f"wrote {args.games} games to {args.out} in {time.monotonic() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
