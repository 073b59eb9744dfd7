"""The engine as a Gomocup brain: the "Gomoku AI protocol" over stdin and stdout.

Tournament managers (Piskvork, GomocupJudge) and GUIs drive a brain with one
command per line and read one answer per line. This module owns that
translation and the brain's clock; the engine (``service.engine``) plays. It
imports nothing of the HTTP service.

Commands and answers:

* ``START n`` / ``RECTSTART w,h``: a new game on an n x n (w x h) board, 3 to
  20 a side, five in a row (or the side, when shorter): ``OK`` or
  ``ERROR ...``. ``RESTART``: the same board, emptied: ``OK``.
* ``BEGIN``: play the first move. ``TURN x,y``: the opponent played x,y; play.
  ``BOARD`` then lines ``x,y,who`` (1 the brain's stone, 2 the opponent's, 3 a
  stone of a continuous game, taken as the opponent's) and ``DONE``: set that
  position and play. A move is answered ``x,y``: x the column and y the row,
  both from 0 at the top left.
* ``INFO key value``: ``timeout_turn``, ``timeout_match``, ``time_left`` (ms),
  ``max_memory`` (bytes) and ``rule`` (a bit mask: 1 is exactly five) are
  honoured; so is ``max_depth`` (this brain's own: a weaker player searching
  that many plies, without threat proofs; 0 lifts it); other keys are
  accepted and ignored.
* ``TAKEBACK x,y``: take the stone back: ``OK``. ``ABOUT``: the brain's name
  and version. ``END``: exit.
* Anything malformed, or that the brain cannot play (a renju rule, an occupied
  cell, a finished game), is answered ``ERROR ...``; an unknown command
  ``UNKNOWN ...``. The brain never stops on a bad line.

The clock, stated once (``Clock.think_seconds``): a move may search for
TURN_SHARE of ``timeout_turn``, capped, where a match clock runs (``time_left``,
with or without ``timeout_match``), by the time left shared among the moves
still expected (``moves_left()``: fewer as the board fills). From that comes
off a margin for reading, writing and the search's own stop: SAFETY_MS and
the longest lag past its deadline the brain has measured in this process
(decaying, so one slow move does not cost the rest of the game). Never less
than MIN_THINK_MS. The search stops there by its deadline; its node budget is
no limit (``NODE_BUDGET``). ``max_memory`` caps the shared table at a quarter
of it (the rest is the process itself).

The engine and its table live from ``START`` to ``END``: one game is one
search context, and ``START`` warms the table (see ``Brain.warm``) so that the
first move does not pay for it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TextIO

from service.engine import Board, Engine, GameOverError, Player, Rule, geometry
from service.engine.analysis import DEFAULT_TABLE_BYTES, MAX_DEPTH
from service.engine.geometry import MAX_SIDE, MIN_SIDE, default_k

NAME = "tictactoe-service"
VERSION = "0.1.0"
# What a move may take of its share of the clock (see the module's docstring).
TURN_SHARE = 0.9
SAFETY_MS = 20
MIN_THINK_MS = 20
LAG_DECAY = 0.9  # the measured lag's peak, kept from move to move, shrinks by this
# A match clock is shared among the moves still expected: MATCH_MOVES at the
# start, one fewer for every MOVES_PER_STONE stones on the board, never under
# MIN_MOVES_LEFT.
MATCH_MOVES = 30
MOVES_PER_STONE = 4
MIN_MOVES_LEFT = 10
WARM_NODES = 20_000  # START's warm-up search: enough entries to move the table to huge pages
DEFAULT_TURN_MS = 5_000  # until the manager says otherwise
NODE_BUDGET = 10**9
MIN_TABLE_BYTES = 1 << 20
RULE_EXACT = 1
RULE_UNSUPPORTED = 4 | 8  # renju, caro


class ProtocolError(Exception):
    """A line the brain cannot take: answered ``ERROR`` and otherwise ignored."""


@dataclass
class Clock:
    """The manager's time limits, in milliseconds (0: none, as the protocol
    says), and the lag the brain has measured past its own deadlines."""

    turn_ms: int = DEFAULT_TURN_MS
    match_ms: int = 0
    left_ms: int | None = None
    lag_ms: float = 0.0

    def think_seconds(self, stones: int = 0) -> float:
        """How long the next move may search, with ``stones`` on the board."""
        share = self.turn_ms * TURN_SHARE if self.turn_ms > 0 else MIN_THINK_MS
        if self.left_ms is not None and (self.match_ms > 0 or self.left_ms > 0):
            share = min(share, self.left_ms / moves_left(stones))
        return max(MIN_THINK_MS, share - SAFETY_MS - self.lag_ms) / 1000

    def measured(self, think_seconds: float, spent_seconds: float) -> None:
        """A move meant to take ``think_seconds`` took ``spent_seconds``: keep
        the lag's decaying peak, and take the time off the match clock."""
        lag = (spent_seconds - think_seconds) * 1000
        self.lag_ms = max(lag, self.lag_ms * LAG_DECAY, 0.0)
        if self.left_ms is not None:
            self.left_ms = max(0, self.left_ms - int(spent_seconds * 1000))


