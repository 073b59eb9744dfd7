"""A small Gomocup manager: brains as child processes on pipes, and whole games
between them, refereed by the engine's own rules.

It speaks to a brain as Piskvork does, one line at a time, and never waits for
an answer longer than it is told to, so a brain that hangs fails a test (or
loses a benchmark game) instead of stopping everything. The tests use it, and
``bench/strength.py`` plays its matches with it.

It reads answers as the protocol text says a manager does: ``MESSAGE`` and
``DEBUG`` lines are the brain's talk and are skipped; every other line answers
the command the manager sent. ``INFO`` expects no answer, so
:meth:`BrainProcess.info` treats any other line after it as a broken protocol.
"""

from __future__ import annotations

import contextlib
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from service.engine import Board, Player, Rule, _core, geometry

BRAIN = (sys.executable, "-m", "service.brain")
# INFO rule for each rule: 4 is renju for Piskvork, Yixin-Board, Rapfi and ours.
RULE_NUMBERS = {Rule.FREESTYLE: 0, Rule.EXACT: 1, Rule.RENJU: 4}
ANSWER_TIMEOUT = 60.0  # the longest any answer may take before the brain is given up


class BrokenProtocolError(AssertionError):
    """The brain wrote a line the protocol gives it no place for (say, an
    answer to ``INFO``): a manager would take it for the next answer."""


def is_talk(line: str) -> bool:
    """A line a manager skips when it waits for an answer."""
    return line.startswith(("MESSAGE", "DEBUG"))


class BrainProcess:
    """One brain: write lines, read answers with a time limit."""

    def __init__(
        self,
        command: Sequence[str] = BRAIN,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        quiet: bool = False,
    ) -> None:
        self.process = subprocess.Popen(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL if quiet else None,
            text=True,
            bufsize=1,
            env=None if env is None else dict(env),
            cwd=cwd,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.transcript: list[str] = []  # every line the brain wrote, talk included
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.transcript.append(line.rstrip("\n"))
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, *lines: str) -> None:
        assert self.process.stdin is not None
        for line in lines:
            self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def answer(self, timeout: float = ANSWER_TIMEOUT) -> str:
        """The next line that is not a MESSAGE or DEBUG line."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the brain did not answer in time")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                raise TimeoutError("the brain did not answer in time") from None
            if line is None:
                raise EOFError("the brain closed its output")
            if not is_talk(line):
                return line

    def ask(self, *lines: str, timeout: float = ANSWER_TIMEOUT) -> str:
        self.send(*lines)
        return self.answer(timeout)

    def swap2_board(
        self, stones: Sequence[tuple[int, int]], timeout: float = ANSWER_TIMEOUT
    ) -> str:
        """SWAP2BOARD with ``stones`` in play order (from Black), as
        GomocupJudge sends them, one ``x,y`` a line; the answer unrefereed."""
        return self.ask("SWAP2BOARD", *(f"{x},{y}" for x, y in stones), "DONE", timeout=timeout)

    def info(self, *lines: str, timeout: float = ANSWER_TIMEOUT) -> None:
        """Send INFO lines, then ABOUT: the first line that is not talk must be
        ABOUT's answer, since a brain answers its commands in order and INFO
        has no answer. Raises BrokenProtocolError otherwise."""
        self.send(*lines, "ABOUT")
        answer = self.answer(timeout)
        if not answer.startswith("name="):
            raise BrokenProtocolError(f"the brain answered INFO: {answer!r}")

    def close(self) -> int:
        """END, and the pipes closed; a brain that does not stop is killed."""
        try:
            if self.process.poll() is None:
                with contextlib.suppress(OSError):  # it is gone already
                    self.send("END")
            return self.process.wait(timeout=10)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            self.reader.join(timeout=10)
            for stream in (self.process.stdin, self.process.stdout):
                if stream is not None:
                    stream.close()


@contextmanager
def brain(
    command: Sequence[str] = BRAIN,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    quiet: bool = False,
) -> Iterator[BrainProcess]:
    process = BrainProcess(command, env, cwd, quiet)
    try:
        yield process
    finally:
        process.close()


def run(*lines: str) -> list[str]:
    """Every line the brain writes for ``lines``, its input then ended: in
    process, through the extension's ``run_brain`` on a pair of pipes (no
    process to start: fast, for the protocol's details)."""
    in_read, in_write = os.pipe()
    out_read, out_write = os.pipe()
    data = "".join(line + "\n" for line in lines).encode()
    written: list[bytes] = []

    def feed() -> None:
        with os.fdopen(in_write, "wb") as sink, contextlib.suppress(BrokenPipeError):
            sink.write(data)  # the brain may stop reading at END

    def drain() -> None:
        with os.fdopen(out_read, "rb") as source:
            written.append(source.read())

    threads = [threading.Thread(target=feed), threading.Thread(target=drain)]
    for thread in threads:
        thread.start()
    try:
        _core.run_brain(in_read, out_write)
    finally:
        os.close(in_read)
        os.close(out_write)
        for thread in threads:
            thread.join()
    return written[0].decode("utf-8", "replace").splitlines()


