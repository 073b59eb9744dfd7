"""The brain's clock and rule table, called in C through ctypes on the extension
(``service/brain/native/clock.c``, ``rules.c``): they are tables, tested as
tables (``test_brain.py``, ``test_info.py``, ``test_stop.py``), with no second
copy of either in Python. The structures mirror ``native/brain.h``'s.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from service.engine import Rule, _core

LIBRARY = ctypes.CDLL(_core.__file__)


class BrainClock(ctypes.Structure):
    _fields_ = [
        ("turn_ms", ctypes.c_int64),
        ("match_ms", ctypes.c_int64),
        ("has_left", ctypes.c_int),
        ("left_ms", ctypes.c_int64),
        ("lag_ms", ctypes.c_double),
    ]


class Reading(ctypes.Structure):
    _fields_ = [("plays", ctypes.c_int), ("opening", ctypes.c_int), ("notice", ctypes.c_char * 320)]


LIBRARY.clock_reset.argtypes = [ctypes.POINTER(BrainClock)]
LIBRARY.clock_think_seconds.argtypes = [ctypes.POINTER(BrainClock), ctypes.c_int]
LIBRARY.clock_think_seconds.restype = ctypes.c_double
LIBRARY.clock_measured.argtypes = [ctypes.POINTER(BrainClock), ctypes.c_double, ctypes.c_double]
LIBRARY.read_rule.argtypes = [ctypes.c_int64, ctypes.POINTER(Reading)]
LIBRARY.rule_name.argtypes = [ctypes.c_int]
LIBRARY.rule_name.restype = ctypes.c_char_p


class Clock:
    """The brain's clock as INFO lines set it: ``timeout_turn``,
    ``timeout_match``, ``time_left`` (None: never sent), and the lag measured."""

    def __init__(
        self,
        turn_ms: int | None = None,
        match_ms: int = 0,
        left_ms: int | None = None,
        lag_ms: float = 0.0,
    ) -> None:
        self.state = BrainClock()
        LIBRARY.clock_reset(ctypes.byref(self.state))
        if turn_ms is not None:
            self.state.turn_ms = turn_ms
        self.state.match_ms = match_ms
        self.state.has_left = left_ms is not None
        self.state.left_ms = left_ms or 0
        self.state.lag_ms = lag_ms

    def think_seconds(self, stones: int) -> float | None:
        """How long a move searches with ``stones`` on the board; None: until told."""
        seconds: float = LIBRARY.clock_think_seconds(ctypes.byref(self.state), stones)
        return None if seconds < 0 else seconds

    def measured(self, think_seconds: float, spent_seconds: float) -> None:
        LIBRARY.clock_measured(ctypes.byref(self.state), think_seconds, spent_seconds)

    @property
    def lag_ms(self) -> float:
        return float(self.state.lag_ms)

    @property
    def left_ms(self) -> int:
        return int(self.state.left_ms)


OPENINGS = {0: None, 1: "swap1", 2: "swap2"}  # brain.h's OPENING_*


@dataclass(frozen=True)
class RuleReading:
    plays: Rule
    opening: str | None
    notice: str | None


def read_rule(value: int) -> RuleReading:
    """What ``INFO rule value`` makes the brain play, and what it says."""
    reading = Reading()
    LIBRARY.read_rule(value, ctypes.byref(reading))
    notice = reading.notice.decode()
    return RuleReading(
        Rule(LIBRARY.rule_name(reading.plays).decode()), OPENINGS[reading.opening], notice or None
    )


# -- SWAP2BOARD's method (native/opening.c), with an evaluation of the test's own --

MAX_CELLS = 400  # brain.h's BOARD_CELLS, the core's BIG_MAX_CELLS


class Position(ctypes.Structure):
    _fields_ = [
        ("cols", ctypes.c_int),
        ("rows", ctypes.c_int),
        ("k", ctypes.c_int),
        ("rule", ctypes.c_int),
        ("stone", ctypes.c_uint8 * MAX_CELLS),
        ("x_to_move", ctypes.c_int),
        ("marks", ctypes.c_int),
    ]


class MoveScore(ctypes.Structure):
    _fields_ = [("cell", ctypes.c_int), ("score", ctypes.c_double)]


class Analysis(ctypes.Structure):
    _fields_ = [
        ("count", ctypes.c_int),
        ("moves", MoveScore * MAX_CELLS),
        ("stop", ctypes.c_int),
        ("nodes", ctypes.c_uint64),
    ]


class Answer(ctypes.Structure):
    _fields_ = [("swap", ctypes.c_int), ("count", ctypes.c_int), ("stones", ctypes.c_int * 3)]


EVALUATE = ctypes.CFUNCTYPE(
    ctypes.c_int,
    ctypes.c_void_p,
    ctypes.POINTER(Position),
    ctypes.c_double,
    ctypes.POINTER(Analysis),
)
LIBRARY.opening_choose.argtypes = [
    *(ctypes.c_int,) * 3,
    ctypes.POINTER(ctypes.c_int),
    ctypes.c_int,
    ctypes.c_int,
    EVALUATE,
    ctypes.c_void_p,
    ctypes.POINTER(Answer),
    ctypes.c_char_p,
    ctypes.c_size_t,
]
SWAP_OPENINGS = {"swap1": 1, "swap2": 2}


class StageError(ValueError):
    """A stage SWAP2BOARD cannot answer; the text is the brain's ERROR."""


# A search of the test's own: the stones (cell: 1 Black, 2 White) and the share
# of the turn in, the moves and their scores for the side to move out.
Evaluation = Callable[[dict[int, int], float], dict[int, float]]


def choose(
    size: int, stones: Sequence[int], opening: str, evaluate: Evaluation
) -> tuple[bool, tuple[int, ...]]:
    """SWAP2BOARD's answer on a ``size`` board, freestyle: (True, ()) to
    swap, else (False, the stones placed in play order)."""

    def search(
        context: int | None,
        position: Any,
        share: float,
        out: Any,
    ) -> int:
        board = position.contents
        cells = {cell: board.stone[cell] for cell in range(size * size) if board.stone[cell]}
        ranked = sorted(evaluate(cells, share).items(), key=lambda item: (-item[1], item[0]))
        result = out.contents
        result.count = len(ranked)
        for index, (cell, score) in enumerate(ranked):
            result.moves[index] = MoveScore(cell, score)
        return 0

    answer = Answer()
    error = ctypes.create_string_buffer(512)
    given = (ctypes.c_int * max(1, len(stones)))(*stones)
    freestyle = 0  # the core's RULE_FREESTYLE
    result = LIBRARY.opening_choose(
        size, size, freestyle, given, len(stones), SWAP_OPENINGS[opening],
        EVALUATE(search), None, ctypes.byref(answer), error, len(error),
    )  # fmt: skip
    if result < 0:
        raise StageError(error.value.decode())
    return bool(answer.swap), tuple(answer.stones[: answer.count])
