"""The exact core on boards with a side of 8 (issue 19): 7x8, 8x7 and 8x8 have no
spare bits above their cells for the key's meta (see ``canonical()`` in
``core/small/board.h``), and 8x8 with k=3 has 168 lines, more than two words.

Checked here: late-game positions against the plain reference solver (both the
positions the table keys and those with too few free cells to have a key), the
key's parts (k, rule, orientation, side to move) kept apart in one table, and
every pairing the core finds on these boards replayed as a certificate.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from service.engine import GENERAL_RULES, Board, Engine, Outcome, Player, Rule, _core, geometry
from service.engine.search import core_shape, is_small
from tests.engine.oracle import move_scores
from tests.engine.test_differential import actual_fields, expected_fields
from tests.engine.test_knowledge import early_positions

WIDE_SHAPES = [(8, 8), (7, 8), (8, 7)]


def quiet_play(board: Board, order: list[int], marks: int) -> Board:
    """Up to ``marks`` marks in ``order``, each side skipping the cells that would
    win at once: a late position that nobody has won, full of threats."""
    for cell in order:
        if board.mark_count >= marks:
            break
        if (board.x | board.o) >> cell & 1:
            continue
        child = board.play(cell)
        if child.winner is None and not child.is_full():
            board = child
    return board


@st.composite
def late_positions(draw: st.DrawFn, max_empties: int) -> Board:
    rows, cols = draw(st.sampled_from(WIDE_SHAPES))
    k = draw(st.integers(4, 6))
    rule = draw(st.sampled_from(GENERAL_RULES))
    board = Board(geometry(rows, cols, k, rule), 0, 0, draw(st.sampled_from(Player)))
    cells = rows * cols
    order = draw(st.permutations(range(cells)))
    board = quiet_play(board, order * 2, cells - draw(st.integers(1, max_empties)))
    assume(board.shape.cells - board.mark_count <= max_empties)
    return board


def test_every_shape_up_to_8x8_is_held_by_the_exact_core() -> None:
    for rows in range(3, 9):
        for cols in range(3, 9):
            for k in range(3, max(rows, cols) + 1):
                shape = geometry(rows, cols, k)
                assert is_small(shape), (rows, cols, k)
                core_shape(shape)  # the core takes its lines: 168 on 8x8 with k=3
    assert not is_small(geometry(8, 9, 5))


@settings(max_examples=40, deadline=None)
@given(late_positions(max_empties=12))
def test_late_games_with_a_side_of_8_agree_with_the_reference(board: Board) -> None:
    """With 12 or fewer empty cells: from 8 free cells on, the table keys the
    positions; below that (8x8 only) they have no key and are searched afresh.
    (The reference, which prunes nothing, took 7.7 s on one 8x8 k=5 position
    with 14 empty cells: 12 keeps this test to seconds.)"""
    expected = expected_fields(board)
    assert actual_fields(Engine(table_bytes=1 << 20).analyze(board)) == expected, repr(board)


def test_the_quiet_threat_wins_with_a_side_of_8_are_confirmed_by_the_zone_search() -> None:
    """The root's threat search (``vct()``) where the root uses it, under both
    rules, on early positions: where no line of fours wins, the position after
    each claimed first move is given to the zone search (``can_win``), a proof
    search of another kind. It must never find the claim false, and it must
    confirm most of them."""
    confirmed = 0
    shapes = [(8, 8, 4), (7, 8, 4), (8, 7, 4), (8, 8, 5)]
    for board in early_positions(19, 80, shapes):
        shape, x_to_move = core_shape(board.shape), board.side_to_move is Player.X
        move, _ = _core.quiet_threat_win(shape, board.x, board.o, x_to_move, 10**7)
        if move < 0 or _core.threat_win(shape, board.x, board.o, x_to_move, 10**7)[0]:
            continue
        child = board.play(move)
        found, _ = _core.can_win(
            shape, _core.Table(1 << 24), child.x, child.o, not x_to_move, x_to_move, 10**6
        )
        assert found is not False, (board, move)
        confirmed += found is True
    assert confirmed >= 15, confirmed  # (18 with this seed)


def test_a_win_by_quiet_threats_is_proven_within_a_request() -> None:
    """8x8, k=4, X to move (a mid-game position of ``bench/engine.py``): at the
    service's budget the root's threat search proves X's win, where nowin()
    and solve() had proved nothing within the million nodes."""
    board = Board.parse(
        "......../X......./......../......../.......O/......../......../.X....O.", k=4
    )
    analysis = Engine().analyze(board)
    assert analysis.outcome is Outcome.WIN
    assert analysis.moves[0].proven is Outcome.WIN
    assert analysis.moves[0].cell == 24  # the threat search's move
    child = board.play(24)  # and the zone search confirms it (12,546 nodes)
    found, _ = _core.can_win(
        core_shape(board.shape), _core.Table(1 << 24), child.x, child.o, False, True, 10**6
    )
    assert found is True


def colour_twin(board: Board) -> bool:
    """Whether swapping the colours gives an image of ``board`` under a symmetry."""
    return min(board.shape.position_codes(board.x, board.o)) == min(
        board.shape.position_codes(board.o, board.x)
    )


def fake_wins(
    engine: Engine, board: Board, *, other_side: bool = False, swapped: bool = False
) -> None:
    """Store, for every child of ``board``, a false bound: a win at once for the
    child's side to move, which would make every move of ``board`` lose; with
    ``other_side``, the same marks stored with the other side to move (but for
    a child that is its own colour twin, which is then the same position), and
    with ``swapped`` too, the colours swapped: the same position."""
    shape = core_shape(board.shape)
    for cell in board.empty_cells():
        child = board.play(cell)
        if other_side and not swapped and colour_twin(child):
            continue
        left = board.shape.cells - child.mark_count
        x_to_move = (child.side_to_move is Player.X) != other_side
        x, o = (child.o, child.x) if swapped else (child.x, child.o)
        _core.store(shape, engine.table, x, o, x_to_move, left, left)


def other_variants(board: Board) -> list[Board]:
    """The same marks under another k, the other rule, and (8x8) the other side
    to move: each a different position of the table."""
    shape = board.shape
    variants = [
        Board(geometry(shape.rows, shape.cols, k, shape.rule), board.x, board.o, board.side_to_move)
        for k in (4, 6)
        if k != shape.k
    ]
    other_rule = Rule.EXACT if shape.rule is Rule.FREESTYLE else Rule.FREESTYLE
    variants.append(
        Board(
            geometry(shape.rows, shape.cols, shape.k, other_rule),
            board.x,
            board.o,
            board.side_to_move,
        )
    )
    return variants


@pytest.mark.parametrize(("rows", "cols"), WIDE_SHAPES)
def test_one_table_keeps_k_rule_and_side_to_move_apart(rows: int, cols: int) -> None:
    board = Board(geometry(rows, cols, 5), 0, 0, Player.X).play(27).play(28).play(35)
    fresh = Engine(table_bytes=1 << 20).analyze(board, node_budget=20_000)
    # Where the keys are the same position, the false bounds are found ...
    fooled = Engine(table_bytes=1 << 20)
    fake_wins(fooled, board)
    assert fooled.analyze(board, node_budget=20_000).best_score != fresh.best_score
    # ... and under any other k, rule or side to move they are not.
    for variant in other_variants(board):
        engine = Engine(table_bytes=1 << 20)
        fake_wins(engine, variant)
        assert engine.analyze(board, node_budget=20_000) == fresh, variant.shape
    # The children's marks with the other side to move.
    engine = Engine(table_bytes=1 << 20)
    fake_wins(engine, board, other_side=True)
    assert engine.analyze(board, node_budget=20_000) == fresh
    # A wide key is the mover's, not the colours': the children with the other
    # side to move and the colours swapped are the same positions.
    twins = Engine(table_bytes=1 << 20)
    fake_wins(twins, board, other_side=True, swapped=True)
    assert twins.analyze(board, node_budget=20_000) == fooled.analyze(board, node_budget=20_000)


@settings(max_examples=20, deadline=None)
@given(late_positions(max_empties=10))
def test_a_position_and_its_colour_twin_share_their_value(board: Board) -> None:
    """Nothing in the game tells the colours apart (the wide keys count on it):
    the side to move's value is the same with the colours swapped."""
    twin = Board(board.shape, board.o, board.x, board.side_to_move.other)
    assume(twin.winner is None)
    assert move_scores(twin) == move_scores(board), repr(board)


