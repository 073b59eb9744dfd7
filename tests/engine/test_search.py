"""The search: known answers, exhaustive agreement on 3x3, budgets and caches."""

from __future__ import annotations

import threading

import pytest

from service.engine import (
    DEFAULT_NODE_BUDGET,
    Analysis,
    Board,
    Engine,
    GameOverError,
    Outcome,
    Player,
    Status,
    StopReason,
    move_outcome,
    rank_moves,
    suggest,
)
from service.engine.analysis import DISTANCE_SHARE
from service.engine.search import BUCKET_BYTES, BUCKET_SLOTS
from tests.engine.oracle import minimax, move_score, reachable


@pytest.fixture(scope="module")
def solved() -> Engine:
    engine = Engine()
    engine.solve_game()
    return engine


@pytest.mark.parametrize(
    ("text", "kwargs", "best", "score", "result"),
    [
        (".........", {}, (0, 1, 2, 3, 4, 5, 6, 7, 8), 0, Outcome.DRAW),
        ("....X....", {}, (0, 2, 6, 8), 0, Outcome.DRAW),
        ("X........", {}, (4,), 0, Outcome.DRAW),
        ("..X......", {}, (4,), 0, Outcome.DRAW),
        (".X.......", {}, (0, 2, 4, 7), 0, Outcome.DRAW),
        ("XX.OO....", {}, (2,), 9, Outcome.WIN),
        ("XX..O....", {}, (2,), 0, Outcome.DRAW),
        ("X...O...X", {}, (1, 3, 5, 7), 0, Outcome.DRAW),
        ("X.......O", {}, (2, 6), 5, Outcome.WIN),
        ("................", {"k": 4}, tuple(range(16)), 0, Outcome.DRAW),
        ("................", {"k": 3}, (5, 6, 9, 10), 12, Outcome.WIN),
    ],
)
def test_known_answers(
    text: str, kwargs: dict[str, int], best: tuple[int, ...], score: int, result: Outcome
) -> None:
    analysis = Engine().analyze(Board.parse(text, **kwargs))
    assert analysis.exact
    assert (analysis.best_moves, analysis.best_score, analysis.outcome) == (best, score, result)


def test_immediate_win_on_3x3_scores_nine_and_plies_count_the_move() -> None:
    analysis = Engine().analyze(Board.parse("XX.OO...."))
    win = analysis.value_of(2)
    assert (win.score, analysis.move_plies(win)) == (9, 1)
    block_fails = analysis.value_of(6)  # O completes 3-4-5 next
    assert (block_fails.score, analysis.move_plies(block_fails)) == (-8, 2)


def test_every_3x3_move_score_matches_plain_minimax(solved: Engine) -> None:
    """All 4,520 positions in play: the alpha-beta engine, cold and from the
    start-up solve, agrees with a plain minimax on the score of every move."""
    cold = Engine()
    for board in reachable():
        if board.is_game_over():
            continue
        expected = {cell: move_score(board, cell) for cell in board.empty_cells()}
        for engine in (cold, solved):
            analysis = engine.analyze(board)
            assert analysis.exact and analysis.depth == len(expected)
            assert {m.cell: m.score for m in analysis.moves} == expected, repr(board)
            assert analysis.best_score == minimax(board)


def test_3x3_games_where_o_starts(solved: Engine) -> None:
    for board in reachable(Player.O):
        if not board.is_game_over():
            analysis = solved.analyze(board)
            assert {m.cell: m.score for m in analysis.moves} == {
                c: move_score(board, c) for c in board.empty_cells()
            }


def test_best_move_never_turns_a_non_losing_position_into_a_loss(solved: Engine) -> None:
    for board in reachable():
        if board.is_game_over():
            continue
        analysis = solved.analyze(board)
        if analysis.best_score >= 0:
            for cell in analysis.best_moves:
                child = board.play(cell)
                if not child.is_game_over():
                    assert minimax(child) <= 0, (board, cell)


@pytest.mark.parametrize("engine_side", [Player.X, Player.O])
def test_engine_never_loses_against_every_sequence_of_replies(
    solved: Engine, engine_side: Player
) -> None:
    games = 0

    def play(board: Board) -> None:
        nonlocal games
        if board.is_game_over():
            games += 1
            assert board.winner in (None, engine_side), repr(board)
            return
        if board.side_to_move is engine_side:
            play(board.play(suggest(solved.analyze(board)).cell))
        else:
            for cell in board.empty_cells():
                play(board.play(cell))

    play(Board.empty())
    assert games > 50  # every reply sequence was played out


def test_finished_games_have_no_moves() -> None:
    with pytest.raises(GameOverError):
        Engine().analyze(Board.parse("XXXOO...."))
    with pytest.raises(GameOverError):
        Engine().analyze(Board.parse("XXOOOXXOX"))


def test_ranking_is_one_sort_key_best_first() -> None:
    analysis = Engine().analyze(Board.parse("X.......O"))
    assert analysis.moves == rank_moves(analysis.moves)
    keys = [(-m.score, m.cell) for m in analysis.moves]
    assert keys == sorted(keys)


# The positions that took most nodes in bench/budget_sweep.py (every 4x4 position
# with one or two marks, either side first, cold), and the empty boards.
HARDEST_4X4 = [
    Board.parse("..../..../..../..X."),
    Board.parse("..../X..O/O.../...."),
    Board.parse("...O/..../..../...X", k=3),
]


def test_default_budget_solves_the_hardest_opening_positions_of_4x4() -> None:
    """Cold, each exact within the share of the default budget the solve may use."""
    openings = [Board.parse("................", k=k) for k in (3, 4)]
    boards = [b for empty in openings for b in (empty, *(empty.play(c) for c in (0, 1, 5)))]
    for board in boards + HARDEST_4X4:
        analysis = Engine().analyze(board)
        assert analysis.exact, (board, analysis.nodes)
        assert analysis.nodes <= DEFAULT_NODE_BUDGET * DISTANCE_SHARE


