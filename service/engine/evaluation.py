"""The big boards' evaluation weights: a data file (``evaluation.json``, fitted
to game results by ``bench/tune.py``), read once and handed to the compiled
core by ``search.py`` at import, before any search.

The evaluation itself is the core's (``core/big/evaluation.c`` states it): a worth
per line pattern, a bonus per kind of cell, a tempo, and a value per threat
mask (which kinds of threat cell each side has: ``THREAT_BITS``, bit 0
first, as ``big_threat_mask()`` in ``core/big/board.h`` makes it), a
correction per class of a cell's four patterns, and a small network's
correction over the classes and the mask (``Network``). Nothing else reads
the weights; the file also records how they were fitted.

>>> weights = load(EVALUATION_FILE)
>>> len(weights.pattern_worth), len(weights.kind_bonus), weights.pattern_worth[0]
(10, 9, 0)
>>> len(weights.threat_values) == 1 << len(THREAT_BITS)
True
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from service.engine import _core

EVALUATION_FILE = Path(__file__).with_name("evaluation.json")
PATTERN_NAMES = ("dead", "b1", "f1", "b2", "f2", "b3", "f3", "b4", "f4", "five")
KIND_NAMES = ("quiet", "f2", "b3", "f3", "b4", "f3f3", "b4f3", "flex4", "five")
# A threat mask's bits: the side to move has a cell of that kind, or the
# other side has ("their_").
THREAT_BITS = (
    "b4f3",
    "b4",
    "f3f3",
    "f3",
    "their_flex4",
    "their_b4f3",
    "their_b4",
    "their_f3f3",
    "their_f3",
)
THREAT_MASKS = 1 << len(THREAT_BITS)
NO_THREAT_VALUES = (0,) * THREAT_MASKS
# The classes of a cell's four patterns (a multiset each), in the core's
# order (core/big/board.h): "dead dead f2 f3" and so on.
_COMBINATIONS = tuple(itertools.combinations_with_replacement(range(len(PATTERN_NAMES)), 4))
CLASSES = tuple(" ".join(PATTERN_NAMES[p] for p in combination) for combination in _COMBINATIONS)
# A class's number by its sorted patterns' numbers: CLASS_OF[(0, 0, 4, 6)] is
# CLASSES.index("dead dead f2 f3").
CLASS_OF = {combination: number for number, combination in enumerate(_COMBINATIONS)}
NO_CORRECTION = (0,) * len(CLASSES)
NET_HIDDEN = 16  # the network's hidden values (core/big/board.h's NET_HIDDEN)
NET_SHIFT = 16  # its hidden values count in units of 2^-NET_SHIFT (board.h's NET_SHIFT)
# Its weights for the linear sum's value count in units of 2^-NET_LINEAR_SHIFT
# of a hidden unit per unit of the evaluation, the value clamped to
# +-NET_INPUT_LIMIT first (board.h's).
NET_LINEAR_SHIFT = 8
NET_INPUT_LIMIT = 16384
# The names of the masks' rows in an evaluation file: their numbers.
MASK_NAMES = tuple(str(mask) for mask in range(THREAT_MASKS))


@dataclass(frozen=True)
class Network:
    """The evaluation's network (core/big/evaluation.c states it): NET_HIDDEN
    weights per class of combination for the side to move's cells
    (``mover``, flat, class by class in CLASSES' order) and for the other
    side's (``other``), and per threat mask (``mask``, mask by mask); a bias
    and an output weight per hidden value, and the output bias; and a weight
    per hidden value for the linear sum's value (``linear``, see
    NET_LINEAR_SHIFT). Hidden values count in units of 2^-NET_SHIFT, the
    output in the evaluation's. All 0 is no network."""

    mover: tuple[int, ...]
    other: tuple[int, ...]
    mask: tuple[int, ...]
    bias: tuple[int, ...]
    out: tuple[int, ...]
    out_bias: int
    linear: tuple[int, ...] = (0,) * NET_HIDDEN


NO_NETWORK = Network(
    (0,) * (len(CLASSES) * NET_HIDDEN),
    (0,) * (len(CLASSES) * NET_HIDDEN),
    (0,) * (THREAT_MASKS * NET_HIDDEN),
    (0,) * NET_HIDDEN,
    (0,) * NET_HIDDEN,
    0,
)


