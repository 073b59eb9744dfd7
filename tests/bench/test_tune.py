"""Fitting the evaluation (``bench/tune.py``) and the weights' file
(``service/engine/evaluation.py``): the features are the core's evaluation,
the fit recovers known weights, and a bad file or weight is refused."""

from __future__ import annotations

import json
import math
import random
import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from service.engine import _core, evaluation
from tests.bench.test_match import BENCH, bench_module


@pytest.fixture(scope="module")
def tune() -> ModuleType:
    return bench_module("tune")


def random_game(rng: random.Random, size: int, stones: int) -> list[int]:
    centre = size // 2
    cells: list[int] = []
    while len(cells) < stones:
        cell = (centre + rng.randint(-4, 4)) * size + centre + rng.randint(-4, 4)
        if cell not in cells:
            cells.append(cell)
    return cells


def random_network(rng: random.Random) -> evaluation.Network:
    """A network of random weights within the core's limits (big weights,
    so that every hidden value is sometimes positive and sometimes not)."""
    classes, masks, h = len(evaluation.CLASSES), evaluation.THREAT_MASKS, evaluation.NET_HIDDEN
    return evaluation.Network(
        tuple(rng.randint(-3000, 3000) for _ in range(classes * h)),
        tuple(rng.randint(-3000, 3000) for _ in range(classes * h)),
        tuple(rng.randint(-30000, 30000) for _ in range(masks * h)),
        tuple(rng.randint(-100_000, 100_000) for _ in range(h)),
        tuple(rng.randint(-16384, 16384) for _ in range(h)),
        rng.randint(-4000, 4000),
        tuple(rng.randint(-20_000, 20_000) for _ in range(h)),
    )


@pytest.mark.parametrize("weights_seed", [None, 1, 2])
def test_the_features_dotted_with_the_weights_are_the_cores_evaluation(
    tune: ModuleType, weights_seed: int | None
) -> None:
    """On random quiet positions, for the weights in force and for random ones
    (set in the core for the test, then put back): the features dotted with
    the weights, plus the value of the position's threat mask, plus each
    class of combination's correction times the side to move's cells of that
    class, less the other side's, plus the network's correction as
    ``tune.network_value()`` computes it from the same counts and that sum."""
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
            tuple(rng.randint(-4000, 4000) for _ in range(1 << len(evaluation.THREAT_BITS))),
            tuple(rng.randint(-2000, 2000) for _ in evaluation.CLASSES),
            tuple(rng.randint(-2000, 2000) for _ in evaluation.CLASSES),
            random_network(rng),
        )
    evaluation.apply(weights)
    try:
        rng = random.Random(7)
        checked = 0
        masks: set[int] = set()
        networks: set[int] = set()
        for _ in range(60):
            size, exact = rng.choice([(15, False), (15, True), (20, False)])
            moves = random_game(rng, size, rng.randint(2, 14))
            found = tune.features(size, size, 5, exact, moves)
            if found is None:
                continue
            value = _core.big_board(size, size, 5, exact, moves)[2]
            mask = tune.threat_mask(size, size, 5, exact, moves)
            assert mask is not None  # quiet for the features: quiet for the mask
            linear = sum(a * b for a, b in zip(found, tune.as_vector(weights), strict=True))
            counts = tune.class_counts(size, size, 5, exact, moves)
            assert counts is not None  # quiet for the features: quiet for the classes
            corrections = sum(
                mine * a - theirs * b
                for mine, theirs, a, b in zip(
                    *counts, weights.correction, weights.correction_other, strict=True
                )
            )
            linear += weights.threat_values[mask] + corrections
            network = int(
                tune.network_value(weights.network, [counts[0]], [counts[1]], [mask], [linear])[0]
            )
            assert linear + network == value
            masks.add(mask)
            networks.add(network)
            checked += 1
        assert checked >= 20
        assert len(masks) >= 5
        assert len(networks) >= 10  # the network is in play, not 0 throughout
    finally:
        evaluation.apply(in_force)


