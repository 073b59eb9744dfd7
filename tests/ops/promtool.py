"""Where the tests find promtool: .tools/bin (``bash .ci/install-promtool.sh``), else PATH."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def promtool() -> str:
    local = ROOT / ".tools" / "bin" / "promtool"
    found = str(local) if local.exists() else shutil.which("promtool")
    if found is None:
        pytest.fail("promtool is missing: `make tools` installs it (.ci/install-promtool.sh)")
    return found
