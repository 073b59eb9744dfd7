"""The engine as a Gomocup brain: the "Gomoku AI protocol" over stdin and stdout.

Tournament managers (Piskvork, GomocupJudge) and GUIs (Yixin-Board) drive a
brain with one command per line and read one answer per line. This module
owns that translation and when the engine searches; the engine
(``service.engine``) plays, ``clock.py`` says for how long, ``rules.py`` reads
``INFO rule``, ``opening.py`` chooses ``SWAP2BOARD``'s answers, ``game.py``
holds the board as the manager gave it and ``channel.py`` keeps the answers'
way out clean. It imports nothing of the HTTP service.

Commands and answers:

* ``START n`` / ``RECTSTART w,h``: a new game on an n x n (w x h) board, 3 to
  20 a side, five in a row (or the side, when shorter): ``OK`` or
  ``ERROR ...``. ``RESTART``: the same board, emptied: ``OK``.
* ``BEGIN``: play the first move. ``TURN x,y``: the opponent played x,y; play.
  ``BOARD`` then lines ``x,y,who`` (1 the brain's stone, 2 the opponent's, 3 a
  dead stone: see ``game.py``) and ``DONE``: set that position and play. A
  move is answered ``x,y``: x the column and y the row, both from 0 at the top
  left.
* ``SWAP2BOARD`` then lines ``x,y`` (or ``x,y,who``) and ``DONE``: the
  stones of a swap opening in play order from Black; answered with three
  stones, ``SWAP``, a move or two stones, as ``opening.py`` says, under swap1
  (``INFO rule 5``) or swap2 (otherwise). Its searches are bounded by nodes
  from the turn's time (OPENING_NODE_RATE), and by the turn's deadline.
* ``INFO key value`` is never answered (managers do not read an answer to it):
  ``timeout_turn``, ``timeout_match``, ``time_left`` (ms), ``max_memory``
  (bytes), ``rule`` (``rules.py``; 5 and 6 also name SWAP2BOARD's opening)
  and ``max_depth`` (this brain's own: a weaker player searching that many
  plies, without threat proofs; 0 lifts it) are honoured; other keys are
  ignored. A value the brain cannot take, or a rule it plays as another, is
  said in a ``MESSAGE`` line before the answer to the next command that
  expects one, as the protocol text asks.
* ``STOP`` / ``YXSTOP``: the search under way answers now, with its best move
  so far; with no search under way, nothing. ``END``: exit at once, searching
  or not, answering nothing.
* ``TAKEBACK x,y``: take the stone back: ``OK``. ``ABOUT``: the brain's name
  and version.
* A command that expects an answer and cannot be played (malformed, an
  occupied cell, a finished game) is answered ``ERROR ...``; an unknown
  command ``UNKNOWN ...``; a failure where no answer is expected is a
  ``MESSAGE``. The brain never stops on a bad line.

Reading while searching: a thread reads the input and queues each line with
its number; the main thread takes them in order and searches. A ``STOP``
line moves the deadline of the search under way to now, through its
``SearchControl``, from the reading thread, when the search is for an earlier
line (one read before that search starts stops it as it starts); an ``END``
line cancels the search under way. After the end of the input, or END, a
search with no deadline is stopped at once (no one is left to stop it); the
commands read before them are still answered.

The search stops by its deadline (``clock.py``), its node budget
(``NODE_BUDGET``: the cap of a search until told), or a STOP. ``max_memory``
caps the shared table at a quarter of it (the rest is the process itself).
The engine and its table live from ``START`` to ``END``: one game is one
search context, and ``START`` warms the table (``Brain.warm``) so that the
first move does not pay for it.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TextIO

from service.brain.channel import Channel, open_channel, open_input
from service.brain.clock import Clock
from service.brain.game import Game, ProtocolError
from service.brain.opening import Answer, StageError, choose
from service.brain.rules import Opening, read_rule
from service.engine import (
    Analysis,
    Board,
    Engine,
    GameOverError,
    Rule,
    SearchCancelled,
    SearchControl,
    StopReason,
)
from service.engine.analysis import DEFAULT_TABLE_BYTES, MAX_DEPTH
from service.engine.geometry import MAX_SIDE, MIN_SIDE
from service.engine.search import GameContext

NAME = "tictactoe-service"
VERSION = "0.1.0"
WARM_NODES = 20_000  # START's warm-up search: enough entries to move the table to huge pages
# Every search's node budget: no limit to a search on a clock; a search until
# told stops here at the latest (minutes: docs/brain.md).
NODE_BUDGET = 10**9
MIN_TABLE_BYTES = 1 << 20
# SWAP2BOARD's searches are bounded by nodes, so that a position and a clock
# give one answer: the turn's time at this rate (a fifth of the 0.73 million
# a second docs/brain.md measures: an emptied table's first search is slower,
# and the machine may be shared; the turn's deadline caps them where it is
# slower still). A search until told chooses with the nodes of
# OPENING_UNTIL_TOLD_SECONDS.
OPENING_NODE_RATE = 150_000
OPENING_UNTIL_TOLD_SECONDS = 10.0
MIN_OPENING_NODES = 1_000
OPENING_CUT = "the turn's deadline cut a search short: another machine may choose otherwise"
STOP_WORDS = frozenset({"STOP", "YXSTOP"})
# The commands a manager waits for an answer to (BOARD's comes at its DONE).
ANSWERED = frozenset(
    {"START", "RECTSTART", "RESTART", "BEGIN", "TURN", "TAKEBACK", "ABOUT", "YXSHOWFORBID"}
)
LONGEST_NUMBER = 18  # digits; a longer number is read as the largest of its sign
TIME_KEYS = ("timeout_turn", "timeout_match", "time_left")


class Brain:
    """One brain: reads commands, writes answers, plays with the engine."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self.write = write
        self.clock = Clock()
        self.game: Game | None = None
        self.rule = Rule.FREESTYLE
        self.opening = Opening.FREE
        self.table_bytes = DEFAULT_TABLE_BYTES
        self.max_depth: int | None = None
        self.engine: Engine | None = None
        self.board_lines: list[str] | None = None  # inside BOARD (or SWAP2BOARD) ... DONE
        self.swap_board = False  # the lines are SWAP2BOARD's
        self.notices: list[str] = []  # said before the next answer
        # Shared with the reading thread, under the lock: the line being
        # handled, the search under way and the last STOP and END read.
        self.lock = threading.Lock()
        self.line_number = -1
        self.control: SearchControl | None = None
        self.stop_read = -1
        self.end_read: int | None = None
        self.input_closed = False

    # -- the loop -------------------------------------------------------------

    def run(self, lines: Iterable[str]) -> None:
        """Answer the lines until END or their end; a thread reads them."""
        commands: queue.Queue[tuple[int, str] | None] = queue.Queue()
        reader = threading.Thread(target=self.read, args=(iter(lines), commands), daemon=True)
        reader.start()
        while (item := commands.get()) is not None:
            number, line = item
            with self.lock:
                self.line_number = number
            if not self.take(line):
                return

    def read(self, lines: Iterator[str], commands: queue.Queue[tuple[int, str] | None]) -> None:
        """The reading thread: queue every line; STOP and END also reach a search."""
        try:
            for number, raw in enumerate(lines):
                line = raw.strip()
                if not line:
                    continue
                word = line.split(maxsplit=1)[0].upper()
                if word in STOP_WORDS or word == "END":
                    self.interrupt(number, end=word == "END")
                commands.put((number, line))
                if word == "END":
                    return
        except Exception as error:  # a broken input ends the brain as its end does
            self.write(f"MESSAGE the input failed: {type(error).__name__}: {error}")
        finally:
            with self.lock:
                self.input_closed = True
                if self.control is not None and self.control.deadline is None:
                    self.control.shorten(time.monotonic())
            commands.put(None)

    def interrupt(self, number: int, end: bool) -> None:
        """STOP (or END) read as line ``number``: stop a search for an earlier line."""
        with self.lock:
            if end:
                self.end_read = number
            else:
                self.stop_read = number
            if self.control is not None and self.line_number < number:
                if end:
                    self.control.cancel()
                else:
                    self.control.shorten(time.monotonic())

    @contextmanager
    def searching(self, control: SearchControl) -> Iterator[SearchControl]:
        """``control`` is the search under way, stoppable by the reading thread.
        A STOP already read after this line stops it at once; so does the end
        of the input, or an END, for a search until told (no one is left to
        stop it). A search that starts after END was read still answers (a
        script that sends a whole session at once gets every answer)."""
        with self.lock:
            self.control = control
            ending = self.input_closed or self.end_read is not None
            if self.stop_read > self.line_number or (ending and control.deadline is None):
                control.shorten(time.monotonic())
        try:
            yield control
        finally:
            with self.lock:
                self.control = None

    def take(self, line: str) -> bool:
        """Answer one line; False when the brain must stop (END)."""
        command = line.split(maxsplit=1)[0].upper()
        inside_board = self.board_lines is not None
        answered = command == "DONE" if inside_board else command in ANSWERED
        if answered:
            for notice in self.notices:
                self.write(f"MESSAGE {notice}")
            self.notices.clear()
        try:
            return self.handle(line)
        except (ProtocolError, GameOverError) as error:
            self.fail(answered, str(error))
        except Exception as error:  # a brain must answer, never stop
            self.fail(answered, f"internal error: {type(error).__name__}: {error}")
        return True

    def fail(self, answered: bool, text: str) -> None:
        """ERROR where the manager waits for an answer; elsewhere it would be
        read as the next command's answer, so a MESSAGE before that answer."""
        if answered:
            self.write(f"ERROR {text}")
        else:
            self.notices.append(text)

    def handle(self, line: str) -> bool:
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
            "SWAP2BOARD": self.swap2_board,
            "INFO": self.info,
            "TAKEBACK": self.take_back,
            "ABOUT": self.about,
            "YXSHOWFORBID": self.show_forbidden,
        }
        if command == "END":
            return False
        if command in STOP_WORDS:
            return True  # its search, if any, was stopped by the reading thread
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
        self.game = Game(cols, rows, self.rule)
        self.warm(self.game)
        self.write("OK")

    def warm(self, game: Game) -> None:
        """The engine for the game, its table warmed by a short search of the
        empty board: the table's first entries (and its move to huge pages,
        which runs beside the search: see core/table.c) cost the first move
        nothing then."""
        engine = self.need_engine()
        engine.analyze(game.board(), node_budget=min(WARM_NODES, NODE_BUDGET))

    def restart(self, _argument: str) -> None:
        game = self.need_game()
        self.game = Game(game.cols, game.rows, self.rule)
        self.write("OK")

    def begin(self, _argument: str) -> None:
        game = self.need_game()
        if game.stones or game.dead:
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
        self.swap_board = False

    def swap2_board(self, _argument: str) -> None:
        self.need_game()
        self.board_lines = []
        self.swap_board = True

    def finish_board(self) -> None:
        game = self.need_game()
        lines, self.board_lines = self.board_lines or [], None
        if self.swap_board:
            self.finish_swap(game, lines)
            return
        fresh = Game(game.cols, game.rows, game.rule)
        for line in lines:
            parts = line.split(",")
            if len(parts) != 3:
                raise ProtocolError(f"a BOARD line is x,y,who; got {line!r}")
            x, y, who = (_number(p, f"a BOARD line is x,y,who; got {line!r}") for p in parts)
            if who == 3:
                fresh.place_dead(x, y)
            elif who in (1, 2):
                fresh.place(x, y, mine=who == 1)
            else:
                raise ProtocolError(
                    f"who is 1 (mine), 2 (the opponent's) or 3 (a dead stone); got {who}"
                )
        self.game = fresh
        self.play(fresh)

    def finish_swap(self, game: Game, lines: list[str]) -> None:
        """SWAP2BOARD's stones, in play order from Black: ``x,y``, as
        GomocupJudge sends them, or ``x,y,who`` as Rapfi reads them (``who``,
        1 or 2, is not needed: the order says the colour). Answered as
        ``opening.py`` says, under swap1 where ``INFO rule`` asked for it and
        under swap2 otherwise (the command names it)."""
        cells: list[int] = []
        for line in lines:
            what = f"a SWAP2BOARD line is x,y or x,y,who; got {line!r}"
            numbers = [_number(part, what) for part in line.split(",")]
            if len(numbers) not in (2, 3) or numbers[2:] not in ([], [1], [2]):
                raise ProtocolError(what)
            cell = game.cell(numbers[0], numbers[1])
            if cell in cells:
                raise ProtocolError(f"{numbers[0]},{numbers[1]} is already taken")
            cells.append(cell)
        opening = Opening.SWAP1 if self.opening is Opening.SWAP1 else Opening.SWAP2
        started = time.monotonic()
        think = self.clock.think_seconds(len(cells))
        seconds = OPENING_UNTIL_TOLD_SECONDS if think is None else think
        # A swap opening starts a game: an empty table and a new search
        # history, so that the answer depends on the stones and the clock
        # alone (emptied rather than made anew: the table's memory stays
        # paged in, which a new one would pay for inside this turn).
        engine = self.need_engine()
        engine.table.clear()
        if engine.context is not None:
            engine.context = GameContext()
        cut: list[Analysis] = []  # the searches a deadline or a STOP cut short of their nodes

        def evaluate(board: Board, share: float) -> Analysis:
            cached = engine.cached_analysis(board)
            if cached is not None:
                return cached
            nodes = max(MIN_OPENING_NODES, int(seconds * share * OPENING_NODE_RATE))
            found = engine.search(board, node_budget=min(nodes, NODE_BUDGET), control=control)
            if found.stopped_by is StopReason.DEADLINE:
                cut.append(found)
            return found

        try:
            deadline = None if think is None else started + think
            with self.searching(SearchControl(deadline)) as control:
                answer = choose(game.shape, cells, opening, evaluate)
        except SearchCancelled:
            return
        except StageError as error:
            raise ProtocolError(str(error)) from None
        self.game = _after_swap(game, cells, answer)
        if cut and think is not None:
            self.write(f"MESSAGE {OPENING_CUT}")
        self.write(answer.text(game.cols))
        self.clock.measured(think, time.monotonic() - started)

    def info(self, argument: str) -> None:
        """Never answered: what cannot be taken becomes a notice."""
        key, _, value = argument.partition(" ")
        key = key.lower()
        if key not in (*TIME_KEYS, "max_memory", "rule", "max_depth"):
            return  # game_type, evaluate, folder, Yixin-Board's own: nothing to do here
        number = _integer(value)
        if number is None:
            self.notices.append(f"INFO {key} takes a number; got {value.strip()!r}: ignored")
        elif key == "time_left":
            self.clock.left_ms = number  # the protocol: under 0 when the brain is out of time
        elif number < 0:
            self.notices.append(f"INFO {key} cannot be negative; got {number}: ignored")
        elif key == "timeout_turn":
            self.clock.turn_ms = number
        elif key == "timeout_match":
            self.clock.match_ms = number
        elif key == "max_memory":
            self.limit_memory(number)
        elif key == "max_depth":
            self.set_depth(number)
        else:
            self.set_rule(number)

    def set_rule(self, value: int) -> None:
        reading = read_rule(value)
        if reading.notice is not None:
            self.notices.append(reading.notice)
        self.rule = reading.plays
        self.opening = reading.opening
        if self.game is not None:
            self.game.rule = reading.plays

    def set_depth(self, depth: int) -> None:
        if depth > MAX_DEPTH:
            self.notices.append(f"max_depth is 0 (none) to {MAX_DEPTH}; got {depth}: ignored")
            return
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

    def show_forbidden(self, _argument: str) -> None:
        """Yixin-Board's ``YXSHOWFORBID``: Black's forbidden cells under renju, with
        Black to move, as ``FORBID`` and each cell's x and y in two digits, then
        a full stop (``FORBID 0707.``; ``FORBID .`` when there are none)."""
        game = self.need_game()
        cells = game.board().forbidden()
        listed = "".join(f"{cell % game.cols:02d}{cell // game.cols:02d}" for cell in cells)
        self.write(f"FORBID {listed}.")

    # -- playing ------------------------------------------------------------------

    def need_game(self) -> Game:
        if self.game is None:
            raise ProtocolError("no game: send START first")
        return self.game

    def play(self, game: Game) -> None:
        """Search the position and answer the move; it stays on the board. A
        search cancelled by END answers nothing."""
        started = time.monotonic()
        board = game.board()
        board.check_in_progress()
        think = self.clock.think_seconds(len(game.stones))
        try:
            analysis = self.search(board, None if think is None else started + think)
        except SearchCancelled:
            return
        cell = analysis.best_moves[0]
        game.stones.append((cell, True))
        self.write(f"{cell % game.cols},{cell // game.cols}")
        self.clock.measured(think, time.monotonic() - started)

    def search(self, board: Board, deadline: float | None) -> Analysis:
        """The engine's analysis of ``board``, by ``deadline`` or until told."""
        engine = self.need_engine()
        cached = engine.cached_analysis(board)
        if cached is not None:
            return cached
        with self.searching(SearchControl(deadline)) as control:
            return engine.search(board, node_budget=NODE_BUDGET, control=control)

    def need_engine(self) -> Engine:
        if self.engine is None:
            self.engine = Engine(
                node_budget=NODE_BUDGET,
                table_bytes=self.table_bytes,
                max_depth=self.max_depth,
                one_game=True,
            )
        return self.engine


