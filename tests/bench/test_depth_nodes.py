"""bench/depth_nodes.py: two builds side by side to a fixed depth. The same
build twice searches the same trees, so the two columns must agree."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from service.engine import _core

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_the_same_build_twice_searches_the_same_nodes() -> None:
    core = str(_core.__file__)
    command = [sys.executable, str(BENCH / "depth_nodes.py"), core, core]
    out = subprocess.run(
        [*command, "--positions", "3", "--depth", "4"],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout
    rows = [line for line in out.splitlines() if "|" in line and not line.startswith("depth")]
    assert len(rows) == 3
    for row in rows:
        base, changed = (part.strip() for part in row.split(":", 1)[1].split("|"))
        assert base.split(" nodes")[0] == changed.split(" nodes")[0]
        assert base.split("best")[1] == changed.split("best")[1]
    assert "(+0% nodes); the same best move in 3 of 3" in out


def test_a_build_that_is_not_there_is_named(tmp_path: Path) -> None:
    core = str(_core.__file__)
    command = [sys.executable, str(BENCH / "depth_nodes.py"), core, str(tmp_path)]
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=300)
    assert done.returncode != 0 and f"{tmp_path}/service/engine/_core" in done.stderr
    assert "no built core there" in done.stderr
