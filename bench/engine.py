"""Engine benchmark: the engine against a classic minimax demo and against the
pure-Python search it replaced, side by side in one run.

Run with ``make bench`` (or ``python bench/engine.py``). Prints a table, then
one JSON object on the last line. Exits 1 when a target of the engine issues
is missed, so the benchmark can fail. Timings are medians of repeated runs;
ratios compare runs made in this same run, minutes apart at most.

The pure-Python search is the one at ``BASELINE_COMMIT`` (the last commit
before the compiled core), taken from git history into a temporary directory
and run in a subprocess on the same positions with the same settings.
"""

from __future__ import annotations

import functools
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from local_server import REPO, LocalServer, reachable_3x3

sys.path.insert(0, str(REPO))  # the tests' settings for a server without client limits

from service.engine import Board, Engine, Player, geometry

# The engine's measures ask their local servers in bursts (161 empty boards
# answered from the book in a second or two): the per-client limits, measured
# apart in bench/fairness.py, would refuse them, so the servers run without.
from tests.server import NO_CLIENT_LIMITS

BASELINE_COMMIT = "0669846"  # main before the compiled search core
# The literature's value of each empty board, one entry per game (rows <= cols);
# the book's tests read the same file.
LITERATURE_PATH = REPO / "docs" / "mnk-results.json"


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


def mid_game_positions(
    count: int, seed: int, marks: tuple[int, int] = (2, 8), sides: tuple[int, ...] = (5, 6, 7)
) -> list[Board]:
    """Random square positions (by default 5x5 to 7x7), k=4 and k=5, with 2 to 8
    marks (by default), still in progress."""
    rng = random.Random(seed)
    found: list[Board] = []
    seen: set[Board] = set()
    while len(found) < count:
        side = rng.choice(sides)
        k = rng.choice((4, 5))
        board = Board(geometry(side, side, k), 0, 0, Player.X)
        for _ in range(rng.randint(*marks)):
            board = board.play(rng.choice(board.empty_cells()))
            if board.is_game_over():
                break
        if not board.is_game_over() and board not in seen:
            seen.add(board)
            found.append(board)
    return found


BASELINE_SCRIPT = """
import json, sys, time
from service.engine import Board, Engine
budget = int(sys.argv[1])
nodes = seconds = 0.0
for text, k in json.load(sys.stdin):
    engine = Engine()
    started = time.perf_counter()
    found = engine.analyze(Board.parse(text, k=k), node_budget=budget)
    seconds += time.perf_counter() - started
    nodes += found.nodes
print(json.dumps({"nodes": nodes, "seconds": seconds}))
"""


