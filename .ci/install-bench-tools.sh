#!/usr/bin/env bash
# Install what the load benchmark drives beyond `make test`'s tools:
#   wrk    - the HTTP load generator of bench/load.py (from Debian)
#   nginx  - also a `make test` tool; bench/local_server.py names this script
#   py-spy - a binary wheel on PyPI, into .venv, for `bench/load.py --profile`
# Idempotent: nothing is fetched when everything is present.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${VENV:-${repo_root}/.venv}"

bash "${repo_root}/.ci/install-debian-packages.sh" wrk nginx

if [[ -x "${venv}/bin/python" ]] && ! "${venv}/bin/python" -m pip show py-spy >/dev/null 2>&1; then
    "${venv}/bin/python" -m pip install --quiet --disable-pip-version-check 'py-spy>=0.3.14,<1'
fi