def parse_move(answer: str) -> tuple[int, int]:
    x, y = answer.split(",")
    return int(x), int(y)


# SWAP2BOARD: the stones a brain may answer with at each stage (0 is SWAP),
# by the stones on the board. Swap2 as Rapfi answers it (command/gomocup.cpp:
# three stones on an empty board; SWAP, a move or two stones after three;
# SWAP or a move after five). Swap1: Rapfi's choice after one stone
# (search/opening.cpp) and the three-stone swap's after three.
SWAP2_ANSWERS = {0: (3,), 3: (0, 1, 2), 5: (0, 1)}
SWAP1_ANSWERS = {0: (3,), 1: (0, 1), 3: (0, 1)}


class IllegalAnswerError(AssertionError):
    """An answer a referee refuses: the wrong number of stones for the stage,
    a stone off the board or on a taken cell, or not the protocol's form."""


def parse_swap_answer(
    answer: str, stones: Sequence[tuple[int, int]], size: int, swap2: bool = True
) -> tuple[tuple[int, int], ...] | None:
    """A SWAP2BOARD answer refereed: None for ``SWAP``, else the stones it
    places in play order (``x,y x,y ...`` on one line, as Rapfi writes them)."""
    allowed = (SWAP2_ANSWERS if swap2 else SWAP1_ANSWERS)[len(stones)]
    if answer == "SWAP":
        if 0 not in allowed:
            raise IllegalAnswerError(f"SWAP with {len(stones)} stones on the board")
        return None
    try:
        placed = tuple(parse_move(part) for part in answer.split(" "))
    except ValueError:
        raise IllegalAnswerError(f"not SWAP nor stones: {answer!r}") from None
    if len(placed) not in allowed:
        raise IllegalAnswerError(f"{len(placed)} stones with {len(stones)} on the board")
    taken = set(stones)
    for x, y in placed:
        if not (0 <= x < size and 0 <= y < size) or (x, y) in taken:
            raise IllegalAnswerError(f"{x},{y} is off the board or taken: {answer!r}")
        taken.add((x, y))
    return placed


@dataclass(frozen=True)
class Entrant:
    """How to start one brain of a game."""

    command: Sequence[str] = BRAIN
    env: Mapping[str, str] | None = None
    cwd: Path | None = None
    quiet: bool = False  # its standard error goes nowhere (programs that talk as they think)


@dataclass
class Game:
    """A whole game between two brains: the first of them moves first after the
    opening (whose stones alternate from X), and the engine's rules referee."""

    size: int
    rule: Rule
    turn_ms: int
    opening: Sequence[tuple[int, int]] = ()
    moves: list[tuple[int, int]] = field(default_factory=list)  # opening stones included
    replies_ms: list[list[float]] = field(default_factory=lambda: [[], []])
    winner: int | None = None  # the entrant (0 or 1) that made the row; None: no row
    forfeit: str | None = None  # why a brain lost without a row: a bad or late answer

    def board(self) -> Board:
        shape = geometry(self.size, self.size, 5, self.rule)
        x = sum(1 << (r * self.size + c) for c, r in self.moves[0::2])
        o = sum(1 << (r * self.size + c) for c, r in self.moves[1::2])
        side = Player.X if len(self.moves) % 2 == 0 else Player.O
        return Board(shape, x, o, side)


