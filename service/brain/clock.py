"""The brain's clock: how long a move may search, from the manager's limits.

Stated once (``Clock.think_seconds``): a move may search for TURN_SHARE of
``timeout_turn``, capped, where a match clock runs (``time_left``, with or
without ``timeout_match``), by the time left shared among the moves still
expected (``moves_left()``: fewer as the board fills). From that comes off a
margin for reading, writing and the search's own stop: SAFETY_MS and the
longest lag past its deadline the brain has measured in this process
(decaying, so one slow move does not cost the rest of the game). Never less
than MIN_THINK_MS.

"Until told" (``None``): a turn of UNLIMITED_TURN_MS or more, Yixin-Board's
"unlimited" setting, with no match clock running or a match of
UNLIMITED_MATCH_MS or more (what Yixin-Board sends beside it; Rapfi reads the
pair as no limit). Then the search runs until ``STOP``, ``YXSTOP`` or ``END``
(or its node cap). A ``time_left`` of NO_MATCH_LIMIT_MS is the protocol's
"the match is unlimited"; under 0, the protocol's "out of time": the floor.
"""

from __future__ import annotations

from dataclasses import dataclass

TURN_SHARE = 0.9  # what a move may take of its share of the clock
SAFETY_MS = 20
MIN_THINK_MS = 20
LAG_DECAY = 0.9  # the measured lag's peak, kept from move to move, shrinks by this
# A match clock is shared among the moves still expected: MATCH_MOVES at the
# start, one fewer for every MOVES_PER_STONE stones on the board, never under
# MIN_MOVES_LEFT.
MATCH_MOVES = 30
MOVES_PER_STONE = 4
MIN_MOVES_LEFT = 10
DEFAULT_TURN_MS = 5_000  # until the manager says otherwise
UNLIMITED_TURN_MS = 2_000_000
UNLIMITED_MATCH_MS = 100_000_000
NO_MATCH_LIMIT_MS = 2_147_483_647


@dataclass
class Clock:
    """The manager's time limits, in milliseconds (0: none, as the protocol
    says), and the lag the brain has measured past its own deadlines."""

    turn_ms: int = DEFAULT_TURN_MS
    match_ms: int = 0
    left_ms: int | None = None
    lag_ms: float = 0.0

    def match_clock_runs(self) -> bool:
        """Whether a match clock limits the moves: ``time_left`` given (alone
        is enough) and not the protocol's "unlimited"."""
        if self.left_ms is None or self.left_ms >= NO_MATCH_LIMIT_MS:
            return False
        # 0 with no match limit is a manager's "nothing to say"; under 0 is out of time.
        return self.match_ms > 0 or self.left_ms != 0

    def think_seconds(self, stones: int = 0) -> float | None:
        """How long the next move may search, with ``stones`` on the board;
        None: until told to stop."""
        if self.turn_ms >= UNLIMITED_TURN_MS and (
            self.match_ms >= UNLIMITED_MATCH_MS or not self.match_clock_runs()
        ):
            return None
        share = self.turn_ms * TURN_SHARE if self.turn_ms > 0 else MIN_THINK_MS
        if self.left_ms is not None and self.match_clock_runs():
            share = min(share, max(0, self.left_ms) / moves_left(stones))
        return max(MIN_THINK_MS, share - SAFETY_MS - self.lag_ms) / 1000

    def measured(self, think_seconds: float | None, spent_seconds: float) -> None:
        """A move meant to take ``think_seconds`` took ``spent_seconds``: keep
        the lag's decaying peak, and take the time off the match clock. A
        search until told has no deadline to be late for."""
        if think_seconds is not None:
            lag = (spent_seconds - think_seconds) * 1000
            self.lag_ms = max(lag, self.lag_ms * LAG_DECAY, 0.0)
        if self.left_ms is not None and self.left_ms < NO_MATCH_LIMIT_MS:
            self.left_ms -= int(spent_seconds * 1000)  # under 0: out of time


def moves_left(stones: int) -> int:
    """The moves a match clock is shared among, with ``stones`` on the board.

    >>> moves_left(0), moves_left(40), moves_left(200)
    (30, 20, 10)
    """
    return max(MIN_MOVES_LEFT, MATCH_MOVES - stones // MOVES_PER_STONE)
