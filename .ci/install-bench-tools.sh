#!/usr/bin/env bash
# Install the system tools the load benchmark and the reliability suite drive:
#   wrk    - HTTP load generator (bench/load.py)
#   nginx  - reverse proxy for the rolling-restart test (tests/reliability/)
# and py-spy (a binary on PyPI) into .venv for profiling the request path.
#
# The tests FAIL, naming this script, when a binary is missing; CI runs it first.
# Idempotent: nothing is fetched when everything is already present.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${VENV:-${repo_root}/.venv}"

missing=()
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v nginx >/dev/null 2>&1 || missing+=(nginx)
if ((${#missing[@]})); then
    export DEBIAN_FRONTEND=noninteractive
    sudo_cmd=()
    if [[ "$(id -u)" != 0 ]]; then sudo_cmd=(sudo); fi
    "${sudo_cmd[@]}" apt-get update -qq
    "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    # The package starts a system nginx on port 80; the test runs its own instance.
    if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet nginx 2>/dev/null; then
        "${sudo_cmd[@]}" systemctl stop nginx || true
    fi
fi

if [[ -x "${venv}/bin/python" ]] && ! "${venv}/bin/python" -m pip show py-spy >/dev/null 2>&1; then
    "${venv}/bin/python" -m pip install --quiet --disable-pip-version-check 'py-spy>=0.3.14,<1'
fi

wrk --version 2>&1 | head -n 1 || true
nginx -v 2>&1
