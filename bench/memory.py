"""Memory benchmark: the real server's resident memory under many distinct large boards.

Run with ``make bench`` or ``python bench/memory.py``. Starts the server as in
production (``python -m service``) with moderate caches and a small node
budget, sends it 20,000 distinct random reachable positions (half 6x6, half
7x7, k=5) from a few concurrent clients (three in four as ``POST
/v1/analysis``, the rest as ``POST /v1/move``), and samples the server's RSS
(``/proc/<pid>/status``) and every cache's figures (``/metrics``:
``tictactoe_cache_entries``, ``..._evictions_total``, ``..._capacity_entries``)
every few hundred requests. The curve goes to ``bench/results/memory.csv``.

The bound it checks, at every sample::

    RSS <= base + sum over caches of (entries x bytes per entry) + headroom

``base`` is the server's RSS once ready (3x3 solved, nothing else asked); the
entries are what each cache holds, at most its capacity (``TTT_CACHE_ENTRIES``
for positions, ``TTT_ANSWER_ENTRIES`` for answers). The bytes per entry are
measured first, in this process, as resident memory (allocator overhead
included) and on other boards than the server gets:

* positions: a table entry after real searches have refilled a table about 13
  times (where the figure stops growing: fragmentation has settled);
* answers: an exact 7x7 analysis, the largest kind of cached answer;
* moves (when the server has a cache of serialised move answers): the JSON of
  a 7x7 move answer with 47 best moves, the largest, with its key;
* responses (the answer cache of ``service/api/replay.py``): the JSON of an
  exact 7x7 analysis with its headers, keyed by a body of the longest length
  the cache keys on. Where /metrics does not report this cache, it is counted
  full, at ``TTT_RESPONSE_CACHE_ENTRIES``, at every sample.

``headroom`` is one extra hash table per cache at capacity: a full cache
reallocates its table as entries churn, and the old one is held until the new
one is built. The check is made with the entries at each sample, and with every
cache full, which is the figure to size a container by.

Exits 1 when a sample breaks the bound, a request fails, a cache reported in
/metrics has no measured bytes per entry, or the caches never fill (evictions
must happen). Prints a table and one JSON line.
"""

from __future__ import annotations

import argparse
import csv
import gc
import itertools
import json
import os
import queue
import random
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
from local_server import REPO, LocalServer

from service.engine import Analysis, Board, BoundedCache, Engine, MoveValue
from service.settings import Settings

RESULTS = REPO / "bench" / "results"
SETTINGS = {
    "TTT_CACHE_ENTRIES": "100000",
    "TTT_ANSWER_ENTRIES": "5000",
    # 5,000 nodes take ~60 ms a search here (20 minutes for 20,000 boards); 300
    # take ~3 ms and still put ~80 table entries per search, 16x the capacity.
    "TTT_NODE_BUDGET": "300",
    "TTT_RESPONSE_CACHE_ENTRIES": "5000",
    "TTT_LOG_LEVEL": "info",
}
# The longest request body the answer cache keys on (service/api/replay.py).
RESPONSE_KEY_BYTES = 1024
POSITIONS = 20_000
MOVE_SHARE = 4  # every 4th request asks for a move, the others for an analysis
CLIENTS = 4
SAMPLE_EVERY = 500
# The calibration table: a quarter of the server's, so 13 refills take ~4,000 searches.
CALIBRATION_ENTRIES = 25_000
CALIBRATION_SEARCHES = 4_000
CALIBRATION_ANSWERS = 5_000
SERVER_CPU, CLIENT_CPU = 0, 1
SEED = 6_7_2024


@dataclass(frozen=True)
class Cache:
    entries: int
    evictions: int
    capacity: int


@dataclass(frozen=True)
class Sample:
    requests: int
    seconds: float
    rss_kib: int
    caches: dict[str, Cache]


def distinct_positions(count: int, rng: random.Random) -> list[Board]:
    """``count`` distinct unfinished boards, half 6x6 and half 7x7, by random play."""
    found: dict[Board, None] = {}
    while len(found) < count:
        side = 6 + len(found) % 2
        board = Board.parse("." * side * side)
        for _ in range(rng.randint(2, side * side - 6)):
            if board.is_game_over():
                break
            board = board.play(rng.choice(board.empty_cells()))
        if not board.is_game_over():
            found[board] = None
    return list(found)


def own_rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS line")


