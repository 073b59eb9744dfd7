"""Nodes, time and best move to a fixed depth, two builds of the big-board
search side by side on the same middle-game 15x15 positions: a first sign of
what a change to the search costs or saves, before a match decides
(docs/strength.md).

    .venv/bin/python bench/depth_nodes.py BASE CHANGED [--depth 10]

BASE and CHANGED are checkouts (or worktrees) with their core built in place
(``service/engine/_core*.so``), or paths of the built cores themselves. Both
get the weights of this checkout's ``evaluation.json``, so that a change to
the search is compared at the same weights; with ``--own-weights`` a
checkout's build gets its own checkout's, read by its own
``service/engine/evaluation.py`` (for a change to the evaluation, whose file
this checkout's core may refuse). The positions are the
first ``--positions`` openings of ``bench/openings/balanced.txt``, each played
on by BASE at depth 2, one move at a time while it has fewer than
``--stones`` stones, and taken at the last position before either side sees
a win or a move is forced (with the defaults, 6 to 13 stones: the win or the
forced move always comes first). Each is then searched to
``--depth`` plies from a new table (no threat proofs at the root: a fixed
depth), by each build in turn. Prints a row a position, then the totals and
how many best moves agree.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import sysconfig
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from blunders import stone_bytes  # noqa: E402 - bench/'s, as the scripts import each other
from match import placed, read_openings  # noqa: E402

from service.engine import evaluation  # noqa: E402 - after sys.path

SIZE = 15
TABLE_BYTES = 64 << 20


def load_module(name: str, path: Path, missing: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None or not path.is_file():
        raise SystemExit(f"{path}: {missing}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # (a dataclass looks its module up there)
    spec.loader.exec_module(module)
    return module


def load_core(where: Path, own_weights: bool = False) -> ModuleType:
    """The core at ``where`` (a checkout with its core built in place, or the
    library), with this checkout's evaluation weights, or with
    ``own_weights`` and a checkout, that checkout's."""
    loader: Any = evaluation
    weights = evaluation.EVALUATION_FILE
    if where.is_dir():
        engine = where / "service" / "engine"
        if own_weights:
            loader = load_module(f"evaluation_{id(where)}", engine / "evaluation.py", "not there")
            weights = engine / "evaluation.json"
        where = engine / f"_core{sysconfig.get_config_var('EXT_SUFFIX')}"
    core = load_module("_core", where, "no built core there")
    loader.apply(loader.load(weights), core)
    return core


def analyse(
    core: ModuleType,
    cells: Sequence[int],
    depth: int,
    size: int = SIZE,
    rule: int = 0,
    budget: int = 1 << 40,
) -> tuple[Any, ...]:
    """``core``'s analysis of the position (cells in play order from X, the
    core's rule number) on a new table: to ``depth`` (0: as deep as
    ``budget`` nodes take it, the threat proofs at the root included)."""
    x, o = stone_bytes(size, cells)
    return core.analyze_big(  # type: ignore[no-any-return]
        size, size, 5, rule, core.Table(TABLE_BYTES), x, o, len(cells) % 2 == 0, budget, None,
        depth,
    )  # fmt: skip


def best(found: list[tuple]) -> tuple[int, float]:
    cell, value, *_ = max(found, key=lambda move: move[1])
    return cell, value


def positions(core: ModuleType, count: int, total: int) -> list[list[int]]:
    found = []
    for opening in read_openings(REPO / "bench" / "openings" / "balanced.txt")[:count]:
        cells = [y * SIZE + x for x, y in placed(opening, SIZE)]
        quiet = list(cells)
        while len(cells) < total:
            answer = analyse(core, cells, 2)
            cell, value = best(answer[0])
            if not -0.9 < value < 0.9 or answer[3] == core.STOP_DECIDED:
                break  # a win seen, or the move forced: the position before was the last quiet one
            quiet = list(cells)
            cells.append(cell)
        found.append(quiet)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", type=Path)
    parser.add_argument("changed", type=Path)
    parser.add_argument("--positions", type=int, default=16)
    parser.add_argument("--stones", type=int, default=20)
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument(
        "--own-weights",
        action="store_true",
        help="each checkout's build with its own evaluation.json (default: this checkout's)",
    )
    args = parser.parse_args()
    cores = [load_core(path, args.own_weights) for path in (args.base, args.changed)]
    totals = [[0, 0.0], [0, 0.0]]
    agree = 0
    boards = positions(cores[0], args.positions, args.stones)
    for i, cells in enumerate(boards):
        row, moves = [], []
        for side, core in enumerate(cores):
            began = time.perf_counter()
            found = analyse(core, cells, args.depth)
            seconds = time.perf_counter() - began
            cell, value = best(found[0])
            moves.append(cell)
            totals[side][0] += found[1]
            totals[side][1] += seconds
            row.append(f"{found[1]:>11,} nodes {seconds:6.2f} s best {cell:3} {value:+.3f}")
        agree += moves[0] == moves[1]
        print(f"{i:2}: " + " | ".join(row), flush=True)
    (base_nodes, base_s), (nodes, s) = totals
    print(
        f"depth {args.depth}: base {base_nodes:,} nodes {base_s:.1f} s | changed {nodes:,} nodes "
        f"{s:.1f} s ({nodes / base_nodes - 1:+.0%} nodes); the same best move in "
        f"{agree} of {len(boards)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
