"""Fit the big boards' evaluation to game results (``make tune``): logistic
regression of the self-play games' outcomes (``bench/selfplay.py``) on the
evaluation's own features, written to ``service/engine/evaluation.json``.

    .venv/bin/python bench/tune.py bench/results/selfplay.jsonl

The games may also be those of ``bench/match.py --games`` (any two
brains, a reference engine against itself for instance: ``as_self_play()``).

The evaluation (core/big/board.c) is linear in its weights: for the side to
move, the sum over empty cells and directions of PATTERN_WORTH[pattern], plus
KIND_BONUS[kind] per cell, less the same for the other side with the other
side's weights, plus TEMPO (and the two extras below, fitted apart). So each
position's features are the counts (the side to move's patterns per pattern
and cells per kind, and the other side's, negated) and a constant, and the
evaluation is their dot product with the weights (``features()``;
tests/bench/test_tune.py checks it against the core's own evaluation on
random positions).

The model is P(the side to move wins) = 1 / (1 + exp(-evaluation / SCALE)),
as in "Texel" tuning: SCALE is first fitted with the weights in force, then
the weights by Newton's method on the log-likelihood, with a small ridge
towards the weights in force (the features are far from independent: a kind
is made of patterns). Only quiet positions count: no five point and no open
four point for either side (there the search decides, not the evaluation),
at most POSITIONS_PER_GAME from each game, drawn with a fixed seed.

``--labels`` fits to a reference engine's searched values instead of the
games' outcomes (``bench/label.py``): each position's target is the
reference's winning chance, 1 / (1 + exp(-value / --label-scale)), 1 or 0
for a forced result; the same model, loss and hold-out. The weights in
force are that fit (docs/strength.md#the-evaluation):

    .venv/bin/python bench/tune.py bench/labels/rapfi-20k.jsonl.gz --labels

``--threats`` fits, instead, the value of each threat mask (which kinds of
threat cell each side has: ``evaluation.THREAT_BITS``) over the weights in
force, which it keeps: the same model, P = 1 / (1 + exp(-(linear + value of
the mask) / SCALE)), one value per mask fitted alone by Newton's method with
a pull towards 0 of THREAT_RIDGE positions' worth (a mask seen a few times
stays near 0). Its positions are the search's horizon's: no five point for
either side and no open-four point for the side to move, the other side's
open three included (it is what the mask knows and the cells do not), at
most THREAT_POSITIONS_PER_GAME a game from every games file given, and a
fifth of the games (not of the positions) held out for the check.

    .venv/bin/python bench/tune.py --threats SELFPLAY.jsonl RAPFI.jsonl

With ``--labels`` its positions are a labelled set's (``bench/label.py
--horizon`` draws them where the search may evaluate), each its own group
for the hold-out, and the linear part is the weights' alone (no threat
values, no corrections: ``without_extras()``).

``--combinations`` (with ``--labels``) fits a correction per class of a
cell's four patterns (``evaluation.CLASSES``: 715 multisets, the side to
move's cells and the other side's apart) over the weights and threat values
in force, which it keeps: P = 1 / (1 + exp(-(evaluation + sum of the
corrections of the mover's cells - the other side's) / SCALE)), by Newton's
method with numpy (1,430 unknowns), a ridge of COMBINATION_RIDGE, and only
the classes seen in COMBINATION_MIN_COUNT fitted positions free. The core
folds each correction into its table of combinations, so the search's
leaves cost what they did. The evaluation in force is the three fits in
turn (``make tune-labels``):

    .venv/bin/python bench/tune.py bench/labels/rapfi-20k.jsonl.gz --labels
    .venv/bin/python bench/tune.py --threats bench/labels/rapfi-20k-horizon.jsonl.gz \\
        --labels --seed 5
    .venv/bin/python bench/tune.py --combinations bench/labels/rapfi-20k.jsonl.gz --labels

``--network`` (with ``--labels``, any number of files) fits the evaluation's
network (``evaluation.Network``: 16 hidden values over each side's counts of
cells per class and the threat mask, rectified, then summed with their
weights) over the evaluation in force without it, which it keeps: P = 1 /
(1 + exp(-(evaluation + network) / SCALE)), by Adam over mini-batches with
numpy (``fit_network()``: NETWORK_EPOCHS passes, the weights of the pass
best on the fifth held out kept), then rounded to the core's integers. Its
positions are every labelled position where the search may evaluate (a
threat mask), quiet and horizon sets alike. It runs last in ``make
tune-labels``:

    .venv/bin/python bench/tune.py --network bench/labels/rapfi-20k.jsonl.gz \\
        bench/labels/rapfi-20k-horizon.jsonl.gz --labels --seed 2

Each writes evaluation.json and, where that is the file in force, the native
brain's copy of it (``service/brain/native/evaluation.h``). A fit of the
weights keeps the extras in force (stale alike until their own fits run); a
fit of the threat values drops the corrections and the network, one of the
corrections drops the network: each was fitted over what came before it.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
import math
import random
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
from match import opening_stones

from service.engine import _core
from service.engine.evaluation import (
    CLASS_OF,
    CLASSES,
    EVALUATION_FILE,
    HEADER_FILE,
    KIND_NAMES,
    NET_HIDDEN,
    NET_INPUT_LIMIT,
    NET_LINEAR_SHIFT,
    NET_SHIFT,
    NO_CORRECTION,
    NO_NETWORK,
    NO_THREAT_VALUES,
    PATTERN_NAMES,
    THREAT_BITS,
    THREAT_MASKS,
    Network,
    Weights,
    apply,
    header,
    load,
    network_record,
)

T = TypeVar("T")
FITTED_PATTERNS = range(1, 9)  # b1 to f4: dead is 0, five never in a quiet position
FITTED_KINDS = range(1, 8)  # f2 to flex4
POSITIONS_PER_GAME = 10
DECIDED = 50_000  # bench/label.py's values beyond this are forced results
RIDGE = 0.01  # per position, in units of (weight / SCALE)^2: a nudge, not a prior
THREAT_POSITIONS_PER_GAME = 20
# The pull of a mask's value towards 0, as many positions' curvature at p = 1/2
# times 4: 30 pulls as 120 positions would.
THREAT_RIDGE = 30.0
THREAT_LIMIT = 3000  # a fitted value's bound (the core takes up to 4,000)
# --combinations: the pull of each correction towards 0, per fitted position,
# in units of (correction / SCALE)^2, and how often a class must be seen in
# the fitted positions to be fitted at all.
COMBINATION_RIDGE = 0.001
COMBINATION_MIN_COUNT = 10
CORRECTION_LIMIT = 2000  # the core's EVALUATION_WEIGHT_LIMIT
# --network: passes over the positions, the mini-batch, Adam's step (shrunk
# by NETWORK_DECAY each pass), the pull of every weight towards 0 (in the
# gradient, per weight), the inputs' scale (a class's count / NETWORK_INPUT)
# and the first weights' spread. (The core's hidden values count in units of
# 2^-NET_SHIFT.)
NETWORK_EPOCHS = 80
NETWORK_BATCH = 256
NETWORK_RATE = 3e-3
NETWORK_DECAY = 0.96
NETWORK_L2 = 1e-3
NETWORK_INPUT = 16
NETWORK_SPREAD = 0.05
# The core's bounds (core/big/board.h), to which a fitted weight beyond them
# is clipped: the cells' and the masks' weights (NET_WEIGHT_LIMIT), the
# biases (NET_BIAS_LIMIT), the output weights (NET_OUT_LIMIT), the output
# bias (THREAT_VALUE_LIMIT) and the linear sum's weights (NET_LINEAR_LIMIT).
# A file the core refuses would stop the service at import.
NETWORK_WEIGHT_LIMIT = 32767
NETWORK_BIAS_LIMIT = 1 << 20
NETWORK_OUT_LIMIT = 16384
NETWORK_OUT_BIAS_LIMIT = 4000
NETWORK_LINEAR_LIMIT = 1 << 20


def quiet(sets: Sequence[Any]) -> bool:
    """Whether ``_core.big_board()``'s sets show no five point and no
    open-four point for either side: a position the fits count."""
    return not any(sets[i] for i in range(4))


def features(rows: int, cols: int, k: int, exact: bool, moves: Sequence[int]) -> list[int] | None:
    """The position's features for the side to move (see the module's
    docstring): its counts per fitted pattern and per fitted kind, the other
    side's negated, and 1; None when the position is not quiet."""
    cells, sets, _, _ = _core.big_board(rows, cols, k, exact, moves)
    if not quiet(sets):
        return None
    me = len(moves) % 2  # 0: X to move
    patterns = [[0] * len(PATTERN_NAMES) for _ in range(2)]
    kinds = [[0] * len(KIND_NAMES) for _ in range(2)]
    for cell in cells:
        if isinstance(cell, int):
            continue
        for side in (0, 1):
            for pattern in cell[side]:
                patterns[side][pattern] += 1
            kinds[side][cell[2 + side]] += 1
    them = 1 - me
    return [
        *(patterns[me][p] for p in FITTED_PATTERNS),
        *(kinds[me][k] for k in FITTED_KINDS),
        *(-patterns[them][p] for p in FITTED_PATTERNS),
        *(-kinds[them][k] for k in FITTED_KINDS),
        1,
    ]