def test_5x5_k4_from_empty_is_estimated_within_the_budget() -> None:
    engine = Engine(node_budget=20_000)
    analysis = engine.analyze(Board.parse("." * 25, k=4))
    assert not analysis.exact
    assert analysis.outcome is None and analysis.plies is None
    assert analysis.depth >= 2
    assert analysis.nodes <= 20_000
    assert all(-1 < m.score < 1 for m in analysis.moves if not m.exact)
    assert engine.stats().searches_exhausted == 1
    assert engine.answers.stats().entries == 0  # estimates are never kept


def test_a_tiny_budget_still_answers_with_depth_one() -> None:
    analysis = Engine(node_budget=1).analyze(Board.parse("." * 49))
    assert (analysis.exact, analysis.depth, len(analysis.moves)) == (False, 1, 49)


HARD_BOARDS = [
    Board.parse("X.O./.X../..O./....", k=3),
    Board.parse("X..O/..../.X../..O.", k=4),
    Board.parse("...../..X../..O../...../.....", k=3),
    Board.parse("XO.../.X.../..O../...../.....", k=4),
    Board.parse("X..../...../..O../.....", k=4),  # 4x5: needs ~10^5 nodes
    Board.parse("....X/...../...../O....", k=4),
]


@pytest.fixture(scope="module")
def truths() -> list[Analysis]:
    truth = Engine(node_budget=10**8)
    return [truth.analyze(board) for board in HARD_BOARDS]


@pytest.mark.parametrize("budget", [50, 300, 2_000])
def test_estimates_claim_only_what_is_proven(budget: int, truths: list[Analysis]) -> None:
    """With budgets too small to solve, every score marked exact is the true one."""
    estimated = 0
    for board, truth in zip(HARD_BOARDS, truths, strict=True):
        assert truth.exact
        estimate = Engine(node_budget=budget).analyze(board)
        estimated += not estimate.exact
        for move in estimate.moves:
            true = truth.value_of(move.cell)
            if move.exact:
                assert move.score == true.score, (board, move)
            elif move.proven is not None:
                assert move.proven == move_outcome(true), (board, move)
                assert abs(move.score) <= abs(true.score), (board, move)  # a bound
            else:
                assert -1 < move.score < 1
    assert estimated >= 2  # the budgets really were too small for some boards


def test_exact_answers_do_not_depend_on_what_was_asked_before() -> None:
    boards = [Board.parse(t, k=4) for t in ("X..O/..../..../....", "..../.X../..O./....")]
    fresh = [Engine().analyze(b) for b in boards]
    busy = Engine(table_bytes=16 * BUCKET_BYTES)  # 16 buckets
    for text in ("." * 25, "X" + "." * 23 + "O", "." * 36):
        busy.analyze(Board.parse(text, k=4), node_budget=3_000)  # estimates, and evictions
    assert [busy.analyze(b) for b in boards] == fresh
    assert busy.stats().positions.evictions > 0
    assert busy.stats().positions.entries <= 16 * BUCKET_SLOTS


def test_cache_counts_hits_and_misses(solved: Engine) -> None:
    engine = Engine()
    board = Board.parse("X...O....")
    engine.analyze(board)
    before = engine.stats()
    assert engine.analyze(board) == engine.analyze(board)
    after = engine.stats()
    assert after.answers.hits == before.answers.hits + 2
    assert after.searches == before.searches  # served from the cache
    assert solved.stats().answers.entries >= 4520


def test_start_up_solve_covers_the_whole_3x3_game() -> None:
    engine = Engine()
    assert engine.solve_game() == 4520
    searches = engine.stats().searches
    for board in reachable():
        if board.status is Status.IN_PROGRESS:
            engine.analyze(board)
    assert engine.stats().searches == searches


def test_concurrent_analyses_agree_with_sequential_ones() -> None:
    boards = [b for b in reachable(rows=3, cols=4, k=3) if not b.is_game_over()][:300:7]
    expected = [Engine().analyze(b) for b in boards]
    shared = Engine(table_bytes=128 * BUCKET_BYTES)
    results: dict[int, Analysis] = {}

    def work(offset: int) -> None:
        for i in range(offset, len(boards), 4):
            results[i] = shared.analyze(boards[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [results[i] for i in range(len(boards))] == expected


def test_observer_sees_every_search() -> None:
    seen: list[tuple[int, float, StopReason | None, int]] = []
    engine = Engine(
        observer=lambda nodes, seconds, stop, side: seen.append((nodes, seconds, stop, side))
    )
    engine.analyze(Board.parse("X........"))
    engine.analyze(Board.parse("X........"))
    engine.analyze(Board.parse("." * 49), node_budget=100)
    engine.analyze(Board.from_moves(["h8"]), node_budget=100)
    assert [(n > 0, stop, side) for n, _, stop, side in seen] == [
        (True, None, 3),
        (True, StopReason.BUDGET, 7),
        (True, StopReason.BUDGET, 15),
    ]


def test_an_estimate_never_passes_a_cached_bound_off_as_a_score() -> None:
    """Regression: a one-sided bound left in the table by an earlier exact solve
    must not come back from a budget-starved search as an exact score."""
    parent = Board.parse("O.O./.X../..O./..XX")
    child = Board.parse("O.OX/.X../..O./..XX")
    engine = Engine()
    engine.analyze(parent)
    for budget in (1, 3, 10, 30, 100):
        for move in engine.search(child, node_budget=budget).moves:
            if move.exact:
                assert move.score == move_score(child, move.cell), (budget, move)
            else:
                assert -1 < move.score < 1
