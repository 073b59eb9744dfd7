"""bench/depth_nodes.py: two builds side by side to a fixed depth. The same
build twice searches the same trees, so the two columns must agree."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from service.engine import _core

BENCH = Path(__file__).resolve().parents[2] / "bench"
CORE = str(_core.__file__)


def side_by_side(base: str, changed: str, *flags: str) -> tuple[list[tuple[str, str]], str]:
    """Each position's row as (base's column, changed's), and the output."""
    out = subprocess.run(
        [sys.executable, str(BENCH / "depth_nodes.py"), base, changed, *flags],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout
    rows = [line for line in out.splitlines() if "|" in line and not line.startswith("depth")]
    columns = [row.split(":", 1)[1].split("|") for row in rows]
    return [(left.strip(), right.strip()) for left, right in columns], out


def test_the_same_build_twice_searches_the_same_nodes() -> None:
    rows, out = side_by_side(CORE, CORE, "--positions", "3", "--depth", "4")
    assert len(rows) == 3
    for base, changed in rows:
        assert base.split(" nodes")[0] == changed.split(" nodes")[0]
        assert base.split("best")[1] == changed.split("best")[1]
    assert "(+0% nodes); the same best move in 3 of 3" in out


def test_a_build_that_is_not_there_is_named(tmp_path: Path) -> None:
    command = [sys.executable, str(BENCH / "depth_nodes.py"), CORE, str(tmp_path)]
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=300)
    assert done.returncode != 0 and f"{tmp_path}/service/engine/_core" in done.stderr
    assert "no built core there" in done.stderr


def test_own_weights_give_a_checkout_its_own_evaluation(tmp_path: Path) -> None:
    """With --own-weights a checkout's build evaluates with its own
    evaluation.json, read by its own evaluation.py; without, with this
    checkout's (the same build twice then searches the same trees)."""
    engine = Path(CORE).parent
    copy = tmp_path / "service" / "engine"
    copy.mkdir(parents=True)
    shutil.copy(CORE, copy / Path(CORE).name)  # a copy: a link would load as the same library
    shutil.copy(engine / "evaluation.py", copy / "evaluation.py")
    record = json.loads((engine / "evaluation.json").read_text())
    network = record["network"]
    network["out_bias"] = -3000 if network["out_bias"] >= 0 else 3000  # within the core's bound
    (copy / "evaluation.json").write_text(json.dumps(record))

    def values(*flags: str) -> list[tuple[str, str]]:
        rows, _ = side_by_side(CORE, str(tmp_path), "--positions", "2", "--depth", "2", *flags)
        assert len(rows) == 2
        return [(base.split("best")[1], changed.split("best")[1]) for base, changed in rows]

    assert all(base == changed for base, changed in values())
    assert any(base != changed for base, changed in values("--own-weights"))
