#!/usr/bin/env bash
# Install Debian packages whose binary is missing, e.g.
#   bash .ci/install-debian-packages.sh chromium nginx gcc-mingw-w64-x86-64:x86_64-w64-mingw32-gcc
# Each argument is a package whose main binary has the same name (chromium,
# nginx, wrk), or package:binary where they differ (gcc-mingw-w64-x86-64 installs
# x86_64-w64-mingw32-gcc; wine64 puts its loader off PATH: wine64:/usr/lib/wine/wine64).
# A package whose binary is already on PATH or in /usr/sbin (or at its path) is
# left alone, so a second run installs nothing, prints nothing and calls no
# apt-get at all. Otherwise: one `apt-get update`, then one install of the
# missing packages, without recommends, its output kept in a log that is
# printed only on failure. Root runs apt-get itself; anyone else through sudo.
set -euo pipefail

# A name on PATH or in /usr/sbin, or an absolute path (command -v takes one).
have() { command -v "$1" >/dev/null 2>&1 || [[ -x "/usr/sbin/$1" ]]; }

missing=()
binaries=()
for argument in "$@"; do
    package="${argument%%:*}"
    binary="${argument#*:}"
    if ! have "${binary}"; then
        missing+=("${package}")
        binaries+=("${binary}")
    fi
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
for index in "${!missing[@]}"; do
    have "${binaries[index]}" || {
        echo "${missing[index]} was installed but no ${binaries[index]} binary was found" >&2
        exit 1
    }
done
echo "installed ${missing[*]} in $((SECONDS - started)) s"