def test_the_threat_masks_bits(tune: ModuleType) -> None:
    """Bit by bit, on positions built for it (15x15 freestyle, row 7 and the
    corners): what the side to move, and the other side, can make."""
    bits = {name: 1 << i for i, name in enumerate(evaluation.THREAT_BITS)}
    mask = tune.threat_mask
    assert mask(15, 15, 5, False, []) == 0
    # X has 110 and 111 (an open two in the middle of row 7), O two corners:
    # X to move can make an open three.
    assert mask(15, 15, 5, False, [110, 0, 111, 224]) == bits["f3"]
    # The same with O to move: the other side's.
    assert mask(15, 15, 5, False, [110, 0, 111, 224, 14]) == bits["their_f3"]
    # X's open three (110-112): O to move faces X's open-four points, and
    # X's blocked-four points (108, 114) are there too.
    facing = mask(15, 15, 5, False, [110, 0, 111, 224, 112])
    assert facing == bits["their_flex4"] | bits["their_b4"]
    # X to move with its open three: an open-four point, where the search decides.
    assert mask(15, 15, 5, False, [110, 0, 111, 224, 112, 14]) is None


def test_taking_a_move_back_puts_the_threat_counts_back(tune: ModuleType) -> None:
    """The kinds' counts behind the mask, and the network's sums, come back
    with big_undo(): the evaluation after a move and its take-back is the
    one before, with every mask worth a different value and a random
    network."""
    in_force = evaluation.load(evaluation.EVALUATION_FILE)
    masks = len(in_force.threat_values)
    evaluation.apply(
        replace(
            in_force,
            threat_values=tuple(range(-masks, masks, 2)),
            network=random_network(random.Random(4)),
        )
    )
    try:
        rng = random.Random(5)
        for _ in range(30):
            moves = random_game(rng, 15, rng.randint(3, 16))
            for back in (1, 2):
                before = _core.big_board(15, 15, 5, False, moves[:-back])[2]
                assert _core.big_board(15, 15, 5, False, [*moves, *[-1] * back])[2] == before
    finally:
        evaluation.apply(in_force)


def test_the_threat_fit_recovers_known_values(tune: ModuleType) -> None:
    rng = random.Random(4)
    scale = 1000.0
    true = {3: 800, 17: -1200, 256: 0}
    samples = []
    for game in range(6000):
        mask = rng.choice(list(true))
        linear = rng.randint(-1500, 1500)
        p = 1 / (1 + math.exp(-(linear + true[mask]) / scale))
        samples.append((game, linear, mask, float(rng.random() < p)))
    values = tune.fit_threats(samples, scale)
    assert all(abs(values[mask] - value) < 150 for mask, value in true.items())
    assert values[5] == 0  # never seen
    assert tune.threat_log_loss(samples, values, scale) < tune.threat_log_loss(
        samples, [0] * len(values), scale
    )


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


