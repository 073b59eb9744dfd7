"""The opening book: its format, its cheap entries proved again, and the outcomes
the literature proved for every empty board (``docs/mnk-results.json``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.engine import Board, Engine, Player, Rule, geometry, store
from service.engine.analysis import MoveValue
from service.engine.book import (
    BOOK_PATH,
    LONG_PROOFS,
    STORE_MARKS,
    Book,
    BookEntry,
    build,
    internal_bounds,
    is_wide,
    load,
    main,
    prove,
    shapes,
)
from service.engine.score import Outcome
from tests.engine.oracle import literature, minimax

# Entries whose proof took at most this many nodes are proved again by the tests.
CHEAP = 2_000_000
# Empty boards (both orientations of 91 shapes: 161 boards) whose outcome the
# shipped book proves: all of them, (8,8,5) included.
PROVEN_EMPTY_BOARDS = 161


@pytest.fixture(scope="module")
def book() -> Book:
    return load()


def test_the_book_is_small_and_covers_every_shape(book: Book) -> None:
    assert BOOK_PATH.stat().st_size < 4 * 2**20
    covered = {(e.board.rows, e.board.cols, e.board.k) for e in book.entries}
    assert covered == {(s.rows, s.cols, s.k) for s in shapes()}
    for entry in book.entries:
        assert entry.board.mark_count == 0 and entry.board.side_to_move is Player.X
        assert entry.nodes >= 0 and entry.seconds >= 0 and entry.budget >= 1
        cells = [m.cell for m in entry.moves]
        assert len(cells) == len(set(cells))


def test_every_entry_reads_back_as_written(book: Book) -> None:
    for entry in book.entries:
        assert BookEntry.from_json(entry.to_json()) == entry


@pytest.mark.parametrize(
    "bad",
    [
        {"version": 2, "entries": []},
        {"version": 1, "entries": {}},
        {"version": 1, "entries": [{"rows": 3, "cols": 3, "k": 3, "board": "X" * 9}]},
    ],
)
def test_a_malformed_book_is_refused(bad: object) -> None:
    with pytest.raises(ValueError):
        Book.from_json(bad)


def test_a_malformed_entry_is_refused_naming_its_field(book: Book) -> None:
    entry = {**book.entries[0].to_json(), "rule": 5}
    with pytest.raises(ValueError, match=r"^rule must be text, got 5$"):
        BookEntry.from_json(entry)


def test_the_cheap_entries_prove_again_exactly(book: Book) -> None:
    """The build is deterministic: the same budget proves the same bounds with
    the same node count."""
    cheap = [e for e in book.entries if e.nodes <= CHEAP]
    assert len(cheap) >= len(book.entries) // 2
    for entry in cheap:
        again = prove(entry.board, entry.budget)
        assert (again.moves, again.nodes) == (entry.moves, entry.nodes), entry.board


def test_with_the_book_every_empty_board_has_the_literatures_outcome(book: Book) -> None:
    """Where the book proves every first move, the empty board's outcome is the
    published one, in both orientations; nowhere does it contradict it."""
    engine = Engine(node_budget=10_000)
    book.install(engine)
    complete = 0
    for entry in book.entries:
        shape = entry.board.shape
        if shape.rule is not Rule.FREESTYLE:
            continue  # the literature is of the freestyle game
        for rows, cols in {(shape.rows, shape.cols), (shape.cols, shape.rows)}:
            analysis = engine.analyze(Board(geometry(rows, cols, shape.k), 0, 0, Player.X))
            expected = literature(rows, cols, shape.k)
            if analysis.outcome is not None:
                assert analysis.outcome is expected, (rows, cols, shape.k)
                complete += 1
    assert complete >= PROVEN_EMPTY_BOARDS


def test_the_exact_rules_entries_agree_with_the_reference_where_it_finishes(book: Book) -> None:
    """No literature covers the exact rule: where the plain negamax can solve the
    empty board (12 cells at most), the book's outcome is its value."""
    engine = Engine(node_budget=10_000)
    book.install(engine)
    exact = [e for e in book.entries if e.board.shape.rule is Rule.EXACT]
    assert len(exact) == 70  # every shape where a row of k + 1 fits
    checked = 0
    for entry in exact:
        shape = entry.board.shape
        if shape.cells > 12:
            continue
        for rows, cols in {(shape.rows, shape.cols), (shape.cols, shape.rows)}:
            board = Board(geometry(rows, cols, shape.k, Rule.EXACT), 0, 0, Player.X)
            analysis = engine.analyze(board)
            assert analysis.outcome is not None, (rows, cols, shape.k)
            assert analysis.best_score == minimax(board), (rows, cols, shape.k)
            checked += 1
    assert checked >= 2


