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
from dataclasses import dataclass, field

from service.engine.board import Board, Player
from service.engine.cache import BoundedCache, CacheStats
from service.engine.geometry import Geometry, geometry
from service.engine.score import Outcome, Score, outcome, plies_to_end
from service.engine.search import (
    BudgetExhausted,
    Position,
    Search,
    SearchObserver,
    Table,
    table_key,
    to_public,
)

DEFAULT_NODE_BUDGET = 200_000
DEFAULT_CACHE_ENTRIES = 500_000
DEFAULT_ANSWER_ENTRIES = 10_000
# The share of the node budget the exact solve may use before the search falls
# back to iterative deepening with the heuristic for the rest.
SOLVE_SHARE = 0.6


@dataclass(frozen=True, slots=True)
class MoveValue:
    """One legal move and its score for the player making it (see ``score.py``)."""

    cell: int
    score: Score
    exact: bool


def rank_moves(moves: Iterable[MoveValue]) -> tuple[MoveValue, ...]:
    """Best first: higher score, then lower cell index. The project's one sort key.

    >>> rank_moves([MoveValue(0, 0, True), MoveValue(4, 7, True), MoveValue(2, 0, True)])
    (MoveValue(cell=4, score=7, exact=True), MoveValue(cell=0, score=0, exact=True), \
MoveValue(cell=2, score=0, exact=True))
    """
    return tuple(sorted(moves, key=lambda move: (-move.score, move.cell)))


@dataclass(frozen=True, slots=True)
class Analysis:
    """Every legal move of ``board`` with its score, best first.

    ``exact`` is true when every move's score is proven; ``depth`` is the search
    depth in plies behind estimated scores (the number of empty cells when
    exact); ``nodes`` counts the positions this analysis searched (0 when it came
    from the cache).
    """

    board: Board
    moves: tuple[MoveValue, ...]
    exact: bool
    depth: int
    nodes: int = field(default=0, compare=False)

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
        """The proven result with best play, or None when the best move is an estimate."""
        return move_outcome(self.moves[0])

    @property
    def plies(self) -> int | None:
        return self.move_plies(self.moves[0])

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
    if not move.exact:
        return None
    assert isinstance(move.score, int)
    return outcome(move.score)


@dataclass(frozen=True)
class EngineStats:
    positions: CacheStats
    answers: CacheStats
    nodes: int
    searches: int
    searches_exhausted: int