# The kinds behind THREAT_BITS, in their order: the side to move's, then the other side's.
_THREAT_KINDS = tuple(
    (1 if bit.startswith("their_") else 0, KIND_NAMES.index(bit.removeprefix("their_")))
    for bit in THREAT_BITS
)
_FIVE, _FLEX4 = KIND_NAMES.index("five"), KIND_NAMES.index("flex4")


def kind_counts(cells: Sequence[Any], me: int) -> list[list[int]]:
    """How many empty cells of each kind (KIND_NAMES' order) the side to move
    (``me``: 0 for X) has, and the other side, from ``_core.big_board()``'s
    cells."""
    counts = [[0] * len(KIND_NAMES) for _ in range(2)]
    for cell in cells:
        if not isinstance(cell, int):
            counts[0][cell[2 + me]] += 1
            counts[1][cell[3 - me]] += 1
    return counts


def mask_of(cells: Sequence[Any], me: int) -> int | None:
    """``threat_mask()`` of ``_core.big_board()``'s cells, ``me`` to move."""
    counts = kind_counts(cells, me)
    if counts[0][_FIVE] or counts[1][_FIVE] or counts[0][_FLEX4]:
        return None
    return sum(1 << bit for bit, (side, kind) in enumerate(_THREAT_KINDS) if counts[side][kind])


def threat_mask(rows: int, cols: int, k: int, exact: bool, moves: Sequence[int]) -> int | None:
    """The position's threat mask for the side to move (``big_threat_mask()``
    in core/big/board.h), or None where the search decides before it
    evaluates: a five point of either side, or an open-four point of the side
    to move."""
    return mask_of(_core.big_board(rows, cols, k, exact, moves)[0], len(moves) % 2)


def masked(
    rows: int, cols: int, k: int, exact: bool, moves: Sequence[int]
) -> tuple[int, int] | None:
    """The position's ``threat_mask()`` and the core's evaluation of it as it
    stands (one reading of the board), or None as ``threat_mask()``."""
    cells, _, value, _ = _core.big_board(rows, cols, k, exact, moves)
    mask = mask_of(cells, len(moves) % 2)
    return None if mask is None else (mask, value)


def as_vector(weights: Weights) -> list[float]:
    return [
        *(float(weights.pattern_worth[p]) for p in FITTED_PATTERNS),
        *(float(weights.kind_bonus[k]) for k in FITTED_KINDS),
        *(float(weights.pattern_worth_other[p]) for p in FITTED_PATTERNS),
        *(float(weights.kind_bonus_other[k]) for k in FITTED_KINDS),
        float(weights.tempo),
    ]


def as_weights(vector: Sequence[float], base: Weights) -> Weights:
    def fitted(
        values: Sequence[float], start: int, into: tuple[int, ...], at: range
    ) -> tuple[int, ...]:
        out = list(into)
        for i, index in enumerate(at):
            out[index] = round(values[start + i])
        return tuple(out)

    half = len(FITTED_PATTERNS) + len(FITTED_KINDS)
    return Weights(
        fitted(vector, 0, base.pattern_worth, FITTED_PATTERNS),
        fitted(vector, len(FITTED_PATTERNS), base.kind_bonus, FITTED_KINDS),
        round(vector[-1]),
        fitted(vector, half, base.pattern_worth_other, FITTED_PATTERNS),
        fitted(vector, half + len(FITTED_PATTERNS), base.kind_bonus_other, FITTED_KINDS),
    )


