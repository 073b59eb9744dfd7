"""Analysis: the value of every legal move of a position, ranked, and the engine
that produces it.

:class:`Engine` is the library's front door. It owns the two shared caches
(proven bounds per position class, and finished exact analyses per board), the
default node budget, and the start-up solve of the classic 3x3 game. Every
endpoint that lists moves gets them ranked by :func:`rank_moves`, the one sort
key in the project.

>>> engine = Engine()
>>> result = engine.analyze(Board.parse("XX.OO...."))
>>> result.best_moves, result.best_score, result.outcome.value, result.plies
((2,), 9, 'win', 1)
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from service.engine.board import Board, Player
from service.engine.cache import BoundedCache, CacheStats
from service.engine.geometry import Geometry, Rule, geometry
from service.engine.score import Outcome, Score, outcome, plies_to_end
from service.engine.search import (
    CORE_ALONE_SIDE,
    MAX_BUDGET,
    MAX_PROOF_THREADS,
    CoreResult,
    GameContext,
    SearchControl,
    SearchObserver,
    StopReason,
    Table,
    core_first,
    is_small,
    run,
    run_big,
    to_public,
)

DEFAULT_NODE_BUDGET = 1_000_000
DEFAULT_TABLE_BYTES = 64 * 1024 * 1024
DEFAULT_ANSWER_ENTRIES = 10_000
MAX_DEPTH = 60  # the deepest a big-board search of fixed depth may be asked to go
# The shares of the node budget (cumulative): proving every move's outcome may
# use the first half; finding the distances of proven wins and losses may use
# up to 80%; iterative deepening with the heuristic has the rest.
OUTCOME_SHARE = 0.5
DISTANCE_SHARE = 0.8


def budget_shares(budget: int) -> tuple[int, int]:
    """The outcome and distance budgets (cumulative) of a search of ``budget`` nodes.

    >>> budget_shares(3_000_000), budget_shares(1)
    ((1500000, 2400000), (1, 1))
    """
    return max(1, int(budget * OUTCOME_SHARE)), max(1, int(budget * DISTANCE_SHARE))


@dataclass(frozen=True, slots=True)
class MoveValue:
    """One legal move and its score for the player making it (see ``score.py``).

    ``exact``: the score is proven. ``proven``: the outcome is proven although
    the score is not (a win or loss whose distance is unknown; its score is
    then the least its proof guarantees, see ``score.py``). ``no_win``: an
    estimate of a move proven not to win (a draw or a loss, not known which).
    """

    cell: int
    score: Score
    exact: bool
    proven: Outcome | None = None
    no_win: bool = False
    # The move and its expected continuation (see CoreResult); one best line of
    # several, so it takes no part in comparisons.
    line: tuple[int, ...] = field(default=(), compare=False, repr=False)


def rank_moves(moves: Iterable[MoveValue]) -> tuple[MoveValue, ...]:
    """Best first: higher score, then lower cell index. The project's one sort key.

    >>> [m.cell for m in rank_moves([MoveValue(0, 0, True), MoveValue(4, 7, True),
    ...                              MoveValue(2, 0, True)])]
    [4, 0, 2]
    """
    return tuple(sorted(moves, key=lambda move: (-move.score, move.cell)))


@dataclass(frozen=True, slots=True)
class Omitted:
    """The legal moves an analysis does not list: on big boards, the cells the
    search never considered (farther than two from every stone, and making no
    threat). ``score`` is their common proven score where a tactic proves one
    (facing a four, or an open three, each of them loses), else None: nothing
    is claimed about them."""

    count: int = 0
    score: int | None = None


NOTHING_OMITTED = Omitted()


@dataclass(frozen=True, slots=True)
class Analysis:
    """The legal moves of ``board`` with their scores, best first: every one on
    the boards the exact core holds, the search's candidates on bigger ones
    (``omitted`` says what is left out).

    ``exact`` is true when every move's score is proven; ``depth`` is the search
    depth in plies behind estimated scores (the number of empty cells when
    exact); ``stopped_by`` says what cut an inexact search short (the node
    budget or the deadline) and is None when exact; ``nodes`` counts the
    positions this analysis searched (0 when it came from the cache).
    """

    board: Board
    moves: tuple[MoveValue, ...]
    exact: bool
    depth: int
    stopped_by: StopReason | None = None
    nodes: int = field(default=0, compare=False)
    omitted: Omitted = NOTHING_OMITTED

    @property
    def best_score(self) -> Score:
        return self.moves[0].score

    @property
    def best_moves(self) -> tuple[int, ...]:
        """Every move whose score equals the best, in cell order."""
        best = self.best_score
        return tuple(sorted(m.cell for m in self.moves if m.score == best))

    @property
    def score(self) -> Score:
        return self.best_score

    @property
    def outcome(self) -> Outcome | None:
        """The position's proven result with best play, distance known or not: a
        win when any move is a proven win; a draw when some move is a proven
        draw and every other is proven not to win; a loss when every move is a
        proven loss; otherwise None (an unproven move might do better)."""
        outcomes = [move_outcome(m) for m in self.moves]
        if Outcome.WIN in outcomes:
            return Outcome.WIN
        if any(o is None and not m.no_win for m, o in zip(self.moves, outcomes, strict=True)):
            return None
        if self.omitted.count:
            if self.omitted.score is None:
                return None
            outcomes.append(outcome(self.omitted.score))
        if Outcome.DRAW in outcomes:
            return Outcome.DRAW
        return None if None in outcomes else Outcome.LOSS

    @property
    def plies(self) -> int | None:
        """Plies to the end of the game under best play, when the distance is proven:
        the best move's score is exact and no other move could beat it (it wins
        at once, or every other move is exact, or a proven loss while the best
        does not lose)."""
        best = self.moves[0]
        if not best.exact:
            return None
        if best.score >= self.board.shape.cells - 2:
            # A win in 1, or in 3, which only a win in 1 could beat: and a win
            # in 1 is always found, proven and ranked first.
            return self.move_plies(best)
        for move in self.moves[1:]:
            if not move.exact and not (move.proven is Outcome.LOSS and best.score >= 0):
                return None
        if self.omitted.count and self.omitted.score is None:
            return None
        return self.move_plies(best)

    def move_plies(self, move: MoveValue) -> int | None:
        """Plies to the end of the game under best play, ``move`` included."""
        if not move.exact:
            return None
        assert isinstance(move.score, int)
        cells = self.board.shape.cells
        return plies_to_end(move.score, cells=cells, empties=cells - self.board.mark_count)

    def value_of(self, cell: int) -> MoveValue:
        for move in self.moves:
            if move.cell == cell:
                return move
        raise KeyError(cell)


def move_outcome(move: MoveValue) -> Outcome | None:
    """The proven result of a move, distance known or not; None for an estimate."""
    if not move.exact:
        return move.proven
    assert isinstance(move.score, int)
    return outcome(move.score)


@dataclass(frozen=True)
class EngineStats:
    positions: CacheStats
    answers: CacheStats
    nodes: int
    searches: int
    searches_exhausted: int
    searches_deadline: int
    table_bytes: int


def _check_budget(node_budget: int) -> None:
    if not 1 <= node_budget <= MAX_BUDGET:
        raise ValueError(f"node_budget must be from 1 to {MAX_BUDGET}, got {node_budget}")


class Engine:
    """Analyses positions exactly where the node budget allows, estimates beyond.

    Thread-safe: any number of threads may call :meth:`analyze` at once, and
    their searches run in parallel (the core releases the GIL). The shared
    table of proven bounds takes ``table_bytes`` (fixed at construction).
    ``observer``, when given, is called after every search that ran (not after
    cache hits) with ``(nodes, seconds, stopped_by, longest_side)``. ``max_depth``, on boards
    bigger than 7x7, makes the search one of that fixed depth, without the
    threat proofs: a weaker player (the brain's ``INFO max_depth``, and a
    baseline of ``bench/strength.py``). ``core_only`` keeps boards with a side
    of 8 in the exact core for the whole budget, with no big-board search
    after it (the book's proofs). ``one_game`` keeps the big-board search's
    state (history, the memo of failed threat searches) from one analysis to
    the next, as a game's searches build on each other: for a caller that
    plays one game and analyses one position at a time (the brain), never for
    concurrent requests. ``proof_threads`` above 1 splits the exact core's
    root proofs over that many threads (the offline proofs of ``make
    prove-885`` and the book; a request's search keeps to one thread).
    """

    def __init__(
        self,
        *,
        node_budget: int = DEFAULT_NODE_BUDGET,
        table_bytes: int = DEFAULT_TABLE_BYTES,
        answer_entries: int = DEFAULT_ANSWER_ENTRIES,
        observer: SearchObserver | None = None,
        max_depth: int | None = None,
        core_only: bool = False,
        one_game: bool = False,
        proof_threads: int = 1,
    ) -> None:
        _check_budget(node_budget)
        if not 1 <= proof_threads <= MAX_PROOF_THREADS:
            raise ValueError(f"proof_threads must be 1 to {MAX_PROOF_THREADS}, got {proof_threads}")
        self.proof_threads = proof_threads
        if max_depth is not None and not 1 <= max_depth <= MAX_DEPTH:
            raise ValueError(f"max_depth must be 1 to {MAX_DEPTH}, got {max_depth}")
        self.node_budget = node_budget
        self.max_depth = max_depth
        self.core_only = core_only
        self.context = GameContext() if one_game else None
        self.table = Table(table_bytes)
        self.answers: BoundedCache[AnswerKey, Analysis] = BoundedCache(answer_entries)
        self.observer = observer
        self._lock = threading.Lock()
        self._nodes = self._searches = self._exhausted = self._deadline = 0

    def stats(self) -> EngineStats:
        with self._lock:
            nodes, searches = self._nodes, self._searches
            exhausted, deadline = self._exhausted, self._deadline
        hits, misses, entries, evictions, capacity, size = self.table.stats()
        return EngineStats(
            CacheStats(hits, misses, entries, evictions, capacity),
            self.answers.stats(),
            nodes,
            searches,
            exhausted,
            deadline,
            size,
        )

    def analyze(
        self, board: Board, *, node_budget: int | None = None, deadline: float | None = None
    ) -> Analysis:
        """Score every legal move of ``board``. Raises GameOverError on a finished game.

        ``deadline`` (in :func:`time.monotonic` seconds) stops the search there
        and answers with what it found (``stopped_by`` says so).
        """
        board.check_in_progress()
        cached = self.cached_analysis(board)
        if cached is not None:
            return cached
        control = None if deadline is None else SearchControl(deadline)
        return self.search(board, node_budget=node_budget, control=control)

    def cached_analysis(self, board: Board) -> Analysis | None:
        """The finished exact analysis of ``board`` if the cache holds it, else None."""
        return self.answers.get(_answer_key(board))

    def search(
        self,
        board: Board,
        *,
        node_budget: int | None = None,
        control: SearchControl | None = None,
    ) -> Analysis:
        """Analyse ``board`` by searching, without consulting the cache of answers.

        ``control`` carries the deadline and lets another thread cancel the
        search, which then raises :class:`SearchCancelled` within a few
        milliseconds; what it proved stays in the table.
        """
        board.check_in_progress()
        started = time.perf_counter()
        result = self._analyse(board, node_budget, control)
        elapsed = time.perf_counter() - started
        with self._lock:
            self._nodes += result.nodes
            self._searches += 1
            self._exhausted += result.stopped_by is StopReason.BUDGET
            self._deadline += result.stopped_by is StopReason.DEADLINE
        if self.observer is not None:
            self.observer(result.nodes, elapsed, result.stopped_by, max(board.rows, board.cols))
        if result.exact:
            self.answers.put(_answer_key(board), result)
        return result

    def _analyse(
        self, board: Board, node_budget: int | None, control: SearchControl | None
    ) -> Analysis:
        """One search, or on boards with a side of 8 up to two, turned into an
        :class:`Analysis`; nothing counted.

        There the exact core searches first with half the node budget (and the
        whole deadline); where it settles the outcome, or the deadline stops it,
        its answer stands, and otherwise the big-board search plays with the
        rest of the budget: the core's estimates see no further than its
        horizon, the big-board search's threat proofs and patterns do."""
        budget = self.node_budget if node_budget is None else node_budget
        _check_budget(budget)
        shape = board.shape
        fixed_depth = self.max_depth is not None and max(shape.rows, shape.cols) > CORE_ALONE_SIDE
        if not is_small(shape) or fixed_depth:
            return self._as_analysis(board, self._run_big(board, budget, control))
        if self.core_only or not core_first(shape):
            return self._as_analysis(board, self._run_core(board, budget, control))
        first = self._as_analysis(board, self._run_core(board, max(1, budget // 2), control))
        if first.outcome is not None or first.stopped_by is not StopReason.BUDGET:
            return first
        rest = self._as_analysis(board, self._run_big(board, budget - first.nodes, control))
        return replace(rest, nodes=first.nodes + rest.nodes)

    def _as_analysis(self, board: Board, found: CoreResult) -> Analysis:
        marks = board.mark_count
        ranked = rank_moves(_move_value(marks, *move) for move in found.moves)
        exact = found.stopped_by is None
        omitted = NOTHING_OMITTED
        if found.omitted:
            value = found.omitted_value
            score = None if value is None else to_public(value, marks)
            assert not isinstance(score, float)
            omitted = Omitted(found.omitted, score)
        return Analysis(board, ranked, exact, found.depth, found.stopped_by, found.nodes, omitted)

    def _run_core(self, board: Board, budget: int, control: SearchControl | None) -> CoreResult:
        """The exact core's search (boards up to 8x8; ``_analyse`` chooses)."""
        outcome_budget, distance_budget = budget_shares(budget)
        return run(
            board.shape,
            self.table,
            board.x,
            board.o,
            x_to_move=board.side_to_move is Player.X,
            budget=budget,
            outcome_budget=outcome_budget,
            distance_budget=distance_budget,
            control=control,
            threads=self.proof_threads,
        )

    def _run_big(self, board: Board, budget: int, control: SearchControl | None) -> CoreResult:
        """The big-board search (``docs/architecture.md`` says which boards)."""
        return run_big(
            board.shape,
            self.table,
            board.x,
            board.o,
            x_to_move=board.side_to_move is Player.X,
            budget=budget,
            control=control,
            max_depth=self.max_depth or 0,
            context=self.context,
        )

    def solve_game(self, rows: int = 3, cols: int = 3, k: int | None = None) -> int:
        """Analyse every reachable position of a small game (X first) into the caches.

        Meant for 3x3 at start-up. Positions are searched from the fullest
        back to the empty board, so each search finds its children's values in
        the table. Returns the number of positions analysed.
        """
        shape = geometry(rows, cols, k)
        in_play = sorted(
            (b for b in _reachable(shape) if not b.is_game_over()),
            key=lambda b: -b.mark_count,
        )
        for board in in_play:
            # Not counted as searches: operators watch those for requests.
            analysis = self._analyse(board, max(self.node_budget, 1_000_000), None)
            assert analysis.exact, board  # a 3x3 position takes a few hundred nodes
            self.answers.put(_answer_key(board), analysis)
        return len(in_play)


def _reachable(shape: Geometry) -> list[Board]:
    """Every position legal play reaches from the empty board, X first."""
    start = Board(shape, 0, 0, Player.X)
    seen = {start}
    frontier = [start]
    while frontier:
        board = frontier.pop()
        if board.is_game_over():
            continue
        for cell in board.empty_cells():
            child = board.play(cell)
            if child not in seen:
                seen.add(child)
                frontier.append(child)
    return list(seen)


def _move_value(
    marks: int,
    cell: int,
    value: Score,
    exact: bool,
    proven: int,
    line: tuple[int, ...],
    no_win: bool,
) -> MoveValue:
    if exact:
        return MoveValue(cell, to_public(int(value), marks), True, line=line)
    if proven:
        # The proof's bound, as a public score: see unknown distances in score.py.
        bound = to_public(int(value), marks)
        outcome = Outcome.WIN if proven > 0 else Outcome.LOSS
        return MoveValue(cell, bound, False, outcome, line=line)
    return MoveValue(cell, _as_estimate(value), False, no_win=no_win, line=line)


# An unconfirmed win or loss stays an estimate: strongly for one side, but
# inside (-1, 1) like every estimate, above or below every heuristic value.
UNCONFIRMED = 0.95


def _as_estimate(value: Score) -> float:
    if abs(value) >= 1:
        return UNCONFIRMED if value > 0 else -UNCONFIRMED
    return float(value)


AnswerKey = tuple[int, int, int, Rule, int, int, Player]


def _answer_key(board: Board) -> AnswerKey:
    return (board.rows, board.cols, board.k, board.rule, board.x, board.o, board.side_to_move)
