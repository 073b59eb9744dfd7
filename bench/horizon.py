"""How far ahead each engine sees a forced win, at one position of a lost
game (docs/strength.md, "Where the games are lost").

The position is the one before the ``--ply``-th move of the ``--game``-th game
``--ours`` lost in GAMES.jsonl (a ``--games`` file of bench/match.py or
bench/gauntlet.py; plies count from the first stone). Three measures:

1. The reference's iterations, each as it reports it under ``INFO
   show_detail 2`` (Rapfi's ``INFO DEPTH``, ``TOTALNODES``, ``EVAL``,
   ``BESTLINE``), over one turn of ``--turn-ms``: at which depth, and after
   how many of its nodes, it first reports a forced win.
2. This checkout's search (or ``--checkout``'s, another checkout with its
   core built in place, as bench/depth_nodes.py takes it) to each fixed
   depth from 1 (a new table each time, no threat proofs at the root:
   bench/depth_nodes.py's searches), until its
   best value is a win it sees (an unproven win's estimate, above 0.95, or a
   proven one), or ``--max-depth``, or a depth takes ``--max-seconds``.
3. Along the reference's last reported line, at each position where the
   side it sees winning is to move: whether this checkout's analysis at
   ``--budget`` nodes (the service's, threat proofs included) sees the win,
   and whether it proves it. How many of the line's moves our search is short.

    .venv/bin/python bench/horizon.py GAMES.jsonl --ours brain@main --reference $R \\
        --game 14 --ply 8 [--checkout ../experiment]

Prints a table and one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from blunders import (
    CORE_RULE,
    DECIDED,
    cells_before,
    cells_of,
    lost_games,
    parse_eval,
    send_board,
    started,
)
from depth_nodes import analyse, load_core
from local_server import REPO

sys.path.insert(0, str(REPO))

from service.engine import _core  # (its import sets the evaluation's weights)
from tests.brain.manager import Entrant

SEEN = 0.95  # an unproven win's estimate lies in (0.95, 0.99): see core/big/root.c


@dataclass(frozen=True)
class Iteration:
    """One of the reference's reported iterations."""

    depth: int
    nodes: int | None
    value: int | None
    line: tuple[tuple[int, int], ...]


def iterations(lines: Iterable[str]) -> list[Iteration]:
    """The iterations in a reference's report: each begins at ``INFO DEPTH``
    and takes the ``TOTALNODES``, ``EVAL`` and ``BESTLINE`` that follow it.

    >>> iterations(["INFO DEPTH 3", "INFO TOTALNODES 40", "INFO EVAL 12",
    ...             "INFO BESTLINE 7,7 8,8", "INFO DEPTH 4", "INFO EVAL +M5"])
    [Iteration(depth=3, nodes=40, value=12, line=((7, 7), (8, 8))), \
Iteration(depth=4, nodes=None, value=99995, line=())]
    """
    found: list[Iteration] = []
    current: dict[str, object] | None = None
    for line in lines:
        words = line.split()
        if len(words) < 3 or words[0] != "INFO":
            continue
        if words[1] == "DEPTH":
            if current is not None:
                found.append(Iteration(**current))  # type: ignore[arg-type]
            current = {"depth": int(words[2]), "nodes": None, "value": None, "line": ()}
        elif current is not None and words[1] == "TOTALNODES":
            current["nodes"] = int(words[2])
        elif current is not None and words[1] == "EVAL":
            current["value"] = parse_eval(words[2])
        elif current is not None and words[1] == "BESTLINE":
            current["line"] = tuple(tuple(int(v) for v in m.split(",")) for m in words[2:])
    if current is not None:
        found.append(Iteration(**current))  # type: ignore[arg-type]
    return found


def reference_iterations(
    engine: Entrant, stones: Sequence[Sequence[int]], size: int, rule: str, turn_ms: int
) -> list[Iteration]:
    """The reference's iterations on one position (stones in play order from
    X), a new process and one turn."""
    with started(engine, size, rule, turn_ms, True) as process:
        send_board(process, stones)
        report = []
        while (line := process.answer(timeout=turn_ms / 1000 + 30)).startswith(("INFO", "MESSAGE")):
            report.append(line)
        return iterations(report)


def sees_win(moves: Sequence[tuple[Any, ...]]) -> tuple[bool, bool]:
    """Whether an analysis's moves show a win it sees, and one it proves."""
    proven = any((m[2] and m[1] > 0) or m[3] > 0 for m in moves)
    return proven or max(m[1] for m in moves) > SEEN, proven


