"""How long the brain takes to answer STOP: from the line sent to the move read.

    .venv/bin/python bench/brain_stop.py                 # 20 trials, 15x15
    .venv/bin/python bench/brain_stop.py --trials 50 --think 0.5

One brain process (``python -m service.brain``) on 15x15 with Yixin-Board's
"unlimited" time (``INFO timeout_turn 2000000``, ``timeout_match 100000000``),
so each search runs until told. Each trial sets a position from the committed
balanced openings (``bench/openings/balanced.txt``, played from the centre),
lets the brain think for ``--think`` seconds (an answer before the STOP is a
failure: the search was to run until told), sends ``STOP`` (or ``YXSTOP``
with ``--yx``) and times the move's arrival, over the same pipes a manager
uses (``tests/brain/manager.py``). Prints each trial, then the median and the
longest, and one JSON object on the last line. Exits 1 when the longest is
over ``--target-ms`` (50 ms: issue 28's target).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from local_server import REPO

sys.path.insert(0, str(REPO))  # the tests' Gomocup manager drives the brain

from tests.brain.manager import brain, parse_move

SIZE = 15
OPENINGS = REPO / "bench" / "openings" / "balanced.txt"
UNLIMITED = ("INFO timeout_turn 2000000", "INFO timeout_match 100000000")


def openings(path: Path) -> list[list[tuple[int, int]]]:
    """Each opening's stones as board cells, from its offsets to the centre."""
    centre = SIZE // 2
    found = []
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            offsets = [tuple(int(v) for v in stone.split(",")) for stone in line.split()]
            found.append([(centre + dx, centre + dy) for dx, dy in offsets])
    return found


def board_lines(stones: list[tuple[int, int]]) -> list[str]:
    """BOARD for the side to move: its stones are 1, the other side's 2."""
    mine = len(stones) % 2
    lines = [f"{x},{y},{1 if i % 2 == mine else 2}" for i, (x, y) in enumerate(stones)]
    return ["BOARD", *lines, "DONE"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--think", type=float, default=0.3, help="seconds before STOP")
    parser.add_argument("--target-ms", type=float, default=50.0)
    parser.add_argument("--yx", action="store_true", help="send YXSTOP instead of STOP")
    args = parser.parse_args()
    stop = "YXSTOP" if args.yx else "STOP"
    positions = openings(OPENINGS)
    latencies: list[float] = []
    with brain() as process:
        if process.ask(f"START {SIZE}") != "OK":
            raise SystemExit("the brain refused the board")
        process.info(*UNLIMITED)
        for trial in range(args.trials):
            stones = positions[trial % len(positions)]
            process.send(*board_lines(stones))
            try:
                early = process.answer(timeout=args.think)
            except TimeoutError:
                pass  # still thinking, as it should: until told
            else:
                raise SystemExit(f"trial {trial}: answered {early!r} before {stop}")
            sent = time.monotonic()
            answer = process.ask(stop, timeout=10)
            latency = (time.monotonic() - sent) * 1000
            x, y = parse_move(answer)
            if not (0 <= x < SIZE and 0 <= y < SIZE) or (x, y) in stones:
                raise SystemExit(f"trial {trial}: an illegal move {answer!r}")
            latencies.append(latency)
            print(f"trial {trial + 1:3d}: {stop} answered in {latency:6.1f} ms with {answer}")
    median, longest = statistics.median(latencies), max(latencies)
    print(
        f"{stop} to move over {len(latencies)} trials: median {median:.1f} ms, max {longest:.1f} ms"
    )
    print(
        json.dumps(
            {
                "stop": stop,
                "trials": len(latencies),
                "median_ms": round(median, 2),
                "max_ms": round(longest, 2),
                "target_ms": args.target_ms,
            }
        )
    )
    return 0 if longest <= args.target_ms else 1


if __name__ == "__main__":
    sys.exit(main())
