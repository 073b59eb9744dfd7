"""The brain's executables against `python -m service.brain`: node rate, start-up, size.

    .venv/bin/python bench/native_brain.py              # depth 16, 8 positions
    .venv/bin/python bench/native_brain.py --depth 12 --no-windows

All three run the same C, so a search of fixed depth (``INFO max_depth``,
no deadline) visits the same nodes in each and plays the same move; the time
from BOARD's last line to the move is then the node rate's inverse. The node
count comes from the engine in this process, searching the same position the
same way: a new engine of the same table size, with one game's search
context, as START makes one, warmed as START warms it. A brain that plays
another move searched otherwise: that position gives it no rate. max_depth is
sent before START, so that the table is made (every page touched) at START,
not on the search's clock: at depth 10, the searches lasting 10-30 ms, that
was Wine's half of the time. Positions: the committed balanced openings on 15x15
(``bench/openings/balanced.txt``). Brains: ``python -m service.brain``,
``build/pbrain-tictactoe`` and, under Wine, ``build/pbrain-tictactoe.exe``
(both built by make when missing). Also each one's start: from the process
launched to ``START 15`` answered (the table's warm-up included), and the
executables' sizes. Prints a table, then one JSON object on the last line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from contextlib import ExitStack

from brain_stop import openings
from local_server import REPO

sys.path.insert(0, str(REPO))  # the tests' manager and executables drive the brains

from service.engine import Board, Engine, Player, geometry
from service.engine.search import run_big
from tests.brain import executables
from tests.brain.manager import BRAIN, brain, parse_move

SIZE = 15
TURN = "INFO timeout_turn 1000000"  # a turn no fixed-depth search here comes near
WARM_NODES = 20_000  # START's warm-up search (service/brain/native/protocol.c)


def nodes_of(stones: list[tuple[int, int]], depth: int) -> tuple[int, int]:
    """The nodes the brains' search of ``stones`` visits, and its move's cell."""
    shape = geometry(SIZE, SIZE, 5)
    # The brains' engine as START leaves it: new, its table warmed by a
    # search of the empty board (protocol.c's WARM_NODES).
    engine = Engine(max_depth=depth, one_game=True)
    run_big(
        shape,
        engine.table,
        0,
        0,
        x_to_move=True,
        budget=WARM_NODES,
        max_depth=depth,
        context=engine.context,
    )
    x = sum(1 << (r * SIZE + c) for c, r in stones[0::2])
    o = sum(1 << (r * SIZE + c) for c, r in stones[1::2])
    side = Player.X if len(stones) % 2 == 0 else Player.O
    analysis = engine.search(Board(shape, x, o, side), node_budget=10**9)
    return analysis.nodes, analysis.best_moves[0]


def timed(command: executables.Executable, stones: list[tuple[int, int]], depth: int) -> dict:
    """One brain's start and its search of ``stones`` at ``depth``."""
    launched = time.perf_counter()
    with brain(command.command, command.env, quiet=True) as process:
        # max_depth before START: a new one drops the engine, and the next
        # move would make the table again on its own clock (under Wine,
        # touching its every page took about 25 ms, half of a depth-10 search).
        process.info(TURN, f"INFO max_depth {depth}")
        assert process.ask(f"START {SIZE}") == "OK"
        start = time.perf_counter() - launched
        mine = len(stones) % 2  # the side to move's stones have this parity
        lines = [f"{c},{r},{1 if i % 2 == mine else 2}" for i, (c, r) in enumerate(stones)]
        process.send("BOARD", *lines)
        sent = time.perf_counter()
        x, y = parse_move(process.ask("DONE", timeout=600))
        return {"start": start, "search": time.perf_counter() - sent, "move": y * SIZE + x}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=16)
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--no-windows", action="store_true")
    args = parser.parse_args()
    positions = openings(REPO / "bench" / "openings" / "balanced.txt")[: args.positions]
    with ExitStack() as stack:
        brains = {
            "python": executables.Executable("python", BRAIN),
            "linux": executables.linux_brain(),
        }
        if not args.no_windows:
            brains["windows"] = stack.enter_context(executables.windows_brain())
        rates: dict[str, list[float]] = {name: [] for name in brains}
        starts: dict[str, list[float]] = {name: [] for name in brains}
        print(f"depth {args.depth}, 15x15; nodes, then each brain's seconds and node rate")
        for stones in positions:
            nodes, move = nodes_of(stones, args.depth)
            row = [f"{nodes:>9,}"]
            for name, command in brains.items():
                found = timed(command, stones, args.depth)
                starts[name].append(found["start"])
                if found["move"] != move:
                    # Another search (its node count unknown here): no rate.
                    row.append(
                        f"{name} {found['search']:.2f} s (played {found['move']}, not {move})"
                    )
                    continue
                rates[name].append(nodes / found["search"])
                row.append(f"{name} {found['search']:.2f} s {nodes / found['search']:,.0f}/s")
            print("  ".join(row))
    sizes = {
        "linux": executables.LINUX_BRAIN.stat().st_size,
        "windows": executables.WINDOWS_BRAIN.stat().st_size if "windows" in brains else None,
    }
    summary = {
        "depth": args.depth,
        "positions": len(positions),
        "nodes_per_second": {name: round(statistics.median(r)) for name, r in rates.items()},
        "start_seconds": {name: round(statistics.median(s), 3) for name, s in starts.items()},
        "bytes": sizes,
    }
    for name in brains:
        print(
            f"{name}: median {summary['nodes_per_second'][name]:,} nodes/s, "
            f"START answered {summary['start_seconds'][name]} s after launch"
        )
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
