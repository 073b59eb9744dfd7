"""Choosing the move to return: which of the best moves, and how often to blunder.

This module owns the difficulty levels and the use of randomness; it takes an
:class:`~service.engine.analysis.Analysis` and never searches.

* Without a seed and at ``perfect``, the answer is the first best move in cell
  order, so equal requests get equal answers.
* With a seed, every random draw comes from ``random.Random(seed)``: the same
  request with the same seed gets the same answer, on any machine.
* Each level plays a uniformly random legal move at its blunder rate
  (perfect 0, hard 0.1, medium 0.25, easy 0.5) and a best move otherwise.
  Without a seed, a level below ``perfect`` draws fresh randomness and the
  answer is marked not ``deterministic``.

>>> from service.engine import Board, Engine
>>> analysis = Engine().analyze(Board.parse("........."))
>>> suggest(analysis).cell, suggest(analysis, seed=7).cell == suggest(analysis, seed=7).cell
(0, True)
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import Enum

from service.engine.analysis import Analysis, MoveValue


class Difficulty(Enum):
    PERFECT = "perfect"
    HARD = "hard"
    MEDIUM = "medium"
    EASY = "easy"

    @property
    def blunder_rate(self) -> float:
        """How often this level plays a random legal move instead of a best one."""
        return _BLUNDER_RATES[self]


_BLUNDER_RATES = {
    Difficulty.PERFECT: 0.0,
    Difficulty.HARD: 0.1,
    Difficulty.MEDIUM: 0.25,
    Difficulty.EASY: 0.5,
}


@dataclass(frozen=True, slots=True)
class Suggestion:
    """The move to play, and what the analysis says of it."""

    analysis: Analysis
    move: MoveValue
    is_best: bool
    deterministic: bool

    @property
    def cell(self) -> int:
        return self.move.cell


def suggest(
    analysis: Analysis, difficulty: Difficulty = Difficulty.PERFECT, seed: int | None = None
) -> Suggestion:
    """Pick the move to return from ``analysis`` (rules in the module docstring)."""
    best = analysis.best_moves
    rate = difficulty.blunder_rate
    if seed is None and rate == 0.0:
        return Suggestion(analysis, analysis.value_of(best[0]), True, True)
    rng = random.Random(seed)  # seed None: fresh randomness from the OS
    if rng.random() < rate:
        cell = rng.choice(sorted(m.cell for m in analysis.moves))
    else:
        cell = rng.choice(best) if seed is not None else best[0]
    return Suggestion(analysis, analysis.value_of(cell), cell in best, seed is not None)
