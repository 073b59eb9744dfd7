"""Games against the service's engine on 8x8 (issue 29's second item): once
an answer is proven, do the game's later answers stay proven?

    .venv/bin/python bench/proof_games.py                 # 6 games for k = 4 and for k = 5
    .venv/bin/python bench/proof_games.py --games 2 --k 5

One engine plays the service's part for the whole run, as a server does: the
book and the stores installed, one table kept from request to request, each
request at the service's node budget (1 M; no deadline, so that a run is
repeatable: the service's 800 ms deadline stops the same searches a little
earlier on a slow machine). It plays X in even games and O in odd ones. The
other side is a second engine of its own (a new one each game, no book) that
plays its best move, or a random one with probability ``--random``, so the
games leave the proof's own lines.

Each of the service's positions is also asked of a new engine (the book and
the stores installed, an empty table): what the table kept from the game's
earlier requests adds. Prints a line a game (``P`` a proven answer, ``-`` an
estimate; the new engine's below), then the totals, then one JSON object.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics

from service.engine import Board, Engine, book, store


class Served:
    """Engines as the service starts one: the book and the stores installed
    (each read from disk once)."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.kept = [book.load(), *(store.load(path) for path in store.paths())]

    def engine(self) -> Engine:
        engine = Engine(node_budget=self.budget)
        for kept in self.kept:
            kept.install(engine)
        return engine


def play_game(
    k: int,
    ours_first: bool,
    server: Engine,
    served: Served,
    rng: random.Random,
    random_share: float,
) -> tuple[str, str, list[int]]:
    """One game: the server's answers proven or not (``P``/``-``), a new
    engine's on the same positions, and the server's node counts."""
    board = Board.empty(8, 8, k)
    other = Engine(node_budget=served.budget)
    kept, new, nodes = [], [], []
    ours_to_move = ours_first
    while not board.is_game_over():
        if ours_to_move:
            answer = server.search(board)
            fresh = served.engine().search(board)
            kept.append("P" if answer.outcome is not None else "-")
            new.append("P" if fresh.outcome is not None else "-")
            nodes.append(answer.nodes)
            move = answer.best_moves[0]
        elif rng.random() < random_share:
            move = rng.choice(board.empty_cells())
        else:
            move = other.search(board).best_moves[0]
        board = board.play(move)
        ours_to_move = not ours_to_move
    return "".join(kept), "".join(new), nodes


def proof_lost(answers: str) -> bool:
    """Whether an estimate followed a proven answer."""
    first = answers.find("P")
    return first >= 0 and "-" in answers[first:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=6, help="games for each k")
    parser.add_argument("--k", type=int, choices=(4, 5), action="append", help="default: both")
    parser.add_argument("--budget", type=int, default=1_000_000, help="nodes per request")
    parser.add_argument("--random", type=float, default=0.25, help="the other side's random share")
    parser.add_argument("--seed", type=int, default=29)
    args = parser.parse_args()
    figures: dict[str, object] = {"budget": args.budget, "games": args.games}
    served = Served(args.budget)
    for k in args.k or [4, 5]:
        rng = random.Random(args.seed * 10 + k)
        server = served.engine()
        kept_all, new_all, lost, nodes = "", "", 0, []
        for game in range(args.games):
            kept, new, counts = play_game(k, game % 2 == 0, server, served, rng, args.random)
            print(f"k={k} game {game} ({'X' if game % 2 == 0 else 'O'}): {kept}", flush=True)
            print(f"{'':>{len(f'k={k} game {game} (X): ')}}{new}", flush=True)
            kept_all, new_all = kept_all + kept, new_all + new
            lost += proof_lost(kept)
            nodes += counts
        total = len(kept_all)
        print(
            f"k={k}: {kept_all.count('P')} of {total} answers proven "
            f"(a new engine each request: {new_all.count('P')}); "
            f"games where an estimate followed a proven answer: {lost} of {args.games}; "
            f"median nodes {statistics.median(nodes):,.0f}",
            flush=True,
        )
        figures[f"k{k}_answers"] = total
        figures[f"k{k}_proven"] = kept_all.count("P")
        figures[f"k{k}_proven_new_engine"] = new_all.count("P")
        figures[f"k{k}_games_proof_lost"] = lost
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