def as_self_play(record: dict[str, Any]) -> dict[str, Any] | None:
    """A game as ``bench/selfplay.py`` writes it, from either kind of record:
    a self-play game is itself; a game of ``bench/match.py --games`` (stones
    as [x, y], the winner as the entrant that made the row) gets its cells
    row by row, the colour of its last mover as the winner and the opening's
    length from its replies (``match.opening_stones()``), and None when it
    was lost by a late or bad answer (no row to learn from)."""
    if "ours" not in record:
        return record
    if record.get("forfeit"):
        return None
    size = record["size"]
    moves = [y * size + x for x, y in record["moves"]]
    winner = None if record["winner"] is None else "X" if len(moves) % 2 else "O"
    return {
        "size": size,
        "rule": record["rule"],
        "opening": opening_stones(record),
        "moves": moves,
        "winner": winner,
    }


def shuffled_games(
    games_file: Path, rng: random.Random
) -> Iterator[tuple[dict[str, Any], list[int]]]:
    """Each game of the file (``as_self_play()``; those lost by a late or bad
    answer left out) and its plies after the opening, shuffled by ``rng``."""
    for line in games_file.read_text().splitlines():
        game = as_self_play(json.loads(line))
        if game is None:
            continue
        plies = list(range(game["opening"], len(game["moves"])))
        rng.shuffle(plies)
        yield game, plies


def first_kept(
    game: dict[str, Any],
    plies: Sequence[int],
    per_game: int,
    keep: Callable[[int, int, int, bool, Sequence[int]], T | None],
) -> Iterator[tuple[int, T]]:
    """The first ``per_game`` of a game's ``plies`` (in their order) whose
    position ``keep(rows, cols, 5, exact, moves)`` says something of (not
    None), each with what it said."""
    size, moves, exact = game["size"], game["moves"], game["rule"] == "exact"
    taken = 0
    for ply in plies:
        if taken >= per_game:
            return
        found = keep(size, size, 5, exact, moves[:ply])
        if found is not None:
            taken += 1
            yield ply, found


def outcome(winner: str | None, ply: int) -> float:
    """A game's result for the side to move before ``ply`` (X moves at even
    plies): 1 won, 0 lost, 0.5 drawn.

    >>> outcome("X", 4), outcome("X", 5), outcome(None, 5)
    (1.0, 0.0, 0.5)
    """
    mover = "X" if ply % 2 == 0 else "O"
    return 0.5 if winner is None else 1.0 if winner == mover else 0.0


def samples(games_file: Path, seed: int) -> tuple[list[list[int]], list[float], int]:
    rng = random.Random(seed)
    xs: list[list[int]] = []
    ys: list[float] = []
    games = 0
    for game, plies in shuffled_games(games_file, rng):
        games += 1
        for ply, found in first_kept(game, plies, POSITIONS_PER_GAME, features):
            xs.append(found)
            ys.append(outcome(game["winner"], ply))
    return xs, ys, games


def labelled_samples(
    labels_file: Path, label_scale: float
) -> tuple[list[list[int]], list[float], int]:
    """The positions of ``bench/label.py``'s output (gzipped where its name
    ends in .gz), each with the reference's value as the target: P(the side
    to move wins) = 1 / (1 + exp(-value / label_scale)), a forced result 1
    or 0."""
    xs: list[list[int]] = []
    ys: list[float] = []
    for record in read_labels(labels_file):
        found = features(
            record["size"], record["size"], 5, record["rule"] == "exact", record["moves"]
        )
        if found is None:
            continue
        xs.append(found)
        ys.append(label_target(record["value"], label_scale))
    return xs, ys, len(xs)


def read_labels(labels_file: Path) -> Iterator[dict[str, Any]]:
    """The records of ``bench/label.py``'s output, gzipped where its name
    ends in .gz."""
    data = labels_file.read_bytes()
    text = (gzip.decompress(data) if labels_file.suffix == ".gz" else data).decode()
    for line in text.splitlines():
        yield json.loads(line)


def label_target(value: int, label_scale: float) -> float:
    """A reference's value as the side to move's winning chance.

    >>> label_target(100_000, 200.0), label_target(0, 200.0), label_target(-DECIDED, 200.0)
    (1.0, 0.5, 0.0)
    """
    return 1.0 if value >= DECIDED else 0.0 if value <= -DECIDED else _sigmoid(value / label_scale)


ThreatSample = tuple[int, int, int, float]  # (game, linear evaluation, mask, outcome)


def threat_samples(games_files: Sequence[Path], seed: int) -> list[ThreatSample]:
    """For ``--threats``: up to THREAT_POSITIONS_PER_GAME positions of each
    game after its opening, with the evaluation's linear part (the core's
    evaluation: the caller applies the weights ``without_extras()``), the
    mask and the outcome for the side to move; games numbered in the order
    read."""
    rng = random.Random(seed)
    out: list[ThreatSample] = []
    games = 0
    for games_file in games_files:
        for game, plies in shuffled_games(games_file, rng):
            games += 1
            for ply, (mask, value) in first_kept(game, plies, THREAT_POSITIONS_PER_GAME, masked):
                out.append((games, value, mask, outcome(game["winner"], ply)))
    return out


def labelled_threat_samples(labels_file: Path, label_scale: float) -> list[ThreatSample]:
    """For ``--threats --labels``: each labelled position where the search
    would evaluate (``threat_mask()``), as its own group, with the core's
    evaluation (the weights in force with no threat values and no
    corrections: see ``without_extras()``) and the reference's value."""
    out: list[ThreatSample] = []
    for number, record in enumerate(read_labels(labels_file)):
        size, exact = record["size"], record["rule"] == "exact"
        found = masked(size, size, 5, exact, record["moves"])
        if found is not None:
            mask, linear = found
            out.append((number, linear, mask, label_target(record["value"], label_scale)))
    return out


def without_extras(weights: Weights) -> Weights:
    """The weights with no threat values and no combinations' corrections."""
    return dataclasses.replace(without_corrections(weights), threat_values=NO_THREAT_VALUES)


