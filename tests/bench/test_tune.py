"""Fitting the evaluation (``bench/tune.py``) and the weights' file
(``service/engine/evaluation.py``): the features are the core's evaluation,
the fit recovers known weights, and a bad file or weight is refused."""

from __future__ import annotations

import importlib
import json
import math
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from service.engine import _core, evaluation

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def tune() -> Iterator[ModuleType]:
    sys.path.insert(0, str(BENCH))
    try:
        yield importlib.import_module("tune")
    finally:
        sys.path.remove(str(BENCH))


def random_game(rng: random.Random, size: int, stones: int) -> list[int]:
    centre = size // 2
    cells: list[int] = []
    while len(cells) < stones:
        cell = (centre + rng.randint(-4, 4)) * size + centre + rng.randint(-4, 4)
        if cell not in cells:
            cells.append(cell)
    return cells


@pytest.mark.parametrize("weights_seed", [None, 1, 2])
def test_the_features_dotted_with_the_weights_are_the_cores_evaluation(
    tune: ModuleType, weights_seed: int | None
) -> None:
    """On random quiet positions, for the weights in force and for random ones
    (set in the core for the test, then put back)."""
    in_force = evaluation.load(evaluation.EVALUATION_FILE)
    weights = in_force
    if weights_seed is not None:
        rng = random.Random(weights_seed)
        # The weights the features stand for (a quiet position has no five,
        # and every empty cell is of some kind, so "quiet" is the rest).
        weights = evaluation.Weights(
            (0, *(rng.randint(-300, 300) for _ in range(8)), 600),
            (0, *(rng.randint(-500, 500) for _ in range(7)), 0),
            rng.randint(-50, 50),
            (0, *(rng.randint(-300, 300) for _ in range(8)), 600),
            (0, *(rng.randint(-500, 500) for _ in range(7)), 0),
        )
    evaluation.apply(weights)
    try:
        rng = random.Random(7)
        checked = 0
        for _ in range(60):
            size, exact = rng.choice([(15, False), (15, True), (20, False)])
            moves = random_game(rng, size, rng.randint(2, 14))
            found = tune.features(size, size, 5, exact, moves)
            if found is None:
                continue
            value = _core.big_board(size, size, 5, exact, moves)[2]
            assert sum(a * b for a, b in zip(found, tune.as_vector(weights), strict=True)) == value
            checked += 1
        assert checked >= 20
    finally:
        evaluation.apply(in_force)


def test_a_position_with_a_five_point_is_not_quiet(tune: ModuleType) -> None:
    # X: four in a row on row 7 with both ends open.
    moves = [105, 0, 106, 1, 107, 2, 108, 3]
    assert tune.features(15, 15, 5, False, moves) is None
    assert tune.features(15, 15, 5, False, moves[:4]) is not None


def test_the_fit_recovers_known_weights(tune: ModuleType) -> None:
    rng = random.Random(3)
    true = [40.0, -25.0, 10.0, 5.0]
    scale = 100.0
    xs = [[rng.randint(-3, 3) for _ in range(3)] + [1] for _ in range(3000)]
    ys = [
        float(
            rng.random()
            < 1 / (1 + math.exp(-sum(a * b for a, b in zip(x, true, strict=True)) / scale))
        )
        for x in xs
    ]
    fitted = tune.fit_weights(xs, ys, [0.0, 0.0, 0.0, 0.0], scale)
    assert all(abs(f - t) < 8 for f, t in zip(fitted, true, strict=True))
    assert tune.log_loss(xs, ys, fitted, scale) < tune.log_loss(xs, ys, [0.0] * 4, scale)
    assert 60 < tune.fit_scale(xs, ys, true) < 170


def test_an_evaluation_file_is_checked(tmp_path: Path) -> None:
    path = tmp_path / "evaluation.json"
    path.write_text("{}")
    with pytest.raises(ValueError, match="not an evaluation file"):
        evaluation.load(path)
    record = json.loads(evaluation.EVALUATION_FILE.read_text())
    record["kind_bonus"]["f3f3"] = "many"
    path.write_text(json.dumps(record))
    with pytest.raises(ValueError, match="not an evaluation file"):
        evaluation.load(path)


