"""Renju's tactical suite (``bench/renju_tactics.json``): its labels checked
again by the plain reference, and the engine right on every position at a
budget of 1,000 nodes (``bench/renju_tactics.py`` runs it at the service's
defaults, where timing belongs)."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from service.engine import Engine
from tests import renju_reference as reference

BENCH = Path(__file__).resolve().parents[2] / "bench"
ENTRIES: list[dict[str, Any]] = json.loads((BENCH / "renju_tactics.json").read_text())["positions"]


def suite_module() -> ModuleType:
    """bench/renju_tactics.py, imported as the bench scripts import each other."""
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("renju_tactics", BENCH / "renju_tactics.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


SUITE = suite_module()


def test_the_suite_is_large_and_varied() -> None:
    counts = Counter(entry["category"] for entry in ENTRIES)
    assert sum(counts.values()) >= 100
    assert set(counts) == {"forbidden-block-win", "forbidden-block-loss", "false-four"}
    assert min(counts.values()) >= 30


@pytest.mark.parametrize(
    "entry", ENTRIES, ids=[f"{i}-{e['category']}" for i, e in enumerate(ENTRIES)]
)
def test_each_label_is_the_references(entry: dict[str, Any]) -> None:
    grid = [list(row) for row in entry["board"].split("/")]
    assert SUITE.label(grid, entry["category"]) == {k: v for k, v in entry.items() if k != "cell"}
    if entry["category"] == "false-four":
        rows = entry["board"].split("/")
        gap = divmod(entry["cell"], len(rows))
        assert reference.forbidden_kind(rows, *gap) == "overline"
        assert not reference.makes_five(rows, *gap)


@pytest.mark.parametrize(
    "entry", ENTRIES, ids=[f"{i}-{e['category']}" for i, e in enumerate(ENTRIES)]
)
def test_the_engine_is_right_at_1000_nodes(entry: dict[str, Any]) -> None:
    analysis = Engine(node_budget=1_000, table_bytes=1 << 20).analyze(SUITE.position(entry))
    assert SUITE.right_answer(entry, analysis) is None