@dataclass(frozen=True)
class Weights:
    """Worth per pattern (PATTERN_NAMES' order) and bonus per kind
    (KIND_NAMES' order) of the side to move's cells, and of the other side's
    (``*_other``), the tempo, and the value of each threat mask (by its
    number: ``THREAT_BITS``)."""

    pattern_worth: tuple[int, ...]
    kind_bonus: tuple[int, ...]
    tempo: int
    pattern_worth_other: tuple[int, ...]
    kind_bonus_other: tuple[int, ...]
    threat_values: tuple[int, ...] = NO_THREAT_VALUES
    correction: tuple[int, ...] = NO_CORRECTION
    correction_other: tuple[int, ...] = NO_CORRECTION
    network: Network = NO_NETWORK


def load(path: Path) -> Weights:
    """The weights of an evaluation file (where it has no ``*_other`` weights,
    the other side's cells are worth what the mover's are; where it has no
    threat values, every mask is worth 0); ValueError names what is wrong."""
    try:
        record = json.loads(path.read_text())
        pattern = tuple(int(record["pattern_worth"][name]) for name in PATTERN_NAMES)
        kind = tuple(int(record["kind_bonus"][name]) for name in KIND_NAMES)
        other = record.get("pattern_worth_other", record["pattern_worth"])
        pattern_other = tuple(int(other[name]) for name in PATTERN_NAMES)
        other = record.get("kind_bonus_other", record["kind_bonus"])
        kind_other = tuple(int(other[name]) for name in KIND_NAMES)
        tempo = int(record["tempo"])
        threats = record.get("threats", {"bits": list(THREAT_BITS), "values": NO_THREAT_VALUES})
        if tuple(threats["bits"]) != THREAT_BITS:
            raise ValueError(f"the threat bits must be {list(THREAT_BITS)}")
        values = tuple(int(value) for value in threats["values"])
        if len(values) != len(NO_THREAT_VALUES):
            raise ValueError(f"{len(NO_THREAT_VALUES)} threat values, not {len(values)}")
        corrections = record.get("combination_correction", {})
        correction, correction_other = (
            tuple(int(corrections.get(side, {}).get(name, 0)) for name in CLASSES)
            for side in ("mover", "other")
        )
        unknown = {
            name
            for side in ("mover", "other")
            for name in corrections.get(side, {})
            if name not in CLASSES
        }
        if unknown:
            raise ValueError(f"no such classes of combination: {sorted(unknown)}")
        network = read_network(record["network"]) if "network" in record else NO_NETWORK
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"{path}: not an evaluation file ({error!r})") from error
    return Weights(
        pattern,
        kind,
        tempo,
        pattern_other,
        kind_other,
        values,
        correction,
        correction_other,
        network,
    )


def read_network(record: dict[str, Any]) -> Network:
    """An evaluation file's network: its ``hidden`` width (NET_HIDDEN), the
    rows of the classes (``mover``, ``other``: by class name) and of the
    masks (``mask``: by number) that are not all 0, ``bias``, ``out``,
    ``out_bias`` and ``linear`` (all 0 where it is missing); ValueError (or
    KeyError, TypeError) names what is wrong."""
    if record["hidden"] != NET_HIDDEN:
        raise ValueError(f"the network's hidden width must be {NET_HIDDEN}")

    def row(values: Any) -> tuple[int, ...]:
        found = tuple(int(v) for v in values)
        if len(found) != NET_HIDDEN:
            raise ValueError(f"a row of the network has {NET_HIDDEN} weights, not {len(found)}")
        return found

    def rows(named: dict[str, Any], names: Sequence[str]) -> tuple[int, ...]:
        unknown = set(named) - set(names)
        if unknown:
            raise ValueError(f"the network names no such rows: {sorted(unknown)[:5]}")
        zero = (0,) * NET_HIDDEN
        return tuple(v for name in names for v in (row(named[name]) if name in named else zero))

    return Network(
        rows(record["mover"], CLASSES),
        rows(record["other"], CLASSES),
        rows(record["mask"], MASK_NAMES),
        row(record["bias"]),
        row(record["out"]),
        int(record["out_bias"]),
        row(record.get("linear", (0,) * NET_HIDDEN)),
    )


def network_record(network: Network) -> dict[str, Any]:
    """``read_network()``'s record of a network (rows of 0 left out)."""

    def rows(flat: tuple[int, ...], names: Sequence[str]) -> dict[str, list[int]]:
        found = {}
        for i, name in enumerate(names):
            values = list(flat[i * NET_HIDDEN : (i + 1) * NET_HIDDEN])
            if any(values):
                found[name] = values
        return found

    return {
        "hidden": NET_HIDDEN,
        "bias": list(network.bias),
        "out": list(network.out),
        "out_bias": network.out_bias,
        "linear": list(network.linear),
        "mover": rows(network.mover, CLASSES),
        "other": rows(network.other, CLASSES),
        "mask": rows(network.mask, MASK_NAMES),
    }