def our_depth(
    size: int,
    rule: str,
    cells: Sequence[int],
    max_depth: int,
    max_seconds: float,
    progress: Callable[[int, int, float], None] | None = None,
    core: ModuleType = _core,
) -> dict[str, Any]:
    """The first fixed depth at which ``core``'s search sees a win, with its
    nodes (``depth`` None where none did within the limits); ``progress``
    hears of each depth searched (depth, nodes, seconds)."""
    nodes = 0
    for depth in range(1, max_depth + 1):
        began = time.perf_counter()
        analysis = analyse(core, cells, depth, size, CORE_RULE[rule])
        seconds = time.perf_counter() - began
        nodes = analysis[1]
        if progress is not None:
            progress(depth, nodes, seconds)
        if sees_win(analysis[0])[0]:
            return {"depth": depth, "nodes": nodes, "seconds": round(seconds, 2)}
        if seconds > max_seconds:
            return {"depth": None, "searched": depth, "nodes": nodes}
    return {"depth": None, "searched": max_depth, "nodes": nodes}


def line_walk(
    size: int,
    rule: str,
    cells: Sequence[int],
    line: Sequence[Sequence[int]],
    budget: int,
    mover_wins: bool,
    core: ModuleType = _core,
) -> list[dict[str, Any]]:
    """Along ``line`` (the reference's moves from the position), at each
    position where the winner is to move: our analysis's depth, and whether
    it sees and proves the win."""
    walked: list[dict[str, Any]] = []
    for k in range(0 if mover_wins else 1, len(line) + 1, 2):
        here = list(cells) + cells_of(size, line[:k])
        analysis = analyse(core, here, 0, size, CORE_RULE[rule], budget)
        seen, proven = sees_win(analysis[0])
        walked.append({"plies": k, "depth": analysis[2], "seen": seen, "proven": proven})
    return walked


def report(game: int, ply: int, found: dict[str, Any]) -> None:
    """The last two measures' summary, then all three as one JSON line."""
    ours = found["ours"]
    print(f"  ours: a win seen at depth {ours['depth']} after {ours['nodes']:,} nodes")
    for w in found["line"]:
        print(
            f"  {w['plies']:3} plies along its line: our depth {w['depth']}, "
            f"seen {w['seen']}, proven {w['proven']}"
        )
    print(json.dumps({"horizon": {"game": game, "ply": ply, **found}}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games_file", type=Path)
    parser.add_argument("--ours", required=True, help="the entrant whose lost games are read")
    parser.add_argument("--reference", required=True, help="a brain that reports as Rapfi does")
    parser.add_argument("--game", type=int, required=True, help="index among the lost games")
    parser.add_argument("--ply", type=int, required=True, help="the position before this move")
    parser.add_argument("--turn-ms", type=int, default=3000, help="the reference's turn")
    parser.add_argument("--max-depth", type=int, default=25)
    parser.add_argument("--max-seconds", type=float, default=120.0, help="per fixed depth")
    parser.add_argument("--budget", type=int, default=1_000_000, help="nodes a line position")
    parser.add_argument(
        "--checkout", type=Path, help="measure this checkout's built core instead of this one's"
    )
    args = parser.parse_args()
    core = load_core(args.checkout) if args.checkout is not None else _core
    records = [json.loads(text) for text in args.games_file.read_text().splitlines() if text]
    games = lost_games(records, args.ours)
    if not 0 <= args.game < len(games):
        raise SystemExit(f"--game must be below {len(games)}, the lost games of {args.ours}")
    game = games[args.game]
    if not game.opening <= args.ply < len(game.moves):
        raise SystemExit(f"--ply must lie in [{game.opening}, {len(game.moves)})")
    reference = Entrant((str(Path(args.reference).resolve()),), quiet=True)
    stones = game.moves[: args.ply]
    side = "ours" if game.ours_at(args.ply) else "the reference"
    print(f"game {args.game}, before ply {args.ply}: the side to move is {side}", flush=True)
    iterated = reference_iterations(reference, stones, game.size, game.rule, args.turn_ms)
    for i in iterated:
        print(f"  reference depth {i.depth:3}  nodes {i.nodes or 0:>12,}  value {i.value}")
    line = iterated[-1].line if iterated else ()
    mover_wins = bool(iterated) and (iterated[-1].value or 0) > 0
    cells = cells_before(game, args.ply)
    found: dict[str, Any] = {
        "reference": [vars(i) for i in iterated],
        "reference_win": next(
            (vars(i) for i in iterated if i.value is not None and abs(i.value) >= DECIDED), None
        ),
        "ours": our_depth(
            game.size,
            game.rule,
            cells,
            args.max_depth,
            args.max_seconds,
            lambda depth, nodes, seconds: print(
                f"  our depth {depth:3}  nodes {nodes:>12,}  {seconds:.1f} s", flush=True
            ),
            core,
        ),
        "line": line_walk(game.size, game.rule, cells, line, args.budget, mover_wins, core),
    }
    report(args.game, args.ply, found)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