def bytes_per_position(boards: list[Board], capacity: int = CALIBRATION_ENTRIES) -> float:
    """Resident bytes per entry of a full table of proven bounds, at steady state.

    Real searches of the same kind of boards, at the server's node budget, into
    a table of ``capacity`` entries until it has been refilled about 13 times.
    The peak RSS growth is divided by the capacity, so the entry objects, the
    LRU's links, the entry's share of the hash table and the fragmentation are
    all in it.
    """
    engine = Engine(
        node_budget=int(SETTINGS["TTT_NODE_BUDGET"]), cache_entries=capacity, answer_entries=100
    )
    gc.collect()
    before = peak = own_rss_kib()
    for index, board in enumerate(boards):
        engine.analyze(board)
        if index % 50 == 0:
            peak = max(peak, own_rss_kib())
    stats = engine.stats().positions
    churn = (stats.entries + stats.evictions) / capacity
    if churn < 12:
        raise RuntimeError(f"the calibration refilled the table only {churn:.1f} times")
    return (max(peak, own_rss_kib()) - before) * 1024 / capacity


def _two_mark_boards(count: int) -> Iterator[Board]:
    """``count`` distinct 7x7 boards with one X and one O (47 moves), k from 3 to 7."""
    pairs = itertools.product(range(3, 8), itertools.permutations(range(49), 2))
    for k, (x_cell, o_cell) in itertools.islice(pairs, count):
        cells = ["."] * 49
        cells[x_cell], cells[o_cell] = "X", "O"
        yield Board.parse("".join(cells), k=k)


Item = tuple[tuple[object, ...], object]


def _resident_bytes_per_item(items: Iterator[Item]) -> float:
    """RSS growth per item of a BoundedCache (the class every cache uses) filled with
    ``items``, made as they are put: the growth counts the values and keys too."""
    cache: BoundedCache[tuple[object, ...], object] = BoundedCache(CALIBRATION_ANSWERS)
    gc.collect()
    before = own_rss_kib()
    for key, value in items:
        cache.put(key, value)
    gc.collect()
    return (own_rss_kib() - before) * 1024 / len(cache)


def bytes_per_answer() -> float:
    """Resident bytes of a cached answer of the largest kind: an exact 7x7 analysis,
    every score a distinct int, under the engine's key shape."""

    def items() -> Iterator[Item]:
        for index, board in enumerate(_two_mark_boards(CALIBRATION_ANSWERS)):
            moves = tuple(
                MoveValue(cell, 1_000 + index * 64 + cell, True) for cell in board.empty_cells()
            )
            key = (board.rows, board.cols, board.k, board.x, board.o, board.side_to_move)
            yield key, Analysis(board, moves, True, len(moves))

    return _resident_bytes_per_item(items())


def bytes_per_move_answer() -> float:
    """Resident bytes of a serialised move answer of the largest kind, with its key.

    A 7x7 answer whose 47 moves are all best (the longest ``best_moves``), as
    ``service.api.answers`` writes it, keyed by the request's seven fields.
    """
    from service.api import answers  # noqa: PLC0415 - only this measure needs the HTTP layer
    from service.api.models import MoveRequest  # noqa: PLC0415
    from service.engine import Difficulty, suggest  # noqa: PLC0415

    def items() -> Iterator[Item]:
        for index, board in enumerate(_two_mark_boards(CALIBRATION_ANSWERS)):
            moves = tuple(MoveValue(cell, 0, True) for cell in board.empty_cells())
            analysis = Analysis(board, moves, True, len(moves))
            request = MoveRequest(board=board.format(), k=board.k, seed=index)
            answer = answers.move_answer(request, suggest(analysis, Difficulty.PERFECT, index))
            payload = json.dumps(answer, separators=(",", ":")).encode()
            yield (request.board, request.k, None, None, None, request.difficulty, index), payload

    return _resident_bytes_per_item(items())


