"""What the fuzzer drives: one input (bytes) becomes one call of the library's
boundary, and anything but a clear refusal or an answer is a finding.

The input is read by :class:`Reader`, a small decoder of our own (so that the
corpus replays in ``tests/fuzz/test_corpus.py`` without the fuzzer installed):
its first byte picks the entry point, the rest its arguments. The arguments
start from real ones (a shape's lines and symmetries, a legal position) and
are bent from there (a number changed, an item dropped or replaced, a budget
at the edge of its range), so that most inputs pass the first checks and
reach the code behind them. Every search gets a deadline or a small budget:
an input runs in milliseconds.

A finding is a crash (the sanitizer build aborts on any out-of-bounds access,
use after free or undefined behaviour), an exception other than the refusals
in :data:`REFUSALS`, or a refusal without a message.
"""

from __future__ import annotations

import math
import struct
import time
from collections.abc import Callable
from typing import Any

from service.engine import Board, Engine, _core, geometry
from service.engine.search import MAX_BUDGET, MAX_TABLE_BYTES, core_shape, shape_arguments

# What the boundary may answer with besides a result: each says what was wrong
# (and RuntimeError only for a second __init__: see one_input()).
REFUSALS = (ValueError, TypeError, OverflowError, RuntimeError, MemoryError)

EDGES = [0, 1, 2, 3, 7, 8, 9, 20, 21, 48, 49, 63, 64, 65, 127, 128, 255, 256, 399, 400]
EDGES += [-1, -2, -(2**31), 2**31 - 1, 2**31, 2**32, 2**62, 2**62 + 1, 2**63 - 1, 2**63]
EDGES += [2**64 - 1, 2**64, 10**30, -(10**30)]
DEADLINE_S = 0.02  # each search's deadline: inputs stay fast
SMALL_BUDGET = 2_000


class Reader:
    """Reads typed values off the front of the input; past its end, zeros."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def byte(self) -> int:
        if self.at >= len(self.data):
            return 0
        self.at += 1
        return self.data[self.at - 1]

    def below(self, n: int) -> int:
        """A number from 0 to n - 1 (0 when n < 1)."""
        if n < 1:
            return 0
        value = 0
        for _ in range(max(1, (n.bit_length() + 7) // 8)):
            value = value << 8 | self.byte()
        return value % n

    def choice(self, items: list[Any]) -> Any:
        return items[self.below(len(items))]

    def flag(self) -> bool:
        return self.byte() & 1 == 1

    def integer(self, low: int, high: int) -> int:
        """Mostly in [low, high], sometimes an edge of some other range."""
        if self.byte() < 32:
            return int(self.choice(EDGES))
        return low + self.below(high - low + 1)

    def blob(self, limit: int) -> bytes:
        n = self.below(limit + 1)
        chunk = self.data[self.at : self.at + n]
        self.at += len(chunk)
        return chunk

    def real(self) -> float:
        raw = self.blob(8).ljust(8, b"\0")
        return float(struct.unpack("<d", raw)[0])


def bent(r: Reader, items: list[Any], make: Callable[[Reader], Any]) -> list[Any]:
    """``items`` with up to three changes: an item replaced, dropped or added."""
    items = list(items)
    for _ in range(r.below(4)):
        kind = r.below(4)
        where = r.below(len(items) + 1)
        if kind == 0 and where < len(items):
            items[where] = make(r)
        elif kind == 1 and where < len(items):
            del items[where]
        elif kind == 2:
            items.insert(where, make(r))
    return items


def odd_item(r: Reader) -> Any:
    """A cell number, or something that is not one."""
    return r.choice([r.integer(0, 63), r.integer(-5, 70), "3", 2.5, None, [1], True])


def small_shape(r: Reader) -> Any:
    """A core Shape: usually a real one, sometimes built from bent arguments."""
    rows, cols = r.integer(3, 8), r.integer(3, 8)
    k = r.integer(3, 8)
    try:
        shape = geometry(rows, cols, k, r.choice(["freestyle", "exact"]))
    except REFUSALS:
        shape = geometry(3, 3, 3)
    if shape.cells > _core.SMALL_MAX_CELLS or max(shape.rows, shape.cols) > 8:
        shape = geometry(3, 3, 3)
    if r.byte() < 200:
        return core_shape(shape)
    arguments = list(shape_arguments(shape))
    which = r.below(len(arguments))
    if which < 4:
        arguments[which] = r.integer(0, 9)
    else:
        arguments[which] = [
            bent(r, list(item), odd_item) if isinstance(item, (list, tuple)) else item
            for item in bent(r, list(arguments[which]), odd_item)
        ]
    return _core.Shape(*arguments)


def bits(r: Reader, cells: int) -> Any:
    """A bitboard: usually of ``cells`` cells, sometimes anything."""
    if r.byte() < 16:
        return r.choice([-1, 2**64, 2**80, "x", None, 1.5])
    return r.below(1 << cells) if r.flag() else r.integer(0, 2**64 - 1)


def control(r: Reader) -> Any:
    return r.choice([None, _core.Control(time.monotonic() + DEADLINE_S), "not a control"])


def table(r: Reader) -> Any:
    if r.byte() < 16:
        return r.choice([_core.Table.__new__(_core.Table), None])
    return _core.Table(1 << 16)


def budget(r: Reader) -> int:
    return r.integer(1, SMALL_BUDGET)


def fuzz_table(r: Reader) -> None:
    size = r.integer(0, 1 << 20)
    if 1 << 24 < size <= MAX_TABLE_BYTES:
        size = 1 << 24  # a table that size is legal, and would only cost memory
    created = _core.Table(size)
    created.stats()
    if r.flag():
        created.clear()
    if r.flag():
        created.__init__(r.integer(0, 1 << 16))  # type: ignore[misc]


def fuzz_analyze(r: Reader) -> None:
    shape = small_shape(r)
    x, o = bits(r, 64), bits(r, 64)
    total = r.integer(1, SMALL_BUDGET)
    outcome = r.integer(1, total)
    distance = r.integer(outcome, total)
    # A budget past the small ones only with a deadline: the search stays short.
    ctl = _core.Control(time.monotonic() + DEADLINE_S) if r.flag() else control(r)
    if ctl is not None and not isinstance(ctl, str) and r.flag():
        total = distance = r.choice([MAX_BUDGET, total])
    _core.analyze(shape, table(r), x, o, r.flag(), total, outcome, distance, ctl)


def fuzz_store(r: Reader) -> None:
    shape, where = small_shape(r), table(r)
    x, o, x_to_move = bits(r, 9), bits(r, 9), r.flag()
    lower, upper = r.integer(-50, 50), r.integer(-50, 50)
    _core.store(shape, where, x, o, x_to_move, lower, upper)
    _core.analyze(shape, where, x, o, x_to_move, SMALL_BUDGET, 100, SMALL_BUDGET)


def fuzz_knowledge(r: Reader) -> None:
    shape = small_shape(r)
    x, o, x_to_move = bits(r, 9), bits(r, 9), r.flag()
    kind = r.below(4)
    if kind == 0:
        _core.heuristic(shape, x, o, x_to_move, r.integer(-1, 48))
    elif kind == 1:
        _core.pairing(shape, x, o, x_to_move)
    elif kind == 2:
        nodes = budget(r)
        _core.threat_win(shape, x, o, x_to_move, nodes)
        _core.quiet_threat_win(shape, x, o, x_to_move, nodes)
    else:
        _core.can_win(shape, table(r), x, o, x_to_move, r.flag(), budget(r), control(r))


def big_dimensions(r: Reader) -> tuple[int, int, int, int]:
    """Rows, cols, k and the core's rule number (a few out of range: refused)."""
    return r.integer(3, 20), r.integer(3, 20), r.integer(3, 20), r.integer(-1, 3)