def without_corrections(weights: Weights) -> Weights:
    """The weights with no combinations' corrections and no network (the
    threat values kept)."""
    return dataclasses.replace(
        without_network(weights), correction=NO_CORRECTION, correction_other=NO_CORRECTION
    )


def without_network(weights: Weights) -> Weights:
    """The weights with no network (everything else kept)."""
    return dataclasses.replace(weights, network=NO_NETWORK)


def fit_threats(samples: Sequence[ThreatSample], scale: float) -> list[int]:
    """Each mask's value, fitted alone over the linear evaluation (see the
    module's docstring); masks never seen are worth 0."""
    by_mask: dict[int, list[tuple[int, float]]] = {}
    for _, linear, mask, outcome in samples:
        by_mask.setdefault(mask, []).append((linear, outcome))
    values = [0] * THREAT_MASKS
    for mask, rows in by_mask.items():
        value = 0.0
        for _ in range(30):
            gradient = -THREAT_RIDGE * value / scale**2
            curvature = -THREAT_RIDGE / scale**2
            for linear, outcome in rows:
                p = _sigmoid((linear + value) / scale)
                gradient += (outcome - p) / scale
                curvature -= p * (1 - p) / scale**2
            step = gradient / curvature
            value = max(-THREAT_LIMIT, min(THREAT_LIMIT, value - step))
            if abs(step) < 0.5:
                break
        values[mask] = round(value)
    return values


def threat_log_loss(samples: Sequence[ThreatSample], values: Sequence[int], scale: float) -> float:
    total = 0.0
    for _, linear, mask, outcome in samples:
        p = min(1 - 1e-9, max(1e-9, _sigmoid((linear + values[mask]) / scale)))
        total -= outcome * math.log(p) + (1 - outcome) * math.log(1 - p)
    return total / len(samples)


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1 / (1 + math.exp(-z))
    e = math.exp(z)
    return e / (1 + e)


def log_loss(
    xs: Sequence[Sequence[int]], ys: Sequence[float], w: Sequence[float], scale: float
) -> float:
    total = 0.0
    for x, y in zip(xs, ys, strict=True):
        p = min(
            max(_sigmoid(sum(a * b for a, b in zip(x, w, strict=True)) / scale), 1e-12), 1 - 1e-12
        )
        total -= y * math.log(p) + (1 - y) * math.log(1 - p)
    return total / len(xs)


