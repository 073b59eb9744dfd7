"""The opening book: proven values of the first moves on every board shape, built
by the project's own solver and shipped with the package.

It owns the book's file format, how a book is built and how it is installed
into an engine's table. It proves nothing new at run time: an entry is what
the solver proved, offline, with the node count and time it took; installing
it stores proven bounds in the table, where searches find them as if they had
proved them themselves.

The file (``book.json`` beside this module, version 1) holds one entry per
position: the empty board of every shape from 3x3 to 8x8 and every k, with
``rows <= cols``, under each rule where the rules differ (``exact`` where a
row of k + 1 fits; an entry without ``rule`` is ``freestyle``); the other
orientation of a rectangle is the same game transposed, and
:meth:`Book.install` stores both::

    {"version": 1, "entries": [
      {"rows": 5, "cols": 5, "k": 4, "board": ".....", "player": "X",
       "nodes": 87861, "seconds": 0.11, "budget": 2000000000,
       "moves": [{"cell": 12, "lower": 0, "upper": 0}, ...]},
      {"rows": 5, "cols": 5, "k": 4, "rule": "exact", ...}, ...]}

``moves`` lists one move per class of moves equal under the board's
symmetries, with proven bounds on its internal (mark-counted, see
``search.py``) value for the side to move; moves whose value the build could
not bound are left out. ``make book`` rebuilds the entries up to 7x7 and keeps
those with a side of 8, which ``make book-8x8`` rebuilds (``--wide``: minutes
each, with a budget of their own); each build is deterministic (node budgets,
one thread), so a rebuild changes only the times.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from service.engine import _core, store
from service.engine.analysis import Engine, MoveValue
from service.engine.board import Board, Player
from service.engine.geometry import MIN_K, MIN_SIDE, Geometry, Rule, geometry
from service.engine.score import Outcome
from service.engine.search import CORE_ALONE_SIDE, SMALL_MAX_SIDE, core_shape, to_internal

BOOK_PATH = Path(__file__).with_name("book.json")
VERSION = 1
# Nodes the build may spend on one position (a few minutes of searching on the
# hardest boards); deterministic, unlike a time limit.
DEFAULT_BUILD_BUDGET = 300_000_000
# The same for the shapes with a side of 8 (make book-8x8).
WIDE_BUILD_BUDGET = 300_000_000
BUILD_TABLE_BYTES = 512 * 2**20
# The proofs that need more than that: (8,8,5) took 1.10 G nodes with a 6 GiB
# table (make book-8x8 gives it this budget and table, splits its root's
# proofs over the machine's cores, and keeps what it proved near the root in
# a store: see store.py and docs/performance.md).
LONG_PROOFS: dict[tuple[int, int, int, Rule], tuple[int, int]] = {
    (8, 8, 5, Rule.FREESTYLE): (10_000_000_000, 6 * 2**30),
}
# The store keeps the long proofs' positions with at most this many marks.
STORE_MARKS = 6
# The long proofs (and make prove-885) run their root's proofs on every core.
LONG_PROOF_THREADS = os.cpu_count() or 1


@dataclass(frozen=True)
class BookMove:
    cell: int
    lower: int  # proven bounds on the move's internal value for the side to move
    upper: int


@dataclass(frozen=True)
class BookEntry:
    board: Board
    moves: tuple[BookMove, ...]
    nodes: int
    seconds: float
    budget: int

    def to_json(self) -> dict[str, object]:
        shape = self.board.shape
        rule = {"rule": shape.rule.value} if shape.rule is not Rule.FREESTYLE else {}
        return {
            "rows": shape.rows,
            "cols": shape.cols,
            "k": shape.k,
            **rule,
            "board": self.board.format(),
            "player": self.board.side_to_move.value,
            "nodes": self.nodes,
            "seconds": round(self.seconds, 3),
            "budget": self.budget,
            "moves": [{"cell": m.cell, "lower": m.lower, "upper": m.upper} for m in self.moves],
        }

    def transposed(self) -> BookEntry:
        """The same entry on the transposed board (rows become columns)."""
        shape = self.board.shape
        flipped = geometry(shape.cols, shape.rows, shape.k, shape.rule)

        def cell(index: int) -> int:
            row, col = divmod(index, shape.cols)
            return col * shape.rows + row

        def marks(bits: int) -> int:
            return sum(1 << cell(c) for c in range(shape.cells) if bits >> c & 1)

        board = Board(flipped, marks(self.board.x), marks(self.board.o), self.board.side_to_move)
        moves = tuple(BookMove(cell(m.cell), m.lower, m.upper) for m in self.moves)
        return BookEntry(board, moves, self.nodes, self.seconds, self.budget)

    @classmethod
    def from_json(cls, data: dict[str, object]) -> BookEntry:
        rows, cols, k = _int(data, "rows"), _int(data, "cols"), _int(data, "k")
        rule = _str(data, "rule") if "rule" in data else Rule.FREESTYLE
        board = Board.parse(
            _str(data, "board"), rows=rows, cols=cols, k=k, player=_str(data, "player"), rule=rule
        )
        moves_data = data.get("moves")
        if not isinstance(moves_data, list):
            raise ValueError("a book entry's moves must be a list")
        # A move's value, for the side to move here: at best a win with this
        # move (cells - marks), at worst a loss on the next move (see search.py;
        # install() stores the child's bounds, which _core.store() checks alike).
        empty = board.shape.cells - board.mark_count
        moves = []
        for move in moves_data:
            if not isinstance(move, dict):
                raise ValueError("a book move must be an object")
            book_move = BookMove(_int(move, "cell"), _int(move, "lower"), _int(move, "upper"))
            if (
                not 0 <= book_move.cell < board.shape.cells
                or (board.x | board.o) >> book_move.cell & 1
            ):
                raise ValueError(f"book move {book_move.cell} is not an empty cell of {board!r}")
            if not -(empty - 1) <= book_move.lower <= book_move.upper <= empty:
                raise ValueError(f"book move {book_move} has bounds out of order or range")
            moves.append(book_move)
        return cls(
            board,
            tuple(moves),
            _int(data, "nodes"),
            float(_number(data, "seconds")),
            _int(data, "budget"),
        )


@dataclass(frozen=True)
class Book:
    entries: tuple[BookEntry, ...]

    def to_json(self) -> dict[str, object]:
        return {"version": VERSION, "entries": [entry.to_json() for entry in self.entries]}

    @classmethod
    def from_json(cls, data: object) -> Book:
        if not isinstance(data, dict) or data.get("version") != VERSION:
            raise ValueError(f"not a version {VERSION} book")
        entries = data.get("entries")
        if not isinstance(entries, list):
            raise ValueError("a book's entries must be a list")
        return cls(tuple(BookEntry.from_json(entry) for entry in entries))

    def install(self, engine: Engine) -> int:
        """Store every entry's bounds, and its transpose's, in ``engine``'s table;
        returns the positions stored."""
        stored = 0
        entries = [*self.entries]
        entries += [e.transposed() for e in self.entries if e.board.rows != e.board.cols]
        for entry in entries:
            board = entry.board
            shape = core_shape(board.shape)
            for move in entry.moves:
                child = board.play(move.cell)
                # The child's bounds, for its side to move, are the move's negated.
                _core.store(
                    shape,
                    engine.table,
                    child.x,
                    child.o,
                    child.side_to_move is Player.X,
                    -move.upper,
                    -move.lower,
                )
                stored += 1
        return stored


def load(path: Path = BOOK_PATH) -> Book:
    return Book.from_json(json.loads(path.read_text()))


def internal_bounds(move: MoveValue, board: Board) -> tuple[int, int] | None:
    """Proven bounds on a move's internal value, from its public score, or None."""
    cells, marks = board.shape.cells, board.mark_count
    win_now, lose_next = cells - marks, -(cells - marks - 1)
    if move.exact:
        assert isinstance(move.score, int)
        value = to_internal(move.score, marks)
        return value, value
    if move.proven is Outcome.WIN:
        assert isinstance(move.score, int)
        return to_internal(move.score, marks), win_now
    if move.proven is Outcome.LOSS:
        assert isinstance(move.score, int)
        return lose_next, to_internal(move.score, marks)
    return None