def fuzz_analyze_big(r: Reader) -> None:
    rows, cols, k, exact = big_dimensions(r)
    x, o = r.blob(60), r.blob(60)
    ctl = _core.Control(time.monotonic() + DEADLINE_S)
    max_depth = r.integer(0, 8)
    _core.analyze_big(rows, cols, k, exact, table(r), x, o, r.flag(), budget(r), ctl, max_depth)
    if r.flag():  # (read past the inputs kept before it: zeros, so they stay as they were)
        _core.big_threat_win(rows, cols, k, exact, x, o, r.flag(), budget(r))


def fuzz_big_board(r: Reader) -> None:
    rows, cols, k, exact = big_dimensions(r)
    moves = [r.integer(-1, 399) for _ in range(r.below(80))]
    if r.flag():  # (past the moves: an input that ends there still plays big_board)
        _core.big_candidates(rows, cols, k, exact, moves)
    else:
        _core.big_board(rows, cols, k, exact, moves)


def fuzz_renju(r: Reader) -> None:
    """Renju's forbidden moves, of a position and of a game's moves."""
    rows, cols = r.integer(3, 21), r.integer(3, 21)
    if r.flag():
        _core.renju_forbidden(rows, cols, r.blob(60), r.blob(60))
    else:
        moves = [r.choice([r.integer(-2, 401), "h8", None]) for _ in range(r.below(120))]
        _core.renju_first_forbidden(rows, cols, moves)


def fuzz_control(r: Reader) -> None:
    made = _core.Control(r.choice([None, r.real(), r.integer(0, 10), "soon"]))
    made.shorten(r.real())
    if r.flag():
        made.cancel()
    deadline = made.deadline
    assert deadline is None or not math.isnan(deadline), deadline


ENGINE = Engine(node_budget=SMALL_BUDGET, table_bytes=1 << 20, answer_entries=64)


def fuzz_board(r: Reader) -> None:
    """Board text or a move list, as a client sends them, then a short search."""
    text = r.blob(64).decode("latin-1")
    rows = r.choice([None, r.integer(3, 20)])
    k = r.choice([None, r.integer(3, 20)])
    rule = r.choice(["freestyle", "exact", "renju", "other"])
    if r.flag():
        board = Board.parse(text, rows=rows, cols=rows, k=k, rule=rule)
    else:
        moves = [r.choice([r.integer(0, 399), text[:3]]) for _ in range(r.below(40))]
        board = Board.from_moves(moves, rows=rows, cols=rows, k=k, rule=rule)
    if not board.is_game_over():
        ENGINE.analyze(board, deadline=time.monotonic() + DEADLINE_S)


TARGETS: list[Callable[[Reader], None]] = [
    fuzz_table,
    fuzz_analyze,
    fuzz_store,
    fuzz_knowledge,
    fuzz_analyze_big,
    fuzz_big_board,
    fuzz_control,
    fuzz_board,
    fuzz_renju,
]


def one_input(data: bytes) -> None:
    """Run one input; raises only on a finding."""
    r = Reader(data)
    target = TARGETS[r.below(len(TARGETS))]
    try:
        target(r)
    except REFUSALS as refusal:
        if isinstance(refusal, RuntimeError) and "initialised once" not in str(refusal):
            raise  # RecursionError, NotImplementedError and the like are findings
        if not str(refusal) and not isinstance(refusal, MemoryError):
            raise AssertionError(f"{target.__name__}: a refusal without a message") from refusal
