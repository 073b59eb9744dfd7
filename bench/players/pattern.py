"""A 1-ply pattern player, the strength benchmark's simplest baseline.

It looks one move ahead only: each empty cell near a stone is scored by what a
stone there makes for the player and what it takes from the opponent, read
from the engine's own line patterns (``_core.big_board``): a five first, then
blocking the opponent's five, then open fours, fours with threes, and so on,
ties broken by the sum of both sides' patterns and then by the cell's index.
"""

from __future__ import annotations

from protocol import serve

from service.engine import _core

# The kinds of core/big/board.h, from quiet to five.
FIVE = 8


def choose(size: int, stones: list[tuple[int, int, bool]], exact: bool) -> tuple[int, int]:
    if not stones:
        return size // 2, size // 2
    mine_first = len(stones) % 2 == 0  # the side to move made the first stone
    ordered = [y * size + x for x, y, _ in stones]
    cells, _, _, _ = _core.big_board(size, size, 5, exact, ordered)
    me = 0 if mine_first else 1
    taken = set(ordered)
    near = {
        (r + dr) * size + (c + dc)
        for c, r, _ in stones
        for dr in (-2, -1, 0, 1, 2)
        for dc in (-2, -1, 0, 1, 2)
        if 0 <= r + dr < size and 0 <= c + dc < size
    } - taken
    best_key: tuple[int, ...] | None = None
    best = 0
    for cell in sorted(near):
        found = cells[cell]
        assert isinstance(found, tuple)
        patterns, kinds = found[:2], found[2:]
        mine, theirs = kinds[me], kinds[1 - me]
        key = (
            mine == FIVE,
            theirs == FIVE,
            2 * mine + theirs,
            sum(patterns[me]) + sum(patterns[1 - me]),
            -cell,
        )
        if best_key is None or key > best_key:
            best_key, best = key, cell
    return best % size, best // size


if __name__ == "__main__":
    serve(choose)
