"""The TypeScript client: it builds, its types match openapi.json, its Node test
files pass against this package's real server, and the packed package plays in
a fresh Node project with no other package installed, the example of docs/clients.md too.

``make test`` installs its development packages first (``npm ci``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.clients.conftest import BATCH_LIMIT, documented_example
from tests.server import RunningServer

pytestmark = pytest.mark.server
PACKAGE = Path(__file__).resolve().parents[2] / "clients" / "typescript"
NODE_TESTS = sorted(path.name for path in (PACKAGE / "test").glob("*.test.js"))


def run(command: list[str], cwd: Path, timeout: float = 120, **env: str) -> str:
    """Run ``command``; its output, or a failure that shows it."""
    done = subprocess.run(
        command,
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def built() -> Path:
    if not (PACKAGE / "node_modules" / ".bin" / "tsc").exists():
        pytest.fail("clients/typescript has no node_modules: run `make test` (it runs npm ci)")
    shutil.rmtree(PACKAGE / "dist", ignore_errors=True)
    run(["npm", "run", "--silent", "build"], PACKAGE)
    return PACKAGE / "dist"


def test_the_build_writes_javascript_and_declarations(built: Path) -> None:
    assert {path.name for path in built.iterdir()} >= {"index.js", "index.d.ts", "schema.d.ts"}
    manifest = json.loads((PACKAGE / "package.json").read_text())
    assert manifest["type"] == "module"
    assert manifest["exports"]["."] == {"types": "./dist/index.d.ts", "default": "./dist/index.js"}
    assert "dependencies" not in manifest, "the client must need nothing beyond fetch"


def test_callers_types_compile(built: Path) -> None:
    tsc = PACKAGE / "node_modules" / ".bin" / "tsc"
    run([str(tsc), "--project", "test/tsconfig.json"], PACKAGE)


@pytest.mark.parametrize("name", NODE_TESTS)
def test_node_test_file_passes(built: Path, server: RunningServer, name: str) -> None:
    output = run(
        ["node", "--test", f"test/{name}"],
        PACKAGE,
        TICTACTOE_URL=server.url,
        TICTACTOE_BATCH_LIMIT=str(BATCH_LIMIT),
    )
    counts = dict(re.findall(r"^# (pass|fail|skipped|cancelled) (\d+)$", output, re.MULTILINE))
    assert int(counts["pass"]) > 0, output
    assert (counts["fail"], counts["skipped"], counts["cancelled"]) == ("0", "0", "0"), output


PLAY = """
import { createClient, isProblem, ProblemError } from "tictactoe-client";

const client = createClient({ baseUrl: process.argv[2], batchLimit: Number(process.argv[3]) });
const move = await client.move({ board: "X...O...." });
const analysis = await client.analysis({ board: "XX.OO...." });
const requests = [...Array(6).fill({ board: "....X...." }), { board: "XX......." }];
const batch = await client.batch(requests);
let problem = null;
try {
  await client.move({ board: "XXXOO...." });
} catch (error) {
  if (!(error instanceof ProblemError)) throw error;
  problem = [error.type, error.status, error.problem.winner];
}
console.log(JSON.stringify({
  move: move.move.index,
  best: analysis.moves[0].index,
  batch: batch.map((r) => (isProblem(r) ? r.type : r.move.index)),
  problem,
}));
"""


def test_a_fresh_node_project_with_only_the_package_plays(
    built: Path, server: RunningServer, tmp_path: Path
) -> None:
    packed = run(["npm", "pack", "--silent", "--pack-destination", str(tmp_path)], PACKAGE)
    tarball = tmp_path / packed.strip().splitlines()[-1]
    app = tmp_path / "app"
    app.mkdir()
    (app / "package.json").write_text('{"name": "app", "private": true, "type": "module"}')
    run(["npm", "install", "--silent", "--no-audit", "--no-fund", "--offline", str(tarball)], app)
    installed = [path.name for path in (app / "node_modules").iterdir()]
    assert [name for name in installed if not name.startswith(".")] == ["tictactoe-client"]
    (app / "play.mjs").write_text(PLAY)
    played = run(["node", "play.mjs", server.url, str(BATCH_LIMIT)], app)
    assert json.loads(played) == {
        "move": 1,
        "best": 2,
        "batch": [0] * 6 + ["/problems/illegal-position"],
        "problem": ["/problems/game-over", 422, "X"],
    }
    (app / "documented.mjs").write_text(documented_example("import { createClient", server.url))
    assert run(["node", "documented.mjs"], app).splitlines() == [
        "0 1 XX..O.... in_progress",
        "/problems/game-over X",
    ]
