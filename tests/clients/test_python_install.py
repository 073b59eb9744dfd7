"""The Python client on its own: a fresh virtual environment with nothing but
``pip install clients/python`` plays against a real server, without the service,
FastAPI or pydantic anywhere on its path, and the example of docs/clients.md runs there."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clients.conftest import BATCH_LIMIT, documented_example
from tests.server import RunningServer

pytestmark = pytest.mark.server
ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import importlib.util, json, sys
from tictactoe_client import Client, MoveRequest, Problem, ProblemError

with Client(sys.argv[1], batch_limit=int(sys.argv[2])) as client:
    move = client.move("X...O....")
    analysis = client.analysis("XX.OO....")
    batch = client.batch([MoveRequest("....X....")] * 6 + [MoveRequest("XX.......")])
    try:
        client.move("XXXOO....")
        problem = None
    except ProblemError as error:
        problem = [error.type, error.status, error.raw["winner"]]
print(json.dumps({
    "move": move.move.index,
    "best": analysis.moves[0].index,
    "batch": [r.type if isinstance(r, Problem) else r.move.index for r in batch],
    "problem": problem,
    "absent": [m for m in ("fastapi", "pydantic", "service") if not importlib.util.find_spec(m)],
}))
"""


def test_a_fresh_venv_with_only_the_client_plays(server: RunningServer, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", venv], check=True, timeout=120)
    python = venv / "bin" / "python"
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")
    }
    install = subprocess.run(
        [python, "-m", "pip", "install", "-q", ROOT / "clients" / "python"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert install.returncode == 0, install.stderr
    (tmp_path / "play.py").write_text(SCRIPT)
    played = subprocess.run(
        [python, "play.py", server.url, str(BATCH_LIMIT)],
        cwd=tmp_path,  # not the repository: nothing of the service is importable
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert played.returncode == 0, played.stderr
    documented = subprocess.run(
        [python, "-c", documented_example("from tictactoe_client", server.url)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert (documented.stderr, documented.stdout.splitlines()) == (
        "",
        [
            "2 0.0 draw True",
            "[2, 5, 6, 7, 8]",
            "O...X....",
            "/problems/illegal-position",
            "/problems/game-over 422 X",
        ],
    )
    assert json.loads(played.stdout) == {
        "move": 1,
        "best": 2,
        "batch": [0] * 6 + ["/problems/illegal-position"],
        "problem": ["/problems/game-over", 422, "X"],
        "absent": ["fastapi", "pydantic", "service"],
    }
