"""Renju's tactical suite: positions where the forbidden moves decide, each with
what a right answer must show, labelled by the plain reference
(``tests/renju_reference.py``), and the engine's score on them.

    .venv/bin/python bench/renju_tactics.py               # the suite at the defaults
    .venv/bin/python bench/renju_tactics.py --generate    # rebuild bench/renju_tactics.json

Categories (``renju_tactics.json``):

* ``forbidden-block-win``: White to move makes a four whose only five point is
  forbidden to Black, who has no five point: a win in 3. ``cells`` are all of
  White's wins in 3 (the reference's, forbidden blocks and open fours alike);
  the best move must be one of them, proven a win in 3.
* ``forbidden-block-loss``: Black to move, White has one five point, Black may
  not take it and has no five of its own: every move loses in 2.
* ``false-four``: White to move; Black's four stones with a gap that only six
  would fill (``cell``) are no four under renju, and Black has no five point:
  White must not be told that every move but ``cell`` loses.

Right, at the service's defaults (an 800 ms deadline, one shared engine), and
also at a budget of 1,000 nodes (these are rules the search applies at any
budget). Prints a table and one JSON line; exits 1 unless all are right.

Generation (``--generate``): the reference's dense Black clusters
(``random_renju_positions``) on 15x15; for each, White's stones are laid
around one of Black's forbidden cells (three in a row pointing at it, or
Black's stones around a gap that would make six), filler stones on the edges
make the counts those of a game with the right side to move, and the
reference labels the result, which is kept only when it is what its category
says. Seeded, so the same seed gives the same suite.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path

from local_server import REPO
from tactics import IMMEDIATE_BUDGET, score_suite

sys.path.insert(0, str(REPO))  # the tests' plain reference labels the suite

from service.engine import Analysis, Board, Outcome, Rule
from tests import renju_reference as reference

SUITE = Path(__file__).with_name("renju_tactics.json")
QUOTAS = {"forbidden-block-win": 40, "forbidden-block-loss": 40, "false-four": 30}
SIZE = 15
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))
Grid = list[list[str]]


def position(entry: dict[str, object]) -> Board:
    return Board.parse(str(entry["board"]), rule=Rule.RENJU)


def right_answer(entry: dict[str, object], analysis: Analysis) -> str | None:
    """None when the answer is right for the entry's category, else why not."""
    best = analysis.moves[0]
    category = entry["category"]
    if category == "forbidden-block-win":
        cells = entry["cells"]
        assert isinstance(cells, list)
        ok = best.cell in cells and analysis.outcome is Outcome.WIN and analysis.plies == 3
        return None if ok else f"best {best.cell}, {analysis.outcome}, plies {analysis.plies}"
    if category == "forbidden-block-loss":
        ok = analysis.outcome is Outcome.LOSS and analysis.exact and analysis.plies == 2
        return (
            None if ok else f"outcome {analysis.outcome}, plies {analysis.plies}, not a loss in 2"
        )
    assert category == "false-four"
    others = [m for m in analysis.moves if m.cell != entry["cell"]]
    if analysis.outcome is Outcome.LOSS or all(m.exact and m.score < 0 for m in others):
        return "the gap that makes six is treated as Black's five point"
    return None


# -- labels: the reference's ------------------------------------------------------


def rows_of(grid: Grid) -> list[str]:
    return ["".join(row) for row in grid]


def empties(grid: Grid) -> list[tuple[int, int]]:
    return [(r, c) for r in range(SIZE) for c in range(SIZE) if grid[r][c] == "."]


def black_fives(grid: Grid) -> list[tuple[int, int]]:
    text = rows_of(grid)
    return [(r, c) for r, c in empties(grid) if reference.makes_five(text, r, c)]


def white_fives(grid: Grid) -> list[tuple[int, int]]:
    text = rows_of(grid)
    return [(r, c) for r, c in empties(grid) if reference.white_wins(text, r, c)]


def four_windows(grid: Grid, r: int, c: int) -> list[list[tuple[int, int]]]:
    """The five-cell windows through the empty (r, c) that White's stone there
    would make a four in: three White stones already, no Black one."""
    found = []
    for dr, dc in DIRECTIONS:
        for start in range(-4, 1):
            window = [(r + dr * (start + i), c + dc * (start + i)) for i in range(5)]
            if not all(on_board(*cell) for cell in window):
                continue
            marks = [grid[wr][wc] for wr, wc in window]
            if marks.count("O") == 3 and "X" not in marks:
                found.append(window)
    return found


def white_wins_in_3(grid: Grid) -> tuple[list[int], bool]:
    """White's moves that win in 3, on a board where neither side has a five
    point (so Black, to answer, has none either), and whether one of them wins
    by a block Black may not play. A move that wins so makes a four: only the
    cells with a window of three White stones and no Black one are tried, and
    the five points are looked for in those windows."""
    cells, by_forbidden = [], False
    for r, c in empties(grid):
        windows = four_windows(grid, r, c)
        if not windows:
            continue
        grid[r][c] = "O"
        text = rows_of(grid)
        points = sorted(
            {
                cell
                for window in windows
                for cell in window
                if grid[cell[0]][cell[1]] == "." and reference.white_wins(text, *cell)
            }
        )
        forbidden = len(points) == 1 and bool(reference.forbidden_kind(text, *points[0]))
        if len(points) >= 2 or forbidden:
            cells.append(r * SIZE + c)
            by_forbidden |= forbidden
        grid[r][c] = "."
    return cells, by_forbidden


