"""The statistics of a match: Elo with its interval, and the sequential test
that accepts or rejects a change (SPRT), both over game pairs.

A match plays every opening twice, each side first once, so its independent
unit is the pair, not the game: an opening that favours the first player
scores 1-1 whoever is better, and counting its two games as independent
would narrow the interval for nothing. A pair scores 0, 0.5, 1, 1.5 or 2
points (the pentanomial of the chess engines' testing frameworks); everything
below works on those, halved to a score in [0, 1].

The Elo difference is the logistic one: ``score = 1 / (1 + 10 ** (-elo / 400))``.

The test is the generalised SPRT of the chess engine projects (fishtest,
OpenBench): H0 says the change is worth ``elo0``, H1 says ``elo1``, and the
log-likelihood ratio of the pairs so far, in its normal approximation, is

    LLR = N * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)

with ``s0``, ``s1`` the scores of ``elo0``, ``elo1`` and ``mean``,
``variance`` the pairs' (halved) scores'. The match stops and accepts H1 once
LLR reaches ``log((1 - beta) / alpha)``, and accepts H0 once it falls to
``log(beta / (1 - alpha))``, but not before MIN_PAIRS pairs: the normal
approximation of a handful of pairs (three 2-0 pairs have almost no spread)
would decide on luck. Simulated (tests/bench/test_match.py), that keeps both
errors at the 5% asked for.

>>> round(elo_of(0.75))
191
>>> round(score_of(191), 3)
0.75
>>> lower, upper = bounds(0.05, 0.05)
>>> round(lower, 3), round(upper, 3)
(-2.944, 2.944)
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

PAIR_POINTS = (0.0, 0.5, 1.0, 1.5, 2.0)
Z95 = 1.959964
MIN_PAIRS = 12


def score_of(elo: float) -> float:
    """The expected score of a side ``elo`` points stronger."""
    return 1 / (1 + 10 ** (-elo / 400))


def elo_of(score: float) -> float:
    """The Elo difference a score stands for (clamped away from 0 and 1, where
    it is infinite)."""
    score = min(max(score, 1e-3), 1 - 1e-3)
    return -400 * math.log10(1 / score - 1)


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """The LLR at which the test accepts H0 (lower) and H1 (upper)."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


@dataclass(frozen=True)
class Estimate:
    """A match's score and Elo with its 95% interval, from its pairs."""

    pairs: int
    score: float
    elo: float
    elo_low: float
    elo_high: float


def pentanomial(pair_points: Sequence[float]) -> tuple[int, int, int, int, int]:
    """How many pairs scored 0, 0.5, 1, 1.5 and 2 points."""
    counts = [0] * 5
    for points in pair_points:
        counts[PAIR_POINTS.index(points)] += 1
    return counts[0], counts[1], counts[2], counts[3], counts[4]


def _mean_variance(pair_points: Sequence[float]) -> tuple[float, float]:
    scores = [points / 2 for points in pair_points]
    mean = statistics.fmean(scores)
    variance = statistics.pvariance(scores, mean) if len(scores) > 1 else 0.0
    # No spread yet (every pair the same): the least a pair can vary, so the
    # interval is not a point and the LLR not infinite.
    return mean, max(variance, 1 / (16 * max(len(scores), 1)))


def estimate(pair_points: Sequence[float]) -> Estimate:
    """The score and the Elo difference with its 95% interval.

    >>> e = estimate([2.0, 1.0, 1.5, 1.0, 2.0, 0.5, 1.5, 1.0])
    >>> e.score, round(e.elo), round(e.elo_low), round(e.elo_high)
    (0.65625, 112, -11, 273)
    """
    if not pair_points:
        raise ValueError("no pairs played")
    mean, variance = _mean_variance(pair_points)
    spread = Z95 * math.sqrt(variance / len(pair_points))
    return Estimate(
        len(pair_points), mean, elo_of(mean), elo_of(mean - spread), elo_of(mean + spread)
    )


def llr(pair_points: Sequence[float], elo0: float, elo1: float) -> float:
    """The log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``).

    >>> round(llr([2.0] * 10 + [1.0] * 10, 0, 50), 2)
    4.9
    >>> llr([1.0] * 20, 0, 50) < 0
    True
    """
    if not pair_points:
        return 0.0
    mean, variance = _mean_variance(pair_points)
    s0, s1 = score_of(elo0), score_of(elo1)
    return len(pair_points) * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)


def verdict(
    pair_points: Sequence[float], elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05
) -> str | None:
    """``"H1"`` (the change gains), ``"H0"`` (it does not), or None: play on."""
    if len(pair_points) < MIN_PAIRS:
        return None
    lower, upper = bounds(alpha, beta)
    ratio = llr(pair_points, elo0, elo1)
    if ratio >= upper:
        return "H1"
    if ratio <= lower:
        return "H0"
    return None


@dataclass(frozen=True)
class Difference:
    """Two entrants' scores against one opponent from the same openings, and
    the candidate's gain over the baseline with its 95% interval."""

    pairs: int
    baseline: float
    candidate: float
    gain: float  # in score, candidate less baseline
    gain_low: float
    gain_high: float
    elo: float  # the candidate's Elo less the baseline's, both against the opponent
    elo_low: float
    elo_high: float


def paired_difference(baseline: Sequence[float], candidate: Sequence[float]) -> Difference:
    """The gain of ``candidate`` over ``baseline``, from their pairs' points
    against the same opponent, pair ``i`` of both from the same opening.

    An opening that the opponent wins with both colours against either entrant
    differs by nothing, so the difference of each opening's two pairs varies
    less than two independent scores would: the interval is the mean
    difference's, from the openings' spread. The Elo gain is the difference
    of the two entrants' Elo against the opponent, its interval the baseline's
    score moved by the ends of the gain's: infinite where that reaches a score
    of 0 or 1, and not a number (nan) when the baseline's score is 0 or 1.

    >>> d = paired_difference([0.0, 1.0, 0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 2.0, 1.0, 1.0])
    >>> round(d.gain, 3), round(d.gain_low, 3), round(d.gain_high, 3), round(d.elo)
    (0.25, 0.05, 0.45, 191)
    """
    if len(baseline) != len(candidate):
        raise ValueError(f"{len(baseline)} baseline pairs against {len(candidate)}")
    if not baseline:
        raise ValueError("no pairs played")
    diffs = [(c - b) / 2 for b, c in zip(baseline, candidate, strict=True)]
    gain = statistics.fmean(diffs)
    # The least spread, as _mean_variance(): no interval is a point.
    variance = max(statistics.pvariance(diffs, gain), 1 / (16 * len(diffs)))
    spread = Z95 * math.sqrt(variance / len(diffs))
    base = statistics.fmean(baseline) / 2

    def elo_gain(score_gain: float) -> float:
        # At a score of 0 or 1 the Elo is infinite: a gain to there is
        # infinite, and none is defined from there.
        score = base + score_gain
        if not 0 < base < 1:
            return math.nan
        if not 0 < score < 1:
            return math.inf if score >= 1 else -math.inf
        return elo_of(score) - elo_of(base)

    return Difference(
        len(diffs),
        base,
        base + gain,
        gain,
        gain - spread,
        gain + spread,
        elo_gain(gain),
        elo_gain(gain - spread),
        elo_gain(gain + spread),
    )
