"""The big boards' evaluation weights: a data file (``evaluation.json``, fitted
to game results by ``bench/tune.py``), read once and handed to the compiled
core by ``search.py`` at import, before any search.

The evaluation itself is the core's (``core/big/board.c`` states it): a worth
per line pattern, a bonus per kind of cell, and a tempo. Nothing else reads
the weights; the file also records how they were fitted.

>>> weights = load(EVALUATION_FILE)
>>> len(weights.pattern_worth), len(weights.kind_bonus), weights.pattern_worth[0]
(10, 9, 0)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from service.engine import _core

EVALUATION_FILE = Path(__file__).with_name("evaluation.json")
PATTERN_NAMES = ("dead", "b1", "f1", "b2", "f2", "b3", "f3", "b4", "f4", "five")
KIND_NAMES = ("quiet", "f2", "b3", "f3", "b4", "f3f3", "b4f3", "flex4", "five")


@dataclass(frozen=True)
class Weights:
    """Worth per pattern (PATTERN_NAMES' order) and bonus per kind
    (KIND_NAMES' order) of the side to move's cells, and of the other side's
    (``*_other``), and the tempo."""

    pattern_worth: tuple[int, ...]
    kind_bonus: tuple[int, ...]
    tempo: int
    pattern_worth_other: tuple[int, ...]
    kind_bonus_other: tuple[int, ...]


def load(path: Path) -> Weights:
    """The weights of an evaluation file (where it has no ``*_other`` weights,
    the other side's cells are worth what the mover's are); ValueError names
    what is wrong."""
    try:
        record = json.loads(path.read_text())
        pattern = tuple(int(record["pattern_worth"][name]) for name in PATTERN_NAMES)
        kind = tuple(int(record["kind_bonus"][name]) for name in KIND_NAMES)
        other = record.get("pattern_worth_other", record["pattern_worth"])
        pattern_other = tuple(int(other[name]) for name in PATTERN_NAMES)
        other = record.get("kind_bonus_other", record["kind_bonus"])
        kind_other = tuple(int(other[name]) for name in KIND_NAMES)
        tempo = int(record["tempo"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"{path}: not an evaluation file ({error!r})") from error
    return Weights(pattern, kind, tempo, pattern_other, kind_other)


def apply(weights: Weights, core: ModuleType = _core) -> None:
    """Make ``weights`` the core's (or another build's, ``core``, as
    bench/depth_nodes.py loads them): only before any search (see board.h)."""
    core.set_evaluation(
        weights.pattern_worth,
        weights.kind_bonus,
        weights.pattern_worth_other,
        weights.kind_bonus_other,
        weights.tempo,
    )
