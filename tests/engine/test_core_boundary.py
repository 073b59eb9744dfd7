"""The compiled core's boundary: what a library caller hands ``_core`` directly
is refused with a clear error where it is wrong, and nothing crashes, reads
freed memory or runs without a bound (``make sanitize`` runs this file against
the AddressSanitizer and UndefinedBehaviorSanitizer build). Each test names the
crash it once was."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from service.engine import Board, Engine, Player, _core, geometry
from service.engine.search import MAX_BUDGET, MAX_TABLE_BYTES, core_shape, shape_arguments

SMALL = geometry(3, 3, 3)


def new_table() -> _core.Table:
    return _core.Table(1 << 20)


def solve_3x3(shape: _core.Shape, table: _core.Table) -> tuple[int, int]:
    """(nodes, stop) of a whole 3x3 analysis from the empty board."""
    _, nodes, _, stop = _core.analyze(shape, table, 0, 0, True, 10**6, 10**6, 10**6)
    return nodes, stop


@pytest.mark.parametrize("size", [-1, 0, 1, 2**64 - 1, 10**30, MAX_TABLE_BYTES + 1])
def test_a_table_size_out_of_range_is_refused_with_the_range(size: int) -> None:
    # -1 once wrapped to 2**64 - 1, the alignment slack overflowed, and the
    # first search wrote past a table smaller than its bucket count (SEGV).
    with pytest.raises(ValueError, match=f"size_bytes must be from .* to {MAX_TABLE_BYTES}"):
        _core.Table(size)


def test_the_engine_refuses_a_negative_table_size() -> None:
    with pytest.raises(ValueError, match="size_bytes"):
        Engine(table_bytes=-1)


def test_a_table_is_initialised_once() -> None:
    table = new_table()
    with pytest.raises(RuntimeError, match="once"):
        table.__init__(1 << 21)  # type: ignore[misc]
    assert table.stats()[5] >= 1 << 20


def test_an_uninitialised_table_is_refused_by_every_entry_point() -> None:
    # Table.__new__ alone has no memory: the first probe dereferenced NULL.
    table = _core.Table.__new__(_core.Table)
    shape = core_shape(SMALL)
    calls = [
        lambda: _core.analyze(shape, table, 0, 0, True, 100, 10, 50),
        lambda: _core.store(shape, table, 0, 0, True, 0, 0),
        lambda: _core.can_win(shape, table, 0, 0, True, True, 100),
        lambda: _core.analyze_big(15, 15, 5, False, table, b"", b"", True, 100),
    ]
    for call in calls:
        with pytest.raises(ValueError, match="the table is not initialised"):
            call()
    table.clear()  # nothing to clear, and nothing breaks
    assert table.stats() == (0, 0, 0, 0, 0, 0)


@pytest.mark.parametrize("budget", [-1, 0, 2**64 - 1, MAX_BUDGET + 1])
def test_a_budget_out_of_range_is_refused_by_every_entry_point(budget: int) -> None:
    # 2**64 - 1 (-1 through the "K" format) once wrapped nodes + allowance, and
    # the root's second phase spun for ever without the GIL, deaf to its
    # deadline and to cancel().
    shape = core_shape(SMALL)
    control = _core.Control(time.monotonic() + 1)
    calls = [
        lambda: _core.analyze(shape, new_table(), 1, 0, False, budget, budget, budget, control),
        lambda: _core.analyze(shape, new_table(), 1, 0, False, 100, budget, 100, control),
        lambda: _core.analyze_big(15, 15, 5, False, new_table(), b"", b"", True, budget, control),
        lambda: _core.can_win(shape, new_table(), 0, 0, True, True, budget, control),
        lambda: _core.threat_win(shape, 0, 0, True, budget),
        lambda: _core.quiet_threat_win(shape, 0, 0, True, budget),
        lambda: _core.big_threat_win(15, 15, 5, 0, b"", b"", True, budget),
    ]
    for call in calls:
        with pytest.raises(ValueError, match=f"must be from 1 to {MAX_BUDGET}"):
            call()


def test_the_engine_refuses_a_budget_past_the_cores_limit() -> None:
    with pytest.raises(ValueError, match="node_budget must be from 1"):
        Engine(node_budget=MAX_BUDGET + 1)
    with pytest.raises(ValueError, match="node_budget must be from 1"):
        Engine().analyze(Board.empty(3, 3, 3), node_budget=MAX_BUDGET + 1)


def test_the_largest_budget_is_searched_to_its_end() -> None:
    nodes, stop = _core.analyze(
        core_shape(SMALL), new_table(), 0, 0, True, MAX_BUDGET, MAX_BUDGET, MAX_BUDGET
    )[1::2]
    assert stop == _core.STOP_NONE and 0 < nodes < 10**6


def test_a_shape_copies_the_callers_lists_before_reading_them() -> None:
    # An item whose __index__ emptied its own list once made the core read
    # freed memory (ASan: SEGV at address 0x8).
    arguments = list(shape_arguments(SMALL))
    lines = [list(line) for line in arguments[4]]
    first = lines[0][0]

    class Emptying:
        def __index__(self) -> int:
            lines[0].clear()
            return first

    lines[0][0] = Emptying()
    arguments[4] = lines
    shape = _core.Shape(*arguments)
    assert lines[0] == []  # the item ran, and changed only the caller's list
    assert solve_3x3(shape, new_table()) == solve_3x3(core_shape(SMALL), new_table())


@pytest.mark.parametrize("argument", [4, 5, 6])
def test_a_shapes_lists_must_be_sequences_of_cells(argument: int) -> None:
    arguments = list(shape_arguments(SMALL))
    arguments[argument] = "not a list of cells"
    with pytest.raises(TypeError, match="must be a sequence of cells"):
        _core.Shape(*arguments)


def test_a_shape_is_initialised_once() -> None:
    shape = _core.Shape(*shape_arguments(SMALL))
    with pytest.raises(RuntimeError, match="once"):
        shape.__init__(*shape_arguments(geometry(7, 7, 5)))  # type: ignore[misc]
    assert solve_3x3(shape, new_table()) == solve_3x3(core_shape(SMALL), new_table())


def test_a_shape_whose_init_failed_is_refused_by_every_entry_point() -> None:
    # A failed __init__ once left a half-written shape (7x7's size with 3x3's
    # lines), and a later search read an uninitialised move (UBSan: shift
    # exponent 191).
    arguments = list(shape_arguments(geometry(7, 7, 5)))
    arguments[4] = shape_arguments(SMALL)[4]  # 3x3's lines of 3 under k = 5
    half_written = _core.Shape.__new__(_core.Shape)
    with pytest.raises(ValueError, match="expected 5 cells"):
        half_written.__init__(*arguments)  # type: ignore[misc]
    for shape in (half_written, _core.Shape.__new__(_core.Shape)):
        for call in shape_entry_points(shape):
            with pytest.raises(ValueError, match="the shape is not initialised"):
                call()


def shape_entry_points(shape: _core.Shape) -> list[Callable[[], object]]:
    return [
        lambda: _core.analyze(shape, new_table(), 0, 0, True, 100, 10, 50),
        lambda: _core.store(shape, new_table(), 0, 0, True, 0, 0),
        lambda: _core.threat_win(shape, 0, 0, True, 100),
        lambda: _core.quiet_threat_win(shape, 0, 0, True, 100),
        lambda: _core.heuristic(shape, 0, 0, True),
        lambda: _core.pairing(shape, 0, 0, True),
        lambda: _core.can_win(shape, new_table(), 0, 0, True, True, 100),
    ]


@pytest.mark.parametrize(
    ("marks", "lower", "upper"),
    [
        ("", 10, 10),  # cells + 1: no search gives it; the search indexed perm[-1]
        ("", -11, 0),
        ("", 3, 2),
        ("X", 9, 9),  # one mark: a win is worth at most the 8 empty cells
        ("XO", -9, 0),  # two marks: a loss at least -(7 + 1)
    ],
)
def test_bounds_no_search_can_give_are_refused(marks: str, lower: int, upper: int) -> None:
    board = Board.parse(marks.ljust(9, "."))
    with pytest.raises(ValueError, match="lower <= upper"):
        _core.store(
            core_shape(SMALL),
            new_table(),
            board.x,
            board.o,
            board.side_to_move is Player.X,
            lower,
            upper,
        )


def test_the_widest_bounds_a_search_can_give_are_kept() -> None:
    table = new_table()
    board = Board.parse("XO.......")
    _core.store(core_shape(SMALL), table, board.x, board.o, True, -8, 7)
    assert table.stats()[2] == 1  # one entry stored


@pytest.mark.parametrize("seconds", [1e-10, 5e-324, 0.0, -1.0, float("nan")])
def test_a_deadline_under_a_nanosecond_is_still_a_deadline(seconds: float) -> None:
    # It once rounded to 0, which the core reads as "no deadline".
    control = _core.Control(seconds)
    assert control.deadline is not None
    shape = core_shape(geometry(7, 7, 5))
    _, _, _, stop = _core.analyze(shape, new_table(), 0, 0, True, 10**9, 10**8, 10**9, control)
    assert stop == _core.STOP_DEADLINE


@pytest.mark.parametrize("stop", ["cancel", "deadline"])
def test_can_win_obeys_its_control(stop: str) -> None:
    # It once released the GIL with no Control: nothing could stop it.
    shape = core_shape(geometry(5, 5, 4))
    found, nodes = _core.can_win(shape, new_table(), 0, 0, True, True, 10**7)
    # 5x5 k=4: a draw, which the zone search proves in more nodes than the
    # 1,024 between two looks at the control.
    assert found is False and nodes > 1024
    control = _core.Control(0.0 if stop == "deadline" else None)
    if stop == "cancel":
        control.cancel()
    found, stopped_nodes = _core.can_win(shape, new_table(), 0, 0, True, True, 10**7, control)
    assert found is None and stopped_nodes < nodes


def test_threat_win_stops_at_its_node_limit() -> None:
    # It once ran VCF with no node limit, holding the GIL.
    board = Board.parse("......./......./..XXX../......./..OO.O./......./.......")
    shape = core_shape(board.shape)
    value, nodes = _core.threat_win(shape, board.x, board.o, True, 10**7)
    assert value > 0 and nodes > 1
    assert _core.threat_win(shape, board.x, board.o, True, 1) == (0, 1)


def test_quiet_threat_win_stops_at_its_node_limit() -> None:
    board = Board.parse(
        "......../X......./......../......../.......O/......../......../.X....O.", k=4
    )
    shape = core_shape(board.shape)
    move, nodes = _core.quiet_threat_win(shape, board.x, board.o, True, 10**7)
    assert move >= 0 and nodes > 100
    assert _core.quiet_threat_win(shape, board.x, board.o, True, 100) == (-1, 100)


def test_a_flank_list_longer_than_two_is_refused_before_it_is_written() -> None:
    # Found by the fuzzer (tests/fuzz/crashes/flank-list-overflow): a line's
    # flanks were read into room for two before their count was checked
    # (ASan: stack-buffer-overflow in read_cell_list).
    arguments = list(shape_arguments(geometry(4, 4, 3, "exact")))
    arguments[7] = [list(range(16))] * len(arguments[4])
    with pytest.raises(ValueError, match="a line's flank: expected 0 to 2 cells, got 16"):
        _core.Shape(*arguments)


def test_a_shape_refuses_an_init_nested_in_its_own() -> None:
    # Found in review: an item's __index__ re-initialised the shape as 3x3
    # while its 7x7 __init__ ran; the outer call then finished (or failed)
    # on a shape marked ready, with 3x3's size and 7x7's lines (UBSan: left
    # shift of a negative value in the search).
    shape = _core.Shape.__new__(_core.Shape)
    arguments = list(shape_arguments(geometry(7, 7, 5)))
    lines = [list(line) for line in arguments[4]]
    first = lines[0][0]
    nested: list[BaseException] = []

    class Reinitialising:
        def __index__(self) -> int:
            try:
                shape.__init__(*shape_arguments(SMALL))  # type: ignore[misc]
            except RuntimeError as refused:
                nested.append(refused)
            return first

    lines[0][0] = Reinitialising()
    arguments[4] = lines
    shape.__init__(*arguments)  # type: ignore[misc]
    assert [str(e) for e in nested] == ["a Shape is initialised once"]
    moves, _, _, _ = _core.analyze(shape, new_table(), 0, 0, True, 10**4, 10**3, 10**4)
    assert len(moves) == 49  # the 7x7 shape it was built as, whole


def test_a_table_refuses_an_init_nested_in_reading_its_size() -> None:
    # Found in review: the size's __index__ initialised the table first; the
    # outer __init__ then mapped a second table over it.
    table = _core.Table.__new__(_core.Table)

    class Reinitialising:
        def __index__(self) -> int:
            table.__init__(1 << 20)  # type: ignore[misc]
            return 1 << 21

    with pytest.raises(RuntimeError, match="initialised once"):
        table.__init__(Reinitialising())  # type: ignore[misc]
    assert table.stats()[5] == 1 << 20  # the inner table, whole


def test_a_control_is_initialised_once() -> None:
    # Found in review: a second __init__ un-cancelled a cancelled search.
    control = _core.Control(time.monotonic() + 60)
    control.cancel()
    with pytest.raises(RuntimeError, match="initialised once"):
        control.__init__(None)  # type: ignore[misc]
    assert control.cancelled and control.deadline is not None
    fresh = _core.Control.__new__(_core.Control)  # usable before its __init__: no deadline
    assert fresh.deadline is None and not fresh.cancelled


def _status(field: str) -> int:
    """A number from /proc/self/status (``Threads``, or ``VmSize`` in KiB)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} in /proc/self/status")


