"""Fit the big boards' evaluation to game results (``make tune``): logistic
regression of the self-play games' outcomes (``bench/selfplay.py``) on the
evaluation's own features, written to ``service/engine/evaluation.json``.

    .venv/bin/python bench/tune.py bench/results/selfplay.jsonl

The games may also be those of ``bench/match.py --games`` (any two
brains, a reference engine against itself for instance: ``as_self_play()``).

The evaluation (core/big/board.c) is linear in its weights: for the side to
move, the sum over empty cells and directions of PATTERN_WORTH[pattern], plus
KIND_BONUS[kind] per cell, less the same for the other side with the other
side's weights, plus TEMPO. So each position's features are the counts (the
side to move's patterns per pattern and cells per kind, and the other side's,
negated) and a constant, and the evaluation is their dot product with the
weights (``features()``; tests/bench/test_tune.py checks it against the
core's own evaluation on random positions).

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
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import random
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from match import opening_stones

from service.engine import _core
from service.engine.evaluation import EVALUATION_FILE, KIND_NAMES, PATTERN_NAMES, Weights, load

FITTED_PATTERNS = range(1, 9)  # b1 to f4: dead is 0, five never in a quiet position
FITTED_KINDS = range(1, 8)  # f2 to flex4
POSITIONS_PER_GAME = 10
DECIDED = 50_000  # bench/label.py's values beyond this are forced results
RIDGE = 0.01  # per position, in units of (weight / SCALE)^2: a nudge, not a prior


def features(rows: int, cols: int, k: int, exact: bool, moves: Sequence[int]) -> list[int] | None:
    """The position's features for the side to move (see the module's
    docstring): its counts per fitted pattern and per fitted kind, the other
    side's negated, and 1; None when the position is not quiet."""
    cells, sets, _, _ = _core.big_board(rows, cols, k, exact, moves)
    if any(sets[i] for i in range(4)):  # five points, open four points
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


def samples(games_file: Path, seed: int) -> tuple[list[list[int]], list[float], int]:
    rng = random.Random(seed)
    xs: list[list[int]] = []
    ys: list[float] = []
    games = 0
    for game, plies in shuffled_games(games_file, rng):
        games += 1
        size, moves, winner = game["size"], game["moves"], game["winner"]
        exact = game["rule"] == "exact"
        taken = 0
        for ply in plies:
            if taken >= POSITIONS_PER_GAME:
                break
            found = features(size, size, 5, exact, moves[:ply])
            if found is None:
                continue
            mover = "X" if ply % 2 == 0 else "O"
            xs.append(found)
            ys.append(0.5 if winner is None else 1.0 if winner == mover else 0.0)
            taken += 1
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
    data = labels_file.read_bytes()
    text = (gzip.decompress(data) if labels_file.suffix == ".gz" else data).decode()
    for line in text.splitlines():
        record = json.loads(line)
        size, value = record["size"], record["value"]
        found = features(size, size, 5, record["rule"] == "exact", record["moves"])
        if found is None:
            continue
        xs.append(found)
        ys.append(
            1.0 if value >= DECIDED else 0.0 if value <= -DECIDED else _sigmoid(value / label_scale)
        )
    return xs, ys, len(xs)


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", type=Path, help="games, or with --labels bench/label.py's output")
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
    began = time.monotonic()
    base = load(args.base)
    if args.labels:
        xs, ys, games = labelled_samples(args.games, args.label_scale)
    else:
        xs, ys, games = samples(args.games, args.seed)
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
            "command": f"bench/tune.py {args.games} --seed {args.seed}"
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
    args.out.write_text(json.dumps(record, indent=2) + "\n")
    weights = ("pattern_worth", "kind_bonus", "pattern_worth_other", "kind_bonus_other", "tempo")
    print(json.dumps({k: record[k] for k in weights}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
