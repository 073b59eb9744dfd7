"""Would a richer static feature help the big boards' evaluation? Each probe
fits one family of extra features over the evaluation in force to the
committed labelled positions (Rapfi's values, ``bench/label.py``) and prints
the held-out log loss before and after (docs/strength.md#what-the-features-leave).

    .venv/bin/python bench/feature_probe.py            # every family, about a minute
    .venv/bin/python bench/feature_probe.py --family windows

The families, each counted over the empty cells of a quiet 15x15 freestyle
position for the side to move and, negated, for the other side:

- ``windows``: a value per line window, the eight cells around a cell along
  one direction (what the core reads its pattern from), a window and its
  mirror image one class. The patterns, the kinds and the corrections are
  functions of these windows, so no line-local refinement (how many ways a
  three extends, split threes, ...) can do better than this family.
- ``kinds``: how many cells of each kind each side has (0, 1, 2, 3 or more,
  one-hot): what a threat mask says, with counts.

The fit is ``tune.fit_offsets()`` (the combinations' fit: Newton's method, a
ridge, the same fifth held out); a family that lowers the held-out loss by
little has nothing for the evaluation to learn from these labels. Each line
also gives the floor: the held-out labels' own entropy, the log loss of a
prediction that were the labels themselves, which no evaluation goes below.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tune import (  # noqa: E402
    fit_offsets,
    kind_counts,
    label_target,
    offset_log_loss,
    quiet,
    read_labels,
)

from service.engine import _core  # noqa: E402 - after sys.path
from service.engine.evaluation import EVALUATION_FILE, KIND_NAMES, apply, load  # noqa: E402

SIZE = 15
HALF = 4  # freestyle's window: k - 1 cells each side
LABELS = REPO / "bench" / "labels" / "rapfi-20k.jsonl.gz"
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))
KIND_CAP = 3
MIN_COUNT = 50
RIDGE = 0.1


def window_codes(moves: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Every cell's window along each direction for each side, in base 3 (the
    cell's own side 1, the other side and the edge 2, empty 0; the offsets
    -HALF..-1, 1..HALF the digits in order), shaped (side, direction, row,
    column), and the empty cells (row, column)."""
    padded = np.full((SIZE + 2 * HALF, SIZE + 2 * HALF), 3, dtype=np.int8)  # 3: off the board
    inner = padded[HALF : HALF + SIZE, HALF : HALF + SIZE]
    inner[:] = 0
    for ply, move in enumerate(moves):
        inner[divmod(move, SIZE)] = 1 + ply % 2
    offsets = [o for o in range(-HALF, HALF + 1) if o]
    codes = np.zeros((2, 4, SIZE, SIZE), dtype=np.int32)
    for side in (0, 1):
        digits = np.where(padded == 0, 0, np.where(padded == 1 + side, 1, 2))
        for d, (dr, dc) in enumerate(DIRECTIONS):
            for place, offset in enumerate(offsets):
                r, c = HALF + offset * dr, HALF + offset * dc
                codes[side, d] += 3**place * digits[r : r + SIZE, c : c + SIZE]
    return codes, inner == 0


def window_classes() -> np.ndarray:
    """Each window code's class: the smaller of the code and its mirror's."""
    codes = np.arange(3 ** (2 * HALF))
    digits = (codes[:, None] // 3 ** np.arange(2 * HALF)) % 3
    mirrored = (digits[:, ::-1] * 3 ** np.arange(2 * HALF)).sum(axis=1)
    return np.unique(np.minimum(codes, mirrored), return_inverse=True)[1]


def windows(moves: Sequence[int], cells: list, me: int) -> np.ndarray:
    classes = WINDOW_CLASS
    codes, empty = window_codes(moves)
    count = int(classes.max()) + 1
    mine = np.bincount(classes[codes[me][:, empty]].ravel(), minlength=count)
    theirs = np.bincount(classes[codes[1 - me][:, empty]].ravel(), minlength=count)
    return np.concatenate([mine, -theirs])


def kinds(moves: Sequence[int], cells: list, me: int) -> np.ndarray:
    levels = np.minimum(np.array(kind_counts(cells, me)), KIND_CAP)
    onehot = np.zeros((2, len(KIND_NAMES), KIND_CAP), dtype=int)
    for side in (0, 1):
        for kind in range(len(KIND_NAMES)):
            if levels[side, kind]:
                onehot[side, kind, levels[side, kind] - 1] = 1
    return np.concatenate([onehot[0].ravel(), -onehot[1].ravel()])


WINDOW_CLASS = window_classes()
FAMILIES: dict[str, Callable[[Sequence[int], list, int], np.ndarray]] = {
    "windows": windows,
    "kinds": kinds,
}


def entropy(y: np.ndarray) -> float:
    """The mean entropy of the targets ``y`` (chances in [0, 1]; 0 log 0 is
    0): the least log loss any prediction of them can have."""
    inner = y[(y > 0) & (y < 1)]
    return float(-(inner * np.log(inner) + (1 - inner) * np.log(1 - inner)).sum() / len(y))


def probe(family: str, labels: Path, seed: int) -> tuple[int, int, float, float, float]:
    """The quiet positions, the free features, the held-out log loss of the
    evaluation in force before and after the family's fit, and the held-out
    labels' entropy (the floor)."""
    weights = load(EVALUATION_FILE)
    apply(weights)
    scale = float(json.loads(EVALUATION_FILE.read_text())["fitted"]["scale"])
    e0, rows, ys = [], [], []
    for record in read_labels(labels):
        if record["size"] != SIZE or record["rule"] != "freestyle":
            continue
        moves = record["moves"]
        cells, sets, evaluation, _ = _core.big_board(SIZE, SIZE, 5, 0, moves)
        if not quiet(sets):
            continue
        e0.append(evaluation)
        rows.append(FAMILIES[family](moves, cells, len(moves) % 2))
        ys.append(label_target(record["value"], 200.0))
    x, y, e = np.array(rows, dtype=float), np.array(ys), np.array(e0, dtype=float)
    fit = fit_offsets(e, x, y, scale, seed, RIDGE, MIN_COUNT)
    before = offset_log_loss(e, x, y, fit.check, np.zeros(x.shape[1]), scale)
    after = offset_log_loss(e, x, y, fit.check, fit.values, scale)
    return len(y), len(fit.free), before, after, entropy(y[fit.check])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", choices=sorted(FAMILIES), action="append")
    parser.add_argument("--labels", type=Path, default=LABELS)
    parser.add_argument("--seed", type=int, default=27)
    args = parser.parse_args()
    for family in args.family or list(FAMILIES):
        positions, free, before, after, floor = probe(family, args.labels, args.seed)
        print(
            f"{family}: {positions} quiet positions, {free} features free; "
            f"held-out log loss {before:.4f} -> {after:.4f} (the labels' own entropy {floor:.4f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
