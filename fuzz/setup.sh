#!/usr/bin/env bash
# Installs what the fuzz targets need beyond .ci/deps: clang and its libFuzzer/sanitizer runtime
# (Debian 12: clang-14 and libclang-rt-14-dev). Only what is missing; sudo when not root.
set -euo pipefail
packages=(clang libclang-rt-14-dev python3)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}" >&2
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq "${missing[@]}" >&2