def test_a_position_too_full_for_a_key_is_not_stored() -> None:
    """8x8 with 7 free cells: no room for the key's 8 bits of meta."""
    board = quiet_play(Board(geometry(8, 8, 6), 0, 0, Player.X), [*range(64)] * 2, 57)
    assert 64 - board.mark_count == 7, board
    with pytest.raises(ValueError, match="no key"):
        _core.store(core_shape(board.shape), Engine().table, board.x, board.o, True, 0, 0)
    assert move_scores(board) == {m.cell: m.score for m in Engine().analyze(board).moves}


def open_lines(board: Board, attacker: Player) -> list[int]:
    theirs = board.o if attacker is Player.X else board.x
    return [line for line in board.shape.lines if not line & theirs]


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(WIDE_SHAPES),
    st.integers(5, 8),
    st.sampled_from(Player),
    st.permutations(range(64)),
    st.integers(0, 30),
)
def test_every_pairing_found_on_a_side_of_8_covers_every_open_line(
    size: tuple[int, int], k: int, first: Player, order: list[int], marks: int
) -> None:
    """A pairing is a certificate when each line still open to the attacker
    holds both cells of one of its disjoint, empty pairs (Hales-Jewett); lines of
    8 have 8 free cells, one more than the core's counts held before 8x8."""
    rows, cols = size
    assume(k <= max(rows, cols))
    board = Board(geometry(rows, cols, k), 0, 0, first)
    board = quiet_play(board, [c for c in order if c < rows * cols], marks)
    attacker = board.side_to_move
    found = _core.pairing(core_shape(board.shape), board.x, board.o, attacker is Player.X)
    assume(found is not None)
    cells = [c for pair in found for c in pair]
    assert len(cells) == len(set(cells)), "pairs must be disjoint"
    assert not any((board.x | board.o) >> c & 1 for c in cells), "pairs must be empty cells"
    for line in open_lines(board, attacker):
        assert any(line >> a & 1 and line >> b & 1 for a, b in found), (board, line)


