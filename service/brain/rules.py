"""``INFO rule``: what each value asks for, and what the engine plays for it.

The managers disagree on the numbers. Piskvork's protocol text makes the value
a bit field (1 exactly five, 2 continuous game, 4 renju, 8 caro); Yixin-Board
sends 2 for renju, and Rapfi, the tournament's strongest brain, reads 0 to 6 as
freestyle, exactly five, renju, -, renju, freestyle with swap1, freestyle with
swap2. The brain reads 0 to 6 as Rapfi and Yixin-Board do (RULE_VALUES: the
GUIs people play in and the brains they compare with) and 3 as Piskvork does
(exactly five, continuous), which Rapfi does not read; any other value as
Piskvork's bits.

Renju is played as renju (the engine's forbidden moves for Black, X): X is
the side that moved first, and ``YXSHOWFORBID`` lists its forbidden cells.
What is asked for but not played (STAND_IN: caro) is played as the closest
rule the engine has, and said once in a ``MESSAGE`` line. The swap openings of
5 and 6 are played:
the game after them as freestyle, and the opening itself, ``SWAP2BOARD``, as
``opening.py`` chooses (swap1 under 5, swap2 under 6), so they say nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from service.engine import Rule


class Variant(StrEnum):
    """A rule of five in a row, as managers name them."""

    FREESTYLE = "freestyle"
    EXACT = "exactly five"
    RENJU = "renju"
    CARO = "caro"


class Opening(StrEnum):
    FREE = "free"
    SWAP1 = "swap1"
    SWAP2 = "swap2"


@dataclass(frozen=True)
class Asked:
    """What one value of ``INFO rule`` asks for."""

    variant: Variant
    opening: Opening = Opening.FREE
    continuous: bool = False  # Piskvork's "continuous game": play on after a five


RULE_VALUES: dict[int, Asked] = {
    0: Asked(Variant.FREESTYLE),
    1: Asked(Variant.EXACT),
    2: Asked(Variant.RENJU),  # Yixin-Board and Rapfi; Piskvork's "continuous freestyle"
    3: Asked(Variant.EXACT, continuous=True),  # Piskvork's 1 + 2
    4: Asked(Variant.RENJU),
    5: Asked(Variant.FREESTYLE, Opening.SWAP1),  # Rapfi; Piskvork's 1 + 4
    6: Asked(Variant.FREESTYLE, Opening.SWAP2),  # Rapfi; Piskvork's 2 + 4
}
PISKVORK_EXACT, PISKVORK_CONTINUOUS, PISKVORK_RENJU, PISKVORK_CARO = 1, 2, 4, 8
PISKVORK_BITS = 15
# The variants the engine plays.
PLAYED: dict[Variant, Rule] = {
    Variant.FREESTYLE: Rule.FREESTYLE,
    Variant.EXACT: Rule.EXACT,
    Variant.RENJU: Rule.RENJU,
}
# The closest played variant of each other one. Caro: a row of five or more
# wins (unless both its ends are blocked, which is not kept), as under freestyle.
STAND_IN: dict[Variant, Variant] = {Variant.CARO: Variant.FREESTYLE}


@dataclass(frozen=True)
class Reading:
    """A value of ``INFO rule`` read: what it asks for, what the engine plays,
    and what the brain tells the manager about the difference (None: nothing)."""

    value: int
    asked: Asked | None  # None: a value no manager sends
    plays: Rule
    notice: str | None

    @property
    def opening(self) -> Opening:
        return Opening.FREE if self.asked is None else self.asked.opening


def read_rule(value: int) -> Reading:
    asked = RULE_VALUES.get(value)
    unknown = value < 0 or value & ~PISKVORK_BITS
    if asked is None and not unknown:
        asked = _piskvork_bits(value)
    if asked is None:
        exact = value > 0 and bool(value & PISKVORK_EXACT)
        played = Variant.EXACT if exact else Variant.FREESTYLE
        return Reading(value, None, PLAYED[played], f"rule {value} is unknown: playing {played}")
    played = asked.variant if asked.variant in PLAYED else STAND_IN[asked.variant]
    notes = []
    if played is not asked.variant:
        notes.append(f"{asked.variant} is not supported yet: playing {played}, the closest rule")
    if asked.continuous:
        notes.append(
            "a continuous game is played position by position: a BOARD's dead stones "
            "(field 3) take their cells and make no row"
        )
    notice = f"rule {value}: " + "; ".join(notes) if notes else None
    return Reading(value, asked, PLAYED[played], notice)


def _piskvork_bits(value: int) -> Asked:
    if value & PISKVORK_RENJU:
        variant = Variant.RENJU
    elif value & PISKVORK_CARO:
        variant = Variant.CARO
    elif value & PISKVORK_EXACT:
        variant = Variant.EXACT
    else:
        variant = Variant.FREESTYLE
    return Asked(variant, continuous=bool(value & PISKVORK_CONTINUOUS))
