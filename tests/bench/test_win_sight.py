"""bench/win_sight.py: positions a reference reports won for the side to
move, and how many of them our engine sees as won at a node count."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.bench.test_blunders import FAKE_REFERENCE
from tests.bench.test_match import bench_module
from tests.brain.manager import Entrant


@pytest.fixture(scope="module")
def win_sight() -> ModuleType:
    return bench_module("win_sight")


# The fake reference of test_blunders.py with its value told by the count:
# from five stones on a win in 7 at the long count (more than 1,000 nodes);
# at the short count a win in 9 from six stones on, and no win at five.
COUNTING_REFERENCE = FAKE_REFERENCE.replace(
    '("+M7" if len(stones) >= 5 else str(-10 * len(stones)))',
    '("+M7" if len(stones) >= 5 and depth > 1000 else "+M9" if len(stones) >= 6 '
    "else str(-10 * len(stones)))",
)


def a_quiet_game() -> dict[str, object]:
    """Stones in the corners' rows, never three of a side on a line within
    reach: every position after the 2-stone opening is one a search decides."""
    x = [0, 4, 8, 12, 60]
    o = [224, 220, 216, 212, 164]
    moves = [cell for pair in zip(x, o, strict=True) for cell in pair]
    return {"size": 15, "rule": "freestyle", "opening": 2, "moves": moves, "winner": None}


def test_the_positions_kept_are_those_the_reference_reports_won(
    win_sight: ModuleType, tmp_path: Path
) -> None:
    assert COUNTING_REFERENCE != FAKE_REFERENCE
    games = tmp_path / "games.jsonl"
    games.write_text((json.dumps(a_quiet_game()) + "\n") * 2)  # each position drawn twice
    script = tmp_path / "reference.py"
    script.write_text(COUNTING_REFERENCE)
    reference = Entrant((sys.executable, str(script)), quiet=True)
    records = win_sight.label([games], reference, 5_000, 500, 20, 2, 1)
    # Plies 2 to 9 are drawn, each once; the long count reports 5 stones and
    # up won, the short one 6 and up (5 stones: -10 a stone).
    assert sorted(len(r["moves"]) for r in records) == [5, 6, 7, 8, 9]
    for record in records:
        assert record["value"] == 100_000 - 7
        assert record["check_value"] == (-50 if len(record["moves"]) == 5 else 100_000 - 9)
        assert (record["nodes"], record["check_nodes"]) == (5_000, 500)
    assert win_sight.measure(records, [])["reference"]["seen_at_check_nodes"] == 4
    out = tmp_path / "wins.jsonl.gz"
    win_sight.write_labels(out, records)
    assert list(win_sight.read_labels(out)) == records


def test_our_engine_sees_a_win_and_no_win_in_a_quiet_position(
    win_sight: ModuleType,
) -> None:
    # X to move with an open three down one column (cells 113, 128, 143; O's
    # stones in the corners): an open four to make, a win in 3.
    won = {"size": 15, "rule": "freestyle", "moves": [112, 0, 113, 14, 128, 210, 143, 224]}
    quiet = {"size": 15, "rule": "freestyle", "moves": [112, 113]}
    core = win_sight._core
    assert win_sight.seen(core, won, 20_000)
    assert not win_sight.seen(core, quiet, 20_000)
    # X's a1 b1 c1 _ e1 f1: filling d1 wins under freestyle, makes six under exact.
    overline = {
        "size": 15,
        "rule": "freestyle",
        "moves": [210, 180, 211, 181, 212, 182, 214, 154, 215, 96],
    }
    assert win_sight.seen(core, overline, 20_000)
    assert not win_sight.seen(core, {**overline, "rule": "exact"}, 20_000)
    report = win_sight.measure(
        [{**won, "nodes": 9, "check_nodes": 3, "check_value": 100_000 - 9},
         {**quiet, "nodes": 9, "check_nodes": 3, "check_value": 12}],
        [20_000],
    )  # fmt: skip
    assert report["positions"] == 2
    assert report["reference"]["seen_at_check_nodes"] == 1
    assert report["ours"]["20000"]["seen"] == 1


def test_the_committed_positions_are_reference_wins_a_search_must_decide(
    win_sight: ModuleType,
) -> None:
    label = bench_module("label")
    records = list(win_sight.read_labels(win_sight.WINS))
    # The figures of docs/strength.md#seeing-the-wins: 286 positions, 225 of
    # them seen won by the reference at its short count.
    assert len(records) == 286
    assert win_sight.measure(records, [])["reference"]["seen_at_check_nodes"] == 225
    for record in records:
        assert record["value"] >= 50_000 and record["size"] == 15
        assert label.at_horizon(15, record["rule"] == "exact", record["moves"])
