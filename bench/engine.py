"""Engine benchmark: the engine against a classic minimax demo, side by side in one run.

Run with ``make bench`` (or ``python bench/engine.py``). Prints a table, then
one JSON object on the last line. Exits 1 when a target of the engine issue is
missed, so the benchmark can fail. Timings are medians of repeated runs; the
ratio compares runs made in this same process, minutes apart at most.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from local_server import reachable_3x3

from service.engine import Board, Engine


def demo_minimax(cells: list[str], player: str) -> tuple[int, int]:
    """The classic demo: plain recursive minimax, no pruning, no cache.

    Returns (best score for ``player``, best cell) with +10/-10 style scores
    (win minus depth), the way the tutorials write it.
    """
    best_score, best_cell = -1000, -1
    for cell in range(9):
        if cells[cell] == ".":
            cells[cell] = player
            score = -_demo_value(cells, "O" if player == "X" else "X", 1)
            cells[cell] = "."
            if score > best_score:
                best_score, best_cell = score, cell
    return best_score, best_cell


_DEMO_LINES = (
    (0, 1, 2),
    (3, 4, 5),
    (6, 7, 8),
    (0, 3, 6),
    (1, 4, 7),
    (2, 5, 8),
    (0, 4, 8),
    (2, 4, 6),
)


def _demo_value(cells: list[str], player: str, depth: int) -> int:
    for a, b, c in _DEMO_LINES:
        if cells[a] != "." and cells[a] == cells[b] == cells[c]:
            return -(10 - depth)  # the previous player just won
    if "." not in cells:
        return 0
    best = -1000
    for cell in range(9):
        if cells[cell] == ".":
            cells[cell] = player
            best = max(best, -_demo_value(cells, "O" if player == "X" else "X", depth + 1))
            cells[cell] = "."
    return best


def median_seconds(action: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def resident_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> int:
    rows: list[tuple[str, str, str, bool]] = []
    figures: dict[str, float | int | bool] = {}

    def record(name: str, value: float, unit: str, target: str, ok: bool, key: str) -> None:
        rows.append(
            (name, f"{value:,.3f} {unit}" if isinstance(value, float) else f"{value}", target, ok)
        )
        figures[key] = round(value, 6) if isinstance(value, float) else value

    # Cold start-up solve of the whole 3x3 game.
    solve = median_seconds(lambda: Engine().solve_game(), repeat=7)
    record("3x3 start-up solve (cold)", solve, "s", "<= 0.25 s", solve <= 0.25, "startup_solve_s")

    # Every 3x3 position analysed from the warm cache.
    engine = Engine()
    engine.solve_game()
    positions = reachable_3x3()

    def sweep() -> None:
        for board in positions:
            engine.analyze(board)

    per_position = median_seconds(sweep, repeat=15) / len(positions) * 1e6
    record(
        f"3x3 warm analysis, all {len(positions)} positions",
        per_position,
        "us/position",
        "<= 20 us",
        per_position <= 20,
        "warm_3x3_us_per_position",
    )

    # The empty 3x3 board: the demo against the engine, warm and cold.
    empty = Board.empty()
    demo = median_seconds(lambda: demo_minimax(list("........."), "X"), repeat=3)
    warm = median_seconds(lambda: engine.analyze(empty), repeat=2001)
    cold = median_seconds(lambda: Engine().analyze(empty), repeat=51)
    record("empty 3x3, demo minimax", demo, "s", "reference", True, "demo_empty_3x3_s")
    record("empty 3x3, engine warm", warm * 1e6, "us", "", True, "engine_empty_3x3_warm_us")
    record("empty 3x3, engine cold", cold * 1e3, "ms", "", True, "engine_empty_3x3_cold_ms")
    record(
        "speed-up warm (demo / engine)",
        demo / warm,
        "x",
        ">= 10,000 x",
        demo / warm >= 10_000,
        "speedup_warm",
    )
    record("speed-up cold (demo / engine)", demo / cold, "x", "reported", True, "speedup_cold")

    # The same positions side by side: 3x3 positions with 3 or more marks.
    sample = [b for b in positions if b.mark_count >= 3][::25]
    ratios = []
    for board in sample:
        cells = list(board.format())
        player = board.side_to_move.value
        demo_t = median_seconds(lambda c=cells, p=player: demo_minimax(c, p), repeat=3)
        engine_t = median_seconds(lambda b=board: engine.analyze(b), repeat=201)
        ratios.append(demo_t / engine_t)
    ratio = statistics.median(ratios)
    record(
        f"median speed-up on {len(sample)} positions",
        ratio,
        "x",
        "reported",
        True,
        "speedup_sample_median",
    )

    # 4x4, every move's exact score, cold and warm; memory after.
    for k in (3, 4):
        board = Board.parse("." * 16, k=k)
        runs = []
        for _ in range(3):
            fresh = Engine()
            started = time.perf_counter()
            result = fresh.analyze(board)
            runs.append(time.perf_counter() - started)
        cold4 = statistics.median(runs)
        warm4 = median_seconds(lambda e=fresh, b=board: e.analyze(b), repeat=1001)
        assert result.exact
        record(
            f"empty 4x4 k={k} exact analysis, cold",
            cold4,
            "s",
            "<= 1 s",
            cold4 <= 1,
            f"cold_4x4_k{k}_s",
        )
        record(
            f"empty 4x4 k={k} exact analysis, warm",
            warm4 * 1e3,
            "ms",
            "<= 1 ms",
            warm4 <= 1e-3,
            f"warm_4x4_k{k}_ms",
        )
    rss = resident_mb()
    record("resident memory after 4x4", rss, "MB", "<= 150 MB", rss <= 150, "rss_after_4x4_mb")

    # 5x5 with k=4 from the empty board, default budget.
    five = Engine()
    started = time.perf_counter()
    estimate = five.analyze(Board.parse("." * 25, k=4))
    elapsed = time.perf_counter() - started
    ok = not estimate.exact and estimate.depth >= 1
    record(
        "5x5 k=4 empty, default budget",
        elapsed,
        "s",
        "answered, not exact",
        ok,
        "five_by_five_k4_s",
    )
    record(
        "5x5 k=4 depth reached", estimate.depth, "plies", "reported", True, "five_by_five_k4_depth"
    )
    figures["five_by_five_k4_exact"] = estimate.exact
    figures["five_by_five_k4_nodes"] = estimate.nodes

    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'median':>22}  {'target':<20} ok")
    for name, value, target, ok in rows:
        print(f"{name:<{width}}  {value:>22}  {target:<20} {'yes' if ok else 'NO'}")
    figures["all_targets_met"] = all(r[3] for r in rows)
    print(json.dumps(figures, sort_keys=True))
    return 0 if figures["all_targets_met"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
