"""Label quiet positions of played games with a reference engine's searched
value, for ``bench/tune.py --labels``: targets better informed than a game's
outcome (docs/strength.md#the-evaluation).

    R=/path/to/pbrain-rapfi
    .venv/bin/python bench/label.py GAMES.jsonl [GAMES2.jsonl ...] --reference $R \\
        --nodes 20000 --per-game 6 --workers 2 --out labels.jsonl.gz
    .venv/bin/python bench/tune.py labels.jsonl.gz --labels

GAMES are what ``bench/selfplay.py`` or ``bench/match.py --games`` wrote.
From each game up to ``--per-game`` quiet positions after its opening are
drawn with a fixed seed (quiet as ``bench/tune.py`` counts it: no five point
and no open-four point for either side), each asked of the reference with
``INFO max_node`` (one process a worker, kept for the whole run; ``BOARD``
sets each position) and its last ``INFO EVAL`` under ``INFO show_detail 2``
kept: the side to move's value in its units, a forced win or loss as
``bench/blunders.py``'s ``parse_eval()`` writes it. Each line of the output
is one position: its board, rule, stones (cells row by row, in play order
from X) and value; the file is gzipped where its name ends in .gz. The set
behind the weights in force is committed (bench/labels/), so the fit
replays without the reference. Rapfi stays outside the project: this
script runs the binary it is given.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from blunders import GOMOCUP_RULE, board_view
from local_server import REPO
from match import PAUSE_SECONDS
from tune import features, first_kept, shuffled_games

sys.path.insert(0, str(REPO))

from service.engine import _core
from tests.brain.manager import Entrant, brain

TURN_MS = 60_000  # the node count ends each search, the turn only caps it


def at_horizon(size: int, exact: bool, moves: Sequence[int]) -> bool:
    """Whether the search may evaluate the position (``big_quiesce()`` in
    core/big/quiesce.c stands pat there): no five point for either side and
    no open-four point for the side to move; the other side's open three is
    allowed."""
    sets = _core.big_board(size, size, 5, exact, moves)[1]
    return not sets[0] and not sets[1] and not sets[2 + len(moves) % 2]


def drawn_positions(
    games_files: Sequence[Path], per_game: int, seed: int, horizon: bool = False
) -> Iterator[dict[str, object]]:
    """Up to ``per_game`` quiet positions of each game (with ``horizon``,
    positions ``at_horizon()``), as label records without their value."""

    def drawn(rows: int, cols: int, k: int, exact: bool, moves: Sequence[int]) -> bool | None:
        if horizon:
            return at_horizon(rows, exact, moves) or None
        return features(rows, cols, k, exact, moves) is not None or None

    rng = random.Random(seed)
    for games_file in games_files:
        for game, plies in shuffled_games(games_file, rng):
            for ply, _ in first_kept(game, plies, per_game, drawn):
                yield {"size": game["size"], "rule": game["rule"], "moves": game["moves"][:ply]}


def label_all(
    reference: Entrant, positions: Sequence[dict[str, object]], nodes: int, workers: int
) -> list[dict[str, object]]:
    """Each position with the reference's value (one process a worker); a
    position the reference gives no value for is left out."""
    shares = [positions[i::workers] for i in range(workers)]

    def run(share: Sequence[dict[str, object]]) -> list[dict[str, object]]:
        out = []
        with brain(reference.command, reference.env, reference.cwd, quiet=True) as process:
            size = None
            for position in share:
                if position["size"] != size:
                    size = position["size"]
                    if process.ask(f"START {size}") != "OK":
                        raise SystemExit(f"{reference.command[0]}: START {size} refused")
                    process.send(
                        f"INFO timeout_turn {TURN_MS}", "INFO timeout_match 0",
                        "INFO show_detail 2", f"INFO max_node {nodes}",
                    )  # fmt: skip
                time.sleep(PAUSE_SECONDS)  # Rapfi drops what arrives just after its reply
                process.send(f"INFO rule {GOMOCUP_RULE[str(position['rule'])]}")
                assert isinstance(size, int)
                moves = list(position["moves"])  # type: ignore[call-overload]
                stones = [(c % size, c // size) for c in moves]
                view = board_view(process, stones, TURN_MS / 1000 + 30)
                if view.value is not None:
                    out.append({**position, "value": view.value})
        return out

    with ThreadPoolExecutor(workers) as pool:
        return [record for part in pool.map(run, shares) for record in part]


def write_labels(path: Path, records: Sequence[dict[str, object]]) -> None:
    """The records a line each, as ``tune.read_labels()`` reads them back:
    gzipped where the name ends in .gz, with no time stamp (the same records,
    the same bytes)."""
    text = "".join(json.dumps(record) + "\n" for record in records).encode()
    path.write_bytes(gzip.compress(text, mtime=0) if path.suffix == ".gz" else text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", type=Path, nargs="+")
    parser.add_argument("--reference", type=Path, required=True)
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--per-game", type=int, default=3)
    parser.add_argument("--limit", type=int, default=0, help="at most this many positions")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument(
        "--horizon",
        action="store_true",
        help="positions the search may evaluate (the other side's open three allowed), "
        "not only quiet ones",
    )
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    began = time.monotonic()
    positions = list(drawn_positions(args.games, args.per_game, args.seed, args.horizon))
    if args.limit:
        positions = positions[: args.limit]
    reference = args.reference.resolve()
    if not reference.is_file():
        raise SystemExit(f"{args.reference}: no such file")
    labelled = label_all(
        Entrant((str(reference),), cwd=reference.parent, quiet=True),
        positions, args.nodes, args.workers,
    )  # fmt: skip
    write_labels(args.out, labelled)
    print(
        f"{len(labelled)} of {len(positions)} positions labelled at {args.nodes} nodes "
        f"in {time.monotonic() - began:.0f} s: {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