def baseline_node_rate(boards: list[Board], budget: int) -> tuple[float, int]:
    """Nodes per second of the pure-Python search of ``BASELINE_COMMIT`` on ``boards``."""
    with tempfile.TemporaryDirectory() as scratch:
        archive = subprocess.run(
            ["git", "archive", BASELINE_COMMIT, "service"],
            cwd=REPO,
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", scratch], input=archive, check=True)
        positions = json.dumps([(b.format(), b.k) for b in boards])
        done = subprocess.run(
            [sys.executable, "-c", BASELINE_SCRIPT, str(budget)],
            cwd=scratch,
            env={**os.environ, "PYTHONPATH": scratch},
            input=positions.encode(),
            check=True,
            capture_output=True,
        )
    result = json.loads(done.stdout)
    return result["nodes"] / result["seconds"], int(result["nodes"])


def core_node_rate(
    boards: list[Board], budget: int, in_use: Engine | None = None
) -> tuple[float, int, list[float]]:
    """Nodes per second of the compiled core on ``boards``, each searched from an
    empty table: a new engine per position, or ``in_use``, whose table is
    cleared (outside the timing) before each. The new engine's table is a new
    mapping whose first search pays for its pages (zeroed by the kernel, moved
    to huge pages); a table in use, as in a running server, has paid already.
    Returns the rate, the nodes and each position's seconds."""
    nodes = 0
    each: list[float] = []
    for board in boards:
        engine = Engine() if in_use is None else in_use
        if in_use is not None:
            in_use.table.clear()
            in_use.answers.clear()
        started = time.perf_counter()
        found = engine.analyze(board, node_budget=budget)
        each.append(time.perf_counter() - started)
        nodes += found.nodes
    seconds = sum(each)
    return nodes / seconds, nodes, each


def post(url: str, body: object, timeout: float = 60) -> tuple[int, dict[str, object], float]:
    import urllib.error  # noqa: PLC0415 - only the server measures use it
    import urllib.request  # noqa: PLC0415

    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, payload = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, payload = error.code, error.read()
    return status, json.loads(payload), time.perf_counter() - started


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
    record(
        f"5x5 k=4 empty, default budget: {'exact' if estimate.exact else 'estimated'}",
        elapsed,
        "s",
        "answered",
        estimate.depth >= 1,
        "five_by_five_k4_s",
    )
    record(
        "5x5 k=4 depth reached", estimate.depth, "plies", "reported", True, "five_by_five_k4_depth"
    )
    figures["five_by_five_k4_exact"] = estimate.exact
    figures["five_by_five_k4_nodes"] = estimate.nodes

    # The compiled core against the pure-Python search it replaced, same positions.
    rate_boards = mid_game_positions(8, seed=10)
    # Three rounds, each Python then core (a new engine per position, as the
    # Python search has, then one engine in use), side by side: medians of each.
    python_runs, core_runs, in_use_runs = [], [], []
    in_use = Engine()
    for _ in range(3):
        python_runs.append(baseline_node_rate(rate_boards, budget=100_000))
        core_runs.append(core_node_rate(rate_boards, budget=3_000_000))
        in_use_runs.append(core_node_rate(rate_boards, budget=3_000_000, in_use=in_use))
    python_rate = statistics.median(rate for rate, _ in python_runs)
    core_rate = statistics.median(rate for rate, _, _ in core_runs)
    in_use_rate = statistics.median(rate for rate, _, _ in in_use_runs)
    python_nodes, core_nodes = python_runs[0][1], core_runs[0][1]
    # The same searches: an empty table is an empty table, new or cleared.
    assert {run[1] for run in core_runs + in_use_runs} == {core_nodes}, (core_runs, in_use_runs)
    figures["core_nodes_per_s_rounds"] = [round(run[0] / 1e6, 3) for run in core_runs]
    figures["core_in_use_nodes_per_s_rounds"] = [round(run[0] / 1e6, 3) for run in in_use_runs]
    # Each position's milliseconds, round by round: what a new table costs.
    figures["core_position_ms_rounds"] = [[round(t * 1e3, 1) for t in run[2]] for run in core_runs]
    figures["core_in_use_position_ms_rounds"] = [
        [round(t * 1e3, 1) for t in run[2]] for run in in_use_runs
    ]
    figures["python_nodes_per_s_rounds"] = [round(rate / 1e6, 4) for rate, _ in python_runs]
    record(
        f"node rate, Python search ({BASELINE_COMMIT}), {len(rate_boards)} positions",
        python_rate / 1e6,
        "M nodes/s",
        "reference",
        True,
        "python_nodes_per_s_millions",
    )
    record(
        "node rate, compiled core, same positions",
        core_rate / 1e6,
        "M nodes/s",
        ">= 3 M nodes/s",
        core_rate >= 3e6,
        "core_nodes_per_s_millions",
    )
    record(
        "node rate, core / Python",
        core_rate / python_rate,
        "x",
        ">= 50 x",
        core_rate / python_rate >= 50,
        "core_vs_python_node_rate",
    )
    record(
        "node rate, core on a table in use (cleared per position)",
        in_use_rate / 1e6,
        "M nodes/s",
        "reported",
        True,
        "core_in_use_nodes_per_s_millions",
    )
    record(
        "node rate, core on a table in use / Python",
        in_use_rate / python_rate,
        "x",
        "reported",
        True,
        "core_in_use_vs_python_node_rate",
    )
    figures["node_rate_positions"] = [f"{b.format()} k={b.k}" for b in rate_boards]
    figures["python_nodes"], figures["core_nodes"] = python_nodes, core_nodes

    # 4x5 k=4 from the empty board: every move exact, cold.
    runs = []
    for _ in range(3):
        started = time.perf_counter()
        four_five = Engine().analyze(Board.parse("." * 20, rows=4, cols=5, k=4))
        runs.append(time.perf_counter() - started)
    cold45 = statistics.median(runs)
    record(
        "empty 4x5 k=4, every move exact, cold",
        cold45,
        "s",
        "<= 1 s, exact",
        cold45 <= 1 and four_five.exact,
        "cold_4x5_k4_s",
    )

    server_measures(record, figures)
    proof_measures(record, figures)

    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'median':>22}  {'target':<20} ok")
    for name, value, target, ok in rows:
        print(f"{name:<{width}}  {value:>22}  {target:<20} {'yes' if ok else 'NO'}")
    figures["all_targets_met"] = all(r[3] for r in rows)
    print(json.dumps(figures, sort_keys=True))
    return 0 if figures["all_targets_met"] else 1