HEADER_FILE = Path(__file__).parents[1] / "brain" / "native" / "evaluation.h"


def header(weights: Weights) -> str:
    """The native brain's copy of the weights (``HEADER_FILE``: it has no
    JSON reader), as C: ``bench/tune.py`` writes it with evaluation.json, and
    tests/brain/test_native.py checks that the two agree."""

    def rows(values: tuple[int, ...], per_row: int) -> str:
        return "\n".join(
            "    " + ", ".join(str(v) for v in values[i : i + per_row]) + ","
            for i in range(0, len(values), per_row)
        )

    def nested(values: tuple[int, ...]) -> str:
        return "\n".join(
            "    {" + ", ".join(str(v) for v in values[i : i + NET_HIDDEN]) + "},"
            for i in range(0, len(values), NET_HIDDEN)
        )

    def pair(first: tuple[int, ...], second: tuple[int, ...]) -> str:
        return "\n".join(
            "    {" + ", ".join(str(v) for v in side) + "}," for side in (first, second)
        )

    return f"""/*
 * The big boards' evaluation of service/engine/evaluation.json, which Python
 * hands the core at import; the native brain has no JSON reader, so
 * bench/tune.py writes this copy (service/engine/evaluation.py's header()).
 * Do not edit: tests/brain/test_native.py fails when the two differ.
 * Patterns: {", ".join(PATTERN_NAMES)}.
 * Kinds: {", ".join(KIND_NAMES)}.
 * Threat masks: bit i set where the side has the i-th of
 * {", ".join(THREAT_BITS)}.
 * Corrections: one per class of combination, in the core's order (board.h).
 * The network: a row per class (the mover's cells, the other side's) and
 * per threat mask, the biases, the output weights and bias (evaluation.c).
 */
#ifndef BRAIN_EVALUATION_H
#define BRAIN_EVALUATION_H

static const int EVALUATION_PATTERN_WORTH[2][PATTERNS] = {{
{pair(weights.pattern_worth, weights.pattern_worth_other)}
}};
static const int EVALUATION_KIND_BONUS[2][KINDS] = {{
{pair(weights.kind_bonus, weights.kind_bonus_other)}
}};
static const int EVALUATION_TEMPO = {weights.tempo};
static const int EVALUATION_THREAT_VALUES[THREAT_MASKS] = {{
{rows(weights.threat_values, 16)}
}};
static const int EVALUATION_CORRECTION[2][COMBINATION_CLASSES] = {{
    {{
{rows(weights.correction, 16)}
    }},
    {{
{rows(weights.correction_other, 16)}
    }},
}};
static const int EVALUATION_NETWORK_CELLS[2][COMBINATION_CLASSES][NET_HIDDEN] = {{
    {{
{nested(weights.network.mover)}
    }},
    {{
{nested(weights.network.other)}
    }},
}};
static const int EVALUATION_NETWORK_MASK[THREAT_MASKS][NET_HIDDEN] = {{
{nested(weights.network.mask)}
}};
static const int EVALUATION_NETWORK_BIAS[NET_HIDDEN] = {{
{rows(weights.network.bias, 16)}
}};
static const int EVALUATION_NETWORK_OUT[NET_HIDDEN] = {{
{rows(weights.network.out, 16)}
}};
static const int EVALUATION_NETWORK_OUT_BIAS = {weights.network.out_bias};
static const int EVALUATION_NETWORK_LINEAR[NET_HIDDEN] = {{
{rows(weights.network.linear, 16)}
}};

#endif
"""


def apply(weights: Weights, core: ModuleType = _core) -> None:
    """Make ``weights`` the core's (or another build's, ``core``, as
    bench/depth_nodes.py loads them): only before any search (see board.h).
    A build older than the threat values or the corrections
    (bench/depth_nodes.py's baseline, say) gets the rest."""
    base = (
        weights.pattern_worth,
        weights.kind_bonus,
        weights.pattern_worth_other,
        weights.kind_bonus_other,
        weights.tempo,
    )
    try:
        core.set_evaluation(*base, weights.correction, weights.correction_other)
    except TypeError:  # a build older than the corrections takes the five
        core.set_evaluation(*base)
    if hasattr(core, "set_threat_values"):
        core.set_threat_values(weights.threat_values)
    if hasattr(core, "set_network"):
        n = weights.network
        try:
            core.set_network(n.mover, n.other, n.mask, n.bias, n.out, n.out_bias, n.linear)
        except TypeError:  # a build older than the linear weights takes the six
            core.set_network(n.mover, n.other, n.mask, n.bias, n.out, n.out_bias)
