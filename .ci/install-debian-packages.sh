#!/usr/bin/env bash
# Install Debian packages whose binary is missing, e.g.
#   bash .ci/install-debian-packages.sh chromium nginx
# Each argument is a package whose main binary has the same name (chromium,
# nginx, wrk). A package whose binary is already on PATH or in /usr/sbin is
# left alone, so a second run installs nothing, prints nothing and calls no
# apt-get at all. Otherwise: one `apt-get update`, then one install of the
# missing packages, without recommends, its output kept in a log that is
# printed only on failure. Root runs apt-get itself; anyone else through sudo.
set -euo pipefail

have() { command -v "$1" >/dev/null 2>&1 || [[ -x "/usr/sbin/$1" ]]; }

missing=()
for package in "$@"; do
    have "${package}" || missing+=("${package}")
done
((${#missing[@]})) || exit 0

as_root=()
if [[ "$(id -u)" != 0 ]]; then
    if ! command -v sudo >/dev/null 2>&1; then
        echo "missing: ${missing[*]}; install them as root: apt-get install ${missing[*]}" >&2
        exit 1
    fi
    as_root=(sudo)
fi
log="$(mktemp -t apt-install.XXXXXX.log)"
echo "installing ${missing[*]} from Debian (apt-get; log: ${log})"
started=${SECONDS}
if ! { "${as_root[@]}" apt-get update -qq &&
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends "${missing[@]}"; } >"${log}" 2>&1 </dev/null; then
    tail -n 30 "${log}" >&2
    echo "apt-get failed to install ${missing[*]}; full log: ${log}" >&2
    exit 1
fi
for package in "${missing[@]}"; do
    have "${package}" || { echo "${package} was installed but no ${package} binary was found" >&2; exit 1; }
done
echo "installed ${missing[*]} in $((SECONDS - started)) s"
