"""The tactical suite: positions on boards from 9x9 to 20x20, under both rules,
each with what a right answer must show, and the engine's score on them.

    .venv/bin/python bench/tactics.py               # the suite at the defaults
    .venv/bin/python bench/tactics.py --generate    # rebuild bench/tactics.json

Categories (``tactics.json``), each labelled by the plain reference of
``tests/engine/gomoku.py`` where a rule decides it:

* ``five``: the side to move completes a row (any of ``cells``): a win in 1;
* ``block``: the other side has one five point (``cell``): the block is the one
  move that does not lose in 2, and the answer must say so of every other;
* ``double-four``: the other side has two five points: every move loses in 2;
* ``open-four``: the side to move makes two five points at once (``cells``)
  while the other side has none: a win in 3;
* ``vcf``: a win by continuous fours of 15 plies or more, its ``line`` checked
  move by move against every defence by the reference;
* ``vct``: a win found with threes as well as fours (``line``, as the engine
  found it when the suite was built);
* ``quiet``: the side to move has no three or four to make anywhere, so no win
  by threats can start: the engine must claim no win.

Right, at the service's defaults (``TTT_NODE_BUDGET``, an 800 ms deadline, one
shared engine): the answer's best move and proven outcome as above, and every
win the engine claims by a line of fours holds against every defence. The
immediate rules (five, block, double-four, open-four) must also be right at a
budget of 1,000 nodes. Prints a table and one JSON line; exits 1 unless all
are right.

Generation (``--generate``): random positions of 12 to 40 stones in the middle
of boards of random size and rule, kept when they fill a category that still
needs positions; the engine's proofs label ``vct``. Long wins by continuous
fours are rare among them, so ``vcf`` positions are built around one
(staircase()), and each is kept only when the reference confirms it. Seeded,
so the same seed gives the same suite.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

from local_server import REPO

sys.path.insert(0, str(REPO))  # the tests' plain reference labels the suite

from service.engine import (
    GENERAL_RULES,
    Analysis,
    Board,
    Engine,
    Outcome,
    Player,
    Rule,
    geometry,
)
from tests.engine import gomoku as ref

SUITE = Path(__file__).with_name("tactics.json")
QUOTAS = {
    "five": 25,
    "block": 25,
    "double-four": 25,
    "open-four": 25,
    "vcf": 30,
    "vct": 25,
    "quiet": 45,
}
IMMEDIATE = ("five", "block", "double-four", "open-four")
DEADLINE = 0.8  # TTT_SEARCH_DEADLINE_MS's default
IMMEDIATE_BUDGET = 1_000
LONG_VCF = 15
GENERATE_BUDGET = 400_000
STAIRCASE_TRIES = 2_000


def position(entry: dict[str, object]) -> Board:
    return Board.parse(
        str(entry["board"]),
        rule=str(entry["rule"]),
        player=str(entry["player"]),
    )


def run() -> int:
    entries = json.loads(SUITE.read_text())["positions"]

    def judge(
        entry: dict[str, object], analysis: Analysis, quick: Callable[[], Analysis]
    ) -> str | None:
        problem = ref.right_answer(entry, analysis) or ref.claims_hold(analysis)
        if entry["category"] in IMMEDIATE and problem is None:
            problem = ref.right_answer(entry, quick())
            problem = problem and f"at {IMMEDIATE_BUDGET} nodes: {problem}"
        return problem

    return score_suite("tactics", entries, position, QUOTAS, judge)


Judge = Callable[[dict[str, object], Analysis, Callable[[], Analysis]], "str | None"]


def score_suite(
    key: str,
    entries: list[dict[str, object]],
    position: Callable[[dict[str, object]], Board],
    categories: Iterable[str],
    judge: Judge,
) -> int:
    """Every position of a suite asked of the service's defaults (one shared
    table, a DEADLINE each) and judged: ``judge(entry, analysis, quick)`` says
    why the answer is wrong, or None; ``quick()`` searches the position again
    with IMMEDIATE_BUDGET nodes. Prints each category's tally, the times and a
    JSON line under ``key``; 0 when every answer is right (this file's suite
    and bench/renju_tactics.py's)."""
    engine = Engine()  # the service's defaults, one shared table
    quick = Engine(node_budget=IMMEDIATE_BUDGET)
    tally: Counter[str] = Counter()
    wrong: list[str] = []
    seconds: list[float] = []
    for index, entry in enumerate(entries):
        board = position(entry)
        began = time.perf_counter()
        analysis = engine.analyze(board, deadline=time.monotonic() + DEADLINE)
        seconds.append(time.perf_counter() - began)
        problem = judge(entry, analysis, lambda board=board: quick.search(board))
        tally[str(entry["category"])] += problem is None
        if problem:
            wrong.append(f"#{index} {entry['category']} {board.rows}x{board.cols}: {problem}")
    counts = Counter(entry["category"] for entry in entries)
    width = max(map(len, categories)) + 1
    for category in categories:
        print(f"{category:>{width}}: {tally[category]} of {counts[category]} right")
    total = sum(tally.values())
    print(
        f"{'all':>{width}}: {total} of {len(entries)} right "
        f"({100 * total / len(entries):.1f}%), "
        f"median {statistics.median(seconds):.3f} s, longest {max(seconds):.3f} s"
    )
    for line in wrong:
        print("  wrong:", line)
    print(
        json.dumps(
            {
                key: {"right": total, "positions": len(entries), "wrong": wrong},
                "seconds": {"median": statistics.median(seconds), "max": max(seconds)},
            }
        )
    )
    return 0 if total == len(entries) else 1


def label(board: Board, engine: Engine, wanted: set[str]) -> dict[str, object] | None:
    """The category a position fills, with what a right answer must show; the
    engine is asked only when a category it labels is ``wanted``."""
    me, them = board.side_to_move, board.side_to_move.other
    mine, theirs = ref.five_points(board, me), ref.five_points(board, them)
    if mine:
        return {"category": "five", "cells": sorted(mine)}
    if len(theirs) >= 2:
        return {"category": "double-four"}
    if len(theirs) == 1:
        return {"category": "block", "cell": next(iter(theirs))}
    flexes = ref.open_four_moves(board, me)
    if flexes:
        return {"category": "open-four", "cells": sorted(flexes)}
    if not ref.threat_moves(board, me):
        return {"category": "quiet"} if "quiet" in wanted else None
    if not wanted & {"vcf", "vct"}:
        return None
    for move in engine.search(board).moves:
        if move.proven is Outcome.WIN or (move.exact and move.score > 0):
            if ref.all_fours(board, move.line):
                return {"category": "vcf", "line": list(move.line)}
            return {"category": "vct", "line": list(move.line)}
    return None


def lengthen(board: Board, line: list[int]) -> tuple[Board, list[int]] | None:
    """A position whose win by continuous fours is ``line`` with one more four in
    front: an attacker stone s and a defender stone t taken off the board such
    that, played again, s makes a four that only t blocks. None when no stone
    pair does. (The position may hide a shorter win too: the line is a proof,
    not the shortest one.)"""
    attacker = board.side_to_move
    defender = attacker.other
    shape = board.shape
    for s in sorted(ref.cells(board.marks_of(attacker))):
        for line_index in shape.lines_through[s]:
            cells = shape.lines[line_index]
            blockers = cells & board.marks_of(defender)
            owned = cells & board.marks_of(attacker)
            if owned.bit_count() != shape.k - 1 or blockers.bit_count() != 1:
                continue
            t = blockers.bit_length() - 1
            before = _without(board, s, t)
            if before is None or ref.five_points(before, attacker):
                continue
            if ref.five_points(before, defender):
                continue
            after_four = ref.place(before, s, attacker)
            if ref.five_points(after_four, attacker) != {t}:
                continue
            longer = [s, t, *line]
            if ref.check_vcf(before, longer) is None:
                return before, longer
    return None


def _without(board: Board, *cells: int) -> Board | None:
    mask = ~sum(1 << c for c in cells)
    try:
        return Board.parse(
            Board(board.shape, board.x & mask, board.o & mask, board.side_to_move).format(),
            rule=board.rule,
            player=board.side_to_move,
        )
    except ValueError:
        return None


DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


def staircase(
    rng: random.Random, size: int, rule: Rule, fours: int
) -> tuple[Board, list[int]] | None:
    """A position built around a win by continuous fours of ``fours`` attacker
    moves: each move a_i makes a four on a line through the one before it (two
    attacker stones already there, the defender's block b_i the window's last
    cell), and the last also makes a second four on another line, so that the
    defender cannot stop both. The defender's other stones lie far from the
    chain. None when the layout does not fit or does not hold (the reference
    checks it against every defence)."""
    shape = geometry(size, size, 5, rule)
    taken: dict[tuple[int, int], str] = {}

    def free(cell: tuple[int, int]) -> bool:
        return 0 <= cell[0] < size and 0 <= cell[1] < size and cell not in taken

    def window(through: list[tuple[int, int]], direction: tuple[int, int]) -> list[tuple[int, int]]:
        """Five cells in a row along ``direction`` holding every cell of ``through``
        (which lie on one such line, the first as the anchor)."""
        dr, dc = direction
        anchor = through[0]
        # Steps from the anchor: along the rows where the direction goes down.
        offsets = [c[0] - anchor[0] if dr else c[1] - anchor[1] for c in through]
        start = rng.randint(max(offsets) - 4, min(offsets))
        return [(anchor[0] + dr * (start + i), anchor[1] + dc * (start + i)) for i in range(5)]

    centre = size // 2
    a = (centre + rng.randint(-2, 2), centre + rng.randint(-2, 2))
    line: list[tuple[int, int]] = []
    previous_direction = -1
    for step in range(fours):
        direction = rng.choice([d for d in range(4) if d != previous_direction])
        dr, dc = DIRECTIONS[direction]
        if step == 0:
            cells = window([a], (dr, dc))
            need = [a]
        else:
            jump = rng.choice([-3, -2, -1, 1, 2, 3])
            a = (line[-2][0] + dr * jump, line[-2][1] + dc * jump)
            if not free(a):
                return None
            cells = window([line[-2], a], (dr, dc))
            need = [line[-2], a]
        if not all((c in taken and c in need) or free(c) for c in cells):
            return None
        rest = [c for c in cells if c not in need]
        rng.shuffle(rest)
        stones, block = (rest[:3], rest[3]) if step == 0 else (rest[:2], rest[2])
        taken[a] = "move"
        for stone in stones:
            taken[stone] = "attacker"
        taken[block] = "block"
        line += [a, block]
        previous_direction = direction
    # The second four of the last move, on another line through it.
    second = [d for d in range(4) if d != previous_direction]
    cells = window([a], DIRECTIONS[rng.choice(second)])
    if not all(c == a or free(c) for c in cells):
        return None
    rest = [c for c in cells if c != a]
    rng.shuffle(rest)
    for stone in rest[:3]:
        taken[stone] = "attacker"
    taken[rest[3]] = "point"
    line = line[:-1]  # the last move's block is not played: two points stay open
    attackers = [c for c, what in taken.items() if what == "attacker"]
    # The defender's stones: as many, each at least three cells from the chain
    # and two from each other.
    defenders: list[tuple[int, int]] = []
    tries = 0
    while len(defenders) < len(attackers) and tries < 5000:
        tries += 1
        cell = (rng.randrange(size), rng.randrange(size))
        near_chain = any(max(abs(cell[0] - t[0]), abs(cell[1] - t[1])) < 3 for t in taken)
        near_own = any(max(abs(cell[0] - d[0]), abs(cell[1] - d[1])) < 2 for d in defenders)
        if not near_chain and not near_own:
            defenders.append(cell)
    if len(defenders) < len(attackers):
        return None
    index = {cell: r * size + c for (r, c) in [*taken, *defenders] for cell in [(r, c)]}
    attacker_bits = sum(1 << index[c] for c in attackers)
    defender_bits = sum(1 << index[c] for c in defenders)
    attacker = rng.choice(list(Player))
    x, o = (
        (attacker_bits, defender_bits) if attacker is Player.X else (defender_bits, attacker_bits)
    )
    try:
        board = Board.parse(Board(shape, x, o, attacker).format(), rule=rule, player=attacker)
    except ValueError:
        return None
    if board.side_to_move is not attacker or board.is_game_over():
        return None
    cells_line = [index.get(c, c[0] * size + c[1]) for c in line]
    if ref.five_points(board, attacker) or ref.five_points(board, attacker.other):
        return None
    if ref.check_vcf(board, cells_line) is not None:
        return None
    return board, cells_line


def generate(seed: int, minutes: float) -> int:
    rng = random.Random(seed)
    engine = Engine(node_budget=GENERATE_BUDGET, table_bytes=64 << 20)
    found: list[dict[str, object]] = []
    have: Counter[str] = Counter()
    ends = time.monotonic() + 60 * minutes
    while any(have[c] < q for c, q in QUOTAS.items()) and time.monotonic() < ends:
        size = rng.randint(9, 20)
        rule = rng.choice(GENERAL_RULES)
        if have["vcf"] < QUOTAS["vcf"] and rng.random() < 0.5:
            built = None
            for _ in range(STAIRCASE_TRIES):  # most random layouts collide: cheap to retry
                built = staircase(rng, size, rule, rng.randint(8, 11))
                if built is not None:
                    break
            if built is not None:
                board, line = built
                have["vcf"] += 1
                found.append(
                    {
                        "category": "vcf",
                        "line": line,
                        "rule": rule.value,
                        "board": board.format(),
                        "player": board.side_to_move.value,
                    }
                )
                print(f"{dict(have)}", flush=True)
            continue
        shape = geometry(size, size, 5, rule)
        width = min(size, 9)
        low = (size - width) // 2
        middle = [r * size + c for r in range(low, low + width) for c in range(low, low + width)]
        stones = rng.sample(middle, rng.randint(12, 40))
        x = sum(1 << c for c in stones[0::2])
        o = sum(1 << c for c in stones[1::2])
        board = Board(shape, x, o, Player.X if len(stones) % 2 == 0 else Player.O)
        try:
            board = Board.parse(board.format(), rule=rule, player=board.side_to_move)
            board.check_in_progress()
        except ValueError:
            continue  # a row already made: no legal game reaches it, or it is over
        wanted = {category for category, quota in QUOTAS.items() if have[category] < quota}
        entry = label(board, engine, wanted)
        if entry is not None and entry["category"] == "vcf":
            # Short wins are common, long ones rare: lengthen one four at a time.
            line = [int(c) for c in entry["line"]]  # type: ignore[union-attr]
            while len(line) < LONG_VCF and (longer := lengthen(board, line)) is not None:
                board, line = longer
            entry = {"category": "vcf", "line": line} if len(line) >= LONG_VCF else None
        if entry is None or have[str(entry["category"])] >= QUOTAS[str(entry["category"])]:
            continue
        have[str(entry["category"])] += 1
        found.append(
            {
                **entry,
                "rule": rule.value,
                "board": board.format(),
                "player": board.side_to_move.value,
            }
        )
        print(f"{dict(have)}", flush=True)
    found.sort(key=lambda e: (list(QUOTAS).index(str(e["category"])), str(e["board"])))
    SUITE.write_text(json.dumps({"version": 1, "seed": seed, "positions": found}, indent=1) + "\n")
    print(f"wrote {len(found)} positions to {SUITE}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--generate", action="store_true")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--minutes", type=float, default=60)
    args = parser.parse_args()
    return generate(args.seed, args.minutes) if args.generate else run()


if __name__ == "__main__":
    sys.exit(main())