def bytes_per_response() -> float:
    """Resident bytes of a replayable answer of the largest kind, with its key.

    The JSON of an exact 7x7 analysis (47 moves, every score distinct) as
    ``service.api.answers`` writes it, its headers, and a key of the longest
    request body the answer cache keys on.
    """
    from service.api import answers  # noqa: PLC0415 - only this measure needs the HTTP layer

    def items() -> Iterator[Item]:
        for index, board in enumerate(_two_mark_boards(CALIBRATION_ANSWERS)):
            moves = tuple(
                MoveValue(cell, 1_000 + index * 64 + cell, True) for cell in board.empty_cells()
            )
            analysis = Analysis(board, moves, True, len(moves))
            payload = json.dumps(answers.analysis_answer(analysis), separators=(",", ":")).encode()
            headers = ((b"content-length", str(len(payload)).encode()), (b"content-type", b"json"))
            key = index.to_bytes(4, "big") * (RESPONSE_KEY_BYTES // 4)
            yield ("POST /v1/analysis", key), (payload, None, None, headers)

    return _resident_bytes_per_item(items())


def table_bytes(capacity: int) -> int:
    """The largest hash table an LRU of ``capacity`` entries reaches under churn."""
    items: OrderedDict[int, None] = OrderedDict()
    largest = 0
    for key in range(4 * capacity):
        items[key] = None
        if len(items) > capacity:
            items.popitem(last=False)
        if key % 97 == 0:
            largest = max(largest, sys.getsizeof(items))
    return largest


def caches_of(server: LocalServer) -> dict[str, Cache]:
    """Every cache /metrics reports, by its ``cache`` label."""
    figures = server.metrics()
    found: dict[str, dict[str, int]] = {}
    for series, value in figures.items():
        for name, field in (
            ("tictactoe_cache_entries", "entries"),
            ("tictactoe_cache_evictions_total", "evictions"),
            ("tictactoe_cache_capacity_entries", "capacity"),
        ):
            prefix = f'{name}{{cache="'
            if series.startswith(prefix):
                found.setdefault(series[len(prefix) : -2], {})[field] = int(value)
    return {label: Cache(**fields) for label, fields in found.items()}


def drive(
    server: LocalServer, boards: list[Board], deadline: float
) -> tuple[list[Sample], dict[int, int]]:
    """Ask about every board from CLIENTS threads; sample every SAMPLE_EVERY answers."""
    work: queue.SimpleQueue[tuple[str, bytes]] = queue.SimpleQueue()
    for index, board in enumerate(boards):
        path = "/v1/move" if index % MOVE_SHARE == 0 else "/v1/analysis"
        work.put((path, json.dumps({"board": board.format()}).encode()))
    statuses: dict[int, int] = {}
    done = 0
    lock = threading.Lock()
    samples: list[Sample] = []
    started = time.monotonic()

    def sample() -> None:
        seconds = time.monotonic() - started
        samples.append(Sample(done, seconds, server.rss_kib(), caches_of(server)))

    def client() -> None:
        nonlocal done
        headers = {"content-type": "application/json"}
        with httpx.Client(base_url=server.url, timeout=30) as http:
            while time.monotonic() < deadline:
                try:
                    path, body = work.get_nowait()
                except queue.Empty:
                    return
                status = http.post(path, content=body, headers=headers).status_code
                with lock:
                    statuses[status] = statuses.get(status, 0) + 1
                    done += 1
                    if done % SAMPLE_EVERY == 0:
                        sample()

    sample()
    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    sample()
    return samples, statuses


@dataclass(frozen=True)
class Bound:
    """RSS <= base + sum of entries x per_entry + headroom."""

    base_kib: int
    per_entry: dict[str, float]  # resident bytes, by cache label
    headroom: int  # bytes: one extra hash table per cache at capacity
    capacity: dict[str, int]

    def kib(self, entries: dict[str, int]) -> float:
        grown = sum(n * self.per_entry[label] for label, n in entries.items()) + self.headroom
        return self.base_kib + grown / 1024

    def at(self, sample: Sample) -> float:
        return self.kib({label: c.entries for label, c in sample.caches.items()})

    @property
    def full_kib(self) -> float:
        return self.kib(self.capacity)


def _unreported_response_cache(caches: dict[str, Cache]) -> dict[str, Cache]:
    """The answer cache, counted full, if the service has one that /metrics omits."""
    if "responses" in caches or "response_cache_entries" not in Settings.model_fields:
        return {}
    capacity = int(SETTINGS["TTT_RESPONSE_CACHE_ENTRIES"])
    unreported = {"responses": Cache(entries=capacity, evictions=0, capacity=capacity)}
    caches.update(unreported)
    return unreported


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=POSITIONS)
    parser.add_argument("--max-seconds", type=float, default=240.0, help="stop sending after")
    args = parser.parse_args()
    if (os.cpu_count() or 1) > CLIENT_CPU:
        os.sched_setaffinity(0, {CLIENT_CPU})
    started = time.monotonic()
    boards = distinct_positions(args.positions, random.Random(SEED))
    # Calibrate on other boards than the server gets, so the check is not circular.
    calibration = distinct_positions(CALIBRATION_SEARCHES, random.Random(SEED + 1))
    per_entry = {
        "positions": bytes_per_position(calibration),
        "answers": bytes_per_answer(),
        "moves": bytes_per_move_answer(),
        "responses": bytes_per_response(),
    }
    with (
        tempfile.TemporaryDirectory(prefix="ttt-memory-") as scratch,
        LocalServer(SETTINGS, Path(scratch) / "server.log", cpu=SERVER_CPU) as server,
    ):
        caches = caches_of(server)
        unreported = _unreported_response_cache(caches)
        unmeasured = set(caches) - set(per_entry)
        if unmeasured:
            print(f"no bytes-per-entry figure for the caches {sorted(unmeasured)}: add one")
            return 1
        bound = Bound(
            base_kib=server.rss_kib(),
            per_entry={label: per_entry[label] for label in caches},
            headroom=sum(table_bytes(c.capacity) for c in caches.values()),
            capacity={label: c.capacity for label, c in caches.items()},
        )
        samples, statuses = drive(server, boards, time.monotonic() + args.max_seconds)
        for sample in samples:
            sample.caches.update(unreported)
    if unreported:
        print("(responses: not in /metrics, counted full at every sample)")
    return report(samples, statuses, bound, time.monotonic() - started)


