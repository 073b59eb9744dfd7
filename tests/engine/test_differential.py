"""The compiled core against the plain reference solver (``oracle.py``), field by field.

Every shape small enough for the reference to finish: random positions reached
by legal play, compared on every move's score and exactness and on the
analysis's outcome, plies and best moves; from a cold engine, from one whose
table is shared across examples, and at budgets too small to solve, where
whatever is marked exact must still be exact. Then the tactics that hold at
any budget, on boards up to 7x7 where the reference cannot go.

``make test`` also runs this module against a build of the core with
AddressSanitizer and UndefinedBehaviorSanitizer (see the Makefile).
"""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from service.engine import Analysis, Board, Engine, Outcome, Player, StopReason, _core, geometry
from service.engine.search import core_shape
from tests.engine.oracle import move_scores

SHARED = Engine(node_budget=10**8, table_bytes=1 << 20)  # small: replacement happens


@st.composite
def positions(
    draw: st.DrawFn, sides: tuple[int, int], max_empties: int, ks: tuple[int, ...] = ()
) -> Board:
    """A position reached by random legal play, still in progress, with at most
    ``max_empties`` empty cells."""
    rows = draw(st.integers(*sides))
    cols = draw(st.integers(*sides))
    k = draw(st.sampled_from(ks)) if ks else draw(st.integers(3, max(rows, cols)))
    assume(k <= max(rows, cols))
    first = draw(st.sampled_from(Player))
    board = Board(geometry(rows, cols, k), 0, 0, first)
    cells = rows * cols
    marks = draw(st.integers(max(0, cells - max_empties), cells - 1))
    order = draw(st.permutations(range(cells)))
    for cell in order[:marks]:
        if board.is_game_over():
            break
        board = board.play(cell)
    assume(not board.is_game_over())
    return board


def expected_fields(board: Board) -> dict[str, object]:
    """Every field of an exact analysis, from the reference's move scores alone."""
    scores = move_scores(board)
    best = max(scores.values())
    cells = board.shape.cells
    empties = cells - board.mark_count
    return {
        "scores": scores,
        "best_moves": tuple(sorted(c for c, s in scores.items() if s == best)),
        "best_score": best,
        "outcome": Outcome.WIN if best > 0 else Outcome.LOSS if best < 0 else Outcome.DRAW,
        "plies": empties if best == 0 else cells + 1 - abs(best),
        "exact": True,
        "stopped_by": None,
    }


def actual_fields(analysis: Analysis) -> dict[str, object]:
    return {
        "scores": {m.cell: m.score for m in analysis.moves},
        "best_moves": analysis.best_moves,
        "best_score": analysis.best_score,
        "outcome": analysis.outcome,
        "plies": analysis.plies,
        "exact": analysis.exact and all(m.exact for m in analysis.moves),
        "stopped_by": analysis.stopped_by,
    }


@settings(max_examples=1500)
@given(positions(sides=(3, 4), max_empties=9))
def test_small_shapes_agree_with_the_reference_cold_and_shared(board: Board) -> None:
    expected = expected_fields(board)
    assert actual_fields(Engine(table_bytes=1 << 16).analyze(board)) == expected, repr(board)
    assert actual_fields(SHARED.search(board)) == expected, repr(board)


@settings(max_examples=300)
@given(positions(sides=(4, 5), max_empties=10, ks=(3, 4, 5)))
def test_4x4_4x5_and_5x5_agree_with_the_reference(board: Board) -> None:
    expected = expected_fields(board)
    assert actual_fields(SHARED.search(board)) == expected, repr(board)


@settings(max_examples=400)
@given(positions(sides=(3, 5), max_empties=9), st.integers(1, 3_000))
def test_at_any_budget_what_is_marked_exact_is_exact(board: Board, budget: int) -> None:
    expected = move_scores(board)
    analysis = Engine(table_bytes=1 << 16).analyze(board, node_budget=budget)
    for move in analysis.moves:
        true = expected[move.cell]
        if move.exact:
            assert move.score == true, (board, budget, move)
        elif move.proven is not None:
            # The outcome is proven, the distance not: the score is the proof's bound.
            assert move.proven == (Outcome.WIN if true > 0 else Outcome.LOSS), (board, move)
            assert 1 <= abs(move.score) <= abs(true), (board, budget, move)
        else:
            assert -1 < move.score < 1, (board, budget, move)
    if analysis.exact:
        assert actual_fields(analysis) == expected_fields(board)
    else:
        assert analysis.stopped_by is StopReason.BUDGET
        best = analysis.moves[0]
        assert analysis.outcome is (best.proven if not best.exact else analysis.outcome)
        assert analysis.plies is None or best.exact


@settings(max_examples=250)
@given(positions(sides=(4, 5), max_empties=12, ks=(3, 4)), st.integers(1, 600))
def test_at_any_budget_the_outcome_proofs_hold(board: Board, budget: int) -> None:
    """Positions with 10 or more empty cells, where the root first proves which
    side cannot win: a move marked as unable to win is a draw or a loss, and a
    position's outcome, when given, is the reference's, whatever the budget."""
    assume(board.shape.cells - board.mark_count >= 10)
    expected = move_scores(board)
    analysis = Engine(table_bytes=1 << 16).analyze(board, node_budget=budget)
    for move in analysis.moves:
        if move.no_win:
            assert not move.exact and expected[move.cell] <= 0, (board, budget, move)
            assert -1 < move.score < 0, (board, budget, move)  # below every draw
    best = max(expected.values())
    truth = Outcome.WIN if best > 0 else Outcome.LOSS if best < 0 else Outcome.DRAW
    assert analysis.outcome in (None, truth), (board, budget, analysis.outcome, truth)


