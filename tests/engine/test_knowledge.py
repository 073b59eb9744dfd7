"""The search's knowledge, checked rather than trusted: pairing certificates are
replayed against every reply, and wins by continuous threats and the zone
search's proofs (who can force a win) against the reference solver."""

from __future__ import annotations

import random

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from service.engine import GENERAL_RULES, Board, Engine, Player, _core, geometry
from service.engine.search import core_shape
from tests.engine.oracle import minimax, move_score

THREAT_NODES = 10**7  # far more than any of these boards' threat searches take


def pairs_of(board: Board) -> list[tuple[int, int]] | None:
    """A pairing proving that the side to move cannot win, as the core finds it."""
    found = _core.pairing(core_shape(board.shape), board.x, board.o, board.side_to_move is Player.X)
    return None if found is None else [(a, b) for a, b in found]


def attacker_wins_against_pairing(board: Board, attacker: Player, partner: dict[int, int]) -> bool:
    """Whether ``attacker`` completes a line from ``board`` against the defender
    who answers every move in a pair with its partner (and otherwise plays the
    first empty cell), trying every move of the attacker."""
    if board.winner is not None:
        return board.winner is attacker
    if board.is_full():
        return False
    if board.side_to_move is attacker:
        for cell in board.empty_cells():
            child = board.play(cell)
            if child.winner is attacker:
                return True
            if child.is_full():
                continue
            reply = partner.get(cell)
            if reply is None or (child.x | child.o) >> reply & 1:
                reply = child.empty_cells()[0]
            if attacker_wins_against_pairing(child.play(reply), attacker, partner):
                return True
        return False
    # The defender moves first: any move keeps the pairing; take the first empty cell.
    return attacker_wins_against_pairing(board.play(board.empty_cells()[0]), attacker, partner)


@st.composite
def positions(draw: st.DrawFn, max_empties: int) -> Board:
    rows = draw(st.integers(3, 5))
    cols = draw(st.integers(3, 5))
    k = draw(st.integers(3, max(rows, cols)))
    board = Board(geometry(rows, cols, k), 0, 0, draw(st.sampled_from(Player)))
    cells = rows * cols
    order = draw(st.permutations(range(cells)))
    for cell in order[: draw(st.integers(max(0, cells - max_empties), cells - 1))]:
        if board.is_game_over():
            break
        board = board.play(cell)
    assume(not board.is_game_over())
    return board


@settings(max_examples=300)
@given(positions(max_empties=9))
def test_every_pairing_found_holds_against_every_reply(board: Board) -> None:
    pairs = pairs_of(board)
    assume(pairs is not None)
    assert pairs is not None
    cells = [c for pair in pairs for c in pair]
    assert len(cells) == len(set(cells)), "pairs must be disjoint"
    assert all(not (board.x | board.o) >> c & 1 for c in cells), "pairs must be empty cells"
    partner = {a: b for a, b in pairs} | {b: a for a, b in pairs}
    attacker = board.side_to_move
    assert not attacker_wins_against_pairing(board, attacker, partner), (board, pairs)
    assert minimax(board) <= 0  # and the reference agrees that it cannot win


def test_a_pairing_of_each_row_stops_four_in_a_row_on_three_rows() -> None:
    """The textbook certificate (mnk-results.md): on 3 x n boards, k=4 is a draw."""
    for cols in (4, 5, 6, 7):
        board = Board.parse("." * 3 * cols, rows=3, cols=cols, k=4)
        pairs = pairs_of(board)
        assert pairs is not None, cols
        partner = {a: b for a, b in pairs} | {b: a for a, b in pairs}
        if cols <= 5:  # the replay is exhaustive: keep it small
            assert not attacker_wins_against_pairing(board, Player.X, partner)


def test_no_pairing_is_claimed_where_the_side_to_move_can_win() -> None:
    assert pairs_of(Board.parse("XX.OO....")) is None  # X wins at once
    assert pairs_of(Board.parse("................", k=3)) is None  # 4x4 k=3: X wins


@settings(max_examples=400)
@given(positions(max_empties=10))
def test_every_win_by_continuous_threats_is_a_win(board: Board) -> None:
    value, _ = _core.threat_win(
        core_shape(board.shape), board.x, board.o, board.side_to_move is Player.X, THREAT_NODES
    )
    assume(value > 0)
    public = value + board.mark_count  # the core's scores count marks (search.py)
    truth = minimax(board)
    assert truth > 0, board
    assert public <= truth, (board, public, truth)  # a win at least this fast exists


def test_continuous_threats_find_a_win_beyond_a_fixed_depth() -> None:
    """7x7, k=5, X to move: X's two open threes force a win through threats."""
    board = Board.parse("......./......./..XXX../......./..OO.O./......./.......")
    value, _ = _core.threat_win(core_shape(board.shape), board.x, board.o, True, THREAT_NODES)
    assert value > 0