def report(samples: list[Sample], statuses: dict[int, int], bound: Bound, elapsed: float) -> int:
    labels = sorted(bound.capacity)
    RESULTS.mkdir(parents=True, exist_ok=True)
    with (RESULTS / "memory.csv").open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(
            ["requests", "seconds", "rss_mib", "bound_mib"]
            + [f"{label}_{field}" for label in labels for field in ("entries", "evictions")]
        )
        for s in samples:
            writer.writerow(
                [s.requests, round(s.seconds, 2), round(s.rss_kib / 1024, 2)]
                + [round(bound.at(s) / 1024, 2)]
                + [
                    getattr(s.caches[label], field)
                    for label in labels
                    for field in ("entries", "evictions")
                ]
            )
    columns = "".join(f" {label + ' (evicted)':>22}" for label in labels)
    print(f"{'requests':>8} {'s':>6} {'RSS MiB':>8} {'bound MiB':>9}{columns}")
    step = max(1, len(samples) // 10)
    shown = samples[::step] if samples[-1] in samples[::step] else [*samples[::step], samples[-1]]
    for s in shown:
        cells = "".join(
            f" {f'{s.caches[label].entries:,} ({s.caches[label].evictions:,})':>22}"
            for label in labels
        )
        print(
            f"{s.requests:>8,} {s.seconds:>6.1f} {s.rss_kib / 1024:>8.1f} "
            f"{bound.at(s) / 1024:>9.1f}{cells}"
        )
    last = samples[-1]
    peak = max(s.rss_kib for s in samples)
    failures = sum(n for status, n in statuses.items() if status != 200)
    broken = [s for s in samples if s.rss_kib > bound.at(s)]
    checks = {
        "every request answered 200": failures == 0,
        "RSS within the bound at the entries of every sample": not broken,
        "peak RSS within the bound with every cache full": peak <= bound.full_kib,
        "the position cache filled and evicted": last.caches["positions"].evictions > 0,
        "the answer cache evicted": last.caches["answers"].evictions > 0,
    }
    print()
    print(f"base RSS (ready, 3x3 solved)      {bound.base_kib / 1024:8.1f} MiB")
    for label in labels:
        print(f"bytes per entry, {label:<16} {bound.per_entry[label]:8.0f} B")
    print(f"headroom (one table per cache)    {bound.headroom / 2**20:8.1f} MiB")
    capacities = ", ".join(f"{bound.capacity[label]:,} {label}" for label in labels)
    print(f"bound with every cache full       {bound.full_kib / 1024:8.1f} MiB ({capacities})")
    print(f"peak RSS                          {peak / 1024:8.1f} MiB")
    for name, ok in checks.items():
        print(f"{'yes' if ok else 'NO ':<4} {name}")
    figures = {
        "requests": last.requests,
        "load_seconds": round(last.seconds, 1),
        "elapsed_s": round(elapsed, 1),
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
        "base_rss_mib": round(bound.base_kib / 1024, 1),
        "peak_rss_mib": round(peak / 1024, 1),
        "final_rss_mib": round(last.rss_kib / 1024, 1),
        "bytes_per_entry": {label: round(v) for label, v in bound.per_entry.items()},
        "headroom_mib": round(bound.headroom / 2**20, 1),
        "bound_full_mib": round(bound.full_kib / 1024, 1),
        "capacity": bound.capacity,
        "final_caches": {label: vars(c) for label, c in last.caches.items()},
        "samples_over_bound": len(broken),
        "all_checks_passed": all(checks.values()),
    }
    (RESULTS / "memory.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(json.dumps(figures, sort_keys=True))
    return 0 if figures["all_checks_passed"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