def is_wide(shape: Geometry) -> bool:
    """Whether ``make book-8x8`` builds the shape's entry (a side of 8)."""
    return max(shape.rows, shape.cols) > CORE_ALONE_SIDE


def shapes() -> Iterator[Geometry]:
    """Every shape from 3x3 to 8x8 and every k, with rows <= cols, under each rule
    where the rules differ."""
    for rows in range(MIN_SIDE, SMALL_MAX_SIDE + 1):
        for cols in range(rows, SMALL_MAX_SIDE + 1):
            for k in range(MIN_K, max(rows, cols) + 1):
                yield geometry(rows, cols, k)
                exact = geometry(rows, cols, k, Rule.EXACT)
                if exact.overlines_matter:
                    yield exact


def prove(board: Board, budget: int, engine: Engine | None = None) -> BookEntry:
    """What one cold search of ``budget`` nodes proves about ``board``'s moves
    (by default on one thread, with a table of BUILD_TABLE_BYTES)."""
    if engine is None:
        engine = Engine(node_budget=budget, table_bytes=BUILD_TABLE_BYTES, core_only=True)
    started = time.perf_counter()
    analysis = engine.search(board)
    seconds = time.perf_counter() - started
    seen: set[int] = set()
    moves = []
    for move in sorted(analysis.moves, key=lambda m: m.cell):
        child = board.play(move.cell)
        key = min(board.shape.position_codes(child.x, child.o))
        if key in seen:
            continue  # a symmetric image of a move already listed
        seen.add(key)
        bounds = internal_bounds(move, board)
        if bounds is not None:
            moves.append(BookMove(move.cell, *bounds))
    return BookEntry(board, tuple(moves), analysis.nodes, seconds, budget)