def quiet_threat_win(board: Board) -> int:
    """The first move of the core's win by threats (quiet ones included), or -1."""
    move, _ = _core.quiet_threat_win(
        core_shape(board.shape), board.x, board.o, board.side_to_move is Player.X, THREAT_NODES
    )
    return move


@settings(max_examples=400)
@given(positions(max_empties=10))
def test_every_win_by_quiet_threats_is_a_win(board: Board) -> None:
    move = quiet_threat_win(board)
    assume(move >= 0)
    assert not (board.x | board.o) >> move & 1, board
    assert move_score(board, move) > 0, (board, move)  # the move itself wins


def test_quiet_threats_find_a_win_that_fours_alone_do_not() -> None:
    """5x5, k=4, X to move (found by a random search among late positions): no
    line of fours wins, but a quiet move that threatens one does."""
    board = Board.parse(".X.O./.XO.O/...X./XOX.X/OXOO.", k=4)
    value, _ = _core.threat_win(core_shape(board.shape), board.x, board.o, True, THREAT_NODES)
    assert value == 0
    move = quiet_threat_win(board)
    assert move >= 0
    assert move_score(board, move) > 0


def early_positions(seed: int, count: int, shapes: list[tuple[int, int, int]]) -> list[Board]:
    """``count`` positions of 3 to 12 random marks (fewer where a game ends) on
    the given (rows, cols, k), under both rules, with either side first."""
    rng = random.Random(seed)
    found: list[Board] = []
    while len(found) < count:
        rows, cols, k = rng.choice(shapes)
        rule = rng.choice(GENERAL_RULES)
        board = Board(geometry(rows, cols, k, rule), 0, 0, rng.choice(list(Player)))
        for _ in range(rng.randint(3, 12)):
            board = board.play(rng.choice(board.empty_cells()))
            if board.is_game_over():
                break
        if not board.is_game_over():
            found.append(board)
    return found


def test_the_quiet_threat_wins_on_boards_up_to_6x6_are_wins_by_the_exact_search() -> None:
    """Where no line of fours wins, the threat search's claims (quiet threats
    and all) checked against the exact search, which proves these boards
    without it (it runs at the root from 50 cells only): a claimed first move
    the exact search does not prove a win is a failure."""
    quiet = 0
    for board in early_positions(29, 200, [(5, 5, 4), (5, 6, 4), (6, 6, 4), (6, 6, 5)]):
        move = quiet_threat_win(board)
        shape, x_to_move = core_shape(board.shape), board.side_to_move is Player.X
        if move < 0 or _core.threat_win(shape, board.x, board.o, x_to_move, THREAT_NODES)[0]:
            continue
        analysis = Engine(table_bytes=1 << 22).analyze(board, node_budget=10**7)
        value = {m.cell: m for m in analysis.moves}[move]
        if value.exact or value.proven is not None:
            assert value.score > 0, (board, move, value)
            quiet += 1
    assert quiet >= 20, quiet  # (23 with this seed: the test checks what it says)


def can_win(board: Board, attacker: Player, nodes: int = 10**7) -> bool | None:
    """The zone search's answer: whether ``attacker`` can force a win; None: unknown."""
    table = _core.Table(1 << 20)
    found, _ = _core.can_win(
        core_shape(board.shape),
        table,
        board.x,
        board.o,
        board.side_to_move is Player.X,
        attacker is Player.X,
        nodes,
    )
    return found


@settings(max_examples=400)
@given(positions(max_empties=11), st.sampled_from(Player), st.booleans())
def test_every_zone_proof_agrees_with_the_reference(
    board: Board, attacker: Player, passed: bool
) -> None:
    """Both answers, for either side as the attacker, and also with the side to
    move passing (the analysis proves "the opponent cannot win after any move"
    on that position)."""
    if passed:
        board = Board(board.shape, board.x, board.o, board.side_to_move.other)
        assume(not board.is_game_over())
    found = can_win(board, attacker)
    assert found is not None, board  # 10 million nodes settle any of these
    truth = minimax(board)
    assert found == (truth > 0 if attacker is board.side_to_move else truth < 0), (board, truth)


def test_the_zone_search_proves_that_nobody_wins_7x7_with_five_in_a_row() -> None:
    """(7,7,5) is a draw (Hsu et al., 2020): neither side can force a win."""
    empty = Board.parse("......./......./......./......./......./......./.......", k=5)
    assert can_win(empty, Player.X) is False
    assert can_win(empty, Player.O) is False


def test_the_zone_search_finds_a_forced_win() -> None:
    """6x5, k=4: a first-player win (Charatsidis 2017), and a quick one once X
    holds the centre of a row."""
    board = Board.parse("....../....../..XX../....../.O....", k=4)
    assert can_win(board, Player.X) is True
