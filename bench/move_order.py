"""Where our move order ranks a reference engine's moves, and what a fitted
correction to it would rank (docs/strength.md, "Rapfi's moves as a move order").

    .venv/bin/python bench/move_order.py GAMES.jsonl ...            # the ranks
    .venv/bin/python bench/move_order.py GAMES.jsonl ... --fit      # and a fitted correction
    .venv/bin/python bench/move_order.py SELF.jsonl --both-sides --fit --header order.h

The games are ``bench/match.py --games`` files. In each, the reference's
moves are the other entrant's (``--both-sides``: every move after the
opening, for a reference playing itself); a position and move seen twice
count once. Ranked are the positions with a choice: neither side has a five
to make or to block, the side to move no open four to make, and there are
two candidates or more. ``_core.big_candidates()`` lists the candidates in
the order a new search would try them (no table move, killers or history),
and the reference's move gets its rank: its place in that order (ties in
score as the search breaks them). The positions are split by situation:
*facing* an open three (the candidates are its defences and one's own
fours) or *free*.

``--fit`` fits a correction per class of combination (``evaluation.CLASSES``),
one for the side to move's cell and one for the other side's, over the
order's score, by a softmax over each position's candidates (the model
P(move) ~ exp(beta * score / 1000 + mine[class] + theirs[class]), a ridge of
1e-5, Adam), on the games' positions but a fifth (by opening pair), and
prints the held-out ranks before and after (ties among the fitted scores
broken as the order in force puts them). ``--header`` fits on every
position where the reference's move is a candidate and writes the
corrections in the order's units as a C table (the classes seen fewer than
10 times left at 0, the others centred on their weighted mean), as
``docs/experiments/exp-order.patch`` plays them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from service.engine import _core  # noqa: E402 - after sys.path
from service.engine.evaluation import CLASS_OF, CLASSES  # noqa: E402

RULES = {"freestyle": 0, "exact": 1, "renju": 2}
HELD_OUT = 5  # every fifth opening pair
MIN_SEEN = 10
RIDGE = 1e-5
STEPS = 1500


@dataclass(frozen=True)
class Position:
    """One reference move: the candidates' scores and classes (the side to
    move's, the other side's), the move's place among them (-1: not a
    candidate), whether it answers an open three, and its opening pair."""

    scores: np.ndarray
    mine: np.ndarray
    theirs: np.ndarray
    target: int
    facing: bool
    pair: int


def reference_moves(games: Sequence[Path], both_sides: bool) -> Iterator[tuple[dict, int]]:
    """Each game and the index of each move the reference made in it."""
    seen: set[tuple[frozenset, frozenset, tuple]] = set()
    for path in games:
        for line in path.read_text().splitlines():
            game = json.loads(line)
            if game.get("forfeit"):
                continue
            moves, replies = game["moves"], game["replies_ms"]
            opening = len(moves) - len(replies[0]) - len(replies[1])
            reference = 1 if game["ours_first"] else 0  # entrant 0 moves first after the opening
            for index in range(opening, len(moves)):
                if not both_sides and (index - opening) % 2 != reference:
                    continue
                played = [tuple(m) for m in moves[:index]]
                key = (frozenset(played[0::2]), frozenset(played[1::2]), tuple(moves[index]))
                if key not in seen:
                    seen.add(key)
                    yield game, index


def position_of(game: dict, index: int) -> Position | None:
    """The reference's move at ``index`` of ``game`` as the order sees it, or
    None where there was no choice to rank (see the module's docstring)."""
    size, rule = game["size"], RULES[game["rule"]]
    cells = [y * size + x for x, y in game["moves"][: index + 1]]
    before, move = cells[:-1], cells[-1]
    board, sets, _, _ = _core.big_board(size, size, 5, rule, before)
    me = len(before) % 2
    if sets[0] or sets[1] or sets[2 + me]:  # a five to make or to block, or an open four
        return None
    order = _core.big_candidates(size, size, 5, rule, before)
    if len(order) < 2:
        return None
    place = [cell for cell, _ in order]
    classes = [
        (CLASS_OF[tuple(sorted(board[c][me]))], CLASS_OF[tuple(sorted(board[c][1 - me]))])
        for c in place
    ]
    return Position(
        scores=np.array([score for _, score in order], dtype=float),
        mine=np.array([c[0] for c in classes]),
        theirs=np.array([c[1] for c in classes]),
        target=place.index(move) if move in place else -1,
        facing=bool(sets[2 + (1 - me)]),
        pair=int(game["pair"]),
    )


class Stacked:
    """Positions stacked for the softmax: candidates in one array, ``group``
    their position's number, ``target`` the reference move's row."""

    def __init__(self, positions: Sequence[Position]) -> None:
        kept = [p for p in positions if p.target >= 0]
        sizes = np.array([len(p.scores) for p in kept])
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        self.count = len(kept)
        self.group = np.repeat(np.arange(self.count), sizes)
        self.target = starts + np.array([p.target for p in kept])
        self.score = np.concatenate([p.scores for p in kept]) / 1000
        self.mine = np.concatenate([p.mine for p in kept])
        self.theirs = np.concatenate([p.theirs for p in kept])
        self.facing = np.array([p.facing for p in kept])

    def logits(self, params: np.ndarray) -> np.ndarray:
        n = len(CLASSES)
        return params[0] * self.score + params[1 : 1 + n][self.mine] + params[1 + n :][self.theirs]

    def softmax(self, params: np.ndarray) -> np.ndarray:
        """Each candidate's probability among its position's candidates."""
        s = self.logits(params)
        top = np.full(self.count, -np.inf)
        np.maximum.at(top, self.group, s)
        e = np.exp(s - top[self.group])
        total = np.zeros(self.count)
        np.add.at(total, self.group, e)
        return e / total[self.group]

    def ranks(self, params: np.ndarray) -> np.ndarray:
        """The reference's move's place among its position's candidates: those
        scoring above it, and those scoring as much listed before it."""
        s = self.logits(params)
        mine = s[self.target][self.group]
        listed_before = np.arange(len(s)) < self.target[self.group]
        ahead = (s > mine) | ((s == mine) & listed_before)
        above = np.zeros(self.count)
        np.add.at(above, self.group, ahead)
        return above


def fit(data: Stacked) -> np.ndarray:
    """beta, then the side to move's corrections, then the other side's."""
    n = len(CLASSES)
    params = np.zeros(1 + 2 * n)
    params[0] = 1.0
    first, second = np.zeros_like(params), np.zeros_like(params)
    for step in range(1, STEPS + 1):
        g = data.softmax(params)
        g[data.target] -= 1
        g /= data.count
        grad = np.zeros_like(params)
        grad[0] = (g * data.score).sum()
        np.add.at(grad[1 : 1 + n], data.mine, g)
        np.add.at(grad[1 + n :], data.theirs, g)
        grad[1:] += 2 * RIDGE * params[1:]
        first = 0.9 * first + 0.1 * grad
        second = 0.999 * second + 0.001 * grad * grad
        params -= 0.05 * (first / (1 - 0.9**step)) / (np.sqrt(second / (1 - 0.999**step)) + 1e-8)
    return params


def shares(ranks: np.ndarray) -> str:
    parts = [f"{(ranks < top).mean():.3f}" for top in (1, 3, 10, 20)]
    return "first {} top-3 {} top-10 {} top-20 {}".format(*parts)


def header(params: np.ndarray, data: Stacked) -> str:
    """The corrections in the order's units as a C table (see the module's docstring)."""
    n = len(CLASSES)
    rows = []
    for values, classes in ((params[1 : 1 + n], data.mine), (params[1 + n :], data.theirs)):
        seen = np.bincount(classes, minlength=n)
        units = values * 1000 / params[0]
        kept = seen >= MIN_SEEN
        centred = np.where(kept, units - np.average(units[kept], weights=seen[kept]), 0)
        table = np.clip(np.round(centred), -30000, 30000).astype(int)
        rows.append(
            ",\n".join(
                "    " + ", ".join(str(v) for v in table[i : i + 12]) for i in range(0, n, 12)
            )
        )
    return (
        "/* A move-order correction per class of combination (bench/move_order.py). */\n"
        "#ifndef BIG_ORDER_H\n#define BIG_ORDER_H\n#include <stdint.h>\n"
        f"static const int16_t ORDER_CORRECTION[2][{n}] = {{{{\n"
        + rows[0]
        + "\n}, {\n"
        + rows[1]
        + "\n}};\n#endif\n"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", type=Path, nargs="+")
    parser.add_argument("--both-sides", action="store_true", help="every move is the reference's")
    parser.add_argument("--fit", action="store_true", help="fit a correction, a fifth held out")
    parser.add_argument("--header", type=Path, help="fit on every position, write the C table")
    args = parser.parse_args()

    positions = [
        found
        for game, index in reference_moves(args.games, args.both_sides)
        if (found := position_of(game, index)) is not None
    ]
    absent = sum(p.target < 0 for p in positions)
    print(
        f"{len(positions)} positions where the reference chose among candidates; "
        f"its move not a candidate in {absent}"
    )
    data = Stacked(positions)
    base = np.zeros(1 + 2 * len(CLASSES))
    base[0] = 1.0
    ranks = data.ranks(base)
    for name, rows in (("free", ~data.facing), ("facing an open three", data.facing)):
        print(f"  {name}: {int(rows.sum())} positions, {shares(ranks[rows])}")
    if args.fit:
        held = np.array([p.pair % HELD_OUT == 0 for p in positions if p.target >= 0])
        train = Stacked([p for p in positions if p.target >= 0 and p.pair % HELD_OUT])
        test = Stacked([p for p in positions if p.target >= 0 and not p.pair % HELD_OUT])
        params = fit(train)
        before, after = ranks[held], test.ranks(params)
        print(f"held out ({test.count} positions), the order in force: {shares(before)}")
        print(f"held out, with the fitted correction (beta {params[0]:.3f}): {shares(after)}")
        free = ~test.facing
        print(f"  free: before {shares(before[free])}")
        print(f"        after  {shares(after[free])}")
    if args.header:
        args.header.write_text(header(fit(data), data))
        print(f"wrote {args.header}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