class Engine:
    """Analyses positions exactly where the node budget allows, estimates beyond.

    Thread-safe: any number of threads may call :meth:`analyze` at once.
    ``observer``, when given, is called after every search that ran (not after
    cache hits) with ``(nodes, seconds, budget_exhausted)``.
    """

    def __init__(
        self,
        *,
        node_budget: int = DEFAULT_NODE_BUDGET,
        cache_entries: int = DEFAULT_CACHE_ENTRIES,
        answer_entries: int = DEFAULT_ANSWER_ENTRIES,
        observer: SearchObserver | None = None,
    ) -> None:
        if node_budget < 1:
            raise ValueError(f"node_budget must be at least 1, got {node_budget}")
        self.node_budget = node_budget
        self.positions: Table = BoundedCache(cache_entries)
        self.answers: BoundedCache[tuple[int, int, int, int, int, Player], Analysis] = BoundedCache(
            answer_entries
        )
        self.observer = observer
        self._lock = threading.Lock()
        self._nodes = self._searches = self._exhausted = 0

    def stats(self) -> EngineStats:
        with self._lock:
            nodes, searches, exhausted = self._nodes, self._searches, self._exhausted
        return EngineStats(self.positions.stats(), self.answers.stats(), nodes, searches, exhausted)

    def analyze(self, board: Board, *, node_budget: int | None = None) -> Analysis:
        """Score every legal move of ``board``. Raises GameOverError on a finished game."""
        board.check_in_progress()
        cached = self.cached_analysis(board)
        if cached is not None:
            return cached
        return self.search(board, node_budget=node_budget)

    def cached_analysis(self, board: Board) -> Analysis | None:
        """The finished exact analysis of ``board`` if the cache holds it, else None."""
        return self.answers.get(_answer_key(board))

    def search(
        self,
        board: Board,
        *,
        node_budget: int | None = None,
        cancel: threading.Event | None = None,
    ) -> Analysis:
        """Analyse ``board`` by searching, without consulting the cache of answers.

        Setting ``cancel`` (from another thread) stops the search within a few
        milliseconds with :class:`SearchCancelled`; what it proved stays cached.
        """
        board.check_in_progress()
        started = time.perf_counter()
        budget = self.node_budget if node_budget is None else node_budget
        result, exhausted = self._search(board, budget, cancel)
        elapsed = time.perf_counter() - started
        with self._lock:
            self._nodes += result.nodes
            self._searches += 1
            self._exhausted += exhausted
        if self.observer is not None:
            self.observer(result.nodes, elapsed, exhausted)
        if result.exact:
            self.answers.put(_answer_key(board), result)
        return result

    def _search(
        self, board: Board, budget: int, cancel: threading.Event | None
    ) -> tuple[Analysis, bool]:
        shape = board.shape
        pos = Position(shape, board.x, board.o, board.side_to_move is Player.X)
        search = Search(shape, self.positions, max(1, int(budget * SOLVE_SHARE)), cancel)
        cells = board.empty_cells()
        # Moves whose children are the same position up to symmetry share a value:
        # search one representative of each class.
        classes: dict[int, list[int]] = {}
        for cell in search.ordered_moves(pos.me, pos.opp, pos.my_open, pos.opp_open, -1):
            classes.setdefault(search.child_key(pos, cell), []).append(cell)
        representatives = [members[0] for members in classes.values()]
        proven: dict[int, int] = {}
        limit = shape.cells + 1
        try:
            for cell in representatives:
                if pos.my_threats >> cell & 1:
                    proven[cell] = shape.cells - pos.marks
                else:
                    proven[cell] = -search.solve(*search.play(pos, cell), -limit, limit)
        except BudgetExhausted:
            pass
        depth = len(cells)
        estimated: dict[int, int | float] = {}
        exhausted = len(proven) < len(representatives)
        if exhausted:
            depth, estimated = _deepen(search, pos, representatives, proven, budget)
            _confirm(search, pos, estimated, proven)
        moves: list[MoveValue] = []
        for members in classes.values():
            rep = members[0]
            exact = rep in proven
            internal = proven[rep] if exact else _as_estimate(estimated[rep])
            score = to_public(internal, pos.marks)
            moves.extend(MoveValue(cell, score, exact) for cell in members)
        ranked = rank_moves(moves)
        return (
            Analysis(board, ranked, all(m.exact for m in ranked), depth, search.nodes),
            exhausted,
        )

    def solve_game(self, rows: int = 3, cols: int = 3, k: int | None = None) -> int:
        """Analyse every reachable position of a small game (X first) into the caches.

        Meant for 3x3 at start-up: it walks the whole game tree once with
        memoised exact values, which is cheaper than thousands of separate
        searches. Returns the number of positions analysed.
        """
        shape = geometry(rows, cols, k)
        values: dict[tuple[int, int], int] = {}
        _walk(shape, 0, 0, True, values)
        count = 0
        for (x, o), _ in values.items():
            board = Board(shape, x, o, Player.X if x.bit_count() == o.bit_count() else Player.O)
            if board.is_game_over():
                continue
            mover_x = board.side_to_move is Player.X
            me = x if mover_x else o
            marks = board.mark_count
            moves: list[MoveValue] = []
            for cell in board.empty_cells():
                bit = 1 << cell
                child = (x | bit, o) if mover_x else (x, o | bit)
                if _completes_line(shape, me | bit, cell):
                    internal = shape.cells - marks
                else:
                    internal = -values[child]
                moves.append(MoveValue(cell, to_public(internal, marks), True))
            analysis = Analysis(board, rank_moves(moves), True, len(moves))
            self.answers.put(_answer_key(board), analysis)
            pos_codes = shape.position_codes(x, o)
            least = min(pos_codes)
            frame = pos_codes.index(least)
            value = values[(x, o)]
            best = analysis.moves[0].cell
            self.positions.put(
                table_key(least, 0 if mover_x else 1, shape),
                (value, value, shape.symmetries[frame][best]),
            )
            count += 1
        return count


