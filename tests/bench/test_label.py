"""bench/label.py and ``bench/tune.py --labels``: positions drawn from played
games, labelled with a reference's searched value, and fitted to."""

from __future__ import annotations

import json
import math
import random
import sys
from pathlib import Path
from types import ModuleType

import pytest

from service.engine import evaluation
from tests.bench.test_blunders import FAKE_REFERENCE
from tests.bench.test_match import bench_module
from tests.brain.manager import Entrant

REPO = Path(__file__).resolve().parents[2]

# The fake reference of test_blunders.py, which also records every command.
RECORDING_REFERENCE = FAKE_REFERENCE.replace(
    "for line in sys.stdin:\n    line = line.strip()\n",
    "log = open(sys.argv[1], 'a')\nfor line in sys.stdin:\n    line = line.strip()\n"
    "    log.write(line + '\\n'); log.flush()\n",
)


@pytest.fixture(scope="module")
def label() -> ModuleType:
    return bench_module("label")


@pytest.fixture(scope="module")
def tune() -> ModuleType:
    return bench_module("tune")


def a_game(size: int = 15) -> dict[str, object]:
    """A self-play record: 2 opening stones, then quiet play, X makes five last."""
    c = size // 2
    row = [c * size + c + i for i in range(5)]  # X's five, row c
    other = [(c + 3) * size + c - 4 + 2 * i for i in range(4)]  # O's scattered stones
    moves = [row[0], other[0], row[1], other[1], row[2], other[2], row[3], other[3], row[4]]
    return {"size": size, "rule": "freestyle", "opening": 2, "moves": moves, "winner": "X"}


def test_positions_are_drawn_after_the_opening_and_quiet(label: ModuleType, tmp_path: Path) -> None:
    games = tmp_path / "games.jsonl"
    games.write_text(json.dumps(a_game()) + "\n")
    drawn = list(label.drawn_positions([games], 10, 1))
    plies = sorted(len(record["moves"]) for record in drawn)
    # Plies 2 to 8 after the opening; from 5 X has an open three (open-four
    # points), from 7 an open four (five points): not quiet.
    assert plies == [2, 3, 4]
    assert all(record["size"] == 15 and record["rule"] == "freestyle" for record in drawn)
    assert len(list(label.drawn_positions([games], 2, 1))) == 2
    # At the horizon, O to move facing X's open three (ply 5) is kept; X to
    # move with its own open-four points (ply 6) and five points are not.
    horizon = sorted(len(r["moves"]) for r in label.drawn_positions([games], 10, 1, True))
    assert horizon == [2, 3, 4, 5]


def test_the_reference_labels_each_position(
    label: ModuleType, tmp_path: Path, tune: ModuleType
) -> None:
    log = tmp_path / "commands.txt"
    script = tmp_path / "reference.py"
    script.write_text(RECORDING_REFERENCE)
    reference = Entrant((sys.executable, str(script), str(log)), quiet=True)
    positions = [
        {"size": 15, "rule": "freestyle", "moves": [112, 113, 114]},
        {"size": 15, "rule": "exact", "moves": [112, 113, 114, 115, 116]},
        {"size": 20, "rule": "freestyle", "moves": [210]},
    ]
    labelled = label.label_all(reference, positions, 777, 1)
    # The fake's value: -10 a stone, a win in 7 from five stones on.
    assert [r["value"] for r in labelled] == [-30, blunders_mate(7), -10]
    assert [r["moves"] for r in labelled] == [p["moves"] for p in positions]
    commands = log.read_text().splitlines()
    assert commands.count("START 15") == 1 and commands.count("START 20") == 1
    assert "INFO max_node 777" in commands and "INFO show_detail 2" in commands
    assert commands.count("INFO rule 1") == 1 and commands.count("INFO rule 0") == 2
    # Stones in play order, the side to move's as 1: X's with O to move.
    board = commands.index("BOARD")
    assert commands[board + 1 : board + 5] == ["7,7,2", "8,7,1", "9,7,2", "DONE"]
    # The forced win is a certain target, the others the logistic of the value.
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in labelled))
    xs, ys, count = tune.labelled_samples(path, 200.0)
    assert count == 3 == len(xs)
    assert ys[0] == pytest.approx(1 / (1 + math.exp(30 / 200)))
    assert ys[1] == 1.0


def blunders_mate(plies: int) -> int:
    return int(bench_module("blunders").MATE) - plies