def _after_swap(game: Game, stones: list[int], answer: Answer) -> Game:
    """The game after the brain's answer: it holds Black's stones when it
    swaps, places the opening or puts two (a TURN then is White's move), and
    White's when it plays White's move."""
    black = answer.swap or len(answer.stones) != 1
    after = Game(game.cols, game.rows, game.rule)
    for index, cell in enumerate([*stones, *answer.stones]):
        after.stones.append((cell, (index % 2 == 0) == black))
    return after


def _integer(text: str) -> int | None:
    """A whole number with an optional sign, or None; a very long one is
    read as the largest of its sign (a limit that large is no limit)."""
    text = text.strip()
    digits = text.removeprefix("-").removeprefix("+")
    if not digits.isdecimal() or not digits.isascii():
        return None
    magnitude = int(digits) if len(digits) <= LONGEST_NUMBER else 10**LONGEST_NUMBER
    return -magnitude if text.startswith("-") else magnitude


def _number(text: str, what: str) -> int:
    text = text.strip()
    if not text.isdecimal() or not text.isascii() or len(text) > 12:
        raise ProtocolError(f"{what}; got {text!r}")
    return int(text)


def _pair(text: str, what: str) -> tuple[int, int]:
    parts = [part.strip() for part in text.split(",")]
    if len(parts) != 2 or not all(p.isdecimal() and p.isascii() and len(p) <= 12 for p in parts):
        raise ProtocolError(f"{what}; got {text!r}")
    return int(parts[0]), int(parts[1])


def main(stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
    """``python -m service.brain`` and ``pbrain-tictactoe``: the brain on
    stdin/stdout. With streams given (the tests), nothing of the process changes."""
    channel = open_channel() if stdout is None else Channel(stdout)
    source = open_input() if stdin is None else stdin
    Brain(channel.write).run(iter(source.readline, ""))
