"""Big boards: the big-board search's time per move, node rate, cores and memory.

    .venv/bin/python bench/gomoku.py [--positions 24]

1. Time per move at the defaults: the real server (``python -m service`` with
   its default settings, asked with local_server's BENCH_KEY: the default
   quota of a client without a key refuses back-to-back big-board searches
   with 429, by design) answers ``POST /v1/move`` one request at a time, for
   positions on 15x15 and 20x20 under both rules: half from games the engine
   plays against itself at a small budget with random moves mixed in (4 to 60
   stones), half of 100 to 160 stones with no three or four on the board (see
   dense_positions()): of those, half that a small search cannot decide (they
   take the whole deadline) and half as they come (nearly all of which hold a
   quick win by fours, proven and answered at once).
   p50, p99 and the longest, per board and rule, and for the positions of 100
   stones and more. Target: p99 at most TARGET_P99 seconds.
2. Node rate: mid-game 15x15 positions, each searched with RATE_BUDGET nodes
   and no deadline on a new engine, as ``bench/engine.py`` measures the exact
   core; nodes per second of search time, on one core. Aim: at least 1 M/s.
3. Cores: four threads searching 15x15 positions at once for CORES_SECONDS,
   each starting the next position as soon as one is answered (a decided
   position is answered at once, and a thread left idle would measure the
   positions, not the cores), the process's CPU time over the wall time.
   Target: 1.8.
4. Memory: the server's resident memory, sampled while four clients send it
   distinct 20x20 positions, against the documented bound: its RSS once ready,
   plus the table (``TTT_TABLE_MB``), plus SEARCH_MIB for each search thread
   (a search's own tables: the threat searches' memo, its board and moves),
   plus HEADROOM_MIB for the interpreter's allocations. Target: within it.

Prints a table and one JSON line; exits 1 when a target is missed. Positions
come from a fixed seed, so every run asks the same questions.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from local_server import BENCH_KEY, LocalServer, unlimited_key

from service.engine import GENERAL_RULES, Board, Engine, Rule, StopReason, _core, geometry, suggest

TARGET_P99 = 1.0
TARGET_CORES = 1.8
AIM_RATE = 1_000_000
RATE_BUDGET = 1_000_000
CORES_SECONDS = 3.0
CORES_POSITIONS = 40  # more than four threads answer in CORES_SECONDS, each once
SEARCH_MIB = 4
HEADROOM_MIB = 48
MEMORY_REQUESTS = 160
DENSE = 100  # stones from which a position counts as dense
UNDECIDED_NODES = 20_000
QUIET_KIND = 1  # the big board's kinds: quiet (0) or an open two (1), nothing more


def game_positions(count: int, size: int, rule: Rule, rng: random.Random) -> list[Board]:
    """Positions of games the engine plays against itself (2,000 nodes a move, one
    move in four at random among its candidates), 4 to 60 stones."""
    engine = Engine(node_budget=2_000, table_bytes=8 << 20)
    found: list[Board] = []
    while len(found) < count:
        board = Board.empty(size, size, 5, rule=rule)
        stop = rng.randint(4, 60)
        while not board.is_game_over() and board.mark_count < stop:
            analysis = engine.analyze(board)
            if rng.random() < 0.25:
                cell = rng.choice([m.cell for m in analysis.moves])
            else:
                cell = suggest(analysis).cell
            board = board.play(cell)
        if not board.is_game_over():
            found.append(board)
    return found


def dense_positions(
    count: int, size: int, rule: Rule, rng: random.Random, undecided: bool = True
) -> list[Board]:
    """Positions of 100 to 160 stones with no threat on the board: the stones are
    placed one by one, alternating, each where it makes nothing more than an
    open two for its side (no three, no four). With ``undecided``, a board is
    kept only when a search of UNDECIDED_NODES proves nothing, so that the
    search has no tactic to end it early (the hardest kind of position for its
    clock: most such boards hold a quick win by fours, which the search proves
    and stops)."""
    shape = geometry(size, size, 5, rule)
    exact = shape.overlines_matter
    found: list[Board] = []
    while len(found) < count:
        moves: list[int] = []
        target = rng.randint(DENSE, min(160, shape.cells - 40))
        free = list(range(shape.cells))
        rng.shuffle(free)
        while len(moves) < target and free:
            cells, _, _, _ = _core.big_board(size, size, 5, exact, moves)
            side = len(moves) % 2
            for index, cell in enumerate(free):
                found_cell = cells[cell]
                assert isinstance(found_cell, tuple)
                if found_cell[2 + side] <= QUIET_KIND:
                    moves.append(free.pop(index))
                    break
            else:
                break
        if len(moves) < DENSE:
            continue
        board = Board.from_moves(moves, rows=size, rule=rule)
        if board.is_game_over():
            continue
        probe = Engine(node_budget=UNDECIDED_NODES, table_bytes=1 << 20).analyze(board)
        if not undecided or (probe.outcome is None and probe.stopped_by is not StopReason.DECIDED):
            found.append(board)
    return found


def post(url: str, body: dict[str, object]) -> tuple[int, float]:
    data = json.dumps(body).encode()
    headers = {"Content-Type": "application/json", "X-API-Key": BENCH_KEY}
    request = urllib.request.Request(url, data, headers)
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=30) as response:
        response.read()
        return response.status, time.perf_counter() - started


def body(board: Board) -> dict[str, object]:
    return {"board": board.format(), "rule": board.rule.value, "player": board.side_to_move.value}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def time_per_move(count: int, rng: random.Random, logs: Path) -> dict[str, object]:
    sets = {
        (size, rule): game_positions(count // 2, size, rule, rng)
        + dense_positions(count // 4, size, rule, rng)
        + dense_positions(count - count // 2 - count // 4, size, rule, rng, undecided=False)
        for size in (15, 20)
        for rule in GENERAL_RULES
    }
    rows: dict[str, object] = {}
    dense: list[float] = []
    with LocalServer(unlimited_key(logs), logs / "time.log", cpu=None) as server:
        for (size, rule), boards in sets.items():
            seconds = []
            for board in boards:
                status, took = post(f"{server.url}/v1/move", body(board))
                assert status == 200, status
                seconds.append(took)
                if board.mark_count >= DENSE:
                    dense.append(took)
            rows[f"{size}x{size} {rule.value}"] = {
                "positions": len(seconds),
                "p50": round(statistics.median(seconds), 3),
                "p99": round(percentile(seconds, 0.99), 3),
                "max": round(max(seconds), 3),
            }
    rows[f"{DENSE}+ stones"] = {
        "positions": len(dense),
        "p50": round(statistics.median(dense), 3),
        "p99": round(percentile(dense, 0.99), 3),
        "max": round(max(dense), 3),
    }
    return rows


def node_rate(rng: random.Random) -> dict[str, float]:
    boards = game_positions(8, 15, Rule.FREESTYLE, rng)
    nodes = 0
    seconds = 0.0
    for board in boards:
        engine = Engine(node_budget=RATE_BUDGET)
        started = time.perf_counter()
        nodes += engine.search(board).nodes
        seconds += time.perf_counter() - started
    return {"nodes": nodes, "seconds": round(seconds, 3), "rate": round(nodes / seconds)}


def cores(rng: random.Random) -> float:
    boards = game_positions(CORES_POSITIONS, 15, Rule.FREESTYLE, rng)
    engine = Engine(node_budget=10**9)
    lock = threading.Lock()
    end = time.monotonic() + CORES_SECONDS

    def search() -> None:
        while time.monotonic() < end:
            with lock:
                if not boards:
                    return
                board = boards.pop()
            engine.analyze(board, deadline=end)

    started = time.perf_counter()
    cpu = time.process_time()
    threads = [threading.Thread(target=search) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return (time.process_time() - cpu) / (time.perf_counter() - started)


def memory(rng: random.Random, logs: Path) -> dict[str, object]:
    boards = game_positions(MEMORY_REQUESTS // 2, 20, Rule.FREESTYLE, rng)
    boards += dense_positions(MEMORY_REQUESTS - len(boards), 20, Rule.EXACT, rng, undecided=False)
    threads = os.cpu_count() or 1
    with LocalServer(unlimited_key(logs), logs / "memory.log", cpu=None) as server:
        base = server.rss_kib()
        table = server.metrics()["tictactoe_table_bytes"] / 1024
        bound = base + table + 1024 * (SEARCH_MIB * threads + HEADROOM_MIB)
        peak = base
        lock = threading.Lock()

        def ask(board: Board) -> None:
            nonlocal peak
            status, _ = post(f"{server.url}/v1/move", body(board))
            assert status in (200, 503), status
            with lock:
                peak = max(peak, server.rss_kib())

        with ThreadPoolExecutor(max_workers=4) as pool:
            list(pool.map(ask, boards))
    return {
        "base_mib": round(base / 1024, 1),
        "peak_mib": round(peak / 1024, 1),
        "bound_mib": round(bound / 1024, 1),
        "requests": len(boards),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=24, help="per board and rule")
    args = parser.parse_args()
    rng = random.Random(1515)
    missed = []
    with tempfile.TemporaryDirectory(prefix="gomoku-bench-") as scratch:
        logs = Path(scratch)
        times = time_per_move(args.positions, rng, logs)
        for name, row in times.items():
            assert isinstance(row, dict)
            print(
                f"time per move, {name:>15}: p50 {row['p50']:.3f} s, p99 {row['p99']:.3f} s, "
                f"longest {row['max']:.3f} s ({row['positions']} positions)"
            )
            if row["p99"] > TARGET_P99:
                missed.append(f"p99 {name}: {row['p99']} s")
        rate = node_rate(rng)
        print(f"node rate, 15x15: {rate['rate'] / 1e6:.2f} M nodes/s ({rate['nodes']:,} nodes)")
        busy = cores(rng)
        print(f"four concurrent 15x15 searches: {busy:.2f} cores busy")
        if busy < TARGET_CORES:
            missed.append(f"cores: {busy:.2f}")
        used = memory(rng, logs)
        print(
            f"memory, 20x20 from 4 clients: peak {used['peak_mib']} MiB, bound "
            f"{used['bound_mib']} MiB (base {used['base_mib']} MiB)"
        )
        if float(str(used["peak_mib"])) > float(str(used["bound_mib"])):
            missed.append("memory over its bound")
    print(
        json.dumps(
            {
                "time_per_move": times,
                "node_rate": rate,
                "cores": round(busy, 2),
                "memory": used,
                "aims_missed": [] if rate["rate"] >= AIM_RATE else ["node rate below 1 M/s"],
                "missed": missed,
            }
        )
    )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
