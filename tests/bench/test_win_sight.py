"""bench/win_sight.py: positions a reference reports won for the side to
move, and how many of them our engine sees as won at a node count."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.bench.test_blunders import FAKE_REFERENCE
from tests.bench.test_label import a_game
from tests.bench.test_match import bench_module
from tests.brain.manager import Entrant


@pytest.fixture(scope="module")
def win_sight() -> ModuleType:
    return bench_module("win_sight")


def test_the_positions_kept_are_those_the_reference_reports_won(
    win_sight: ModuleType, tmp_path: Path
) -> None:
    games = tmp_path / "games.jsonl"
    games.write_text(json.dumps(a_game()) + "\n")
    script = tmp_path / "reference.py"
    script.write_text(FAKE_REFERENCE)  # a win in 7 from five stones on, else -10 a stone
    reference = Entrant((sys.executable, str(script)), quiet=True)
    records = win_sight.label([games], reference, 5_000, 500, 10, 1, 1)
    # The horizon positions are plies 2 to 5 (bench/label.py's); the fake
    # reports a win at 5 stones only, at both counts.
    assert [len(r["moves"]) for r in records] == [5]
    assert records[0]["value"] == records[0]["check_value"] == 100_000 - 7
    assert (records[0]["nodes"], records[0]["check_nodes"]) == (5_000, 500)
    out = tmp_path / "wins.jsonl.gz"
    win_sight.write(out, records)
    assert win_sight.read(out) == records


def test_our_engine_sees_a_win_in_five_and_no_win_in_a_quiet_position(
    win_sight: ModuleType,
) -> None:
    # X to move with an open three down one column (cells 113, 128, 143; O's
    # stones in the corners): an open four to make, a win in 3.
    won = {"size": 15, "rule": "freestyle", "moves": [112, 0, 113, 14, 128, 210, 143, 224]}
    quiet = {"size": 15, "rule": "freestyle", "moves": [112, 113]}
    core = win_sight._core
    assert win_sight.seen(core, won, 20_000)
    assert not win_sight.seen(core, quiet, 20_000)
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
    records = win_sight.read(win_sight.WINS)
    assert len(records) >= 100
    for record in records:
        assert record["value"] >= 50_000 and record["size"] == 15
        assert label.at_horizon(15, record["rule"] == "exact", record["moves"])