def test_make_book_builds_the_shapes_it_is_given_and_keeps_the_rest(
    book: Book, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``python -m service.engine.book --shape ... --out ...``, in process: the
    entries built equal the shipped ones (the build is deterministic), in the
    book's order of shapes, and a later build of one shape keeps the others."""
    out = tmp_path / "book.json"
    main(["--shape", "3x4:3:exact", "--shape", "3x3:3", "--out", str(out)])
    shipped = {e.board.shape: e for e in book.entries}
    built = load(out).entries
    assert [e.board.shape for e in built] == [geometry(3, 3, 3), geometry(3, 4, 3, Rule.EXACT)]
    for entry in built:
        expected = shipped[entry.board.shape]
        assert (entry.moves, entry.nodes, entry.budget) == (
            expected.moves,
            expected.nodes,
            expected.budget,
        )
    # One progress line per shape, in the order given, then the summary.
    progress = capsys.readouterr().out.splitlines()
    for line, entry in zip(progress[:2], reversed(built), strict=True):  # as given
        shape = entry.board.shape
        assert line.startswith(
            f"{shape.rows}x{shape.cols} k={shape.k} {shape.rule}: {len(entry.moves)} move "
            f"classes bounded, {entry.nodes:,} nodes, "
        ), line
    assert progress[2:] == [f"wrote 2 entries to {out} (2 built)"]
    main(["--shape", "3x3:3", "--out", str(out)])
    assert [e.board.cols for e in load(out).entries] == [3, 4]
    assert "wrote 2 entries" in capsys.readouterr().out.splitlines()[-1]
    with pytest.raises(SystemExit):
        main(["--shape", "9x9:3", "--out", str(out)])  # not a shape of the book
    assert "9x9:3 is not a shape of the book" in capsys.readouterr().err


def test_make_books_help_says_what_each_option_does(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert text.split(" options: ")[1] == (
        "-h, --help show this help message and exit "
        "--wide build the shapes with a side of 8 (make book-8x8) and keep the others "
        "--budget BUDGET nodes per board (default: by --wide) "
        "--shape SHAPE build only this shape, ROWSxCOLS:K[:RULE] (e.g. 8x8:5), and keep the rest "
        "--out OUT"
    )


def test_a_shape_with_a_long_proof_is_built_with_its_own_budget_and_table(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """LONG_PROOFS gives (8,8,5) its own budget and table; any shape it names is
    built with them, the others with the budget asked for, and its proof's
    positions near the root are kept in a store. (On 3x5 a 1 KiB table costs
    the proof more nodes than the build's table: the test can tell.)"""
    small_table = 1 << 10
    monkeypatch.setitem(LONG_PROOFS, (3, 5, 3, Rule.FREESTYLE), (10_000_000, small_table))
    built = build(54_321, [geometry(3, 5, 3), geometry(3, 3, 3, Rule.EXACT)], tmp_path)
    assert [entry.budget for entry in built.entries] == [10_000_000, 54_321]
    empty = Board(geometry(3, 5, 3), 0, 0, Player.X)
    engine = Engine(node_budget=10_000_000, table_bytes=small_table, core_only=True)
    assert built.entries[0].nodes == prove(empty, 10_000_000, engine).nodes
    assert built.entries[0].nodes != prove(empty, 10_000_000).nodes
    kept = store.load(tmp_path / "3x5k3.store")
    assert kept.shape == geometry(3, 5, 3)
    assert kept.positions
    assert all((p.x | p.o).bit_count() <= STORE_MARKS for p in kept.positions)
    assert [p.name for p in tmp_path.iterdir()] == ["3x5k3.store"]


def test_internal_bounds_are_what_each_kind_of_move_value_proves() -> None:
    """A move's bounds in the core's terms (the score of a win now is the empty
    cells, of a loss at the next move minus one less): exact, a win or a loss
    proven without its distance (bounded on one side by the proof, on the other
    by the fastest possible end), and an estimate, which proves nothing."""
    empty = Board.parse(".........")
    two_marks = Board.parse("X...O....")
    assert internal_bounds(MoveValue(0, 5, exact=True), empty) == (5, 5)
    assert internal_bounds(MoveValue(0, -4, exact=True), two_marks) == (-2, -2)
    assert internal_bounds(MoveValue(0, 0, exact=True), empty) == (0, 0)
    assert internal_bounds(MoveValue(0, 3, False, Outcome.WIN), empty) == (3, 9)
    assert internal_bounds(MoveValue(0, 5, False, Outcome.WIN), two_marks) == (3, 7)
    assert internal_bounds(MoveValue(0, -2, False, Outcome.LOSS), empty) == (-8, -2)
    assert internal_bounds(MoveValue(0, -4, False, Outcome.LOSS), two_marks) == (-6, -2)
    assert internal_bounds(MoveValue(0, 0.25, exact=False), empty) is None
    assert internal_bounds(MoveValue(0, -0.5, False, no_win=True), two_marks) is None


def test_make_book_8x8_builds_the_shapes_with_a_side_of_8() -> None:
    assert [is_wide(geometry(r, c, 5)) for r, c in [(7, 7), (7, 8), (8, 7), (8, 8)]] == [
        False,
        True,
        True,
        True,
    ]
