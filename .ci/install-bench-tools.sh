#!/usr/bin/env bash
# Install what the load benchmark and the reliability suite drive, from Debian:
#   wrk    - the HTTP load generator of bench/load.py
#   nginx  - the reverse proxy of tests/reliability/test_rolling_restart.py
# and py-spy (a binary wheel on PyPI) into .venv, for `bench/load.py --profile`.
#
# The tests and the benchmark fail, naming this script, when a binary is
# missing; CI runs it before `make test`. Idempotent: nothing is fetched when
# everything is present. The nginx package's own service is not used (the test
# runs nginx in the foreground from a scratch directory on a free port).
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${VENV:-${repo_root}/.venv}"

have() { command -v "$1" >/dev/null 2>&1 || [[ -x "/usr/sbin/$1" ]]; }

missing=()
have wrk || missing+=(wrk)
have nginx || missing+=(nginx)
if ((${#missing[@]})); then
    as_root=()
    if [[ "$(id -u)" != 0 ]]; then as_root=(sudo); fi
    "${as_root[@]}" apt-get update -qq
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends "${missing[@]}" >/dev/null
fi

if [[ -x "${venv}/bin/python" ]] && ! "${venv}/bin/python" -m pip show py-spy >/dev/null 2>&1; then
    "${venv}/bin/python" -m pip install --quiet --disable-pip-version-check 'py-spy>=0.3.14,<1'
fi

wrk --version 2>&1 | head -n 1 || true
PATH="${PATH}:/usr/sbin" nginx -v
