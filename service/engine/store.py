"""The store of proven positions: what the offline proofs established near the
root, kept after them, and put into an engine's table at start-up.

The book (``book.py``) keeps only the first moves of every empty board; the
proof behind an entry (``make book-8x8`` proves (8,8,5) in about half an hour)
proves far more on the way: the bounds of every position it settled. A store
keeps those with at most ``max_marks`` marks, one per class of positions equal
under the board's symmetries (and, on boards with a side of 8, under the
colours' swap: see ``canonical()`` in ``core/small/board.h``), as the table
held them when the proof ended (``_core.proven_positions``). Installed, a
request on such a position finds its bounds, and a proof inside a request
starts from the stored bounds of its children.

The file (``stores/<rows>x<cols>k<k>.store`` beside this module), little-endian::

    magic     8 bytes   b"TTTSTORE"
    version   u16       1
    rows, cols, k, rule (0 freestyle, 1 exact), max_marks: u8 each
    count     u32       records
    records   count x 19 bytes: x u64, o u64, lower i8, upper i8, x_to_move u8
    sha256    32 bytes  of everything before it

sorted by (x, o, x_to_move), so a rebuild of the same proof writes the same
bytes. A file that is short, long, of another version, whose digest or any
record does not check, is refused whole (:class:`StoreError`): the service
logs it and searches without it, and never answers from a damaged store.
"""

from __future__ import annotations

import hashlib
import logging
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from service.engine import _core
from service.engine.analysis import Engine
from service.engine.board import Board, Player
from service.engine.geometry import Geometry, Rule, geometry
from service.engine.search import core_shape

log = logging.getLogger("service.engine")
STORE_DIR = Path(__file__).with_name("stores")
MAGIC = b"TTTSTORE"
VERSION = 1
_HEADER = struct.Struct("<8sHBBBBBI")
_RECORD = struct.Struct("<QQbbB")
_DIGEST_BYTES = 32
_RULES = (Rule.FREESTYLE, Rule.EXACT)


class StoreError(ValueError):
    """A store file that cannot be trusted: nothing of it is used."""


@dataclass(frozen=True, slots=True)
class StoredPosition:
    x: int
    o: int
    x_to_move: bool
    lower: int  # proven bounds on the internal value for the side to move
    upper: int  # (see search.py)


@dataclass(frozen=True)
class Store:
    shape: Geometry
    max_marks: int
    positions: tuple[StoredPosition, ...]

    def board(self, position: StoredPosition) -> Board:
        side = Player.X if position.x_to_move else Player.O
        return Board(self.shape, position.x, position.o, side)

    def install(self, engine: Engine) -> int:
        """Store every position's bounds in ``engine``'s table; returns how many."""
        shape = core_shape(self.shape)
        for p in self.positions:
            _core.store(shape, engine.table, p.x, p.o, p.x_to_move, p.lower, p.upper)
        return len(self.positions)

    def to_bytes(self) -> bytes:
        shape = self.shape
        header = _HEADER.pack(
            MAGIC,
            VERSION,
            shape.rows,
            shape.cols,
            shape.k,
            _RULES.index(shape.rule),
            self.max_marks,
            len(self.positions),
        )
        records = b"".join(
            _RECORD.pack(p.x, p.o, p.lower, p.upper, p.x_to_move) for p in self.positions
        )
        body = header + records
        return body + hashlib.sha256(body).digest()

    @classmethod
    def from_bytes(cls, data: bytes) -> Store:
        if len(data) < _HEADER.size + _DIGEST_BYTES:
            raise StoreError(f"a store is at least {_HEADER.size + _DIGEST_BYTES} bytes")
        body, digest = data[:-_DIGEST_BYTES], data[-_DIGEST_BYTES:]
        if hashlib.sha256(body).digest() != digest:
            raise StoreError("the store's SHA-256 digest does not match its contents")
        magic, version, rows, cols, k, rule, max_marks, count = _HEADER.unpack_from(body)
        if magic != MAGIC or version != VERSION:
            raise StoreError(f"not a version {VERSION} store")
        if len(body) != _HEADER.size + count * _RECORD.size:
            raise StoreError(f"the store says {count} records but holds {len(body)} bytes")
        if rule >= len(_RULES):
            raise StoreError(f"unknown rule number {rule}")
        try:
            shape = geometry(rows, cols, k, _RULES[rule])
        except ValueError as error:
            raise StoreError(f"not a board shape: {error}") from error
        full = (1 << shape.cells) - 1
        positions = []
        for x, o, lower, upper, x_to_move in _RECORD.iter_unpack(body[_HEADER.size :]):
            marks = (x | o).bit_count()
            left = shape.cells - marks
            if (x | o) & ~full or x & o or marks > max_marks or x_to_move > 1:
                raise StoreError(f"record ({x:#x}, {o:#x}) is not a position of the store")
            if not -(left + 1) <= lower <= upper <= left:
                raise StoreError(f"record ({x:#x}, {o:#x}) has bounds out of order or range")
            positions.append(StoredPosition(x, o, bool(x_to_move), lower, upper))
        return cls(shape, max_marks, tuple(positions))


def path_for(shape: Geometry, directory: Path = STORE_DIR) -> Path:
    rule = "" if shape.rule is Rule.FREESTYLE else f"-{shape.rule.value}"
    return directory / f"{shape.rows}x{shape.cols}k{shape.k}{rule}.store"


def load(path: Path) -> Store:
    """The store in ``path``; raises StoreError when it cannot be trusted."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise StoreError(f"cannot read {path}: {error}") from error
    return Store.from_bytes(data)


def paths(directory: Path | None = None) -> Iterator[Path]:
    """Every store file in ``directory`` (by default those shipped with the
    package), in name order."""
    yield from sorted((STORE_DIR if directory is None else directory).glob("*.store"))


def install_all(engine: Engine, directory: Path | None = None) -> int:
    """Install every store of ``directory`` (see :func:`paths`) into ``engine``'s
    table; returns the positions installed. A store that cannot be trusted is
    logged as an error and left out whole: the engine searches those
    positions instead."""
    installed = 0
    for path in paths(directory):
        try:
            kept = load(path)
        except StoreError as error:
            log.error("store %s left out, its positions will be searched: %s", path.name, error)
            continue
        installed += kept.install(engine)
    return installed


def collect(engine: Engine, shape: Geometry, max_marks: int) -> Store:
    """What ``engine``'s table holds proven of ``shape``'s positions with at most
    ``max_marks`` marks (after a proof; no search may run meanwhile)."""
    found = _core.proven_positions(core_shape(shape), engine.table, max_marks)
    positions = sorted(
        (StoredPosition(x, o, x_to_move, lower, upper) for x, o, x_to_move, lower, upper in found),
        key=lambda p: (p.x, p.o, p.x_to_move),
    )
    return Store(shape, max_marks, tuple(positions))