@pytest.mark.parametrize(
    ("pattern", "kind", "other", "tempo", "message"),
    [
        ([0] * 9, [0] * 9, [0] * 10, 0, "pattern_worth must have 10 items"),
        ([0] * 10, [0] * 10, [0] * 10, 0, "kind_bonus must have 9 items"),
        ([0] * 10, [0] * 9, [0] * 11, 0, "pattern_worth_other must have 10 items"),
        ([0] * 9 + [2001], [0] * 9, [0] * 10, 0, "within"),
        ([0] * 10, [0] * 8 + [-2001], [0] * 10, 0, "within"),
        ([0] * 10, [0] * 9, [0] * 9 + [2001], 0, "within"),
        ([0] * 10, [0] * 9, [0] * 10, 2001, "within"),
        ([0] * 10, [0] * 9, [0] * 10, 2**40, "greater than maximum|within"),
    ],
)
def test_weights_out_of_range_are_refused(
    pattern: list[int], kind: list[int], other: list[int], tempo: int, message: str
) -> None:
    with pytest.raises((ValueError, OverflowError), match=message):
        _core.set_evaluation(pattern, kind, other, [0] * 9, tempo)


def test_a_match_game_is_read_as_a_self_play_game(tune: ModuleType) -> None:
    """``bench/match.py --games`` records (stones as [x, y], the winner as the
    entrant that made the row, entrant 0 moving first after the opening) are
    fitted to as self-play games: the cells row by row, the winner's colour
    from who made the last move."""
    record = {
        "ours": "a",
        "theirs": "b",
        "size": 15,
        "rule": "exact",
        # X, O, X from the opening; entrant 0 plays O and makes the row.
        "moves": [[7, 7], [8, 7], [7, 8], [8, 8], [0, 0], [8, 9], [1, 0], [8, 10], [2, 0], [8, 11]],
        "replies_ms": [[9.0, 9.0, 9.0, 9.0], [9.0, 9.0, 9.0]],  # 7 replies: 3 opening stones
        "winner": 0,
        "forfeit": None,
    }
    game = tune.as_self_play(record)
    assert game == {
        "size": 15,
        "rule": "exact",
        "opening": 3,
        "moves": [112, 113, 127, 128, 0, 143, 1, 158, 2, 173],
        "winner": "O",
    }
    # Entrant 1 made the row: still the last mover's colour.
    assert tune.as_self_play({**record, "winner": 1})["winner"] == "O"
    shorter = {**record, "moves": record["moves"][:-1], "replies_ms": [[9.0] * 3, [9.0] * 3]}
    assert tune.as_self_play({**shorter, "winner": 0})["winner"] == "X"
    assert tune.as_self_play({**record, "winner": None})["winner"] is None
    # A game lost by a late or bad answer has no row to learn from.
    assert tune.as_self_play({**record, "forfeit": "entrant 0: late"}) is None
    # The opening is the stones no reply placed.
    assert tune.as_self_play({**record, "replies_ms": [[9.0] * 5, [9.0] * 5]})["opening"] == 0
    # A self-play game is itself.
    own = {
        "seed": 1,
        "size": 15,
        "rule": "freestyle",
        "opening": 2,
        "moves": [1, 2, 3],
        "winner": "X",
    }
    assert tune.as_self_play(own) is own


def test_the_samples_read_both_kinds_of_game(tune: ModuleType, tmp_path: Path) -> None:
    rng = random.Random(11)
    moves = random_game(rng, 15, 12)
    own = {"size": 15, "rule": "freestyle", "opening": 2, "moves": moves, "winner": "X"}
    match = {
        "ours": "a",
        "theirs": "b",
        "size": 15,
        "rule": "freestyle",
        "moves": [[m % 15, m // 15] for m in moves],
        "replies_ms": [[9.0] * 5, [9.0] * 5],  # 10 replies: 2 opening stones
        "winner": 1,  # whoever made the last move, an O stone here (12 stones)
        "forfeit": None,
    }
    one = tmp_path / "own.jsonl"
    one.write_text(json.dumps(own) + "\n")
    other = tmp_path / "match.jsonl"
    other.write_text(json.dumps(match) + "\n")
    xs_own, ys_own, _ = tune.samples(one, 5)
    xs_match, ys_match, _ = tune.samples(other, 5)
    assert xs_own == xs_match and xs_own
    # X won the one, O (the last mover) the other: the labels are each other's opposites.
    assert ys_match == [1.0 - y for y in ys_own]
