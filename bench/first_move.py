"""A new table's first search, on a loaded machine: how long past its deadline
it answers. Each trial is a process of its own that makes a new 64 MiB table
and searches the empty 15x15 board for ``--think`` seconds (0.24 s: what the
Gomocup brain gives a move of a 400 ms turn), as the brain's first move does,
while ``--load`` busy processes keep the cores occupied.

    .venv/bin/python bench/first_move.py                 # the working tree's core
    .venv/bin/python bench/first_move.py 5665f47 .       # two builds, side by side

Each revision's core is built as ``bench/core_ab.py`` builds it; with two, the
trials alternate between them, so both meet the same load. Prints each
build's median and longest time of a first move, how many answered past
their deadline and the median nodes a first move searched, then one JSON
object on the last line. Exits 1 when the last build named answers any first
move more than ``--late-ms`` (100 ms) past its deadline: a Gomocup manager
counts a late move as lost.

Why it exists: the move of a table to huge pages once blocked the search that
asked for it, uninterruptibly, for up to 0.42 s on a loaded machine (see
``move_to_huge_pages()`` in ``service/engine/core/table.c``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from core_ab import build

# One trial: a new process, a new table, the first search. Prints its seconds and nodes.
TRIAL = """
import importlib.util, sys, time
spec = importlib.util.spec_from_file_location("service.engine._core", sys.argv[1])
core = importlib.util.module_from_spec(spec)
spec.loader.exec_module(core)
think = float(sys.argv[2])
empty = bytes((15 * 15 + 7) // 8)
table = core.Table(64 << 20)
started = time.monotonic()
control = core.Control(started + think)
nodes = core.analyze_big(15, 15, 5, False, table, empty, empty, True, 10**12, control, 0)[1]
print(time.monotonic() - started, nodes)
"""

# A busy process: spins until it is killed, or for an hour at most.
BUSY = "import time\nend = time.monotonic() + 3600\nwhile time.monotonic() < end: pass"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("revisions", nargs="*", default=["."], help="git revisions, or .")
    parser.add_argument("--trials", type=int, default=30, help="first moves per build")
    parser.add_argument("--think", type=float, default=0.24, help="seconds a move may search")
    parser.add_argument("--load", type=int, default=2 * (os.cpu_count() or 1))
    parser.add_argument("--late-ms", type=float, default=100.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="first-move-") as scratch:
        libraries = []
        for index, revision in enumerate(args.revisions):
            here = Path(scratch, str(index))
            libraries.append(Path(build(revision, here).__file__ or ""))
        seconds: list[list[float]] = [[] for _ in libraries]
        nodes: list[list[int]] = [[] for _ in libraries]
        busy = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(args.load)]
        try:
            for trial in range(args.trials):
                order = range(len(libraries))
                for side in order if trial % 2 == 0 else reversed(order):
                    done = subprocess.run(
                        [sys.executable, "-c", TRIAL, str(libraries[side]), str(args.think)],
                        capture_output=True,
                        text=True,
                        check=True,
                    )
                    took, searched = done.stdout.split()
                    seconds[side].append(float(took))
                    nodes[side].append(int(searched))
        finally:
            for process in busy:
                process.kill()
                process.wait()
    rows = []
    for revision, each, counts in zip(args.revisions, seconds, nodes, strict=True):
        late = [s - args.think for s in each if s > args.think]
        row = {
            "revision": revision,
            "trials": len(each),
            "median_ms": round(statistics.median(each) * 1e3, 1),
            "longest_ms": round(max(each) * 1e3, 1),
            "past_deadline": len(late),
            "most_past_ms": round(max(late, default=0.0) * 1e3, 1),
            "median_nodes": round(statistics.median(counts)),
        }
        rows.append(row)
        print(
            f"{revision:>12}: first move median {row['median_ms']} ms, longest "
            f"{row['longest_ms']} ms (deadline {args.think * 1e3:.0f} ms); "
            f"{row['past_deadline']} of {row['trials']} past it, "
            f"by at most {row['most_past_ms']} ms; "
            f"median {row['median_nodes']:,} nodes"
        )
    print(json.dumps({"first_move": rows, "think_s": args.think, "load": args.load}))
    return 0 if rows[-1]["most_past_ms"] <= args.late_ms else 1


if __name__ == "__main__":
    sys.exit(main())