def play(
    size: int,
    rule: Rule,
    turn_ms: int,
    entrants: tuple[Entrant, Entrant] = (Entrant(), Entrant()),
    opening: Sequence[tuple[int, int]] = (),
    answer_timeout: float = ANSWER_TIMEOUT,
    infos: tuple[Sequence[str], Sequence[str]] = ((), ()),
    pause: float = 0.0,
    match_ms: int = 0,
) -> Game:
    """Two brains play until a row is made, the board is full, or one forfeits
    (an illegal move, under renju Black's forbidden ones included, no answer,
    an answer past ``answer_timeout``, or with ``match_ms`` its match clock
    run out). ``match_ms``: each brain's clock for the game, as a manager
    keeps it: ``timeout_match`` at the start, ``time_left`` before each of
    its moves, its replies' times taken off.
    ``infos`` are INFO lines of each entrant's own, sent after the common ones
    (an entrant's own ``timeout_turn`` among them overrides the common one).
    ``pause`` seconds pass before each move is asked for: some brains (Rapfi)
    drop a command that arrives in the instant after their own answer."""
    game = Game(size, rule, turn_ms, tuple(opening), list(opening))
    with ExitStack() as stack:
        players = [stack.enter_context(brain(e.command, e.env, e.cwd, e.quiet)) for e in entrants]
        for player, own in zip(players, infos, strict=True):
            assert player.ask(f"START {size}") == "OK"
            player.send(
                f"INFO timeout_turn {turn_ms}",
                f"INFO timeout_match {match_ms}",
                f"INFO rule {RULE_NUMBERS[rule]}",
                *own,
            )
        told = [False, False]  # whether each brain has been given the game so far
        left_ms = [float(match_ms), float(match_ms)]
        turn = 0
        while True:
            mover = players[turn]
            if match_ms:
                mover.send(f"INFO time_left {max(0, int(left_ms[turn]))}")
            if told[turn]:
                command: tuple[str, ...] = (f"TURN {game.moves[-1][0]},{game.moves[-1][1]}",)
            elif game.moves:
                mine = len(game.moves) % 2  # the side to move's stones have this parity
                stones = [
                    f"{c},{r},{1 if i % 2 == mine else 2}" for i, (c, r) in enumerate(game.moves)
                ]
                command = ("BOARD", *stones, "DONE")
            else:
                command = ("BEGIN",)
            told[turn] = True
            if pause:
                time.sleep(pause)
            started = time.monotonic()
            try:
                answer = mover.ask(*command, timeout=answer_timeout)
                x, y = parse_move(answer)
            except (TimeoutError, EOFError, ValueError) as error:
                game.forfeit = f"entrant {turn}: {error}"
                game.winner = 1 - turn
                return game
            game.replies_ms[turn].append((time.monotonic() - started) * 1000)
            left_ms[turn] -= game.replies_ms[turn][-1]
            if match_ms and left_ms[turn] < 0:
                game.forfeit = f"entrant {turn} ran out of its match clock ({left_ms[turn]:.0f} ms)"
                game.winner = 1 - turn
                return game
            if not (0 <= x < size and 0 <= y < size) or (x, y) in game.moves:
                game.forfeit = f"entrant {turn} played {answer!r}"
                game.winner = 1 - turn
                return game
            forbidden = game.board().forbidden().get(y * size + x)  # renju: Black's
            if forbidden is not None:
                game.forfeit = f"entrant {turn} played {answer!r}, forbidden to Black: {forbidden}"
                game.winner = 1 - turn
                return game
            game.moves.append((x, y))
            board = game.board()
            if board.winner is not None:
                game.winner = turn
                return game
            if board.is_full():
                return game
            turn = 1 - turn


@dataclass
class Swap2:
    """A swap2 opening between two brains: the stones in play order (from
    Black), which entrant took Black, and the answers in the order given."""

    stones: list[tuple[int, int]]
    black: int
    answers: list[str]


def negotiate_swap2(
    size: int,
    turn_ms: int,
    entrants: tuple[Entrant, Entrant] = (Entrant(), Entrant()),
    answer_timeout: float = ANSWER_TIMEOUT,
) -> Swap2:
    """Entrant 0 places three stones; entrant 1 answers SWAP (it takes Black),
    a move (it takes White and plays) or two stones, after which entrant 0
    answers SWAP (it takes Black) or a move (White). Every answer refereed:
    an illegal one raises IllegalAnswerError."""
    with ExitStack() as stack:
        players = [stack.enter_context(brain(e.command, e.env, e.cwd, e.quiet)) for e in entrants]
        for player in players:
            assert player.ask(f"START {size}") == "OK"
            player.info("INFO rule 6", f"INFO timeout_turn {turn_ms}", "INFO timeout_match 0")
        stones: list[tuple[int, int]] = []
        answers: list[str] = []

        def ask(entrant: int) -> tuple[tuple[int, int], ...] | None:
            answers.append(players[entrant].swap2_board(stones, timeout=answer_timeout))
            placed = parse_swap_answer(answers[-1], stones, size)
            stones.extend(placed or ())
            return placed

        ask(0)
        placed = ask(1)
        if placed is None or len(placed) == 1:
            return Swap2(stones, 1 if placed is None else 0, answers)
        return Swap2(stones, 0 if ask(0) is None else 1, answers)


def play_swap2(
    size: int, turn_ms: int, entrants: tuple[Entrant, Entrant] = (Entrant(), Entrant())
) -> tuple[Swap2, Game]:
    """A swap2 opening, then the game from it (freestyle), the side to move
    given the position by BOARD; the game's entrant 0 is the one to move."""
    opening = negotiate_swap2(size, turn_ms, entrants)
    black_to_move = len(opening.stones) % 2 == 0
    mover = opening.black if black_to_move else 1 - opening.black
    order = (entrants[mover], entrants[1 - mover])
    return opening, play(size, Rule.FREESTYLE, turn_ms, order, opening=opening.stones)
