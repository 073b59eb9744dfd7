"""Published facts about 3x3 tic-tac-toe, used as oracles for the rules."""

from __future__ import annotations

from collections import Counter
from functools import cache

from service.engine import Board, Geometry, Player, Status, geometry
from tests.engine.oracle import children, reachable


def test_legal_positions_and_final_ones() -> None:
    positions = reachable()
    assert len(positions) == 5478
    finals = Counter((board.status, board.winner) for board in positions if board.is_game_over())
    assert sum(finals.values()) == 958
    assert finals[(Status.WON, Player.X)] == 626
    assert finals[(Status.WON, Player.O)] == 316
    assert finals[(Status.DRAWN, None)] == 16


def _canonical(shape: Geometry, board: Board) -> tuple[int, int]:
    """The smallest image of the position under the board's symmetries (test's own)."""
    images = []
    for perm in shape.symmetries:
        x = sum(1 << perm[c] for c in range(shape.cells) if board.x >> c & 1)
        o = sum(1 << perm[c] for c in range(shape.cells) if board.o >> c & 1)
        images.append((x, o))
    return min(images)


def test_positions_up_to_symmetry_oeis_a008907() -> None:
    shape = geometry(3, 3)
    classes = {_canonical(shape, board) for board in reachable()}
    assert len(classes) == 765
    by_marks = Counter((x | o).bit_count() for x, o in classes)
    assert [by_marks[n] for n in range(10)] == [1, 3, 12, 38, 108, 174, 204, 153, 57, 15]


def test_the_symmetries_are_distinct_and_of_the_right_number() -> None:
    assert len(set(geometry(3, 3).symmetries)) == 8
    assert len(set(geometry(4, 6, 4).symmetries)) == 4
    for shape in (geometry(5, 5), geometry(3, 7)):
        for perm in shape.symmetries:  # each maps lines onto lines
            image = {frozenset(perm[c] for c in cells) for cells in shape.line_cells}
            assert image == {frozenset(cells) for cells in shape.line_cells}


@cache
def _games(board: Board) -> Counter[str]:
    """Numbers of complete games from ``board``, by result."""
    if board.status is Status.WON:
        return Counter({str(board.winner): 1})
    if board.status is Status.DRAWN:
        return Counter({"draw": 1})
    total: Counter[str] = Counter()
    for _, child in children(board):
        total.update(_games(child))
    return total


def test_possible_games() -> None:
    games = _games(Board.empty())
    assert sum(games.values()) == 255_168
    assert games == Counter({"X": 131_184, "O": 77_904, "draw": 46_080})
