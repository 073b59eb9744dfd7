"""``bench/feature_probe.py``: its line windows are the core's (each window
class always reads as one pattern, in every direction, for both sides), and
each empty cell counts once a direction; its floor is the targets' entropy."""

from __future__ import annotations

import math
import random
from types import ModuleType

import numpy as np
import pytest

from service.engine import _core
from tests.bench.test_match import bench_module


@pytest.fixture(scope="module")
def probe() -> ModuleType:
    return bench_module("feature_probe")


def test_a_window_class_is_one_pattern_of_the_cores(probe: ModuleType) -> None:
    rng = random.Random(5)
    size = probe.SIZE
    pattern_of: dict[int, int] = {}
    for _ in range(60):
        moves = rng.sample(range(size * size), rng.randint(0, 40))
        cells = _core.big_board(size, size, 5, 0, moves)[0]
        codes, empty = probe.window_codes(moves)
        for cell, found in enumerate(cells):
            row, column = divmod(cell, size)
            assert empty[row, column] == (not isinstance(found, int))
            if isinstance(found, int):
                continue
            for side in (0, 1):
                for d in range(4):
                    window = int(probe.WINDOW_CLASS[codes[side, d, row, column]])
                    assert pattern_of.setdefault(window, found[side][d]) == found[side][d]
    assert len(set(pattern_of.values())) == 10  # every pattern, dead to five, was seen


def test_every_empty_cell_counts_once_a_direction(probe: ModuleType) -> None:
    moves = [112, 113, 127, 98, 142]
    cells = _core.big_board(probe.SIZE, probe.SIZE, 5, 0, moves)[0]
    row = probe.windows(moves, cells, len(moves) % 2)
    empties = probe.SIZE * probe.SIZE - len(moves)
    half = len(row) // 2
    assert row[:half].sum() == 4 * empties
    assert row[half:].sum() == -4 * empties


def test_the_floor_is_the_targets_entropy(probe: ModuleType) -> None:
    # Decided targets cost nothing; an even chance costs log 2, whatever predicts it.
    assert probe.entropy(np.array([0.0, 1.0])) == 0.0
    assert probe.entropy(np.array([0.5, 1.0])) == pytest.approx(math.log(2) / 2)
    y = np.array([0.1, 0.7, 0.95])
    loss = -(y * np.log(y) + (1 - y) * np.log(1 - y)).mean()
    assert probe.entropy(y) == pytest.approx(loss)