def line_completions(board: Board, player: Player) -> set[int]:
    """Empty cells that would complete a line for ``player``, found cell by cell."""
    found = set()
    for cell in board.empty_cells():
        bit = 1 << cell
        marks = (board.x if player is Player.X else board.o) | bit
        if any(marks & line == line for line in board.shape.lines):
            found.add(cell)
    return found


@settings(max_examples=400)
@given(
    positions(sides=(5, 7), max_empties=49, ks=(4, 5)),
    st.sampled_from([1, 2, 10, 1_000]),
)
def test_tactics_hold_at_any_budget_on_boards_up_to_7x7(board: Board, budget: int) -> None:
    mover = board.side_to_move
    wins = line_completions(board, mover)
    threats = line_completions(board, mover.other)
    assume(wins or threats)
    analysis = Engine(table_bytes=1 << 16).analyze(board, node_budget=budget)
    cells = board.shape.cells
    scores = {m.cell: m for m in analysis.moves}
    if wins:
        # An immediate win is found, proven and ranked best.
        assert set(analysis.best_moves) == wins
        assert all(scores[c].exact and scores[c].score == cells for c in wins)
        assert analysis.outcome is Outcome.WIN and analysis.plies == 1
        return
    # Every move that leaves the opponent a completion is a proven loss in 2.
    for cell, move in scores.items():
        if threats - {cell}:
            assert move.exact and move.score == -(cells - 1), (board, cell, move)
    if len(threats) == 1:
        (block,) = threats
        assert analysis.moves[0].cell == block  # the only move that does not lose at once
        assert scores[block].score > -(cells - 1)
    else:
        assert analysis.exact and analysis.outcome is Outcome.LOSS and analysis.plies == 2


def documented_estimate(board: Board) -> float:
    """The heuristic as ``core/small/estimate.c`` documents it: every line still open to a side
    counts 4 ** (its marks on it), doubled for the side to move, and the
    difference d is squashed to 0.9 * d / (|d| + lines)."""
    me, them = (board.x, board.o) if board.side_to_move is Player.X else (board.o, board.x)
    lines = board.shape.lines

    def weight(mine: int, theirs: int) -> int:
        return sum(4 ** (mine & line).bit_count() for line in lines if not theirs & line)

    d = 2 * weight(me, them) - weight(them, me)
    return 0.9 * d / (abs(d) + len(lines))


@settings(max_examples=300)
@given(positions(sides=(3, 7), max_empties=49))
def test_the_heuristic_is_the_documented_one_and_kept_incrementally(board: Board) -> None:
    """The core's estimate of a position, and of each child as the search keeps
    it for the horizon (from the parent's line sums), is the documented one."""
    shape = core_shape(board.shape)
    x_to_move = board.side_to_move is Player.X
    assert _core.heuristic(shape, board.x, board.o, x_to_move) == documented_estimate(board)
    for cell in board.empty_cells():
        child = board.play(cell)
        kept = _core.heuristic(shape, board.x, board.o, x_to_move, cell)
        assert kept == documented_estimate(child), (board, cell)


ISSUE_POSITIONS = [
    # 7x7 k=5, X to move: cell 34 wins at once (issue 10 found both answered wrongly).
    ".XXX..X/......X/..O...X/...O..X/..O..../...O.../O.O.O..",
    "......X/......X/..O...X/...O..X/..O..../.....O./.......",
]


def test_the_immediate_wins_the_python_search_missed_are_found_at_any_budget() -> None:
    for text in ISSUE_POSITIONS:
        for budget in (1, 1_000, 200_000):
            analysis = Engine().analyze(Board.parse(text), node_budget=budget)
            assert analysis.best_moves == (34,), (text, budget)
            assert analysis.moves[0].exact and analysis.best_score == 49


@settings(max_examples=30)
@given(positions(sides=(5, 7), max_empties=49, ks=(4, 5)), st.integers(0, 3))
def test_a_cancelled_or_expired_search_ends_cleanly(board: Board, when: int) -> None:
    """Cancelled before it starts, or with a deadline already past: the search
    stops at once, raises or answers, and touches nothing it should not (this
    module also runs under AddressSanitizer)."""
    import time  # noqa: PLC0415

    from service.engine import SearchCancelled, SearchControl  # noqa: PLC0415

    engine = Engine(table_bytes=1 << 16)
    if when == 0:
        control = SearchControl(time.monotonic() + 60)
        control.cancel()
        try:
            engine.search(board, node_budget=10**7, control=control)
        except SearchCancelled:
            return
        raise AssertionError("a cancelled search answered")
    found = engine.search(board, node_budget=10**7, control=SearchControl(time.monotonic() - when))
    assert all(m.line[0] == m.cell for m in found.moves)
    assert found.exact or found.stopped_by is StopReason.DEADLINE