def _confirm(
    search: Search, pos: Position, estimated: dict[int, int | float], proven: dict[int, int]
) -> None:
    """Prove the wins and losses the estimate found, or leave them estimates.

    A depth-limited search that mixes heuristic leaves with one-sided cached
    bounds can return a win or loss score that is not the exact one, so each is
    checked by the exact solver in a window of width one around it, with what
    is left of the budget. A confirmed score moves to ``proven``.
    """
    for cell, value in list(estimated.items()):
        if not isinstance(value, int) or value == 0:
            continue
        try:
            child = -value
            if search.solve(*search.play(pos, cell), child - 1, child + 1) == child:
                proven[cell] = value
        except BudgetExhausted:
            return


# An unconfirmed win or loss stays an estimate: strongly for one side, but
# inside (-1, 1) like every estimate, above or below every heuristic value.
UNCONFIRMED = 0.95


def _as_estimate(value: int | float) -> float:
    if isinstance(value, int) and value != 0:
        return UNCONFIRMED if value > 0 else -UNCONFIRMED
    return float(value)


AnswerKey = tuple[int, int, int, int, int, Player]


def _answer_key(board: Board) -> AnswerKey:
    return (board.rows, board.cols, board.k, board.x, board.o, board.side_to_move)


def _completes_line(shape: Geometry, mine: int, cell: int) -> bool:
    lines = shape.lines
    return any(mine & lines[i] == lines[i] for i in shape.lines_through[cell])


def _walk(
    shape: Geometry, x: int, o: int, x_to_move: bool, values: dict[tuple[int, int], int]
) -> int:
    """Exact internal value of (x, o) for the mover, by plain memoised negamax."""
    known = values.get((x, o))
    if known is not None:
        return known
    mine = x if x_to_move else o
    occupied = x | o
    marks = occupied.bit_count()
    best = 0 if occupied == shape.full else -shape.cells - 1
    for cell in range(shape.cells):
        bit = 1 << cell
        if occupied & bit:
            continue
        if _completes_line(shape, mine | bit, cell):
            value = shape.cells - marks
            values[(x | bit, o) if x_to_move else (x, o | bit)] = -value  # terminal: loser's view
        elif x_to_move:
            value = -_walk(shape, x | bit, o, False, values)
        else:
            value = -_walk(shape, x, o | bit, True, values)
        best = max(best, value)
    values[(x, o)] = best
    return best


def _deepen(
    search: Search,
    pos: Position,
    representatives: list[int],
    proven: dict[int, int],
    budget: int,
) -> tuple[int, dict[int, int | float]]:
    """Iterative deepening over the moves the solve could not prove.

    Depth 1 always completes (it looks only at each move's resulting position,
    one node per move); deeper iterations run while the whole budget lasts, and
    only a completed iteration's values are reported. Returns the depth reached
    and each move's internal value.
    """
    empties = search.shape.cells - pos.marks
    todo = [cell for cell in representatives if cell not in proven]
    limit = search.shape.cells + 1
    search.budget = max(budget, search.nodes + len(todo))
    reached = 0
    values: dict[int, int | float] = {}
    for depth in range(1, empties + 1):
        current: dict[int, int | float] = {}
        try:
            for cell in todo:
                if pos.my_threats >> cell & 1:
                    current[cell] = search.shape.cells - pos.marks
                else:
                    current[cell] = -search.estimate(
                        *search.play(pos, cell), depth - 1, -limit, limit
                    )
        except BudgetExhausted:
            break
        values, reached = current, depth
        # Once every move is a proven win or loss, looking deeper changes nothing.
        if all(isinstance(v, int) and v != 0 for v in values.values()):
            break
    return reached, values