def build(budget: int, chosen: Sequence[Geometry], store_dir: Path = store.STORE_DIR) -> Book:
    """Prove the empty board of each ``chosen`` shape with ``budget`` nodes, or
    with its own budget and table where LONG_PROOFS names it, printing a line
    for each as it is done."""
    entries = []
    for shape in chosen:
        key = (shape.rows, shape.cols, shape.k, shape.rule)
        nodes, table_bytes = LONG_PROOFS.get(key, (budget, BUILD_TABLE_BYTES))
        threads = LONG_PROOF_THREADS if key in LONG_PROOFS else 1
        engine = Engine(
            node_budget=nodes, table_bytes=table_bytes, core_only=True, proof_threads=threads
        )
        entry = prove(Board(shape, 0, 0, Player.X), nodes, engine)
        entries.append(entry)
        if key in LONG_PROOFS:
            kept = store.collect(engine, shape, STORE_MARKS)
            path = store.path_for(shape, store_dir)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(kept.to_bytes())
            print(f"{path}: {len(kept.positions):,} positions", flush=True)
        proven = len(entry.moves)
        print(
            f"{shape.rows}x{shape.cols} k={shape.k} {shape.rule}: {proven} move classes bounded, "
            f"{entry.nodes:,} nodes, {entry.seconds:.2f} s",
            flush=True,
        )
    return Book(tuple(entries))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Build the opening book (make book).")
    parser.add_argument(
        "--wide",
        action="store_true",
        help="build the shapes with a side of 8 (make book-8x8) and keep the others",
    )
    parser.add_argument("--budget", type=int, help="nodes per board (default: by --wide)")
    parser.add_argument(
        "--shape",
        action="append",
        type=_shape_argument,
        help="build only this shape, ROWSxCOLS:K[:RULE] (e.g. 8x8:5), and keep the rest",
    )
    parser.add_argument("--out", type=Path, default=BOOK_PATH)
    args = parser.parse_args(argv)
    budget = args.budget or (WIDE_BUILD_BUDGET if args.wide else DEFAULT_BUILD_BUDGET)
    kept = load(args.out).entries if args.out.exists() else ()
    chosen = args.shape or [s for s in shapes() if is_wide(s) == args.wide]
    built = build(budget, chosen).entries
    order = {(s.rows, s.cols, s.k, s.rule): i for i, s in enumerate(shapes())}
    entries = [e for e in kept if e.board.shape not in chosen] + list(built)
    entries.sort(key=lambda e: order[e.board.rows, e.board.cols, e.board.k, e.board.shape.rule])
    args.out.write_text(json.dumps(Book(tuple(entries)).to_json(), indent=1) + "\n")
    print(f"wrote {len(entries)} entries to {args.out} ({len(built)} built)")


def _shape_argument(text: str) -> Geometry:
    """``ROWSxCOLS:K[:RULE]``, rows <= cols, as a shape of the book."""
    size, k, *rule = text.split(":")
    rows, cols = (int(side) for side in size.split("x"))
    shape = geometry(rows, cols, int(k), Rule(rule[0]) if rule else Rule.FREESTYLE)
    if shape not in set(shapes()):
        raise argparse.ArgumentTypeError(f"{text} is not a shape of the book")
    return shape


def _int(data: dict[str, object], key: str) -> int:
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{key} must be an integer, got {value!r}")
    return value


def _number(data: dict[str, object], key: str) -> float:
    value = data.get(key)
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise ValueError(f"{key} must be a number, got {value!r}")
    return value


def _str(data: dict[str, object], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise ValueError(f"{key} must be text, got {value!r}")
    return value


if __name__ == "__main__":
    main()