def moves_left(stones: int) -> int:
    """The moves a match clock is shared among, with ``stones`` on the board.

    >>> moves_left(0), moves_left(40), moves_left(200)
    (30, 20, 10)
    """
    return max(MIN_MOVES_LEFT, MATCH_MOVES - stones // MOVES_PER_STONE)


@dataclass
class Game:
    """The board as the manager describes it: the brain's stones and the
    opponent's, in the order they were played."""

    cols: int
    rows: int
    exact: bool = False
    stones: list[tuple[int, bool]] = field(default_factory=list)  # (cell, mine)

    def cell(self, x: int, y: int) -> int:
        if not (0 <= x < self.cols and 0 <= y < self.rows):
            raise ProtocolError(f"{x},{y} is off the {self.cols}x{self.rows} board")
        return y * self.cols + x

    def place(self, x: int, y: int, mine: bool) -> None:
        cell = self.cell(x, y)
        if any(taken == cell for taken, _ in self.stones):
            raise ProtocolError(f"{x},{y} is already taken")
        self.stones.append((cell, mine))

    def take_back(self, x: int, y: int) -> None:
        cell = self.cell(x, y)
        for index, (taken, _) in enumerate(self.stones):
            if taken == cell:
                del self.stones[index]
                return
        raise ProtocolError(f"{x},{y} is empty: nothing to take back")

    def board(self) -> Board:
        """The position with the brain to move. The brain plays whichever side
        the stone counts give the move to (X when they are equal)."""
        mine = sum(1 << cell for cell, own in self.stones if own)
        theirs = sum(1 << cell for cell, own in self.stones if not own)
        rule = Rule.EXACT if self.exact else Rule.FREESTYLE
        shape = geometry(self.rows, self.cols, default_k(self.rows, self.cols), rule)
        # The rules are the same for both sides, so the brain may be X or O;
        # the engine only needs whose turn it is.
        if mine.bit_count() > theirs.bit_count():
            return Board(shape, theirs, mine, Player.O)
        return Board(shape, mine, theirs, Player.X)


class Brain:
    """One brain: reads commands, writes answers, plays with the engine."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self.write = write
        self.clock = Clock()
        self.game: Game | None = None
        self.rule = 0
        self.table_bytes = DEFAULT_TABLE_BYTES
        self.max_depth: int | None = None
        self.engine: Engine | None = None
        self.board_lines: list[str] | None = None  # inside BOARD ... DONE

    # -- the loop -------------------------------------------------------------

    def run(self, lines: Iterator[str]) -> None:
        for raw in lines:
            line = raw.strip()
            if not line:
                continue
            try:
                if not self.handle(line):
                    return
            except ProtocolError as error:
                self.write(f"ERROR {error}")
            except GameOverError as error:
                self.write(f"ERROR {error}")
            except Exception as error:  # a brain must answer, never stop
                self.write(f"ERROR internal error: {type(error).__name__}: {error}")

    def handle(self, line: str) -> bool:
        """Answer one line; False when the brain must stop (END)."""
        if self.board_lines is not None:
            if line.upper() == "DONE":
                self.finish_board()
            else:
                self.board_lines.append(line)
            return True
        command, _, argument = line.partition(" ")
        command = command.upper()
        argument = argument.strip()
        handlers: dict[str, Callable[[str], None]] = {
            "START": self.start,
            "RECTSTART": self.rect_start,
            "RESTART": self.restart,
            "BEGIN": self.begin,
            "TURN": self.turn,
            "BOARD": self.board,
            "INFO": self.info,
            "TAKEBACK": self.take_back,
            "ABOUT": self.about,
        }
        if command == "END":
            return False
        handler = handlers.get(command)
        if handler is None:
            self.write(f"UNKNOWN {command} is not a command of this brain")
            return True
        handler(argument)
        return True

    # -- commands ---------------------------------------------------------------

    def start(self, argument: str) -> None:
        size = _number(argument, "START takes the board's size")
        self.new_game(size, size)

    def rect_start(self, argument: str) -> None:
        cols, rows = _pair(argument, "RECTSTART takes width,height")
        self.new_game(cols, rows)

    def new_game(self, cols: int, rows: int) -> None:
        for side in (cols, rows):
            if not MIN_SIDE <= side <= MAX_SIDE:
                raise ProtocolError(
                    f"unsupported size {cols}x{rows}: sides {MIN_SIDE} to {MAX_SIDE}"
                )
        self.game = Game(cols, rows, exact=bool(self.rule & RULE_EXACT))
        self.warm(self.game)
        self.write("OK")

    def warm(self, game: Game) -> None:
        """The engine for the game, its table warmed by a short search of the
        empty board: the table's first entries (and its move to huge pages,
        which runs beside the search: see core/table.c) cost the first move
        nothing then."""
        engine = self.need_engine()
        board = game.board()
        engine.analyze(board, node_budget=min(WARM_NODES, NODE_BUDGET))

    def restart(self, _argument: str) -> None:
        game = self.need_game()
        self.game = Game(game.cols, game.rows, exact=bool(self.rule & RULE_EXACT))
        self.write("OK")

    def begin(self, _argument: str) -> None:
        game = self.need_game()
        if game.stones:
            raise ProtocolError("BEGIN on a board that has stones; use BOARD")
        self.play(game)

    def turn(self, argument: str) -> None:
        game = self.need_game()
        x, y = _pair(argument, "TURN takes x,y")
        game.place(x, y, mine=False)
        self.play(game)

    def board(self, _argument: str) -> None:
        self.need_game()
        self.board_lines = []

    def finish_board(self) -> None:
        game = self.need_game()
        lines, self.board_lines = self.board_lines or [], None
        fresh = Game(game.cols, game.rows, exact=game.exact)
        for line in lines:
            parts = line.split(",")
            if len(parts) != 3:
                raise ProtocolError(f"a BOARD line is x,y,who; got {line!r}")
            x, y, who = (_number(p, f"a BOARD line is x,y,who; got {line!r}") for p in parts)
            if who not in (1, 2, 3):
                raise ProtocolError(f"who is 1 (mine), 2 or 3 (the opponent's); got {who}")
            fresh.place(x, y, mine=who == 1)
        self.game = fresh
        self.play(fresh)

    def info(self, argument: str) -> None:
        key, _, value = argument.partition(" ")
        key = key.lower()
        if key in ("timeout_turn", "timeout_match", "time_left", "max_memory", "rule", "max_depth"):
            number = _number(value, f"INFO {key} takes a number")
            if number < 0:
                raise ProtocolError(f"INFO {key} cannot be negative")
            if key == "timeout_turn":
                self.clock.turn_ms = number
            elif key == "timeout_match":
                self.clock.match_ms = number
            elif key == "time_left":
                self.clock.left_ms = number
            elif key == "max_memory":
                self.limit_memory(number)
            elif key == "max_depth":
                self.set_depth(number)
            else:
                self.set_rule(number)
        # Other keys (game_type, folder, evaluate, ...) change nothing here.

    def set_rule(self, rule: int) -> None:
        if rule & RULE_UNSUPPORTED:
            raise ProtocolError(
                f"rule {rule}: this brain plays freestyle and exactly five, not renju or caro"
            )
        self.rule = rule
        if self.game is not None:
            self.game.exact = bool(rule & RULE_EXACT)

    def set_depth(self, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise ProtocolError(f"max_depth is 0 (none) to {MAX_DEPTH}")
        self.max_depth = depth or None
        self.engine = None

    def limit_memory(self, max_memory: int) -> None:
        wanted = DEFAULT_TABLE_BYTES if max_memory == 0 else max_memory // 4
        wanted = max(MIN_TABLE_BYTES, min(DEFAULT_TABLE_BYTES, wanted))
        if wanted != self.table_bytes:
            self.table_bytes = wanted
            self.engine = None  # a new table of the new size at the next move

    def take_back(self, argument: str) -> None:
        game = self.need_game()
        x, y = _pair(argument, "TAKEBACK takes x,y")
        game.take_back(x, y)
        self.write("OK")

    def about(self, _argument: str) -> None:
        self.write(
            f'name="{NAME}", version="{VERSION}", author="tictactoe-service engineers", '
            'country="", www="", email=""'
        )

    # -- playing ------------------------------------------------------------------

    def need_game(self) -> Game:
        if self.game is None:
            raise ProtocolError("no game: send START first")
        return self.game

    def play(self, game: Game) -> None:
        """Search the position and answer the move; it stays on the board."""
        started = time.monotonic()
        board = game.board()
        board.check_in_progress()
        think = self.clock.think_seconds(len(game.stones))
        analysis = self.need_engine().analyze(board, deadline=started + think)
        cell = analysis.best_moves[0]
        game.stones.append((cell, True))
        self.write(f"{cell % game.cols},{cell // game.cols}")
        self.clock.measured(think, time.monotonic() - started)

    def need_engine(self) -> Engine:
        if self.engine is None:
            self.engine = Engine(
                node_budget=NODE_BUDGET,
                table_bytes=self.table_bytes,
                max_depth=self.max_depth,
                one_game=True,
            )
        return self.engine


def _number(text: str, what: str) -> int:
    text = text.strip()
    if not text.isdecimal() or len(text) > 12:
        raise ProtocolError(f"{what}; got {text!r}")
    return int(text)


def _pair(text: str, what: str) -> tuple[int, int]:
    parts = [part.strip() for part in text.split(",")]
    if len(parts) != 2 or not all(p.isdecimal() and len(p) <= 12 for p in parts):
        raise ProtocolError(f"{what}; got {text!r}")
    return int(parts[0]), int(parts[1])


def main(stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
    """``python -m service.brain`` and ``pbrain-tictactoe``: the brain on stdin/stdout."""
    source = stdin or sys.stdin
    sink = stdout or sys.stdout

    def write(line: str) -> None:
        sink.write(line + "\n")
        sink.flush()

    Brain(write).run(iter(source.readline, ""))