def test_tables_freed_while_they_move_to_huge_pages_are_unmapped() -> None:
    # Found by CI: the move to huge pages blocked the search that asked for it
    # (up to 0.42 s on a loaded machine, a first move 0.36 s past its
    # deadline). It now runs on a thread of its own, which holds the table's
    # memory until it is done: a table freed meanwhile must still be unmapped,
    # once (a second unmap would be a double free under ASan).
    # Not 64 MiB: glibc reserves a malloc arena of 64 MiB for a new thread,
    # and two collapse threads at once may make a second (seen: 1 run in 7).
    # A table is told apart from an arena by its size.
    table_bytes = 96 << 20
    shape = core_shape(geometry(5, 5, 4))

    def table_sized_mappings() -> int:
        """The mappings of this process as large as a table, or larger."""
        count = 0
        for line in Path("/proc/self/maps").read_text().splitlines():
            start, end = (int(address, 16) for address in line.split()[0].split("-"))
            count += end - start >= table_bytes
        return count

    def search_and_free_tables(count: int) -> None:
        for _ in range(count):
            table = _core.Table(table_bytes)
            _core.analyze(shape, table, 0, 0, True, 200_000, 100_000, 160_000)
            assert table.stats()[2] >= 1_024  # past the point where the move starts
            assert table_sized_mappings() > before
            del table
        deadline = time.monotonic() + 120
        while _status("Threads") > threads:  # the moves still running
            assert time.monotonic() < deadline, "a move to huge pages never ended"
            time.sleep(0.01)

    threads = _status("Threads")
    before = table_sized_mappings()
    search_and_free_tables(6)
    assert table_sized_mappings() == before  # not one table left


