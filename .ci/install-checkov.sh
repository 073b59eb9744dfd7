#!/usr/bin/env bash
# Install checkov into its own virtual environment, .venv-checkov.
#
# checkov pins many libraries (boto3, networkx, pydantic, ...) that clash with
# the service's dependencies, so it never goes into .venv. tests/test_deploy.py
# runs .venv-checkov/bin/checkov and fails (not skips) when it is missing.
#
# `make tools` runs it only when .venv-checkov/bin/checkov is missing or older
# than this script; run by hand, it upgrades within the pinned range if needed.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${repo_root}/.venv-checkov"
python="${PYTHON:-python3}"

# checkov 3.x is the line whose check IDs and skip syntax our manifests use;
# a new major may rename checks, so it is a deliberate upgrade, not a drift.
checkov_spec='checkov>=3.2.400,<4'

echo "installing ${checkov_spec} into .venv-checkov (its own virtual environment)"
if [[ ! -x "${venv}/bin/python" ]]; then
    "${python}" -m venv "${venv}"
fi
# pip's output goes to a log, shown only when the install fails.
log="$(mktemp -t checkov-install.XXXXXX.log)"
if ! "${venv}/bin/python" -m pip install --quiet --disable-pip-version-check "${checkov_spec}" \
    >"${log}" 2>&1 </dev/null; then
    grep -v "is ignored" "${log}" | tail -n 30 >&2
    echo "pip failed to install ${checkov_spec}; full log: ${log}" >&2
    exit 1
fi
rm -f "${log}"
"${venv}/bin/checkov" --version