def test_the_weights_fit_keeps_the_extras_in_force_alike(
    tune: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 31 weights fitted again leave the threat values and the
    corrections in force both as they were (stale alike until their own fits
    run: make tune-labels runs them next), not one kept and one dropped."""
    labels = tmp_path / "labels.jsonl"
    records = tune.read_labels(BENCH / "labels" / "rapfi-20k.jsonl.gz")
    labels.write_text("".join(json.dumps(next(records)) + "\n" for _ in range(400)))
    out = tmp_path / "evaluation.json"
    monkeypatch.setattr(sys, "argv", ["tune.py", str(labels), "--labels", "--out", str(out)])
    in_force = evaluation.load(evaluation.EVALUATION_FILE)
    try:
        assert tune.main() == 0
    finally:
        evaluation.apply(in_force)
    fitted = evaluation.load(out)
    assert fitted.threat_values == in_force.threat_values
    assert (fitted.correction, fitted.correction_other) == (
        in_force.correction,
        in_force.correction_other,
    )
    assert fitted.pattern_worth != in_force.pattern_worth


def refused(path: Path, record: object) -> None:
    path.write_text(json.dumps(record))
    with pytest.raises(ValueError, match="not an evaluation file"):
        evaluation.load(path)


def test_an_evaluation_file_is_checked(tmp_path: Path) -> None:
    path = tmp_path / "evaluation.json"
    refused(path, {})
    record = json.loads(evaluation.EVALUATION_FILE.read_text())
    record["kind_bonus"]["f3f3"] = "many"
    refused(path, record)
    # The threat values: the bits in their order, one value a mask.
    record = json.loads(evaluation.EVALUATION_FILE.read_text())
    values = list(range(1 << len(evaluation.THREAT_BITS)))
    record["threats"] = {"bits": list(evaluation.THREAT_BITS), "values": values}
    path.write_text(json.dumps(record))
    assert evaluation.load(path).threat_values == tuple(values)
    for wrong in (
        {"bits": list(reversed(evaluation.THREAT_BITS)), "values": values},
        {"bits": list(evaluation.THREAT_BITS), "values": values[:-1]},
        {"bits": list(evaluation.THREAT_BITS)},
    ):
        refused(path, {**record, "threats": wrong})
    # A file from before the threat values: every mask worth 0.
    del record["threats"]
    path.write_text(json.dumps(record))
    assert evaluation.load(path).threat_values == evaluation.NO_THREAT_VALUES
    # The corrections: by class name, each side's; a class not named is 0,
    # a name that is no class (or a class's patterns out of order) is refused.
    record["combination_correction"] = {
        "mover": {"dead b2 f3 f3": 40},
        "other": {"b1 b1 b1 b4": -7},
    }
    path.write_text(json.dumps(record))
    weights = evaluation.load(path)
    assert weights.correction[evaluation.CLASSES.index("dead b2 f3 f3")] == 40
    assert weights.correction_other[evaluation.CLASSES.index("b1 b1 b1 b4")] == -7
    assert sum(map(abs, weights.correction)) == 40 and sum(map(abs, weights.correction_other)) == 7
    assert evaluation.CLASSES[0] == "dead dead dead dead" and len(evaluation.CLASSES) == 715
    for wrong in (
        {"mover": {"f3 f3 b2 dead": 40}},
        {"other": {"dead b2 f3": 1}},
        {"mover": {"dead b2 f3 f3": "x"}},
    ):
        refused(path, {**record, "combination_correction": wrong})
    del record["combination_correction"]
    path.write_text(json.dumps(record))
    assert evaluation.load(path).correction == evaluation.NO_CORRECTION
    # The network: rows by class name and by mask number, 16 weights each; a
    # row not named is 0, a file without one has none.
    row = list(range(-8, 8))
    network = {
        "hidden": 16,
        "mover": {"dead b2 f3 f3": row},
        "other": {},
        "mask": {"5": row},
        "bias": [1] * 16,
        "out": [2] * 16,
        "out_bias": 3,
    }
    path.write_text(json.dumps({**record, "network": network}))
    read = evaluation.load(path).network
    at = evaluation.CLASSES.index("dead b2 f3 f3") * 16
    assert read.mover[at : at + 16] == tuple(row) and sum(map(abs, read.mover)) == 64
    assert read.mask[5 * 16 : 6 * 16] == tuple(row) and not any(read.other)
    assert (read.bias, read.out, read.out_bias) == ((1,) * 16, (2,) * 16, 3)
    assert evaluation.read_network(evaluation.network_record(read)) == read
    for wrong in (
        {**network, "hidden": 8},
        {**network, "mover": {"f3 f3 b2 dead": row}},
        {**network, "mask": {"512": row}},
        {**network, "other": {"dead b2 f3 f3": row[:-1]}},
        {**network, "out": [2] * 15},
        {key: value for key, value in network.items() if key != "bias"},
    ):
        refused(path, {**record, "network": wrong})
    record.pop("network", None)
    path.write_text(json.dumps(record))
    assert evaluation.load(path).network == evaluation.NO_NETWORK


def test_a_core_older_than_the_corrections_gets_the_rest() -> None:
    """bench/depth_nodes.py hands this checkout's weights to an older build:
    one whose set_evaluation takes five arguments and has no threat values."""
    got: list[tuple[object, ...]] = []

    class OldCore:
        @staticmethod
        def set_evaluation(*args: object) -> None:
            if len(args) != 5:
                raise TypeError(f"function takes exactly 5 arguments ({len(args)} given)")
            got.append(args)

    weights = evaluation.load(evaluation.EVALUATION_FILE)
    evaluation.apply(weights, OldCore)  # type: ignore[arg-type]
    assert got == [
        (
            weights.pattern_worth,
            weights.kind_bonus,
            weights.pattern_worth_other,
            weights.kind_bonus_other,
            weights.tempo,
        )
    ]


@pytest.mark.parametrize(
    ("correction", "message"),
    [
        ([0] * 714, "must have 715 items"),
        ([0] * 714 + [2001], "within"),
        ([-2001] + [0] * 714, "within"),
    ],
)
def test_corrections_out_of_range_are_refused(correction: list[int], message: str) -> None:
    """Refused whole: the weights in force stay (the next search evaluates as before)."""
    in_force = evaluation.load(evaluation.EVALUATION_FILE)
    moves = [112, 113, 97, 98, 127]
    before = _core.big_board(15, 15, 5, False, moves)[2]
    with pytest.raises(ValueError, match=message):
        _core.set_evaluation([0] * 10, [0] * 9, [0] * 10, [0] * 9, 0, correction)
    with pytest.raises(ValueError, match=message):
        _core.set_evaluation([0] * 10, [0] * 9, [0] * 10, [0] * 9, 0, [0] * 715, correction)
    assert _core.big_board(15, 15, 5, False, moves)[2] == before
    assert evaluation.load(evaluation.EVALUATION_FILE) == in_force


@pytest.mark.parametrize(
    ("part", "value", "message"),
    [
        (0, 32768, "within"),
        (2, -32768, "within"),
        (3, 1 << 21, "within"),
        (4, 16385, "within"),
        (5, 4001, "within"),
        (6, -(1 << 20) - 1, "within"),
        (0, None, "must have 11440 items"),
        (6, None, "must have 16 items"),
    ],
)
def test_a_network_out_of_range_is_refused(part: int, value: int | None, message: str) -> None:
    """Refused whole: the network in force stays."""
    in_force = evaluation.load(evaluation.EVALUATION_FILE).network
    moves = [112, 113, 97, 98, 127]
    before = _core.big_board(15, 15, 5, False, moves)[2]
    args: list[object] = [
        list(in_force.mover),
        list(in_force.other),
        list(in_force.mask),
        list(in_force.bias),
        list(in_force.out),
        in_force.out_bias,
        list(in_force.linear),
    ]
    if part == 5:
        args[5] = value
    else:
        weights = args[part]
        assert isinstance(weights, list)
        if value is None:
            weights.pop()
        else:
            weights[-1] = value
    with pytest.raises(ValueError, match=message):
        _core.set_network(*args)  # type: ignore[arg-type]
    assert _core.big_board(15, 15, 5, False, moves)[2] == before


def test_the_network_fit_learns_what_a_network_made(tune: ModuleType) -> None:
    """Targets made by a known network over a base evaluation, on random
    counts: the fit's held-out loss falls well below the base's, towards the
    targets' own entropy (a broken gradient, or weights lost in the rounding
    to the core's integers, would leave it where it was)."""
    rng = np.random.default_rng(5)
    n, classes, h = 3000, len(tune.CLASSES), tune.NET_HIDDEN
    common = rng.choice(classes, 40, replace=False)
    mover = np.zeros((n, classes), dtype=np.int16)
    other = np.zeros((n, classes), dtype=np.int16)
    mover[:, common] = rng.integers(0, 6, (n, 40))
    other[:, common] = rng.integers(0, 6, (n, 40))
    mask = rng.integers(0, 4, n)
    scale = 1000.0
    base = np.round(rng.normal(0, 300, n))
    made = tune.Network(
        tuple(int(v) for v in rng.integers(-3000, 3000, classes * h)),
        tuple(int(v) for v in rng.integers(-3000, 3000, classes * h)),
        (0,) * (tune.THREAT_MASKS * h),
        (0,) * h,
        tuple(int(v) for v in rng.integers(-300, 300, h)),
        0,
        tuple(int(v) for v in rng.integers(-8000, 8000, h)),
    )
    z = (base + tune.network_value(made, mover, other, mask, base.astype(np.int64))) / scale
    samples = tune.NetworkSamples(mover, other, mask, base, 1 / (1 + np.exp(-z)))
    fit = tune.fit_network(samples, scale, seed=1)
    floor = float(np.mean(-(samples.target * z - np.log1p(np.exp(z)))))
    assert fit.before - fit.after > 0.5 * (fit.before - floor), (fit.before, fit.after, floor)


def test_the_network_fit_keeps_to_the_cores_bounds(tune: ModuleType) -> None:
    """Targets that the threat mask alone decides, all or nothing: the fit
    pushes the masks' weights past what the core takes; they are clipped to
    its bounds, and the core takes the network (a file it refused would stop
    the service at import)."""
    rng = np.random.default_rng(2)
    n, classes = 3000, len(tune.CLASSES)
    counts = np.zeros((n, classes), dtype=np.int16)
    counts[:, :40] = rng.integers(0, 6, (n, 40))  # for the hidden values to start alive
    mask = rng.integers(0, 2, n)
    samples = tune.NetworkSamples(counts, counts, mask, np.zeros(n), mask.astype(float))
    network = tune.fit_network(samples, 1000.0, seed=1).network
    assert max(abs(v) for v in network.mask) == tune.NETWORK_WEIGHT_LIMIT
    in_force = evaluation.load(evaluation.EVALUATION_FILE)
    try:
        evaluation.apply(replace(in_force, network=network))
    finally:
        evaluation.apply(in_force)


def test_the_combination_fit_recovers_known_corrections(tune: ModuleType) -> None:
    """Targets made from known corrections of a few common classes over a
    base evaluation: the fit finds them (up to the ridge) and leaves the
    all-dead class and the rare classes at 0."""
    rng = random.Random(3)
    counts, evaluations = [], []
    while len(counts) < 600:
        moves = random_game(rng, 15, rng.randint(4, 16))
        found = tune.class_counts(15, 15, 5, False, moves)
        if found is not None:
            counts.append(found)
            evaluations.append(float(rng.randint(-800, 800)))
    true = [0] * (2 * len(evaluation.CLASSES))
    for name, value in (("f1 f1 f1 f1", 60), ("dead b1 b1 f1", -90), ("b1 f1 f1 f2", 150)):
        true[evaluation.CLASSES.index(name)] = value
        true[len(evaluation.CLASSES) + evaluation.CLASSES.index(name)] = value // 2
    scale = 500.0
    ys = []
    for e0, (mine, theirs) in zip(evaluations, counts, strict=True):
        m = len(evaluation.CLASSES)
        z = e0 + sum(a * t for a, t in zip(mine, true[:m], strict=True))
        z -= sum(a * t for a, t in zip(theirs, true[m:], strict=True))
        ys.append(tune._sigmoid(z / scale))
    fit = tune.fit_combinations(evaluations, counts, ys, scale, 1)
    assert fit.corrections[0] == 0 and fit.corrections[len(evaluation.CLASSES)] == 0
    for i, value in enumerate(true):
        if value:
            assert abs(fit.corrections[i] - value) <= 15, (evaluation.CLASSES[i % 715], i)
    assert fit.after < fit.before
    assert max(map(abs, fit.corrections)) <= 200


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ([0] * 511, "threat_values must have 512 items"),
        ([0] * 511 + [4001], "within"),
        ([-4001] + [0] * 511, "within"),
        ([0] * 511 + [2**40], "greater than maximum|within"),
    ],
)
def test_threat_values_out_of_range_are_refused(values: list[int], message: str) -> None:
    with pytest.raises((ValueError, OverflowError), match=message):
        _core.set_threat_values(values)


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
