#!/usr/bin/env bash
# Install checkov into its own virtual environment, .venv-checkov.
#
# checkov pins many libraries (boto3, networkx, pydantic, ...) that clash with
# the service's dependencies, so it never goes into .venv. tests/test_deploy.py
# runs .venv-checkov/bin/checkov and fails (not skips) when it is missing.
#
# Idempotent: re-running upgrades within the pinned range only if needed.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${repo_root}/.venv-checkov"
python="${PYTHON:-python3}"

# checkov 3.x is the line whose check IDs and skip syntax our manifests use;
# a new major may rename checks, so it is a deliberate upgrade, not a drift.
checkov_spec='checkov>=3.2.400,<4'

if [[ ! -x "${venv}/bin/python" ]]; then
    "${python}" -m venv "${venv}"
fi
"${venv}/bin/python" -m pip install --quiet --disable-pip-version-check "${checkov_spec}"
"${venv}/bin/checkov" --version