def label(grid: Grid, category: str) -> dict[str, object] | None:
    text = rows_of(grid)
    if reference.winner(text) is not None:
        return None
    blacks = sum(row.count("X") for row in text)
    whites = sum(row.count("O") for row in text)
    black_to_move = blacks == whites
    if black_to_move != (category == "forbidden-block-loss") or blacks - whites not in (0, 1):
        return None
    entry: dict[str, object] = {"category": category, "board": "/".join(text)}
    if category == "forbidden-block-loss":
        points = white_fives(grid)
        ok = len(points) == 1 and not black_fives(grid)
        return entry if ok and reference.forbidden_kind(text, *points[0]) else None
    if white_fives(grid) or black_fives(grid):
        return None
    if category == "forbidden-block-win":
        cells, by_forbidden = white_wins_in_3(grid)
        return {**entry, "cells": cells} if by_forbidden else None
    return entry  # false-four: its gap was checked where it was built


# -- generation ---------------------------------------------------------------------


def on_board(r: int, c: int) -> bool:
    return 0 <= r < SIZE and 0 <= c < SIZE


def white_four_at(grid: Grid, point: tuple[int, int], rng: random.Random, stones: int) -> bool:
    """``stones`` (3 or 4) White stones among the four cells in a row from
    ``point`` along a random direction: with 3, White's move makes a four whose
    five point is ``point``; with 4, it is one already."""
    dr, dc = rng.choice(DIRECTIONS)
    sign = rng.choice((1, -1))
    cells = [(point[0] + sign * dr * i, point[1] + sign * dc * i) for i in range(1, 5)]
    if not all(on_board(*cell) and grid[cell[0]][cell[1]] == "." for cell in cells):
        return False
    gap = rng.randrange(4) if stones == 3 else -1
    for index, (r, c) in enumerate(cells):
        if index != gap:
            grid[r][c] = "O"
    return True


def false_four(grid: Grid, rng: random.Random) -> int | None:
    """Black's XXXX.X on an empty stretch of the board: the gap makes six."""
    for _ in range(200):
        dr, dc = rng.choice(DIRECTIONS)
        r0, c0 = rng.randrange(SIZE), rng.randrange(SIZE)
        cells = [(r0 + dr * i, c0 + dc * i) for i in range(-1, 7)]
        if not all(on_board(*cell) and grid[cell[0]][cell[1]] == "." for cell in cells):
            continue
        for i, (r, c) in enumerate(cells[1:7]):
            if i != 4:
                grid[r][c] = "X"
        for r, c in (cells[0], cells[7]):  # White on both ends: no five either way
            grid[r][c] = "O"
        gap = cells[5]
        return gap[0] * SIZE + gap[1]
    return None


def fill(grid: Grid, black_to_move: bool, rng: random.Random) -> bool:
    """Filler stones on the board's edge, two apart, until the counts are a game's
    with the wanted side to move."""
    edge = [
        (r, c) for r in range(SIZE) for c in range(SIZE) if r in (0, SIZE - 1) or c in (0, SIZE - 1)
    ]
    rng.shuffle(edge)
    for r, c in edge:
        blacks = sum(row.count("X") for row in grid)
        whites = sum(row.count("O") for row in grid)
        want = whites - blacks + (0 if black_to_move else 1)
        if want == 0:
            return True
        lonely = all(
            not on_board(r + i, c + j) or grid[r + i][c + j] == "."
            for i in (-2, -1, 0, 1, 2)
            for j in (-2, -1, 0, 1, 2)
        )
        if lonely:
            grid[r][c] = "X" if want > 0 else "O"
    blacks = sum(row.count("X") for row in grid)
    whites = sum(row.count("O") for row in grid)
    return whites - blacks + (0 if black_to_move else 1) == 0


def build(category: str, rng: random.Random) -> dict[str, object] | None:
    base = reference.random_renju_positions(rng, 1, SIZE)[0]
    grid = [list(row) for row in base]
    gap = None
    if category == "false-four":
        grid = [["."] * SIZE for _ in range(SIZE)]
        gap = false_four(grid, rng)
        if gap is None:
            return None
    else:
        forbidden = list(reference.forbidden_cells(base))
        if not forbidden:
            return None
        point = rng.choice(forbidden)
        stones = 4 if category == "forbidden-block-loss" else 3
        if not white_four_at(grid, point, rng, stones):
            return None
    if not fill(grid, category == "forbidden-block-loss", rng):
        return None
    entry = label(grid, category)
    if entry is not None and gap is not None:
        entry["cell"] = gap
    return entry


def generate(seed: int) -> int:
    rng = random.Random(seed)
    found: list[dict[str, object]] = []
    for category, quota in QUOTAS.items():
        have = 0
        while have < quota:
            entry = build(category, rng)
            if entry is not None and entry not in found:
                found.append(entry)
                have += 1
                print(f"{category}: {have}", flush=True)
    SUITE.write_text(json.dumps({"seed": seed, "positions": found}, indent=1) + "\n")
    print(f"wrote {len(found)} positions to {SUITE}")
    return 0


def run() -> int:
    entries = json.loads(SUITE.read_text())["positions"]

    def judge(
        entry: dict[str, object], analysis: Analysis, quick: Callable[[], Analysis]
    ) -> str | None:
        problem = right_answer(entry, analysis)
        if problem is None:
            problem = right_answer(entry, quick())
            problem = problem and f"at {IMMEDIATE_BUDGET} nodes: {problem}"
        return problem

    return score_suite("renju_tactics", entries, position, QUOTAS, judge)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--generate", action="store_true")
    parser.add_argument("--seed", type=int, default=2028)
    args = parser.parse_args()
    return generate(args.seed) if args.generate else run()


if __name__ == "__main__":
    sys.exit(main())
