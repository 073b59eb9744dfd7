"""docs/experiments/: the changes to the search that docs/strength.md reports
and did not keep, each saved as a patch on the commit of main it was measured
from. An experiment's branch does not outlive the checkout it was made in;
its patch does, and any of them can be built and played again::

    git worktree add -b exp-x ../exp-x BASE
    git -C ../exp-x apply "$PWD/docs/experiments/exp-x.patch" && git -C ../exp-x commit -qam exp-x

Each patch names its base (``base-commit:``), a commit of this repository's
history, and applies to it cleanly. (In a shallow clone, which lacks the
history, the check is skipped; a full clone, as ``make test`` runs in, has it.)"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENTS = ROOT / "docs" / "experiments"
PATCHES = sorted(EXPERIMENTS.glob("*.patch"))
BASE = re.compile(r"^base-commit: ([0-9a-f]{40})$", re.M)


def git(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(ROOT), *args], capture_output=True, text=True, env=env, check=False
    )


def test_there_are_experiments_and_strength_md_points_to_them() -> None:
    assert PATCHES
    assert "(experiments/)" in (ROOT / "docs" / "strength.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("patch", PATCHES, ids=lambda path: path.stem)
def test_an_experiment_applies_to_the_commit_it_names(patch: Path, tmp_path: Path) -> None:
    text = patch.read_text(encoding="utf-8")
    assert patch.stem.startswith("exp-") and text.startswith(patch.stem + ": ")
    found = BASE.search(text)
    assert found, f"{patch.name}: no base-commit line"
    base = found.group(1)
    known = git("cat-file", "-e", base + "^{commit}")
    shallow = git("rev-parse", "--is-shallow-repository").stdout.strip() != "false"
    if known.returncode != 0 and shallow:
        pytest.skip("a shallow clone or no git checkout: the history to apply to is not here")
    assert known.returncode == 0, f"{base} is not in the history"
    assert "diff --git" in text
    # The base's tree in an index of its own, and the patch applied to that
    # index alone: the working tree and the repository's index are untouched.
    index = tmp_path / "index"
    read = git("read-tree", f"--index-output={index}", base)
    assert read.returncode == 0, read.stderr
    env = {**os.environ, "GIT_INDEX_FILE": str(index)}
    applied = git("apply", "--cached", "--check", str(patch), env=env)
    assert applied.returncode == 0, applied.stderr