def fit_scale(xs: Sequence[Sequence[int]], ys: Sequence[float], w: Sequence[float]) -> float:
    """The SCALE that fits the weights in force best (golden-section search on log10)."""
    low, high = 1.0, 4.0
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(40):
        a = high - ratio * (high - low)
        b = low + ratio * (high - low)
        if log_loss(xs, ys, w, 10**a) < log_loss(xs, ys, w, 10**b):
            high = b
        else:
            low = a
    return float(10 ** ((low + high) / 2))


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the system is small)."""
    n = len(vector)
    a = [[*row, vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(col + 1, n):
            f = a[r][col] / a[col][col]
            for c in range(col, n + 1):
                a[r][c] -= f * a[col][c]
    out = [0.0] * n
    for r in range(n - 1, -1, -1):
        out[r] = (a[r][n] - sum(a[r][c] * out[c] for c in range(r + 1, n))) / a[r][r]
    return out


def fit_weights(
    xs: Sequence[Sequence[int]],
    ys: Sequence[float],
    w0: Sequence[float],
    scale: float,
    iterations: int = 12,
    fixed: Sequence[int] = (),
) -> list[float]:
    """Newton's method on the ridge-penalised log-likelihood, in evaluation
    units; the weights at the indices ``fixed`` keep their values."""
    n = len(w0)
    w = list(w0)
    count = len(xs)
    for _ in range(iterations):
        gradient = [RIDGE * (w[i] - w0[i]) / scale**2 * count for i in range(n)]
        hessian = [
            [(RIDGE / scale**2 * count if i == j else 0.0) for j in range(n)] for i in range(n)
        ]
        for x, y in zip(xs, ys, strict=True):
            p = _sigmoid(sum(a * b for a, b in zip(x, w, strict=True)) / scale)
            g = (p - y) / scale
            h = p * (1 - p) / scale**2
            for i in range(n):
                if x[i]:
                    gradient[i] += g * x[i]
                    hx = h * x[i]
                    row = hessian[i]
                    for j in range(n):
                        if x[j]:
                            row[j] += hx * x[j]
        for i in fixed:  # no step: a row and a column of the identity
            gradient[i] = 0.0
            for j in range(n):
                hessian[i][j] = hessian[j][i] = 0.0
            hessian[i][i] = 1.0
        step = _solve(hessian, gradient)
        w = [wi - si for wi, si in zip(w, step, strict=True)]
        if max(abs(s) for s in step) < 0.05:
            break
    return w


@dataclass(frozen=True)
class Fit:
    """A fit's weights, its logistic scale, the held-out log loss before and
    after, and how many positions it fitted and held out."""

    weights: Weights
    scale: float
    before: float
    after: float
    fitted: int
    held_out: int


def fit_split(
    xs: Sequence[Sequence[int]],
    ys: Sequence[float],
    base: Weights,
    seed: int,
    hold_out: float,
    free_tempo: bool,
) -> Fit:
    """The weights fitted from ``base`` to all but a ``hold_out`` share of
    the positions (drawn with ``seed``), and checked on that share: the scale
    first with ``base``, then the weights, the tempo kept unless
    ``free_tempo``."""
    cut = int(len(xs) * (1 - hold_out))
    order = list(range(len(xs)))
    random.Random(seed).shuffle(order)
    txs, tys = [xs[i] for i in order[:cut]], [ys[i] for i in order[:cut]]
    cxs, cys = [xs[i] for i in order[cut:]], [ys[i] for i in order[cut:]]
    w0 = as_vector(base)
    scale = fit_scale(txs, tys, w0)
    before = log_loss(cxs, cys, w0, scale)
    fixed = () if free_tempo else (len(w0) - 1,)
    fitted = as_weights(fit_weights(txs, tys, w0, scale, fixed=fixed), base)
    after = log_loss(cxs, cys, as_vector(fitted), scale)
    return Fit(fitted, scale, before, after, len(txs), len(cxs))


def write(record: dict[str, Any], out: Path) -> None:
    """An evaluation file; where it is the one in force, the native brain's
    copy of it too (``evaluation.header()``)."""
    text = json.dumps(record, indent=2)
    # The network's rows one to a line, not one number to a line.
    row = r"\[\n\s+(-?\d+(?:,\n\s+-?\d+){" + str(NET_HIDDEN - 1) + r"})\n\s+\]"
    text = re.sub(row, lambda m: "[" + re.sub(r",\n\s+", ", ", m.group(1)) + "]", text)
    out.write_text(text + "\n")
    if out.resolve() == EVALUATION_FILE.resolve():
        HEADER_FILE.write_text(header(load(out)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", type=Path, nargs="+", help="one file; with --threats, any number")
    parser.add_argument(
        "--labels",
        action="store_true",
        help="the file holds labelled positions (bench/label.py): fit to their values",
    )
    parser.add_argument(
        "--label-scale",
        type=float,
        default=200.0,
        help="the labels' logistic scale (Rapfi's: 200)",
    )
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument(
        "--threats",
        action="store_true",
        help="fit the threat masks' values over the weights in force, which stay",
    )
    parser.add_argument(
        "--combinations",
        action="store_true",
        help="with --labels: fit a correction per class of combination over the weights and "
        "threat values in force, which stay",
    )
    parser.add_argument(
        "--network",
        action="store_true",
        help="with --labels (any number of files): fit the evaluation's network over the "
        "evaluation in force, which stays",
    )
    parser.add_argument("--out", type=Path, default=EVALUATION_FILE)
    parser.add_argument(
        "--base",
        type=Path,
        default=EVALUATION_FILE,
        help="the weights the fit starts from and is pulled towards (default: those in force)",
    )
    parser.add_argument(
        "--hold-out", type=float, default=0.2, help="share of positions kept for the check"
    )
    parser.add_argument(
        "--free-tempo",
        action="store_true",
        help="fit the tempo too (by default it keeps its value: see docs/strength.md)",
    )
    args = parser.parse_args()
    label_scale = args.label_scale if args.labels else None
    if args.network:
        if not args.labels:
            parser.error("--network: only to labelled positions (--labels)")
        return tune_network(args.games, args.label_scale, args.seed, args.out)
    if args.threats:
        return tune_threats(args.games, args.seed, args.out, label_scale)
    if len(args.games) != 1:
        parser.error("the weights are fitted to one games file")
    if args.combinations:
        if not args.labels:
            parser.error("--combinations: only to labelled positions (--labels)")
        return tune_combinations(args.games[0], args.label_scale, args.seed, args.out)
    games_file = args.games[0]
    began = time.monotonic()
    base = load(args.base)
    if args.labels:
        xs, ys, games = labelled_samples(games_file, args.label_scale)
    else:
        xs, ys, games = samples(games_file, args.seed)
    fit = fit_split(xs, ys, base, args.seed, args.hold_out, args.free_tempo)
    fitted, scale, before, after = fit.weights, fit.scale, fit.before, fit.after
    print(
        f"{games} games, {len(xs)} quiet positions ({fit.fitted} fitted, {fit.held_out} held out); "
        f"scale {scale:.0f}; held-out log loss {before:.4f} -> {after:.4f}; "
        f"{time.monotonic() - began:.0f} s"
    )
    record = {
        "pattern_worth": dict(zip(PATTERN_NAMES, fitted.pattern_worth, strict=True)),
        "kind_bonus": dict(zip(KIND_NAMES, fitted.kind_bonus, strict=True)),
        "pattern_worth_other": dict(zip(PATTERN_NAMES, fitted.pattern_worth_other, strict=True)),
        "kind_bonus_other": dict(zip(KIND_NAMES, fitted.kind_bonus_other, strict=True)),
        "tempo": fitted.tempo,
        "fitted": {
            "command": f"bench/tune.py {games_file} --seed {args.seed}"
            + (f" --labels --label-scale {args.label_scale:g}" if args.labels else "")
            + (" --free-tempo" if args.free_tempo else ""),
            "games": games,
            "positions": len(xs),
            "held_out": fit.held_out,
            "scale": round(scale, 1),
            "held_out_log_loss": {"before": round(before, 5), "after": round(after, 5)},
            "from": {
                "pattern_worth": dict(zip(PATTERN_NAMES, base.pattern_worth, strict=True)),
                "kind_bonus": dict(zip(KIND_NAMES, base.kind_bonus, strict=True)),
                "pattern_worth_other": dict(
                    zip(PATTERN_NAMES, base.pattern_worth_other, strict=True)
                ),
                "kind_bonus_other": dict(zip(KIND_NAMES, base.kind_bonus_other, strict=True)),
                "tempo": base.tempo,
            },
        },
    }
    # The threat values and the corrections in force were fitted over the old
    # weights: both are kept alike, stale until their own fits run again
    # (make tune-labels runs them next).
    in_force = json.loads(EVALUATION_FILE.read_text())
    for extra in ("threats", "combination_correction", "network"):
        if extra in in_force:
            record[extra] = in_force[extra]
    write(record, args.out)
    weights = ("pattern_worth", "kind_bonus", "pattern_worth_other", "kind_bonus_other", "tempo")
    print(json.dumps({k: record[k] for k in weights}))
    return 0


def tune_threats(
    games_files: Sequence[Path], seed: int, out: Path, label_scale: float | None
) -> int:
    """``--threats``: the masks' values over the weights in force, written
    with them (and how they were fitted) to ``out``; from the games'
    outcomes, or with ``label_scale`` from labelled positions. The
    combinations' corrections are dropped: they were fitted over the old
    values (``--combinations`` fits them again)."""
    began = time.monotonic()
    base = load(EVALUATION_FILE)
    record = json.loads(EVALUATION_FILE.read_text())
    record.pop("combination_correction", None)
    record.pop("network", None)
    scale = float(record["fitted"]["scale"])  # the weights' own, fitted with them
    apply(without_extras(base))
    if label_scale is None:
        found = threat_samples(games_files, seed)
    else:
        found = [
            sample for path in games_files for sample in labelled_threat_samples(path, label_scale)
        ]
    games = sorted({game for game, *_ in found})
    random.Random(seed).shuffle(games)
    held = set(games[: len(games) // 5])
    train = [sample for sample in found if sample[0] not in held]
    check = [sample for sample in found if sample[0] in held]
    before = threat_log_loss(check, NO_THREAT_VALUES, scale)
    after = threat_log_loss(check, fit_threats(train, scale), scale)
    values = fit_threats(found, scale)  # the values kept: fitted to every position
    seen = len({mask for _, _, mask, _ in found})
    print(
        f"{len(games)} games, {len(found)} positions ({len(check)} of {len(held)} games held "
        f"out), {seen} masks seen; held-out log loss without the masks {before:.4f}, with "
        f"them {after:.4f}; {time.monotonic() - began:.0f} s"
    )
    names = " ".join(str(path) for path in games_files)
    record["threats"] = {
        "bits": list(THREAT_BITS),
        "values": values,
        "fitted": {
            "command": f"bench/tune.py --threats {names} --seed {seed}"
            + (f" --labels --label-scale {label_scale:g}" if label_scale is not None else ""),
            "games": len(games),
            "positions": len(found),
            "held_out_games": len(held),
            "masks_seen": seen,
            "ridge": THREAT_RIDGE,
            "held_out_log_loss": {"without": round(before, 5), "with": round(after, 5)},
        },
    }
    write(record, out)
    return 0


def class_counts(
    rows: int, cols: int, k: int, exact: bool, moves: Sequence[int]
) -> tuple[list[int], list[int]] | None:
    """For ``--combinations``: the side to move's count of empty cells per
    class of combination (``evaluation.CLASSES``) and the other side's; None
    where the position is not quiet (as ``features()``)."""
    return classes_of(_core.big_board(rows, cols, k, exact, moves), len(moves) % 2)


def classes_of(board: tuple[Any, ...], me: int) -> tuple[list[int], list[int]] | None:
    """``class_counts()`` of a ``_core.big_board()`` answer, ``me`` to move."""
    cells, sets = board[0], board[1]
    if not quiet(sets):
        return None
    return counts_by_class(cells, me)


def counts_by_class(cells: Sequence[Any], me: int) -> tuple[list[int], list[int]]:
    """How many empty cells of each class of combination (CLASSES' order)
    the side to move (``me``: 0 for X) has, and the other side, from
    ``_core.big_board()``'s cells."""
    counts = [[0] * len(CLASSES) for _ in range(2)]
    for cell in cells:
        if not isinstance(cell, int):
            for side in (0, 1):
                counts[side][CLASS_OF[tuple(sorted(cell[side]))]] += 1
    return counts[me], counts[1 - me]


def combination_samples(
    labels_file: Path, label_scale: float
) -> tuple[list[float], list[tuple[list[int], list[int]]], list[float]]:
    """For ``--combinations``: each quiet labelled position's evaluation by
    the core as it stands (the caller applies the weights without the
    corrections), its ``class_counts()`` and its target (``label_target()``)."""
    evaluations: list[float] = []
    counts: list[tuple[list[int], list[int]]] = []
    ys: list[float] = []
    for position in read_labels(labels_file):
        size, moves = position["size"], position["moves"]
        board = _core.big_board(size, size, 5, position["rule"] == "exact", moves)
        found = classes_of(board, len(moves) % 2)
        if found is None:
            continue
        evaluations.append(board[2])
        counts.append(found)
        ys.append(label_target(position["value"], label_scale))
    return evaluations, counts, ys


@dataclass(frozen=True)
class CombinationFit:
    """The corrections (the mover's classes, then the other side's), how
    many were free, and the held-out log loss before and after."""

    corrections: list[int]
    free: int
    before: float
    after: float


@dataclass(frozen=True)
class OffsetFit:
    """``fit_offsets()``'s answer: a value per column (0 where not free,
    unrounded), the free columns, and the rows held out."""

    values: np.ndarray
    free: np.ndarray
    check: np.ndarray


def offset_log_loss(
    e0: np.ndarray, x: np.ndarray, y: np.ndarray, rows: np.ndarray, delta: np.ndarray, scale: float
) -> float:
    """The log loss of P = 1 / (1 + exp(-(e0 + x @ delta) / scale)) over ``rows``."""
    z = (e0[rows] + x[rows] @ delta) / scale
    p = np.clip(1 / (1 + np.exp(-z)), 1e-12, 1 - 1e-12)
    return float(-np.mean(y[rows] * np.log(p) + (1 - y[rows]) * np.log(1 - p)))


def fit_offsets(
    e0: np.ndarray,
    x: np.ndarray,
    y: np.ndarray,
    scale: float,
    seed: int,
    ridge: float,
    min_count: int,
    fixed: Sequence[int] = (),
) -> OffsetFit:
    """Values for ``x``'s columns added to each row's ``e0``: logistic
    regression by Newton's method with a ridge of ``ridge`` (per fitted
    row, in units of (value / scale)^2), fitted to all but a fifth of the
    rows (drawn with ``seed``); only the columns non-zero in ``min_count``
    fitted rows or more, and not ``fixed``, are free."""
    order = list(range(len(y)))
    random.Random(seed).shuffle(order)
    cut = int(len(y) * 0.8)
    train, check = np.array(order[:cut]), np.array(order[cut:])
    seen = np.count_nonzero(x[train], axis=0) >= min_count
    seen[list(fixed)] = False
    free = np.flatnonzero(seen)
    xf = x[train][:, free]
    weight = ridge * len(train) / scale**2
    d = np.zeros(len(free))
    for _ in range(20):
        p = 1 / (1 + np.exp(-(e0[train] + xf @ d) / scale))
        gradient = xf.T @ (p - y[train]) / scale + weight * d
        hessian = (xf * (p * (1 - p))[:, None]).T @ xf / scale**2 + weight * np.eye(len(free))
        step = np.linalg.solve(hessian, gradient)
        d -= step
        if np.max(np.abs(step)) < 0.05:
            break
    values = np.zeros(x.shape[1])
    values[free] = d
    return OffsetFit(values, free, check)


def fit_combinations(
    evaluations: Sequence[float],
    counts: Sequence[tuple[Sequence[int], Sequence[int]]],
    ys: Sequence[float],
    scale: float,
    seed: int,
) -> CombinationFit:
    """The classes' corrections over ``evaluations`` (the core's, without
    them): ``fit_offsets()`` on the count differences with a ridge of
    COMBINATION_RIDGE, checked on the fifth held out. Only classes seen in
    COMBINATION_MIN_COUNT fitted positions or more are free; the class of
    four dead patterns stays at 0 (a cell that makes nothing)."""
    e0 = np.array(evaluations, dtype=float)
    x = np.hstack(
        [
            np.array([c[0] for c in counts], dtype=float),
            -np.array([c[1] for c in counts], dtype=float),
        ]
    )
    y = np.array(ys, dtype=float)
    fit = fit_offsets(
        e0, x, y, scale, seed, COMBINATION_RIDGE, COMBINATION_MIN_COUNT, (0, len(CLASSES))
    )
    delta = np.clip(np.round(fit.values), -CORRECTION_LIMIT, CORRECTION_LIMIT)
    zeros = np.zeros(x.shape[1])
    return CombinationFit(
        [int(v) for v in delta],
        len(fit.free),
        offset_log_loss(e0, x, y, fit.check, zeros, scale),
        offset_log_loss(e0, x, y, fit.check, delta, scale),
    )


def tune_combinations(labels_file: Path, label_scale: float, seed: int, out: Path) -> int:
    """``--combinations``: the classes' corrections over the weights and the
    threat values in force, fitted to labelled positions, written with them
    to ``out``."""
    began = time.monotonic()
    base = load(EVALUATION_FILE)
    record = json.loads(EVALUATION_FILE.read_text())
    scale = float(record["fitted"]["scale"])
    apply(without_corrections(base))
    record.pop("network", None)  # fitted over the old corrections
    evaluations, counts, ys = combination_samples(labels_file, label_scale)
    fit = fit_combinations(evaluations, counts, ys, scale, seed)
    print(
        f"{len(ys)} quiet positions, {fit.free} of {2 * len(CLASSES)} corrections free; "
        f"held-out log loss {fit.before:.4f} -> {fit.after:.4f}; {time.monotonic() - began:.0f} s"
    )
    m = len(CLASSES)
    record["combination_correction"] = {
        "mover": {CLASSES[i]: fit.corrections[i] for i in range(m) if fit.corrections[i]},
        "other": {CLASSES[i]: fit.corrections[m + i] for i in range(m) if fit.corrections[m + i]},
        "fitted": {
            "command": f"bench/tune.py --combinations {labels_file} --seed {seed} --labels "
            f"--label-scale {label_scale:g}",
            "positions": len(ys),
            "free": fit.free,
            "ridge": COMBINATION_RIDGE,
            "min_count": COMBINATION_MIN_COUNT,
            "held_out_log_loss": {"before": round(fit.before, 5), "after": round(fit.after, 5)},
        },
    }
    write(record, out)
    return 0


@dataclass(frozen=True)
class NetworkSamples:
    """``--network``'s positions: each side's count of empty cells per class
    (the side to move's, ``mover``, and the other side's, ``other``: one row
    a position), its threat mask, the evaluation in force without the network
    and the target."""

    mover: np.ndarray
    other: np.ndarray
    mask: np.ndarray
    evaluation: np.ndarray
    target: np.ndarray


def network_samples(labels_files: Sequence[Path], label_scale: float) -> NetworkSamples:
    """Every labelled position of the files, in order, where the search may
    evaluate (``mask_of()``: no five point, no open-four point of the side
    to move), with the core's evaluation as it stands (the caller applies
    the weights ``without_network()``)."""
    mover, other, masks, evaluations, ys = [], [], [], [], []
    for labels_file in labels_files:
        for position in read_labels(labels_file):
            size, moves = position["size"], position["moves"]
            cells, _, value, _ = _core.big_board(size, size, 5, position["rule"] == "exact", moves)
            me = len(moves) % 2
            mask = mask_of(cells, me)
            if mask is None:
                continue
            mine, theirs = counts_by_class(cells, me)
            mover.append(mine)
            other.append(theirs)
            masks.append(mask)
            evaluations.append(value)
            ys.append(label_target(position["value"], label_scale))
    return NetworkSamples(
        np.array(mover, dtype=np.int16),
        np.array(other, dtype=np.int16),
        np.array(masks),
        np.array(evaluations, dtype=float),
        np.array(ys, dtype=float),
    )


def network_value(
    network: Network,
    mover: np.ndarray,
    other: np.ndarray,
    mask: np.ndarray,
    linear: np.ndarray,
) -> np.ndarray:
    """The core's network correction (core/big/evaluation.c's
    network_value(), in its integers) of positions given by their counts of
    cells per class (rows of ``mover`` and ``other``), threat masks and the
    linear sum's values (the evaluation without the network)."""
    h = NET_HIDDEN
    clamped = np.clip(np.asarray(linear, dtype=np.int64), -NET_INPUT_LIMIT, NET_INPUT_LIMIT)
    hidden = (
        np.asarray(mover, dtype=np.int64) @ np.array(network.mover, dtype=np.int64).reshape(-1, h)
        + np.asarray(other, dtype=np.int64) @ np.array(network.other, dtype=np.int64).reshape(-1, h)
        + np.array(network.mask, dtype=np.int64).reshape(-1, h)[np.asarray(mask)]
        + np.array(network.bias, dtype=np.int64)
        + ((clamped[:, None] * np.array(network.linear, dtype=np.int64)) >> NET_LINEAR_SHIFT)
    )
    out = np.maximum(hidden, 0) @ np.array(network.out, dtype=np.int64)
    return np.asarray((out >> NET_SHIFT) + network.out_bias)


def _log_loss(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-7, 1 - 1e-7)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


@dataclass(frozen=True)
class NetworkFit:
    """``fit_network()``'s answer: the network in the core's integers, the
    held-out log loss without it and with it (rounded as the core has it),
    the pass whose weights were kept, and the positions fitted and held out."""

    network: Network
    before: float
    after: float
    epoch: int
    fitted: int
    held_out: int


def fit_network(samples: NetworkSamples, scale: float, seed: int) -> NetworkFit:
    """The network over the evaluation (see the module's docstring): a fifth
    of the positions, drawn with ``seed``, held out; Adam over mini-batches
    of NETWORK_BATCH, NETWORK_EPOCHS passes, each weight pulled towards 0 by
    NETWORK_L2; the weights of the pass with the lowest held-out loss kept,
    then rounded to the core's integers."""
    rng = np.random.default_rng(seed)
    cm = samples.mover.astype(np.float32) / NETWORK_INPUT
    ct = samples.other.astype(np.float32) / NETWORK_INPUT
    mask, e0, y = samples.mask, samples.evaluation, samples.target
    x = (np.clip(e0, -NET_INPUT_LIMIT, NET_INPUT_LIMIT) / scale).astype(np.float32)
    n = len(y)
    order = rng.permutation(n)
    hold, fit = order[: n // 5], order[n // 5 :]
    d, h = cm.shape[1], NET_HIDDEN
    a = rng.normal(0, NETWORK_SPREAD, (d, h)).astype(np.float32)
    b = rng.normal(0, NETWORK_SPREAD, (d, h)).astype(np.float32)
    mk = np.zeros((THREAT_MASKS, h), np.float32)
    b1 = np.zeros(h, np.float32)
    w2 = rng.normal(0, NETWORK_SPREAD, h).astype(np.float32)
    le = np.zeros(h, np.float32)
    b2 = 0.0
    params = [a, b, mk, b1, w2, le]
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    moment_b2 = square_b2 = 0.0

    def sigmoid(z: np.ndarray) -> np.ndarray:
        return np.asarray(1 / (1 + np.exp(-z)))

    def forward(idx: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        pre = cm[idx] @ a + ct[idx] @ b + mk[mask[idx]] + b1 + np.outer(x[idx], le)
        hidden = np.maximum(pre, 0)
        return pre, hidden, e0[idx] / scale + hidden @ w2 + b2

    step = 0
    best: tuple[float, int, list[np.ndarray], float] = (math.inf, -1, [], 0.0)
    for epoch in range(NETWORK_EPOCHS):
        rate = NETWORK_RATE * NETWORK_DECAY**epoch
        rng.shuffle(fit)
        for start in range(0, len(fit), NETWORK_BATCH):
            idx = fit[start : start + NETWORK_BATCH]
            step += 1
            pre, hidden, z = forward(idx)
            g = (sigmoid(z) - y[idx]) / len(idx)
            g_w2 = hidden.T @ g
            g_b2 = g.sum()
            g_hidden = np.outer(g, w2) * (pre > 0)
            g_mask = np.zeros_like(mk)
            np.add.at(g_mask, mask[idx], g_hidden)
            grads = (
                cm[idx].T @ g_hidden + NETWORK_L2 * a,
                ct[idx].T @ g_hidden + NETWORK_L2 * b,
                g_mask + NETWORK_L2 * mk,
                g_hidden.sum(0),
                g_w2,
                x[idx] @ g_hidden + NETWORK_L2 * le,
            )
            for i, grad in enumerate(grads):
                moments[i] = 0.9 * moments[i] + 0.1 * grad
                squares[i] = 0.999 * squares[i] + 0.001 * grad * grad
                params[i] -= (  # in place: a, b, mk, b1, w2 and le are these arrays
                    rate
                    * (moments[i] / (1 - 0.9**step))
                    / (np.sqrt(squares[i] / (1 - 0.999**step)) + 1e-8)
                )
            moment_b2 = 0.9 * moment_b2 + 0.1 * g_b2
            square_b2 = 0.999 * square_b2 + 0.001 * g_b2 * g_b2
            b2 -= (
                rate
                * (moment_b2 / (1 - 0.9**step))
                / (np.sqrt(square_b2 / (1 - 0.999**step)) + 1e-8)
            )
        loss = _log_loss(sigmoid(forward(hold)[2]), y[hold])
        if loss < best[0]:
            best = (loss, epoch, [p.copy() for p in params], float(b2))
    _, epoch, (a, b, mk, b1, w2, le), b2 = best
    unit = 1 << NET_SHIFT

    def rounded(values: np.ndarray, limit: int) -> tuple[int, ...]:
        clipped = np.clip(np.round(values), -limit, limit)
        return tuple(int(v) for v in clipped.astype(np.int64).ravel())

    network = Network(
        rounded(a / NETWORK_INPUT * unit, NETWORK_WEIGHT_LIMIT),
        rounded(b / NETWORK_INPUT * unit, NETWORK_WEIGHT_LIMIT),
        rounded(mk * unit, NETWORK_WEIGHT_LIMIT),
        rounded(b1 * unit, NETWORK_BIAS_LIMIT),
        rounded(w2 * scale, NETWORK_OUT_LIMIT),
        max(-NETWORK_OUT_BIAS_LIMIT, min(NETWORK_OUT_BIAS_LIMIT, round(b2 * scale))),
        rounded(le * unit * (1 << NET_LINEAR_SHIFT) / scale, NETWORK_LINEAR_LIMIT),
    )
    value = network_value(
        network, samples.mover[hold], samples.other[hold], mask[hold], e0[hold].astype(np.int64)
    )
    return NetworkFit(
        network,
        _log_loss(sigmoid(e0[hold] / scale), y[hold]),
        _log_loss(sigmoid((e0[hold] + value) / scale), y[hold]),
        epoch,
        len(fit),
        len(hold),
    )


def tune_network(labels_files: Sequence[Path], label_scale: float, seed: int, out: Path) -> int:
    """``--network``: the network over the evaluation in force (which stays),
    fitted to labelled positions, written with it to ``out``."""
    began = time.monotonic()
    base = load(EVALUATION_FILE)
    record = json.loads(EVALUATION_FILE.read_text())
    scale = float(record["fitted"]["scale"])
    apply(without_network(base))
    fit = fit_network(network_samples(labels_files, label_scale), scale, seed)
    print(
        f"{fit.fitted + fit.held_out} positions ({fit.held_out} held out); pass {fit.epoch} kept; "
        f"held-out log loss {fit.before:.4f} -> {fit.after:.4f}; "
        f"{time.monotonic() - began:.0f} s"
    )
    names = " ".join(str(path) for path in labels_files)
    record["network"] = {
        **network_record(fit.network),
        "fitted": {
            "command": f"bench/tune.py --network {names} --seed {seed} --labels "
            f"--label-scale {label_scale:g}",
            "positions": fit.fitted + fit.held_out,
            "held_out": fit.held_out,
            "pass": fit.epoch,
            "held_out_log_loss": {"before": round(fit.before, 5), "after": round(fit.after, 5)},
        },
    }
    write(record, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
