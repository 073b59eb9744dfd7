"""Choosing the returned move: determinism, seeds and difficulty levels."""

from __future__ import annotations

import pytest

from service.engine import Board, Difficulty, Engine, suggest

ENGINE = Engine()
# X to move; only 2 wins at once (the other moves do not).
POSITION = ENGINE.analyze(Board.parse("XX.OO...."))
OPENING = ENGINE.analyze(Board.parse("....X...."))  # best replies: the four corners


def test_without_a_seed_perfect_play_returns_the_first_best_move() -> None:
    for _ in range(5):
        choice = suggest(OPENING)
        assert (choice.cell, choice.is_best, choice.deterministic) == (0, True, True)


def test_a_seed_chooses_reproducibly_among_the_best_moves() -> None:
    picks = {suggest(OPENING, seed=seed).cell for seed in range(40)}
    assert picks == {0, 2, 6, 8}
    for seed in (0, 1, 2**63 - 1):
        assert suggest(OPENING, seed=seed) == suggest(OPENING, seed=seed)
        assert suggest(OPENING, seed=seed).deterministic


@pytest.mark.parametrize(
    ("difficulty", "rate"),
    [
        (Difficulty.PERFECT, 0.0),
        (Difficulty.HARD, 0.1),
        (Difficulty.MEDIUM, 0.25),
        (Difficulty.EASY, 0.5),
    ],
)
def test_difficulty_blunders_at_its_documented_rate(difficulty: Difficulty, rate: float) -> None:
    assert difficulty.blunder_rate == rate
    trials = 4000
    weaker = sum(not suggest(POSITION, difficulty, seed=seed).is_best for seed in range(trials))
    # A blunder picks a uniformly random legal move: 4 of the 5 are not best.
    expected = trials * rate * 4 / 5
    assert abs(weaker - expected) <= 4 * (expected or 1) ** 0.5 + 1


def test_is_best_tells_the_truth() -> None:
    for seed in range(200):
        choice = suggest(POSITION, Difficulty.EASY, seed=seed)
        assert choice.is_best == (choice.cell in POSITION.best_moves)
        assert choice.move == POSITION.value_of(choice.cell)


def test_lower_levels_without_a_seed_are_not_deterministic() -> None:
    choice = suggest(POSITION, Difficulty.EASY)
    assert not choice.deterministic
    assert choice.cell in {m.cell for m in POSITION.moves}
