"""Two builds of the compiled core, side by side in one process: the node rate of
each on the engine benchmark's 8 rate positions, alternated position by position.

    .venv/bin/python bench/core_ab.py 2f5424c b22545e        # two commits
    .venv/bin/python bench/core_ab.py HEAD .                 # HEAD against the working tree

Each side is a git revision (or ``.``, the working tree): its core's C sources
(one ``_core.c`` before the core became a folder, ``service/engine/core/`` since)
are compiled with the flags of its own ``setup.py`` into a temporary directory
and loaded as a module of its own. Every position gets a new table for each build,
as in ``bench/engine.py``'s target measure, and the two builds take turns in
opposite order from one position to the next and from one round to the next,
so neither always runs first on any position (a build that always ran first
on the longest position measured 10% slower than the same code second).
Prints each build's nodes and the median of its per-round rates, and the
ratio. Identical node counts say the two builds search the same trees.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import runpy
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import setuptools
from engine import mid_game_positions
from local_server import REPO

from service.engine import Board, Player
from service.engine.analysis import budget_shares
from service.engine.search import shape_arguments

BUDGET = 3_000_000  # as bench/engine.py's node rate
TABLE_BYTES = 64 << 20  # the default table


def export(revision: str, here: Path, paths: tuple[str, ...] = ("setup.py", "service")) -> None:
    """``revision``'s ``paths`` (by default its ``setup.py`` and the package, whose
    ``engine/core/`` and, from the one-brain change on, ``brain/native/`` are
    the extension's sources),
    written under ``here``."""
    if revision == ".":
        for path in paths:
            subprocess.run(["cp", "-r", "--parents", path, str(here)], cwd=REPO, check=True)
        return
    archive = subprocess.run(
        ["git", "archive", revision, *paths], cwd=REPO, check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(here)], input=archive, check=True)


def setup_extension(setup_py: Path) -> tuple[list[str], list[str]]:
    """The core's sources and compile flags, as that ``setup.py`` hands them to
    setuptools (run from its own directory, where it finds its sources)."""
    captured: dict[str, Any] = {}
    real = setuptools.setup
    setuptools.setup = lambda **kwargs: captured.update(kwargs)
    cwd = Path.cwd()
    try:
        os.chdir(setup_py.parent)
        runpy.run_path(str(setup_py))
    finally:
        os.chdir(cwd)
        setuptools.setup = real
    (extension,) = captured["ext_modules"]
    return list(extension.sources), list(extension.extra_compile_args)


def build(revision: str, here: Path) -> ModuleType:
    """``revision``'s core, built in the new directory ``here`` and loaded."""
    here.mkdir()
    export(revision, here)
    sources, flags = setup_extension(here / "setup.py")
    library = here / f"_core{sysconfig.get_config_var('EXT_SUFFIX')}"
    command = [
        *str(sysconfig.get_config_var("CC")).split(),
        *str(sysconfig.get_config_var("CFLAGS")).split(),
        *str(sysconfig.get_config_var("CCSHARED")).split(),
        *flags,
        f"-I{sysconfig.get_paths()['include']}",
        "-shared",
        *(str(here / source) for source in sources),
        "-o",
        str(library),
    ]
    subprocess.run(command, check=True)
    spec = importlib.util.spec_from_file_location("service.engine._core", library)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def analyse(core: ModuleType, board: Board) -> tuple[int, float]:
    """Nodes and seconds of one analysis, on a new table."""
    core_shape = core.Shape(*shape_arguments(board.shape))
    table = core.Table(TABLE_BYTES)
    started = time.perf_counter()
    found = core.analyze(
        core_shape,
        table,
        board.x,
        board.o,
        board.side_to_move is Player.X,
        BUDGET,
        *budget_shares(BUDGET),
    )
    return found[1], time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", help="a git revision, or . for the working tree")
    parser.add_argument("after", help="a git revision, or . for the working tree")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    boards = mid_game_positions(8, seed=10)
    with tempfile.TemporaryDirectory(prefix="core-ab-") as scratch:
        cores = [
            build(args.before, Path(scratch, "before")),
            build(args.after, Path(scratch, "after")),
        ]
        rates: list[list[float]] = [[], []]
        nodes = [0, 0]
        for round_ in range(args.rounds):
            totals = [[0, 0.0], [0, 0.0]]
            for i, board in enumerate(boards):
                for side in (0, 1) if (round_ + i) % 2 == 0 else (1, 0):
                    visited, seconds = analyse(cores[side], board)
                    totals[side][0] += visited
                    totals[side][1] += seconds
            for side in (0, 1):
                nodes[side] = int(totals[side][0])
                rates[side].append(totals[side][0] / totals[side][1] / 1e6)
    for side, revision in enumerate((args.before, args.after)):
        rounds = " / ".join(f"{rate:.2f}" for rate in rates[side])
        print(
            f"{revision:>12}: {nodes[side]:,} nodes, "
            f"{statistics.median(rates[side]):.2f} M nodes/s (rounds {rounds})"
        )
    ratio = statistics.median(rates[1]) / statistics.median(rates[0])
    same = "the same nodes" if nodes[0] == nodes[1] else "different nodes"
    print(f"{args.after} / {args.before}: {ratio:.3f} ({same})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
