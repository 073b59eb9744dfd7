"""Memory benchmark: the real server's resident memory under many distinct large boards.

Run with ``make bench`` or ``python bench/memory.py``. Starts the server as in
production (``python -m service``) with a small table of proven bounds,
moderate answer caches and a small node budget, sends it 20,000 distinct random
reachable positions (half 6x6, half 7x7, k=5) from a few concurrent clients
(three in four as ``POST /v1/analysis``, the rest as ``POST /v1/move``), and
samples the server's RSS (``/proc/<pid>/status``) and every cache's figures
(``/metrics``: ``tictactoe_cache_entries``, ``..._evictions_total``,
``..._capacity_entries``) every few hundred requests. The curve goes to
``bench/results/memory.csv``.

The bound it checks, at every sample::

    RSS <= base + table + sum over answer caches of (entries x bytes per entry)
           + headroom

``base`` is the server's RSS once ready (3x3 solved, nothing else asked).

``table`` is the table of proven bounds (the cache labelled ``positions``) at
its fixed size, ``tictactoe_table_bytes`` in /metrics, at every sample, as if it
were full: it is one mapping of zero pages whose resident part grows as
searches touch its pages and never past its size, so nothing is measured per
entry. The pages the 3x3 solve touched are in ``base`` too: the bound counts
those twice, which errs high by at most a page (4 KiB) per entry the solve
stored (a few hundred).

The answer caches are LRUs (``BoundedCache``). Their entries are what each
holds, at most its capacity (``TTT_ANSWER_ENTRIES`` for answers,
``TTT_RESPONSE_CACHE_ENTRIES`` for responses). The bytes per entry are
measured first, in this process, as resident memory (allocator overhead
included), on answers of the largest kind:

* answers: an exact 7x7 analysis, the largest kind of cached answer;
* moves (when the server has a cache of serialised move answers): the JSON of
  a 7x7 move answer with 47 best moves, the largest, with its key;
* responses (the answer cache of ``service/api/replay.py``): the JSON of an
  exact 7x7 analysis with its headers, keyed by a body of the longest length
  the cache keys on. Where /metrics does not report this cache, it is counted
  full, at ``TTT_RESPONSE_CACHE_ENTRIES``, at every sample.

``headroom`` is one extra hash table per answer cache at capacity: a full LRU
reallocates its hash table as entries churn, and the old one is held until the
new one is built. The check is made with the entries at each sample, and with
every cache full, which is the figure to size a container by.

Exits 1 when a sample breaks the bound, a request fails, a cache reported in
/metrics is neither the table nor has a measured bytes per entry, the table
never fills and turns over (full, and its evictions grow by more than its
capacity during the run), or the answer cache never evicts. Prints a table and
one JSON line.
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

from service.engine import Analysis, Board, BoundedCache, MoveValue
from service.settings import Settings

RESULTS = REPO / "bench" / "results"
SETTINGS = {
    # 32 MiB is 1,398,100 entries of 24 bytes. At ~1,200 new entries a search
    # it is full after ~1,200 requests, a tenth of the run, and turns over many
    # times, so most samples see a full table that evicts. The default (64 MiB)
    # would fill later and turn over half as often.
    "TTT_TABLE_MB": "32",
    "TTT_ANSWER_ENTRIES": "5000",
    # At the default budget (1,000,000 nodes) a search of these boards averages
    # ~0.1 s here: 20,000 of them would take over half an hour. 10,000 nodes
    # take a few ms a request (about a minute for the run) and store enough new
    # table entries that the table fills and turns over (at 5,000, since the
    # proof search with zones stores fewer, it ended 98.8% full).
    "TTT_NODE_BUDGET": "10000",
    "TTT_RESPONSE_CACHE_ENTRIES": "5000",
    "TTT_LOG_LEVEL": "info",
}
# The longest request body the answer cache keys on (service/api/replay.py).
RESPONSE_KEY_BYTES = 1024
# The table of proven bounds, counted at its fixed size (tictactoe_table_bytes).
TABLE = "positions"
# The table counts as full at this share of its entries: a bucket that few
# positions hash to may keep an empty slot long after the others filled.
TABLE_FULL_SHARE = 0.99
POSITIONS = 20_000
MOVE_SHARE = 4  # every 4th request asks for a move, the others for an analysis
CLIENTS = 4
SAMPLE_EVERY = 500
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


def hash_table_bytes(capacity: int) -> int:
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
    """RSS <= base + table + sum of answer-cache entries x per_entry + headroom."""

    base_kib: int
    table_bytes: int  # the table of proven bounds, counted at its fixed size
    per_entry: dict[str, float]  # resident bytes, by answer cache label
    headroom: int  # bytes: one extra hash table per answer cache at capacity
    capacity: dict[str, int]  # entries, by answer cache label

    def kib(self, entries: dict[str, int]) -> float:
        grown = sum(n * self.per_entry[label] for label, n in entries.items())
        return self.base_kib + (self.table_bytes + grown + self.headroom) / 1024

    def at(self, sample: Sample) -> float:
        return self.kib({label: sample.caches[label].entries for label in self.capacity})

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
    per_entry = {
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
        table_bytes = int(server.metrics().get("tictactoe_table_bytes", 0))
        if TABLE not in caches or not table_bytes:
            print(f"no table of proven bounds in /metrics (cache={TABLE!r}, tictactoe_table_bytes)")
            return 1
        answer_caches = {label: c for label, c in caches.items() if label != TABLE}
        unmeasured = set(answer_caches) - set(per_entry)
        if unmeasured:
            print(f"no bytes-per-entry figure for the caches {sorted(unmeasured)}: add one")
            return 1
        bound = Bound(
            base_kib=server.rss_kib(),
            table_bytes=table_bytes,
            per_entry={label: per_entry[label] for label in answer_caches},
            headroom=sum(hash_table_bytes(c.capacity) for c in answer_caches.values()),
            capacity={label: c.capacity for label, c in answer_caches.items()},
        )
        samples, statuses = drive(server, boards, time.monotonic() + args.max_seconds)
        for sample in samples:
            sample.caches.update(unreported)
    if unreported:
        print("(responses: not in /metrics, counted full at every sample)")
    return report(samples, statuses, bound, time.monotonic() - started)


def report(samples: list[Sample], statuses: dict[int, int], bound: Bound, elapsed: float) -> int:
    labels = sorted(samples[0].caches)
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
    first, last = samples[0], samples[-1]
    table = last.caches[TABLE]
    peak = max(s.rss_kib for s in samples)
    failures = sum(n for status, n in statuses.items() if status != 200)
    broken = [s for s in samples if s.rss_kib > bound.at(s)]
    checks = {
        "every request answered 200": failures == 0,
        "RSS within the bound at the entries of every sample": not broken,
        "peak RSS within the bound with every cache full": peak <= bound.full_kib,
        "the table filled": table.entries >= TABLE_FULL_SHARE * table.capacity,
        "the table turned over (evictions grew by more than its capacity)": (
            table.evictions - first.caches[TABLE].evictions > table.capacity
        ),
        "the answer cache evicted": last.caches["answers"].evictions > 0,
    }
    print()
    print(f"base RSS (ready, 3x3 solved)      {bound.base_kib / 1024:8.1f} MiB")
    print(
        f"table of proven bounds (fixed)    {bound.table_bytes / 2**20:8.1f} MiB "
        f"({table.capacity:,} entries)"
    )
    for label in sorted(bound.per_entry):
        print(f"bytes per entry, {label:<16} {bound.per_entry[label]:8.0f} B")
    print(f"headroom (one hash table per LRU) {bound.headroom / 2**20:8.1f} MiB")
    capacities = ", ".join(f"{n:,} {label}" for label, n in sorted(bound.capacity.items()))
    print(f"bound with every cache full       {bound.full_kib / 1024:8.1f} MiB ({capacities})")
    print(f"peak RSS                          {peak / 1024:8.1f} MiB")
    print(f"margin (full bound - peak RSS)    {(bound.full_kib - peak) / 1024:8.1f} MiB")
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
        "table_mib": round(bound.table_bytes / 2**20, 1),
        "bytes_per_entry": {label: round(v) for label, v in bound.per_entry.items()},
        "headroom_mib": round(bound.headroom / 2**20, 1),
        "bound_full_mib": round(bound.full_kib / 1024, 1),
        "margin_mib": round((bound.full_kib - peak) / 1024, 1),
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