def test_the_empty_8x8_board_has_a_pairing_for_k_of_7_and_8() -> None:
    for k in (7, 8):
        board = Board(geometry(8, 8, k), 0, 0, Player.X)
        assert _core.pairing(core_shape(board.shape), 0, 0, True) is not None, k


def test_with_a_side_of_8_the_core_answers_where_it_settles_the_outcome() -> None:
    """8x8, k=4, two X marks side by side: the core proves the loss for O
    exactly, and its answer (every legal move, with its proof) stands."""
    board = Board(geometry(8, 8, 4), 0, 0, Player.X).play(27).play(0).play(28)
    analysis = Engine().analyze(board)
    assert analysis.exact and analysis.outcome is Outcome.LOSS
    assert len(analysis.moves) == len(board.empty_cells()) and analysis.omitted.count == 0


def test_and_the_big_board_search_plays_on_where_it_cannot() -> None:
    """8x8, k=5, on a budget far too small for a proof: the core spends its
    half, and the big-board search's candidates answer (it lists no others)."""
    board = Board(geometry(8, 8, 5), 0, 0, Player.X).play(27)
    analysis = Engine().analyze(board, node_budget=20_000)
    assert analysis.outcome is None and analysis.omitted.count > 0
    assert len(analysis.moves) + analysis.omitted.count == len(board.empty_cells())
    assert 10_000 < analysis.nodes <= 20_000 + 1_000, analysis.nodes
    # With a fixed depth (a difficulty level), the big-board search plays alone.
    fixed = Engine(max_depth=2).analyze(board, node_budget=20_000)
    assert fixed.omitted.count > 0


@settings(max_examples=20, deadline=None)
@given(late_positions(max_empties=12), st.integers(2, 3))
def test_a_proof_split_over_threads_agrees_with_the_reference(board: Board, threads: int) -> None:
    """``proof_threads`` splits the root's proofs that a side cannot win (from
    10 empty cells on) over threads sharing the tables: the answer is the
    reference's all the same."""
    assume(board.shape.cells - board.mark_count >= 10)
    engine = Engine(table_bytes=1 << 20, proof_threads=threads)
    assert actual_fields(engine.analyze(board)) == expected_fields(board), repr(board)


@pytest.mark.parametrize(
    ("rows", "cols", "k", "moves", "budget"),
    [
        # (With 1 M nodes two threads prove more of this one than one thread.)
        (8, 8, 5, [27, 28, 36, 35, 45, 18], 3_000_000),
        (8, 8, 6, [27], 1_000_000),
        (8, 8, 4, [27, 28], 1_000_000),
        (6, 8, 5, [], 1_000_000),
        (7, 8, 4, [], 1_000_000),
    ],
)
def test_a_proof_split_over_threads_proves_what_one_thread_proves(
    rows: int, cols: int, k: int, moves: list[int], budget: int
) -> None:
    """The same values (draws exact, wins and losses proven), with two threads as
    with one; a budget bounds each thread's nodes."""
    board = Board(geometry(rows, cols, k), 0, 0, Player.X)
    for cell in moves:
        board = board.play(cell)
    answers = [
        Engine(table_bytes=1 << 26, core_only=True, proof_threads=threads).analyze(
            board, node_budget=budget
        )
        for threads in (1, 2)
    ]
    alone, split = ([(m.cell, m.score, m.exact, m.proven) for m in a.moves] for a in answers)
    assert split == alone
    assert any(m.exact or m.proven for m in answers[0].moves)
    assert answers[1].nodes <= 2 * budget + 10_000


@pytest.mark.parametrize("threads", [0, 65])
def test_proof_threads_out_of_range_are_refused(threads: int) -> None:
    with pytest.raises(ValueError, match="proof_threads must be 1 to 64"):
        Engine(proof_threads=threads)
    board = Board(geometry(8, 8, 5), 0, 0, Player.X)
    with pytest.raises(ValueError, match="threads must be 1 to 64"):
        _core.analyze(
            core_shape(board.shape), Engine().table, 0, 0, True, 10, 10, 10, None, threads
        )