def test_the_fit_to_labels_recovers_the_values_behind_them(
    tune: ModuleType, tmp_path: Path
) -> None:
    """Positions labelled with a known linear evaluation of the features, as
    probabilities: the fit from the weights in force moves towards the known
    weights and lowers the loss."""
    rng = random.Random(7)
    records, xs = [], []
    while len(records) < 400:
        moves = []
        while len(moves) < rng.randint(4, 14):
            cell = (7 + rng.randint(-4, 4)) * 15 + 7 + rng.randint(-4, 4)
            if cell not in moves:
                moves.append(cell)
        found = tune.features(15, 15, 5, False, moves)
        if found is None:
            continue
        xs.append(found)
        records.append({"size": 15, "rule": "freestyle", "moves": moves})
    true = [rng.uniform(-300, 300) for _ in xs[0]]
    for record, x in zip(records, xs, strict=True):
        record["value"] = round(sum(a * b for a, b in zip(x, true, strict=True)) / 5)
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    got, ys, _ = tune.labelled_samples(path, 200.0)
    assert got == xs
    start = [0.0] * len(true)
    fitted = tune.fit_weights(got, ys, start, 1000.0, iterations=30)
    loss = tune.log_loss(got, ys, fitted, 1000.0)
    assert loss < tune.log_loss(got, ys, start, 1000.0) - 0.01
    # As close to the labels as the weights behind them (up to the ridge).
    assert loss < tune.log_loss(got, ys, true, 1000.0) + 0.002


def test_the_weights_in_force_are_the_fit_of_the_committed_labels(
    tune: ModuleType, tmp_path: Path
) -> None:
    """service/engine/evaluation.json is what ``bench/tune.py
    bench/labels/rapfi-20k.jsonl.gz --labels`` fits from the weights it
    records as its start: the fit replays without the reference engine."""
    record = json.loads(evaluation.EVALUATION_FILE.read_text())
    fitted = record["fitted"]
    assert fitted["command"] == (
        "bench/tune.py bench/labels/rapfi-20k.jsonl.gz --seed 27 --labels --label-scale 200"
    )
    base = tmp_path / "base.json"
    base.write_text(json.dumps(fitted["from"]))
    labels = REPO / "bench" / "labels" / "rapfi-20k.jsonl.gz"
    xs, ys, _ = tune.labelled_samples(labels, 200.0)
    assert len(xs) == fitted["positions"]
    fit = tune.fit_split(xs, ys, evaluation.load(base), 27, 0.2, False)
    assert fit.weights == tune.without_extras(evaluation.load(evaluation.EVALUATION_FILE))
    assert round(fit.scale, 1) == fitted["scale"]
    assert round(fit.after, 5) == fitted["held_out_log_loss"]["after"]


def test_the_threat_values_and_corrections_in_force_are_the_fits_of_the_committed_labels(
    tune: ModuleType,
) -> None:
    """On top of those weights (``make tune-labels``' next two steps): each
    threat mask's value as ``bench/tune.py --threats
    bench/labels/rapfi-20k-horizon.jsonl.gz --labels`` fits it, and each
    class of combination's correction as ``--combinations`` fits it over
    the weights and the masks; the fits replay without the reference engine.
    (A correction may land a unit apart where numpy's sums round otherwise
    on another machine.)"""
    record = json.loads(evaluation.EVALUATION_FILE.read_text())
    in_force = evaluation.load(evaluation.EVALUATION_FILE)
    threats, corrections = record["threats"]["fitted"], record["combination_correction"]["fitted"]
    horizon = REPO / "bench" / "labels" / "rapfi-20k-horizon.jsonl.gz"
    labels = REPO / "bench" / "labels" / "rapfi-20k.jsonl.gz"
    assert threats["command"] == (
        "bench/tune.py --threats bench/labels/rapfi-20k-horizon.jsonl.gz --seed 5 --labels "
        "--label-scale 200"
    )
    assert corrections["command"] == (
        "bench/tune.py --combinations bench/labels/rapfi-20k.jsonl.gz --seed 27 --labels "
        "--label-scale 200"
    )
    scale = record["fitted"]["scale"]
    try:
        evaluation.apply(tune.without_extras(in_force))
        samples = tune.labelled_threat_samples(horizon, 200.0)
        assert len(samples) == threats["positions"]
        assert tuple(tune.fit_threats(samples, scale)) == in_force.threat_values
        evaluation.apply(tune.without_corrections(in_force))
        evaluations, counts, ys = tune.combination_samples(labels, 200.0)
        assert len(ys) == corrections["positions"]
        fit = tune.fit_combinations(evaluations, counts, ys, scale, 27)
    finally:
        evaluation.apply(in_force)
    fitted = (*in_force.correction, *in_force.correction_other)
    assert max(abs(a - b) for a, b in zip(fit.corrections, fitted, strict=True)) <= 1
    assert fit.free == corrections["free"]
    assert fit.after == pytest.approx(corrections["held_out_log_loss"]["after"], abs=1e-4)
