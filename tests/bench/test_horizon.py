"""bench/horizon.py: the reference's iterations read from its reports, and
the depth at which our search sees a win."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

from tests.bench.test_match import bench_module
from tests.brain.manager import Entrant

# A reference that reports two iterations as Rapfi does under INFO
# show_detail 2, the second a win in 5 along the line it gives.
FAKE_REFERENCE = """
import sys
board = None
for line in sys.stdin:
    line = line.strip()
    if line.startswith("START"):
        print("OK", flush=True)
    elif line == "BOARD":
        board = []
    elif line == "DONE":
        print("INFO DEPTH 1", "INFO TOTALNODES 30", "INFO EVAL -12", "INFO BESTLINE 6,7", sep="\\n")
        print("INFO PV 0", "INFO DEPTH 2", "INFO SELDEPTH 5", "INFO TOTALNODES 95", sep="\\n")
        print("INFO EVAL +M5", "INFO BESTLINE 7,8 7,9 7,10", "INFO PV DONE", sep="\\n")
        print("MESSAGE " + str(len(board)) + " stones")
        print("7,8", flush=True)
        board = None
    elif board is not None:
        board.append(line)
    elif line == "END":
        break
"""


@pytest.fixture(scope="module")
def horizon() -> ModuleType:
    return bench_module("horizon")


def test_each_iteration_is_read_with_its_nodes_value_and_line(
    horizon: ModuleType, tmp_path: Path
) -> None:
    script = tmp_path / "reference.py"
    script.write_text(FAKE_REFERENCE)
    reference = Entrant((sys.executable, str(script)), quiet=True)
    report = horizon.reference_iterations(reference, [(7, 7), (8, 8), (8, 7)], 15, "freestyle", 100)
    assert report == [
        horizon.Iteration(1, 30, -12, ((6, 7),)),
        horizon.Iteration(2, 95, 100_000 - 5, ((7, 8), (7, 9), (7, 10))),
    ]


# X to move with an open three on row 7 (cells 7*15+6 .. 7*15+8) and O
# scattered far away: X makes an open four, a win every depth sees.
OPEN_THREE = [7 * 15 + 6, 0, 7 * 15 + 7, 14, 7 * 15 + 8, 224]
# The same three closed at one end by O: no win for anyone yet.
CLOSED_THREE = [7 * 15 + 6, 7 * 15 + 5, 7 * 15 + 7, 14, 7 * 15 + 8, 224]


def test_a_win_at_hand_is_seen_at_depth_one(horizon: ModuleType) -> None:
    found = horizon.our_depth(15, "freestyle", OPEN_THREE, 6, 60.0)
    assert found["depth"] == 1 and found["nodes"] > 0


def test_no_win_is_seen_where_there_is_none(horizon: ModuleType) -> None:
    found = horizon.our_depth(15, "freestyle", CLOSED_THREE, 3, 60.0)
    assert found["depth"] is None and found["searched"] == 3


def test_the_line_is_walked_where_the_winner_moves(horizon: ModuleType) -> None:
    # X's open four and O's block: at 0 and 2 plies X is to move and wins.
    line = [(7, 9), (7, 10)]
    walked = horizon.line_walk(15, "freestyle", OPEN_THREE, line, 10_000, True)
    assert [w["plies"] for w in walked] == [0, 2]
    assert all(w["seen"] and w["proven"] for w in walked)
    assert horizon.line_walk(15, "freestyle", CLOSED_THREE, line, 10_000, False)[0]["plies"] == 1


def test_another_checkouts_core_is_the_one_measured(horizon: ModuleType) -> None:
    # A stand-in core that sees a win at depth 2 and nowhere else: the
    # measures ask it, not the default core (which would see none here).
    asked: list[int] = []

    def analyze_big(*args: object) -> tuple[object, ...]:
        depth = int(args[-1])  # type: ignore[call-overload]
        asked.append(depth)
        value = 0.98 if depth in (0, 2) else 0.5
        return ([(0, value, False, 0, [], False)], 10 * (depth + 1), depth)

    core = SimpleNamespace(Table=lambda size: None, analyze_big=analyze_big)
    found = horizon.our_depth(15, "freestyle", CLOSED_THREE, 5, 60.0, core=core)
    assert found == {"depth": 2, "nodes": 30, "seconds": found["seconds"]} and asked == [1, 2]
    walked = horizon.line_walk(15, "freestyle", CLOSED_THREE, [(0, 0)], 1_000, False, core)
    assert walked == [{"plies": 1, "depth": 0, "seen": True, "proven": False}]


def test_a_checkout_loaded_by_path_measures_as_this_one(horizon: ModuleType) -> None:
    core = horizon.load_core(horizon.REPO)
    assert horizon.our_depth(15, "freestyle", OPEN_THREE, 6, 60.0, core=core)["depth"] == 1
