#!/usr/bin/env bash
# Install what the load benchmark drives beyond `make test`'s tools:
#   wrk    - the HTTP load generator of bench/load.py (from Debian)
#   nginx  - also a `make test` tool; bench/local_server.py names this script
#   redis-server - also a `make test` tool: the shared limits of bench/fairness.py
#   py-spy - a binary wheel on PyPI, into .venv, for `bench/load.py --profile`
#   the public gomoku programs of bench/strength.py (below)
# Idempotent: nothing is fetched when everything is present.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${VENV:-${repo_root}/.venv}"

bash "${repo_root}/.ci/install-debian-packages.sh" wrk nginx redis-server

if [[ -x "${venv}/bin/python" ]] && ! "${venv}/bin/python" -m pip show py-spy >/dev/null 2>&1; then
    "${venv}/bin/python" -m pip install --quiet --disable-pip-version-check 'py-spy>=0.3.14,<1'
fi

# The public gomoku programs bench/strength.py plays against, each in a folder
# of its own under .tools/bench (both packages name their module `gomoku`).
# None of their code is in this repository: they are installed from PyPI.
install_program() {
    local folder="${repo_root}/.tools/bench/$1"
    shift
    if [[ ! -f "${folder}/.installed" ]]; then
        rm -rf "${folder}"
        "${venv}/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
            --target "${folder}" "$@"
        touch "${folder}/.installed"
    fi
}
install_program gomoku-terminal 'gomoku-terminal==1.0.2'
install_program gomoku 'gomoku==0.1.0' 'gmpy2>=2.1,<3'
