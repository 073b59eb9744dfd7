"""Plain references for the big-board search: line patterns, the immediate rules,
and a checker of claimed wins by continuous fours.

Written plainly from the definitions in ``core/big/pattern.h`` and the rules in
``geometry.py``, sharing no code with the compiled search (only ``Board`` and
its ``Geometry``), so that agreement means something. Production never runs
it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from service.engine import Analysis, Board, Outcome, Player

# The patterns, in the core's order (core/big/pattern.h).
DEAD, B1, F1, B2, F2, B3, F3, B4, F4, FIVE = range(10)
# The kinds of a cell for a side (core/big/board.h).
QUIET, KIND_F2, KIND_B3, KIND_F3, KIND_B4, KIND_F3F3, KIND_B4F3, KIND_FLEX4, KIND_FIVE = range(9)
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))
EMPTY, OWN, BLOCKED = ".", "o", "x"


def cells(marks: int) -> list[int]:
    """The cells of a bitboard, lowest first."""
    return [cell for cell in range(marks.bit_length()) if marks >> cell & 1]


def half_width(k: int, exact: bool) -> int:
    """How far the pattern window reaches to each side of its centre (the exact
    rule's, or X's under renju)."""
    return k if exact else k - 1


def window(board: Board, cell: int, direction: int, side: Player) -> tuple[str, ...]:
    """The cells around ``cell`` along a direction, seen by ``side``: its stones,
    what blocks it (the other side's stones and the edge), and empty cells. The
    centre counts as the side's (the stone it considers placing)."""
    shape = board.shape
    # Both sides read the same window; under renju, X's exact rule's.
    half = half_width(shape.k, shape.exact_for(True))
    dr, dc = DIRECTIONS[direction]
    row, col = divmod(cell, shape.cols)
    mine, theirs = board.marks_of(side), board.marks_of(side.other)
    cells = []
    for offset in range(-half, half + 1):
        r, c = row + dr * offset, col + dc * offset
        if offset == 0:
            cells.append(OWN)
        elif not (0 <= r < shape.rows and 0 <= c < shape.cols):
            cells.append(BLOCKED)
        else:
            bit = 1 << (r * shape.cols + c)
            cells.append(OWN if mine & bit else BLOCKED if theirs & bit else EMPTY)
    return tuple(cells)


def _is_five(cells: tuple[str, ...], k: int, exact: bool) -> bool:
    centre = len(cells) // 2
    run = 1
    i = centre + 1
    while i < len(cells) and cells[i] == OWN:
        run, i = run + 1, i + 1
    i = centre - 1
    while i >= 0 and cells[i] == OWN:
        run, i = run + 1, i - 1
    return run == k if exact else run >= k


def _with(cells: tuple[str, ...], index: int) -> tuple[str, ...]:
    return (*cells[:index], OWN, *cells[index + 1 :])


@cache
def pattern(cells: tuple[str, ...], k: int, exact: bool, levels: int = 4) -> int:
    """The pattern of a window whose centre the side holds (pattern.h's definitions),
    looking ``levels`` stones ahead: 2 tells fives, fours and threes apart and
    puts every lower pattern at DEAD."""
    if _is_five(cells, k, exact):
        return FIVE
    empties = [i for i, cell in enumerate(cells) if cell == EMPTY]
    points = sum(_is_five(_with(cells, i), k, exact) for i in empties)
    if points >= 2:
        return F4
    if points == 1:
        return B4
    if levels <= 1:
        return DEAD
    further = {F4: F3, B4: B3, F3: F2, B3: B2, F2: F1, B2: B1}
    best = DEAD
    for i in empties:
        best = max(best, further.get(pattern(_with(cells, i), k, exact, levels - 1), DEAD))
    return best


def kind(patterns: Sequence[int]) -> int:
    """What four patterns make of a cell (board.h's kinds)."""
    fours = sum(p in (B4, F4) for p in patterns)
    threes = sum(p == F3 for p in patterns)
    if FIVE in patterns:
        return KIND_FIVE
    if F4 in patterns or fours >= 2:
        return KIND_FLEX4
    if fours and threes:
        return KIND_B4F3
    if threes >= 2:
        return KIND_F3F3
    if fours:
        return KIND_B4
    if threes:
        return KIND_F3
    if B3 in patterns:
        return KIND_B3
    if F2 in patterns:
        return KIND_F2
    return QUIET


def five_points(board: Board, side: Player) -> set[int]:
    """The empty cells where ``side`` completes a row now, under the rule."""
    marks = board.marks_of(side)
    return {
        cell
        for cell in board.empty_cells()
        if board.shape.has_line_through(marks | 1 << cell, cell, x=side is Player.X)
    }


def place(board: Board, cell: int, side: Player) -> Board:
    """``board`` with a stone of ``side`` on ``cell``, whoever is to move."""
    bit = 1 << cell
    x, o = (board.x | bit, board.o) if side is Player.X else (board.x, board.o | bit)
    return Board(board.shape, x, o, side.other)


def check_vcf(board: Board, line: Sequence[int]) -> str | None:
    """Check a claimed win by continuous fours for the side to move, move by move,
    against every defence; None when it holds, else what breaks it.

    The line alternates the attacker's moves and the defender's forced replies
    and may end after the attacker's last move. Each attacker move must be
    legal, take the defender's five point if it has one, and either complete a
    row, or leave the attacker a five point while the defender has none (so the
    defender cannot win at once); then every
    defender move but the blocks loses at once, and after each block (every
    one, if the attacker has two five points) the line must go on, or the
    attacker must still hold a five point to complete.
    """
    attacker = board.side_to_move
    position = board
    for index in range(0, len(line), 2):
        move = line[index]
        if move not in position.empty_cells():
            return f"attacker move {index} ({move}) is not an empty cell"
        if move in five_points(position, attacker):
            return None  # a row completed
        threats = five_points(position, attacker.other)
        if len(threats) > 1 or (threats and move not in threats):
            return f"attacker move {index} ({move}) leaves the defender a row to complete"
        position = place(position, move, attacker)
        points = five_points(position, attacker)
        if not points:
            return f"attacker move {index} ({move}) makes no four"
        if five_points(position, attacker.other):
            return f"after attacker move {index} the defender completes a row"
        # Every defence: a reply off the five points leaves one to complete.
        for reply in position.empty_cells():
            after = place(position, reply, attacker.other)
            left = five_points(after, attacker)
            if not left:
                if len(points) > 1:
                    return f"reply {reply} stops two five points at once"
                if index + 1 >= len(line) or line[index + 1] != reply:
                    return f"the line does not answer the block {reply}"
        if len(points) > 1:
            return None  # two five points: no reply stops both
        if index + 1 >= len(line):
            return "the line ends with a single five point to block"
        position = place(position, line[index + 1], attacker.other)
    return "the line ends before a win"


def four_moves(board: Board, side: Player) -> set[int]:
    """The empty cells where a stone of ``side`` leaves it a five point."""
    shape = board.shape
    marks = board.marks_of(side)
    found = set()
    for cell in board.empty_cells():
        after = place(board, cell, side)
        mine = marks | 1 << cell
        # A new five point lies on a line through the cell.
        for line in shape.lines_through[cell]:
            empty = shape.lines[line] & ~mine & ~board.marks_of(side.other)
            if (
                empty
                and empty & (empty - 1) == 0
                and (mine & shape.lines[line]).bit_count() == (shape.k - 1)
            ):
                point = empty.bit_length() - 1
                if shape.has_line_through(
                    after.marks_of(side) | 1 << point, point, x=side is Player.X
                ):
                    found.add(cell)
                    break
    return found


def threat_moves(board: Board, side: Player) -> set[int]:
    """The empty cells where a stone of ``side`` makes a three or more on some line
    (a pattern of B3 and up): every win by threats starts on one of them."""
    k, exact = board.shape.k, board.shape.overlines_matter
    return {
        cell
        for cell in board.empty_cells()
        if any(pattern(window(board, cell, d, side), k, exact, 2) >= B3 for d in range(4))
    }


def open_four_moves(board: Board, side: Player) -> set[int]:
    """The empty cells where a stone of ``side`` makes two five points at once."""
    return {
        cell
        for cell in four_moves(board, side)
        if len(five_points(place(board, cell, side), side)) >= 2
    }


# -- what the tactical suite (bench/tactics.json) counts as a right answer ------


def _win(board: Board, plies: int) -> int:
    return board.shape.cells + 1 - plies


def right_answer(entry: dict[str, object], analysis: Analysis) -> str | None:
    """None when the answer is right for the entry's category, else why not."""
    board = analysis.board
    best = analysis.moves[0]
    category = entry["category"]
    if category == "five":
        cells = entry["cells"]
        assert isinstance(cells, list)
        ok = best.cell in cells and best.exact and best.score == _win(board, 1)
        return None if ok else f"best {best.cell} ({best.score}), not a five"
    if category == "block":
        if best.cell != entry["cell"]:
            return f"best {best.cell}, not the block {entry['cell']}"
        losing = [m for m in analysis.moves if m.cell != entry["cell"]]
        if any(not m.exact or m.score != -_win(board, 2) for m in losing):
            return "a move beside the block is not a proven loss in 2"
        if analysis.omitted.count and analysis.omitted.score != -_win(board, 2):
            return "the omitted moves are not proven losses in 2"
        return None
    if category == "double-four":
        ok = analysis.outcome is Outcome.LOSS and analysis.exact and analysis.plies == 2
        return None if ok else f"outcome {analysis.outcome}, not a loss in 2"
    if category == "open-four":
        cells = entry["cells"]
        assert isinstance(cells, list)
        ok = best.cell in cells and analysis.outcome is Outcome.WIN and analysis.plies == 3
        found = f"best {best.cell}, outcome {analysis.outcome}, plies {analysis.plies}"
        return None if ok else found
    if category in ("vcf", "vct"):
        return None if analysis.outcome is Outcome.WIN else f"outcome {analysis.outcome}, not a win"
    assert category == "quiet"
    return None if analysis.outcome is not Outcome.WIN else "claims a win with no threat to make"


def claims_hold(analysis: Analysis) -> str | None:
    """Every proven win whose line is all fours holds against every defence."""
    for move in analysis.moves:
        won = move.proven is Outcome.WIN or (move.exact and move.score > 0)
        if won and all_fours(analysis.board, move.line):
            broken = check_vcf(analysis.board, move.line)
            if broken:
                return f"the win by {move.cell} does not hold: {broken}"
    return None


def all_fours(board: Board, line: Sequence[int]) -> bool:
    """Whether every attacker move of ``line`` makes a four (a line of continuous fours)."""
    attacker = board.side_to_move
    position = board
    for index, cell in enumerate(line):
        if index % 2 == 0:
            if cell in five_points(position, attacker):
                return True
            position = place(position, cell, attacker)
            if not five_points(position, attacker):
                return False
        else:
            position = place(position, cell, attacker.other)
    return True
