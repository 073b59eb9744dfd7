"""Property tests on boards larger than 3x3 (hypothesis, derandomized in conftest)."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from service.engine import Board, BoardError, Engine, Player, Status, geometry

SOLVER = Engine(node_budget=2_000_000)


@st.composite
def positions(draw: st.DrawFn, max_side: int = 5, max_empties: int | None = None) -> Board:
    """A position reached by random legal play on a random shape, still in progress."""
    rows = draw(st.integers(3, max_side))
    cols = draw(st.integers(3, max_side))
    k = draw(st.integers(3, max(rows, cols)))
    first = draw(st.sampled_from(Player))
    board = Board(geometry(rows, cols, k), 0, 0, first)
    cells = rows * cols
    least = 0 if max_empties is None else max(0, cells - max_empties)
    moves = draw(st.integers(least, cells - 1))
    order = draw(st.permutations(range(cells)))
    for cell in order[:moves]:
        if board.is_game_over():
            break
        board = board.play(cell)
    assume(not board.is_game_over())
    return board


def _image(board: Board, perm: tuple[int, ...]) -> Board:
    x = sum(1 << perm[c] for c in range(board.shape.cells) if board.x >> c & 1)
    o = sum(1 << perm[c] for c in range(board.shape.cells) if board.o >> c & 1)
    return Board(board.shape, x, o, board.side_to_move)


@settings(max_examples=60)
@given(positions(max_empties=10))
def test_scores_are_invariant_under_the_boards_symmetries(board: Board) -> None:
    analysis = SOLVER.analyze(board)
    assume(analysis.exact)
    scores = {m.cell: m.score for m in analysis.moves}
    for perm in board.shape.symmetries:
        image = Engine().analyze(_image(board, perm))
        assert image.exact
        assert {m.cell: m.score for m in image.moves} == {perm[c]: s for c, s in scores.items()}


@settings(max_examples=60)
@given(positions(max_empties=9))
def test_a_move_scores_the_best_reply_seen_from_the_other_side(board: Board) -> None:
    analysis = SOLVER.analyze(board)
    assume(analysis.exact)
    cells = board.shape.cells
    for move in analysis.moves:
        child = board.play(move.cell)
        if child.status is Status.WON:
            expected = cells
        elif child.status is Status.DRAWN:
            expected = 0
        else:
            reply = SOLVER.analyze(child)
            assert reply.exact
            best = reply.best_score
            assert isinstance(best, int)
            expected = -(best - 1) if best > 0 else (-best - 1 if best < 0 else 0)
        assert move.score == expected, (board, move)
    assert analysis.best_score == max(m.score for m in analysis.moves)


@settings(max_examples=200)
@given(positions(max_side=7), st.data())
def test_parse_and_format_round_trip(board: Board, data: st.DataObject) -> None:
    text = board.format()
    player = board.side_to_move.value
    assert Board.parse(text, k=board.k, player=player) == board
    assert Board.parse(board.format(separators=True), k=board.k, player=player) == board
    assert eval(repr(board), {"Board": Board}) == board
    # Any spelling of the same cells reads as the same board.
    spelled = "".join(
        data.draw(st.sampled_from(".-_ "))
        if ch == "."
        else data.draw(st.sampled_from([ch, ch.lower()]))
        if ch != "/"
        else ch
        for ch in board.format(separators=True)
    )
    assert Board.parse(spelled, k=board.k, player=player) == board


@settings(max_examples=400)
@given(
    st.text(alphabet=st.sampled_from("xXoO.-_ /?0\n\u00e9"), max_size=60) | st.text(max_size=80),
    st.none() | st.integers(-3, 12),
    st.none() | st.integers(-3, 12),
    st.none() | st.integers(-3, 12),
    st.none() | st.sampled_from(["X", "O", "x", "Z", ""]),
)
def test_every_invalid_input_raises_one_of_the_familys_errors(
    text: str, rows: int | None, cols: int | None, k: int | None, player: str | None
) -> None:
    try:
        board = Board.parse(text, rows=rows, cols=cols, k=k, player=player)
    except BoardError:
        return
    assert 3 <= board.rows <= 7 and 3 <= board.cols <= 7
    if not board.is_game_over():
        assert SOLVER.analyze(board, node_budget=200).moves