def big_position(size: int, cells: list[int]) -> tuple[bytes, bytes]:
    """X's and O's stones, alternating from X, as analyze_big takes them."""
    nbytes = (size * size + 7) // 8
    x = sum(1 << c for c in cells[0::2]).to_bytes(nbytes, "little")
    o = sum(1 << c for c in cells[1::2]).to_bytes(nbytes, "little")
    return x, o


def test_a_game_context_carries_from_move_to_move_and_across_boards() -> None:
    """One context, a game's moves one after another, then other boards (its
    memo keys hold the shape): each answer as legal as without it."""
    context = _core.Context()
    table = new_table()
    played = [112, 113, 127, 97, 142]
    for moves in range(1, len(played) + 1):
        x, o = big_position(15, played[:moves])
        found, nodes, *_ = _core.analyze_big(
            15, 15, 5, False, table, x, o, moves % 2 == 0, 20_000, None, 0, context
        )
        assert found and nodes > 0
        assert all(cell not in played[:moves] and 0 <= cell < 225 for cell, *_ in found)
    for size, exact in ((20, False), (9, True), (15, True)):
        x, o = big_position(size, [size * size // 2])
        found, *_ = _core.analyze_big(
            size, size, 5, exact, table, x, o, False, 5_000, None, 0, context
        )
        assert all(0 <= cell < size * size for cell, *_ in found)


def test_a_game_context_is_refused_to_a_second_analysis_while_one_runs() -> None:
    context = _core.Context()
    control = _core.Control(time.monotonic() + 60)
    x, o = big_position(15, [112])
    first = threading.Thread(
        target=_core.analyze_big,
        args=(15, 15, 5, False, new_table(), x, o, False, MAX_BUDGET, control, 0, context),
    )
    first.start()
    try:
        refused = False
        for _ in range(400):  # until the first is seen running
            try:
                _core.analyze_big(15, 15, 5, False, new_table(), x, o, False, 100, None, 0, context)
            except ValueError as error:
                assert "in use" in str(error)
                refused = True
                break
            time.sleep(0.025)
        assert refused
    finally:
        control.cancel()
        first.join(timeout=30)
    assert not first.is_alive()
    # Free again once the first has stopped.
    found, *_ = _core.analyze_big(15, 15, 5, False, new_table(), x, o, False, 100, None, 0, context)
    assert found
    with pytest.raises(TypeError, match="context must be a Context"):
        _core.analyze_big(15, 15, 5, False, new_table(), x, o, False, 100, None, 0, object())


def test_the_candidates_refuse_what_big_board_refuses() -> None:
    with pytest.raises(ValueError, match="empty cell"):
        _core.big_candidates(15, 15, 5, 0, [112, 112])
    with pytest.raises(ValueError, match="take back"):
        _core.big_candidates(15, 15, 5, 0, [-1])
    with pytest.raises(ValueError):
        _core.big_candidates(3, 3, 5, 0, [])
    with pytest.raises(TypeError):
        _core.big_candidates(15, 15, 5, 0, None)
    # Every move taken back again: the empty board's one candidate, its centre.
    assert [cell for cell, _ in _core.big_candidates(15, 15, 5, 0, [112, 30, -1, -1])] == [112]