def server_measures(
    record: Callable[[str, float, str, str, bool, str], None],
    figures: dict[str, object],
) -> None:
    """Fresh moves, both cores and a big batch, on the real server."""
    scratch = Path(tempfile.mkdtemp(prefix="bench-engine-"))
    # Fresh moves: default settings, positions never asked before, one at a time.
    fresh = mid_game_positions(60, seed=20)
    with LocalServer(NO_CLIENT_LIMITS, scratch / "fresh.log", cpu=None) as server:
        latencies = []
        stops: dict[str, int] = {}
        for board in fresh:
            status, answer, seconds = post(
                server.url + "/v1/move", {"board": board.format(), "k": board.k}
            )
            assert status == 200, answer
            latencies.append(seconds)
            stop = str(answer["stopped_by"])
            stops[stop] = stops.get(stop, 0) + 1
    latencies.sort()
    p50 = latencies[len(latencies) // 2]
    p99 = latencies[min(len(latencies) - 1, round(0.99 * (len(latencies) - 1)))]
    record(
        f"fresh POST /v1/move 5x5-7x7, {len(fresh)} positions, p50",
        p50,
        "s",
        "reported",
        True,
        "fresh_move_p50_s",
    )
    record("fresh POST /v1/move, p99", p99, "s", "<= 1 s", p99 <= 1, "fresh_move_p99_s")
    figures["fresh_move_stopped_by"] = stops

    # Both cores: four concurrent 7x7 analyses that each want far more than 4 s,
    # each checked to have run into the deadline. k=4 with one mark each: wins
    # whose distances no 4 s settles (most k=5 positions are now proven draws
    # within a second, and some k=4 ones with more marks are solved in two).
    # The largest budget the service takes: since f50ad4d one of these spent
    # 100,000,000 nodes, the budget used before, inside 4 s.
    heavy = [Board.parse("." * i + "X" + "." * (47 - i) + "O", k=4) for i in (0, 5, 10, 15)]
    settings = {"TTT_NODE_BUDGET": "1000000000", "TTT_SEARCH_DEADLINE_MS": "4000"}
    stops: list[object] = []
    with LocalServer({**settings, **NO_CLIENT_LIMITS}, scratch / "cores.log", cpu=None) as server:

        def analyse(board: Board) -> None:
            _, answer, _ = post(
                server.url + "/v1/analysis", {"board": board.format(), "k": board.k}
            )
            stops.append(answer.get("stopped_by"))

        threads = [threading.Thread(target=analyse, args=(b,)) for b in heavy]
        cpu_before, started = server.cpu_seconds(), time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        busy = (server.cpu_seconds() - cpu_before) / (time.monotonic() - started)
    assert stops == ["deadline"] * len(heavy), stops
    record(
        "four concurrent 7x7 analyses: server CPU / wall",
        busy,
        "cores",
        ">= 1.8 of 2",
        busy >= 1.8,
        "concurrent_cores_busy",
    )

    # A batch of 100 distinct 7x7 boards, default settings.
    sevens: list[Board] = []
    seed = 40
    while len(sevens) < 100:
        sevens += [b for b in mid_game_positions(50, seed=seed) if b.rows == 7]
        seed += 1
    body = {"requests": [{"board": b.format(), "k": b.k} for b in sevens[:100]]}
    with LocalServer(NO_CLIENT_LIMITS, scratch / "batch.log", cpu=None) as server:
        status, answer, seconds = post(server.url + "/v1/batch", body)
    assert status == 200, answer
    record(
        "batch of 100 distinct 7x7 boards",
        seconds,
        "s",
        "<= 20 s (grace)",
        seconds <= 20,
        "batch_100_7x7_s",
    )


def literature(rows: int, cols: int, k: int) -> str:
    """The empty board's value for the first player, ``win`` or ``draw`` (docs/mnk-results.json)."""
    short, long = sorted((rows, cols))
    return _literature_table()[short, long, k]


@functools.cache
def _literature_table() -> dict[tuple[int, int, int], str]:
    games = json.loads(LITERATURE_PATH.read_text())["games"]
    return {(g["rows"], g["cols"], g["k"]): g["outcome"] for g in games}


def proof_measures(
    record: Callable[[str, float, str, str, bool, str], None],
    figures: dict[str, object],
) -> None:
    """Issue 11: proven outcomes on a fresh server (with the book) and without it."""
    from service.engine import SearchControl  # noqa: PLC0415

    scratch = Path(tempfile.mkdtemp(prefix="bench-proofs-"))
    boards = [
        (rows, cols, k)
        for rows in range(3, 9)
        for cols in range(3, 9)
        for k in range(3, max(rows, cols) + 1)
    ]
    with LocalServer(NO_CLIENT_LIMITS, scratch / "empty.log", cpu=None) as server:
        slowest, right, wrong = 0.0, 0, []
        for rows, cols, k in boards:
            body = {"board": "." * rows * cols, "rows": rows, "cols": cols, "k": k}
            status, answer, seconds = post(server.url + "/v1/analysis", body)
            assert status == 200, answer
            slowest = max(slowest, seconds)
            if answer["outcome"] == literature(rows, cols, k):
                right += 1
            else:
                wrong.append(f"{rows}x{cols} k={k}: {answer['outcome']}")
        record(
            f"empty boards, all {len(boards)} shapes: the literature's outcome",
            right,
            "boards",
            f"{len(boards)} of {len(boards)}",
            right == len(boards),
            "empty_boards_proven",
        )
        record(
            "empty boards, slowest request on a fresh server",
            slowest,
            "s",
            "<= 1 s",
            slowest <= 1,
            "empty_boards_slowest_s",
        )
        figures["empty_boards_unproven"] = wrong
        for middle, name, aim, key in (
            (mid_game_positions(100, seed=50), "5x5-7x7, 2-8 marks", 0.95, "mid_game"),
            (
                mid_game_positions(100, seed=80, marks=(2, 10), sides=(8,)),
                "8x8, 2-10 marks",
                0.90,
                "mid_game_8x8",
            ),
        ):
            proven = {4: 0, 5: 0}
            for board in middle:
                status, answer, _ = post(
                    server.url + "/v1/analysis", {"board": board.format(), "k": board.k}
                )
                assert status == 200, answer
                proven[board.k] += answer["outcome"] is not None
            share = sum(proven.values()) / len(middle)
            record(
                f"mid-game {name}, {len(middle)} positions: outcome proven",
                share * 100,
                "%",
                f">= {aim:.0%}",
                share >= aim,
                f"{key}_proven_percent",
            )
            for k, count in proven.items():
                figures[f"{key}_proven_k{k}"] = count
                figures[f"{key}_positions_k{k}"] = sum(b.k == k for b in middle)
        stored_position_measures(server.url, record, figures)
    # Without the book: one cold engine per board, a minute at most.
    for rows, cols, k, limit in ((5, 5, 4, 10), (5, 6, 4, 60), (7, 7, 5, 60)):
        engine = Engine(node_budget=10**12, table_bytes=512 * 2**20)
        board = Board(geometry(rows, cols, k), 0, 0, Player.X)
        started = time.perf_counter()
        found = engine.search(board, control=SearchControl(time.monotonic() + limit))
        seconds = time.perf_counter() - started
        outcome = None if found.outcome is None else found.outcome.value
        ok = outcome == literature(rows, cols, k) and seconds <= limit
        record(
            f"({cols},{rows},{k}) without the book: {outcome or 'not proven'}",
            seconds,
            "s",
            f"{literature(rows, cols, k)} <= {limit} s",
            ok,
            f"solve_{cols}{rows}{k}_s",
        )
        figures[f"solve_{cols}{rows}{k}_nodes"] = found.nodes


def stored_position_measures(
    url: str,
    record: Callable[[str, float, str, str, bool, str], None],
    figures: dict[str, object],
) -> None:
    """Issue 29: what loading the shipped stores costs at start-up, and a
    sample of their positions asked of a fresh server, one at a time: the
    slowest answer, and how many are proven."""
    from service.engine import store  # noqa: PLC0415

    load, install = store_start_up_seconds()
    record("stores: load (read, check)", load * 1e3, "ms", "", True, "store_load_ms")
    record("stores: install into the table", install * 1e3, "ms", "", True, "store_install_ms")
    rng = random.Random(29)
    times, proven, asked = [], 0, 0
    for path in store.paths():
        kept = store.load(path)
        for position in rng.sample(kept.positions, min(50, len(kept.positions))):
            board = kept.board(position)
            if board.is_game_over():
                continue
            body = {"board": board.format(), "k": board.k, "player": board.side_to_move.value}
            status, answer, seconds = post(url + "/v1/analysis", body)
            assert status == 200, answer
            times.append(seconds)
            proven += answer["outcome"] is not None
            asked += 1
    slowest = max(times)
    record(
        f"stored positions, {asked} of them: slowest answer on a fresh server",
        slowest,
        "s",
        "<= 0.05 s",
        slowest <= 0.05,
        "stored_slowest_s",
    )
    figures["stored_median_s"] = round(statistics.median(times), 4)
    figures["stored_proven"] = proven
    figures["stored_asked"] = asked


def store_start_up_seconds(repeat: int = 7) -> tuple[float, float]:
    """Median seconds to load every shipped store, and to install them into a
    fresh engine of the service's table size."""
    from service.engine import store  # noqa: PLC0415

    stores = [store.load(path) for path in store.paths()]
    load = median_seconds(lambda: [store.load(path) for path in store.paths()], repeat)
    install = median_seconds(lambda: [s.install(Engine()) for s in stores], repeat)
    return load, install


# (8,8,5) without the book (make prove-885, not make bench): the literature's
# proof took 17.4 hours (Hsu et al. 2020); the target (issue 29) is 600 s on
# the machine's cores.
PROVE_885_SECONDS = 600
PROVE_885_LIMIT_SECONDS = 3600  # the search stops here, proven or not
PROVE_885_TABLE_BYTES = 6 << 30


def prove_885() -> int:
    """The empty 8x8 board, k=5, searched by the exact core alone from a cold
    table, its root's proofs split over every core, until proven or
    PROVE_885_LIMIT_SECONDS pass; prints the figures and exits 1 unless it is
    proven the literature's draw within PROVE_885_SECONDS."""
    import resource  # noqa: PLC0415 - POSIX only, like this measure

    from service.engine import SearchControl  # noqa: PLC0415
    from service.engine.book import LONG_PROOF_THREADS  # noqa: PLC0415

    threads = LONG_PROOF_THREADS
    engine = Engine(
        node_budget=10**15,
        table_bytes=PROVE_885_TABLE_BYTES,
        core_only=True,
        proof_threads=threads,
    )
    board = Board(geometry(8, 8, 5), 0, 0, Player.X)
    started = time.perf_counter()
    control = SearchControl(time.monotonic() + PROVE_885_LIMIT_SECONDS)
    found = engine.search(board, control=control)
    seconds = time.perf_counter() - started
    outcome = None if found.outcome is None else found.outcome.value
    per_move = {
        str(m.cell): None if m.proven is None and not m.exact else m.score for m in found.moves
    }
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    figures = {
        "prove_885_outcome": outcome,
        "prove_885_seconds": round(seconds, 1),
        "prove_885_nodes": found.nodes,
        "prove_885_threads": threads,
        "prove_885_peak_mib": round(peak_mib),
        "prove_885_stopped_by": None if found.stopped_by is None else found.stopped_by.value,
        "prove_885_no_win_moves": sum(m.no_win for m in found.moves),
        "prove_885_moves": per_move,
    }
    print(
        f"(8,8,5) without the book: {outcome or 'not proven'} after {seconds:,.1f} s, "
        f"{found.nodes:,} nodes on {threads} threads, peak memory {peak_mib:,.0f} MiB "
        f"(target: a draw within {PROVE_885_SECONDS} s)"
    )
    print(json.dumps(figures))
    return 0 if outcome == literature(8, 8, 5) and seconds <= PROVE_885_SECONDS else 1


if __name__ == "__main__":
    raise SystemExit(prove_885() if sys.argv[1:] == ["--prove-885"] else main())
