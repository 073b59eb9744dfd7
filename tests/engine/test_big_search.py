"""The big-board search (``core/big/``): its board against the plain reference
(``gomoku.py``), the tactics that hold at any budget, the threat proofs checked
move by move, and the budget, deadline and cancellation it shares with the
exact core."""

from __future__ import annotations

import threading
import time

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from service.engine import (
    Analysis,
    Board,
    Engine,
    Outcome,
    Player,
    Rule,
    SearchCancelled,
    SearchControl,
    StopReason,
    _core,
    geometry,
    search,
)
from service.engine.search import BUCKET_BYTES, BUCKET_SLOTS, is_small
from tests.engine import gomoku as ref

ENGINE = Engine(node_budget=200_000, table_bytes=16 << 20)
TACTICS_BUDGET = 1_000  # the immediate rules hold at any budget: this small one too


@st.composite
def big_positions(draw: st.DrawFn) -> tuple[int, int, int, Rule, list[int]]:
    """A shape the exact core cannot hold, any rule it allows, and distinct cells played
    alternately from X (the game may have ended: the board keeps no rules)."""
    rows = draw(st.integers(8, 20))
    cols = draw(st.integers(8, 20))
    k = min(draw(st.sampled_from([5, 5, 5, 4, 6, 3, 7, 9])), max(rows, cols))
    renju_fits = k == 5 and min(rows, cols) >= 9
    rule = draw(st.sampled_from(list(Rule) if renju_fits else [Rule.FREESTYLE, Rule.EXACT]))
    count = draw(st.integers(0, min(60, rows * cols // 3)))
    moves = draw(
        st.lists(st.integers(0, rows * cols - 1), min_size=count, max_size=count, unique=True)
    )
    return rows, cols, k, rule, moves


def _board(rows: int, cols: int, k: int, rule: Rule, moves: list[int]) -> Board:
    x = sum(1 << c for c in moves[0::2])
    o = sum(1 << c for c in moves[1::2])
    return Board(geometry(rows, cols, k, rule), x, o, Player.X if len(moves) % 2 == 0 else Player.O)


@settings(max_examples=30)
@given(big_positions())
def test_the_boards_patterns_kinds_and_sets_are_the_references(
    position: tuple[int, int, int, Rule, list[int]],
) -> None:
    rows, cols, k, _rule, moves = position
    board = _board(*position)
    shape = board.shape
    cells, sets, _, _ = _core.big_board(rows, cols, k, shape.core_rule(), moves)
    # Past a window of 13 cells the core reads the levels below B3 by counting.
    wide = ref.half_width(k, shape.exact_for(True)) > 6
    expected_sets: list[set[int]] = [set() for _ in range(8)]
    for cell in board.empty_cells():
        found = cells[cell]
        assert isinstance(found, tuple)
        for side_index, side in enumerate(Player):
            levels = 2 if wide else 4
            exact = shape.exact_for(side is Player.X)
            patterns = tuple(
                ref.pattern(ref.window(board, cell, d, side), k, exact, levels) for d in range(4)
            )
            got = found[side_index]
            if wide:
                assert [p if p >= ref.B3 else 0 for p in got] == list(patterns)
                continue
            assert got == patterns, (cell, side)
            kind = ref.kind(patterns)
            assert found[2 + side_index] == kind
            member = {
                0: kind == ref.KIND_FIVE,
                2: kind == ref.KIND_FLEX4,
                4: kind in (ref.KIND_FLEX4, ref.KIND_B4F3, ref.KIND_B4),
                6: ref.F3 in patterns,
            }
            for index, inside in member.items():
                if inside:
                    expected_sets[index + side_index].add(cell)
    if not wide:
        assert [set(s) for s in sets] == expected_sets
    # The five points are the rule's own: a stone there completes a row.
    for side_index, side in enumerate(Player):
        assert set(sets[side_index]) == ref.five_points(board, side)


@settings(max_examples=60)
@given(big_positions(), st.data())
def test_taking_moves_back_restores_the_board_exactly(
    position: tuple[int, int, int, Rule, list[int]], data: st.DataObject
) -> None:
    rows, cols, k, rule, moves = position
    core_rule = geometry(rows, cols, k, rule).core_rule()
    back = data.draw(st.integers(0, len(moves)))
    after_takeback = _core.big_board(rows, cols, k, core_rule, [*moves, *([-1] * back)])
    rebuilt = _core.big_board(rows, cols, k, core_rule, moves[: len(moves) - back])
    assert after_takeback == rebuilt


@settings(max_examples=60)
@given(big_positions(), st.data())
def test_moves_played_after_a_take_back_see_the_cells_it_emptied(
    position: tuple[int, int, int, Rule, list[int]], data: st.DataObject
) -> None:
    """A stone's own window is left as it was while it stands (board.h's
    BigBoard.code): once taken back, its cell must read the stones around
    it again, and the moves played next must find it so."""
    rows, cols, k, rule, moves = position
    core_rule = geometry(rows, cols, k, rule).core_rule()
    back = data.draw(st.integers(0, len(moves)))
    kept = moves[: len(moves) - back]
    free = sorted(set(range(rows * cols)) - set(kept))
    again = data.draw(st.lists(st.sampled_from(free), max_size=min(12, len(free)), unique=True))
    played = _core.big_board(rows, cols, k, core_rule, [*moves, *([-1] * back), *again])
    rebuilt = _core.big_board(rows, cols, k, core_rule, [*kept, *again])
    assert played == rebuilt


@settings(max_examples=60)
@given(big_positions(), st.data())
def test_the_candidates_are_the_cells_a_search_would_try_in_its_order(
    position: tuple[int, int, int, Rule, list[int]], data: st.DataObject
) -> None:
    """``_core.big_candidates()``: against a five point only its block;
    elsewhere (no open three to answer) every empty cell within two of a
    stone and every cell where either side makes a four or a three, listed
    by score, best first, a five of the mover's ahead of the rest; the same
    after moves taken back as after the moves left."""
    rows, cols, k, rule, moves = position
    assume(rule is not Rule.RENJU)
    core_rule = geometry(rows, cols, k, rule).core_rule()
    back = data.draw(st.integers(0, len(moves)))
    order = _core.big_candidates(rows, cols, k, core_rule, [*moves, *([-1] * back)])
    moves = moves[: len(moves) - back]
    assert order == _core.big_candidates(rows, cols, k, core_rule, moves)
    cells, sets, _, _ = _core.big_board(rows, cols, k, core_rule, moves)
    me = len(moves) % 2
    if sets[1 - me]:
        assert order == [(min(sets[1 - me]), 0)]
        return
    assume(not sets[2 + (1 - me)])  # an open three to answer: its defences
    stones = [c for c in range(rows * cols) if isinstance(cells[c], int)]
    near = {
        c
        for c in range(rows * cols)
        if not isinstance(cells[c], int)
        and any(abs(c // cols - s // cols) <= 2 and abs(c % cols - s % cols) <= 2 for s in stones)
    }
    threats = set().union(*sets[4:8])
    expected = near | threats if stones else threats | {(rows // 2) * cols + cols // 2}
    assert sorted(cell for cell, _ in order) == sorted(expected)
    scores = [score for _, score in order]
    assert scores == sorted(scores, reverse=True)
    if sets[me]:
        assert order[0][0] in sets[me]


@pytest.mark.parametrize(
    ("moves", "first"),
    [
        # X to move with four in a row (112..115, open at 111 and 116; O in
        # the corners): a five first.
        ([112, 0, 113, 14, 114, 210, 115, 224], {111, 116}),
        # O to move against it: one block listed, the lower of the two.
        ([112, 0, 113, 14, 114, 210, 115], {111}),
    ],
)
def test_the_candidates_put_a_five_first_and_a_forced_block_alone(
    moves: list[int], first: set[int]
) -> None:
    order = _core.big_candidates(15, 15, 5, 0, moves)
    assert order[0][0] in first
    if len(moves) % 2:
        assert len(order) == 1


def analyse(moves: list[str], budget: int = TACTICS_BUDGET, **kwargs: object) -> Analysis:
    board = Board.from_moves(moves, **kwargs)  # type: ignore[arg-type]
    assert not is_small(board.shape)
    return Engine(node_budget=budget, table_bytes=1 << 20).analyze(board)


def names(analysis: Analysis, cells: tuple[int, ...]) -> list[str]:
    return [analysis.board.shape.coordinate(c) for c in cells]


# X's open three h8 i8 j8, and O's stones far away.
OPEN_THREE = ["h8", "a1", "i8", "a3", "j8", "a5"]


def test_a_row_to_complete_is_taken_and_proven() -> None:
    analysis = analyse(["h8", "g8", "i8", "a3", "j8", "a5", "k8", "a7"])
    best = analysis.moves[0]
    assert names(analysis, (best.cell,)) == ["l8"]
    assert best.exact and best.score == 225 and analysis.outcome is Outcome.WIN
    assert analysis.plies == 1


def test_an_open_four_to_make_wins_in_three() -> None:
    analysis = analyse(OPEN_THREE)
    wins = [m for m in analysis.moves if m.exact and m.score == 225 + 1 - 3]
    assert sorted(names(analysis, tuple(m.cell for m in wins))) == ["g8", "k8"]
    assert analysis.outcome is Outcome.WIN and analysis.plies == 3
    for move in wins:  # the line: the open four, one block, the row past it
        assert len(move.line) == 3
        assert ref.check_vcf(analysis.board, move.line) is None


def test_facing_one_four_the_block_is_the_only_move() -> None:
    analysis = analyse(["h8", "g8", "i8", "a3", "j8", "a5", "k8"])
    block = analysis.board.shape.parse_coordinate("l8")
    for move in analysis.moves:
        if move.cell == block:
            assert move.score > -(225 + 1 - 2)
        else:
            assert move.exact and move.score == -(225 + 1 - 2), move
    assert analysis.omitted.count > 0 and analysis.omitted.score == -(225 + 1 - 2)


def test_facing_two_fours_every_move_is_a_proven_loss() -> None:
    analysis = analyse(["h8", "a1", "i8", "a3", "j8", "a5", "k8"])
    assert analysis.exact and analysis.stopped_by is None
    assert all(m.exact and m.score == -(225 + 1 - 2) for m in analysis.moves)
    assert analysis.omitted.score == -(225 + 1 - 2)
    assert analysis.outcome is Outcome.LOSS and analysis.plies == 2


def test_facing_an_open_three_every_move_but_the_defences_loses_in_four() -> None:
    analysis = analyse(["h8", "a1", "i8", "a3", "j8"])
    loss_in_4 = -(225 + 1 - 4)
    defending = {m.cell for m in analysis.moves if m.score != loss_in_4}
    assert names(analysis, tuple(sorted(defending))) == ["g8", "k8"]
    assert analysis.omitted.score == loss_in_4
    for move in analysis.moves:
        if move.cell not in defending:
            assert move.exact and len(move.line) == 4


def test_an_overline_wins_only_under_freestyle() -> None:
    """X: a1 b1 c1 _ e1 f1. Filling d1 makes six: a win under freestyle only."""
    moves = ["a1", "a3", "b1", "b3", "c1", "c3", "e1", "e5", "f1", "g9"]
    freestyle = analyse(moves)
    assert freestyle.moves[0].exact and freestyle.moves[0].score == 225
    exact = analyse(moves, rule="exact")
    d1 = exact.board.shape.parse_coordinate("d1")
    assert exact.value_of(d1).score < 225
    assert not any(m.score == 225 for m in exact.moves)


def test_estimates_stay_estimates() -> None:
    analysis = analyse(["h8", "i9", "h10"], budget=20_000)
    assert not analysis.exact and analysis.stopped_by is StopReason.BUDGET
    assert analysis.outcome is None and analysis.plies is None
    listed = len(analysis.moves) + analysis.omitted.count
    assert listed == len(analysis.board.empty_cells())
    for move in analysis.moves:
        assert not move.exact and move.proven is None and -1 < move.score < 1


@pytest.mark.parametrize(
    "moves",
    [
        OPEN_THREE,  # a win in 3 to make
        ["h8", "g8", "i8", "a3", "j8", "a5", "k8"],  # one four to block, the block unproven
    ],
    ids=["won", "forced"],
)
def test_a_decided_choice_stops_the_search_after_depth_one(moves: list[str]) -> None:
    """With the choice made, the budget is not spent: the other moves get
    depth-1 estimates, and the answer says why it stopped."""
    budget = 5_000_000
    analysis = analyse(moves, budget=budget)
    assert analysis.stopped_by is StopReason.DECIDED and not analysis.exact
    assert analysis.depth == 1 and analysis.nodes < budget // 4
    won = analysis.outcome is Outcome.WIN
    assert won or all(m.exact and m.score < 0 for m in analysis.moves[1:])


def test_the_node_budget_bounds_a_big_search() -> None:
    board = Board.from_moves(["h8", "i9", "h10", "j8"])
    for budget in (1, 5_000, 50_000):
        analysis = Engine(node_budget=budget, table_bytes=1 << 20).analyze(board)
        # Depth 1 always completes: a node for each candidate at most beyond the budget.
        assert analysis.nodes <= budget + len(analysis.moves) + 1
        assert analysis.depth >= 1


def test_a_deadline_stops_a_big_search() -> None:
    board = Board.from_moves(["h8", "i9", "h10", "j8"], rows=20, cols=20)
    engine = Engine(node_budget=10**9, table_bytes=1 << 20)
    analysis = engine.analyze(board, deadline=time.monotonic() + 0.2)
    assert analysis.stopped_by is StopReason.DEADLINE
    assert analysis.depth >= 1 and analysis.moves


def test_a_cancelled_big_search_raises() -> None:
    board = Board.from_moves(["h8", "i9", "h10", "j8"], rows=20, cols=20)
    engine = Engine(node_budget=10**9, table_bytes=1 << 20)
    control = SearchControl(time.monotonic() + 60)
    started = threading.Event()

    def cancel_soon() -> None:
        started.wait()
        control.cancel()

    canceller = threading.Thread(target=cancel_soon)
    canceller.start()
    started.set()
    with pytest.raises(SearchCancelled):
        engine.search(board, control=control)
    canceller.join()


def test_the_empty_board_opens_in_the_centre() -> None:
    for size in (15, 20):
        analysis = Engine(node_budget=2_000).analyze(Board.empty(size, size))
        assert analysis.best_moves == (size // 2 * size + size // 2,)


def test_depth_one_keeps_the_leaves_threat_searches_short() -> None:
    """Depth 1 completes whatever the budget (an answer needs it), but its
    leaves' searches for continuous fours keep their own small allowance: in
    this 43-stone position from a brain's game, depth 1 once ran 841,467 nodes
    (1.2 s past a 250 ms deadline), where it takes about 7,000."""
    moves = [113, 82, 124, 140, 142, 81, 126, 110, 125, 127, 83, 68, 96, 67, 122, 123, 97, 69]
    moves += [66, 95, 109, 139, 143, 53, 39, 128, 141, 157, 80, 94, 129, 145, 107, 93, 92, 71]
    moves += [70, 137, 108, 64, 138, 154, 98]
    analysis = Engine(node_budget=1).analyze(Board.from_moves(moves, rows=15))
    assert analysis.depth == 1 and analysis.nodes < 20_000


def test_a_win_found_below_the_root_is_not_searched_again_for_a_faster_one() -> None:
    """Below the root a win found cuts off, and a side that has found a losing
    move looks for a move that does not lose, not for a slower loss. In this
    6-stone position from a game against Rapfi, the side to move has a forced
    win (Rapfi saw it at its depth 20): 2 million nodes see it, where a search
    that sought the fastest win at every node reached depth 16 and saw none."""
    board = Board.from_moves([65, 126, 156, 69, 110, 172], rows=15)
    analysis = Engine(node_budget=2_000_000).analyze(board)
    assert analysis.moves[0].score > 0.95


def test_the_horizon_follows_a_chain_of_fours_from_the_last_one() -> None:
    """At depth 1 (no threat proofs) X's win by continuous fours is seen past
    the horizon: the root's four at (10,10) (or (7,10)) is blocked, and the
    quiescence search's next four, three cells down the same column from it,
    makes two five points. The quiescence search plays only fours near the
    side's own last move (a 5x5 square, or 4 along its lines); a chain whose
    next four lies along the line of the last one is near."""
    x = [(7, 7), (7, 8), (7, 9), (8, 10), (9, 10), (9, 11), (8, 12), (11, 9)]
    o = [(7, 6), (6, 10), (12, 8), (10, 12), (5, 7), (2, 14), (14, 0), (14, 14)]
    moves = [row * 15 + col for pair in zip(x, o, strict=True) for row, col in pair]
    analysis = Engine(max_depth=1).analyze(Board.from_moves(moves, rows=15))
    best = analysis.moves[0]
    assert analysis.depth == 1 and best.cell in (10 * 15 + 10, 7 * 15 + 10)
    assert 0.95 < best.score < 1 and not best.exact  # a win seen, not proven


def _middle_game(shift: int) -> tuple[int, int]:
    """A 15x15 middle game of 12 stones, moved ``shift`` columns right (another
    position for each shift, none of one found in another's search)."""
    cells = [(7, 7), (7, 8), (8, 8), (6, 6), (8, 7), (8, 9), (9, 7), (6, 7), (6, 8), (10, 6)]
    cells += [(9, 9), (5, 5)]
    x = o = 0
    for i, (row, col) in enumerate(cells):
        if i % 2 == 0:
            x |= 1 << (row * 15 + col + shift)
        else:
            o |= 1 << (row * 15 + col + shift)
    return x, o


def _search(table: _core.Table, shift: int, budget: int) -> None:
    x, o = _middle_game(shift)
    search.run_big(geometry(15, 15, 5), table, x, o, x_to_move=True, budget=budget)


def test_every_big_search_ages_the_entries_of_the_searches_before() -> None:
    table = _core.Table(1024 * BUCKET_BYTES)
    _search(table, 0, 20_000)
    first = table.ages()
    assert first[0] > 0 and sum(first[1:]) == 0
    _search(table, 2, 20_000)
    _search(table, 4, 20_000)
    ages = table.ages()
    assert ages[0] > 0 and ages[1] > 0 and ages[2] > 0  # the two before, one and two old
    assert sum(ages) <= 1024 * BUCKET_SLOTS


def test_old_entries_make_way_for_new_ones_however_much_they_cost() -> None:
    """One bucket: a search of 100,000 nodes fills it with its costliest entries,
    which no later search of 2,000 nodes costs as much as. With each generation
    they count AGE_WEIGHT bits of work less, so by four searches later they are gone."""
    table = _core.Table(BUCKET_BYTES)
    _search(table, 0, 100_000)
    assert table.ages() == (BUCKET_SLOTS, 0, 0, 0, 0, 0, 0, 0)
    for _ in range(5):
        _search(table, 3, 2_000)
    ages = table.ages()
    assert sum(ages) == BUCKET_SLOTS
    assert sum(ages[4:]) == 0, ages


def _threat_win(
    x: list[tuple[int, int]], o: list[tuple[int, int]], nodes: int = 100_000
) -> tuple[int, int, tuple[int, ...], int]:
    """``_core.big_threat_win`` on 15x15 freestyle, X to move."""
    cells = [[r * 15 + c for r, c in side] for side in (x, o)]
    bits = [sum(1 << c for c in side).to_bytes(29, "little") for side in cells]
    return _core.big_threat_win(15, 15, 5, 0, bits[0], bits[1], True, nodes)


def _replayed(x: list[tuple[int, int]], o: list[tuple[int, int]], line: tuple[int, ...]) -> Board:
    board = Board(
        geometry(15, 15, 5),
        sum(1 << (r * 15 + c) for r, c in x),
        sum(1 << (r * 15 + c) for r, c in o),
        Player.X,
    )
    for cell in line:
        board = board.play(cell)
    return board


def test_big_threat_win_tells_continuous_fours_from_threats_with_threes() -> None:
    # X's (7, 8) makes two fours at once, a row and a column, each closed by O.
    x = [(7, 5), (7, 6), (7, 7), (4, 8), (5, 8), (6, 8)]
    o = [(7, 4), (3, 8), (0, 0), (0, 14), (14, 0)]
    kind, plies, line, _ = _threat_win(x, o)
    assert (kind, plies, line[0]) == (1, 3, 7 * 15 + 8)
    assert _replayed(x, o, line).winner is Player.X
    # X's (7, 7) makes two open threes: no block stops both, but fours alone
    # do not win.
    x = [(7, 5), (7, 6), (5, 7), (6, 7)]
    o = [(0, 0), (0, 14), (14, 0), (14, 14)]
    kind, plies, line, _ = _threat_win(x, o)
    assert (kind, line[0]) == (2, 7 * 15 + 7)
    assert plies >= 5
    # Nothing to threaten: nothing found, within the two phases' nodes.
    kind, plies, line, nodes = _threat_win([(7, 7)], [(7, 8)], nodes=1_000)
    assert (kind, plies, line) == (0, 0, ())
    assert nodes <= 2 * 1_000 + 2


def test_big_threat_win_stops_at_its_node_limit() -> None:
    # Three closed threes: fours to try, none wins at once; one node a phase
    # finds nothing and spends no more.
    x = [(7, 4), (7, 5), (7, 6), (9, 4), (9, 5), (9, 6), (3, 12), (4, 12), (5, 12)]
    o = [(7, 3), (9, 3), (2, 12), (14, 14), (0, 14), (14, 0), (0, 0)]
    kind, plies, _, nodes = _threat_win(x, o, nodes=1)
    assert (kind, plies) == (0, 0)
    assert nodes <= 2
    kind, plies, _, nodes = _threat_win(x, o)  # with nodes enough, the fours and threes win
    assert kind > 0 and plies > 0 and nodes > 2


@st.composite
def late_small_positions(draw: st.DrawFn) -> Board:
    """A 6x6 or 7x7 position of k = 4 or 5 reached by random play, still in
    progress, with threats about: the exact core solves it."""
    side = draw(st.sampled_from([6, 7]))
    k = draw(st.sampled_from([4, 5]))
    board = Board.empty(side, side, k)
    order = draw(st.permutations(range(side * side)))
    for cell in order[: draw(st.integers(10, side * side // 2))]:
        if board.is_game_over():
            break
        board = board.play(cell)
    assume(not board.is_game_over())
    return board


EXACT = Engine(node_budget=10**8, table_bytes=16 << 20)


def _board_threat_win(board: Board, nodes: int) -> tuple[int, int, tuple[int, ...], int]:
    """``_core.big_threat_win`` on ``board``, its side to move's."""
    size = (board.shape.cells + 7) // 8
    return _core.big_threat_win(
        board.rows, board.cols, board.k, board.shape.core_rule(),
        board.x.to_bytes(size, "little"), board.o.to_bytes(size, "little"),
        board.side_to_move is Player.X, nodes,
    )  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(late_small_positions())
def test_every_win_big_threat_win_claims_is_a_win_of_the_exact_search(board: Board) -> None:
    # The big boards' threat search is a proof: on boards the exact core
    # solves, each win it claims is the mover's, no sooner than the fastest.
    kind, plies, line, _ = _board_threat_win(board, 1_000_000)
    if kind:
        exact = EXACT.analyze(board)
        assert exact.outcome is Outcome.WIN, (board.format(), line)
        assert exact.plies is None or exact.plies <= plies  # (None: distance not proven)


def test_a_forced_block_that_keeps_an_open_three_goes_on_threatening() -> None:
    # k = 4: O's three in column 4 makes (2, 4) its row to complete, so X's
    # only move is to block there, a move that makes nothing. But X's two in
    # row 1, open at both ends, is k = 4's open three, and it is still there
    # after the block: O must answer it, and no answer saves O. (Before, the
    # threat search took a forced block for a threat only if it made one.)
    board = Board.parse("....../.XX..O/XO..../..X.O./....O./.X.OOX", k=4)
    assert board.side_to_move is Player.X
    kind, plies, line, _ = _board_threat_win(board, 100_000)
    assert (kind, plies, line[0]) == (2, 5, 2 * 6 + 4)
    assert EXACT.analyze(board).outcome is Outcome.WIN
