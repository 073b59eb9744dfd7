"""The store of proven positions (store.py): what an offline proof established
near the root, kept, checked at load and installed.

The shipped store ((8,8,5), built by ``make book-8x8``) is checked too: a
sample of its positions proven again from scratch, and its empty board
against the literature.
"""

from __future__ import annotations

import logging
import random
from pathlib import Path

import pytest

from service.engine import Board, Engine, Outcome, Player, _core, geometry, store
from service.engine.search import core_shape
from tests.engine.oracle import literature


@pytest.fixture(scope="module")
def proven() -> tuple[Engine, store.Store]:
    """(6,6,4) proven from the empty board, and what its table keeps of it."""
    engine = Engine(node_budget=50_000_000, table_bytes=1 << 26, core_only=True)
    board = Board(geometry(6, 6, 4), 0, 0, Player.X)
    assert engine.search(board).outcome is not None
    return engine, store.collect(engine, board.shape, 6)


def test_a_store_keeps_the_proofs_positions_up_to_its_marks(
    proven: tuple[Engine, store.Store],
) -> None:
    engine, kept = proven
    assert len(kept.positions) > 100
    assert max((p.x | p.o).bit_count() for p in kept.positions) == 6
    fewer = store.collect(engine, kept.shape, 3)
    assert set(fewer.positions) == {p for p in kept.positions if (p.x | p.o).bit_count() <= 3}
    assert fewer.positions == tuple(sorted(fewer.positions, key=lambda p: (p.x, p.o, p.x_to_move)))


def test_a_store_survives_its_file_byte_for_byte(proven: tuple[Engine, store.Store]) -> None:
    _, kept = proven
    data = kept.to_bytes()
    assert store.Store.from_bytes(data) == kept
    assert store.Store.from_bytes(data).to_bytes() == data


def test_every_stored_bound_holds_against_a_fresh_proof(proven: tuple[Engine, store.Store]) -> None:
    """A sample of the positions, each proven again in a fresh engine: its exact
    value lies within the stored bounds."""
    _, kept = proven
    rng = random.Random(7)
    for position in rng.sample(kept.positions, 25):
        board = kept.board(position)
        if board.is_game_over():
            continue
        value = _exact_internal_value(board)
        assert position.lower <= value <= position.upper, (board, position)


def test_an_installed_store_answers_from_its_bounds(proven: tuple[Engine, store.Store]) -> None:
    """Installed, the stored bounds are in the table: a proof search of one node
    finds, for every stored position whose mover cannot win, that it cannot,
    where a fresh table knows it of few."""
    _, kept = proven
    shape = core_shape(kept.shape)
    primed, fresh = Engine(table_bytes=1 << 24), Engine(table_bytes=1 << 24)
    assert kept.install(primed) == len(kept.positions)
    bounded = [p for p in kept.positions if p.upper <= 0]
    assert len(bounded) > 50

    def known(engine: Engine) -> int:
        return sum(
            _core.can_win(shape, engine.table, p.x, p.o, p.x_to_move, p.x_to_move, 1)[0] is False
            for p in bounded
        )

    assert known(primed) == len(bounded)
    assert known(fresh) < len(bounded) // 2


@pytest.mark.parametrize("where", ["header", "record", "digest"])
def test_a_store_with_one_byte_changed_is_refused(
    proven: tuple[Engine, store.Store], where: str
) -> None:
    data = bytearray(proven[1].to_bytes())
    at = {"header": 12, "record": 40, "digest": len(data) - 1}[where]
    data[at] ^= 0x01
    with pytest.raises(store.StoreError, match="digest"):
        store.Store.from_bytes(bytes(data))


@pytest.mark.parametrize("keep", [0, 20, -1, -33])
def test_a_truncated_store_is_refused(proven: tuple[Engine, store.Store], keep: int) -> None:
    data = proven[1].to_bytes()
    with pytest.raises(store.StoreError):
        store.Store.from_bytes(data[:keep])


def test_a_store_whose_digest_checks_but_says_nonsense_is_refused(
    proven: tuple[Engine, store.Store],
) -> None:
    """A file written wrong (not damaged on the way) is refused by its contents."""
    _, kept = proven
    bad_bounds = store.StoredPosition(0, 0, True, 5, 1)
    too_many = store.StoredPosition(0b1111111, 0, True, 0, 0)
    for position, message in ((bad_bounds, "out of order"), (too_many, "not a position")):
        wrong = store.Store(kept.shape, kept.max_marks, (position,))
        with pytest.raises(store.StoreError, match=message):
            store.Store.from_bytes(wrong.to_bytes())


def test_a_damaged_store_is_logged_and_left_out(
    proven: tuple[Engine, store.Store], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """At start-up (install_all) a damaged store costs only its positions: the
    others are installed, and the error names the file."""
    _, kept = proven
    good = kept.to_bytes()
    (tmp_path / "a.store").write_bytes(good)
    (tmp_path / "b.store").write_bytes(good[:-1] + bytes([good[-1] ^ 0xFF]))
    engine = Engine(table_bytes=1 << 24)
    with caplog.at_level(logging.ERROR, logger="service.engine"):
        assert store.install_all(engine, tmp_path) == len(kept.positions)
    [record] = caplog.records
    assert "b.store left out" in record.getMessage()


# The shipped store.

SHIPPED = store.path_for(geometry(8, 8, 5))


def test_the_shipped_store_loads_and_holds_the_literatures_empty_board() -> None:
    shipped = store.load(SHIPPED)
    assert shipped.shape == geometry(8, 8, 5)
    [empty] = [p for p in shipped.positions if p.x == p.o == 0]
    assert literature(8, 8, 5) is Outcome.DRAW
    assert empty.lower <= 0 <= empty.upper
    assert list(store.paths()) == [SHIPPED]


def test_a_sample_of_the_shipped_store_proves_again_from_scratch() -> None:
    """Positions of the shipped store with 6 marks, each bound proven again by
    a fresh proof search (can the side it bounds win?) with a budget; every
    answer agrees, and most are answered."""
    shipped = store.load(SHIPPED)
    shape = core_shape(shipped.shape)
    rng = random.Random(11)
    fullest = [p for p in shipped.positions if (p.x | p.o).bit_count() == 6]
    answered = 0
    for p in rng.sample(fullest, 12):
        table = Engine(table_bytes=1 << 24).table
        # An upper bound of 0 or less: the mover cannot win; a lower bound of 0
        # or more: the other side cannot.
        for attacker_is_mover, holds in ((True, p.upper <= 0), (False, p.lower >= 0)):
            if not holds:
                continue
            attacker_x = p.x_to_move == attacker_is_mover
            wins, _ = _core.can_win(shape, table, p.x, p.o, p.x_to_move, attacker_x, 2_000_000)
            assert wins is not True, (p, "the attacker was proven to win")
            answered += wins is False
    assert answered >= 6


def _exact_internal_value(board: Board) -> int:
    engine = Engine(node_budget=50_000_000, table_bytes=1 << 24, core_only=True)
    found = engine.search(board)
    assert found.exact, board
    best = found.best_score
    assert isinstance(best, int)
    marks = board.mark_count
    return best - marks if best > 0 else best + marks if best < 0 else 0
