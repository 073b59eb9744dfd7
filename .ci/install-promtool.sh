#!/usr/bin/env bash
# Unpack promtool from Debian's prometheus package into .tools/bin, without
# installing the package (which would bring a daemon and 90 MB of web assets).
# tests/ops/test_metrics.py runs .tools/bin/promtool, or promtool from PATH.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="${repo_root}/.tools/bin/promtool"
if [[ -x "${target}" ]] || command -v promtool >/dev/null; then
    exit 0
fi
echo "installing promtool from Debian's prometheus package into .tools/bin"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
cd "${work}"
if ! apt-get download prometheus >/dev/null 2>&1; then
    apt-get update -qq
    apt-get download prometheus
fi
dpkg-deb -x prometheus_*.deb unpacked
mkdir -p "$(dirname "${target}")"
cp unpacked/usr/bin/promtool "${target}"
"${target}" --version | head -1
