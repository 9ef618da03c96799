#!/usr/bin/env bash
# Installs the Debian 12 packages gpufeed needs, only those missing.
#   scripts/install-deps.sh build    compiler, make, jansson, liburing, zlib
#   scripts/install-deps.sh test     + clang, cmocka, jq, python3-yaml (YAML
#                                      outputs parsed by a real parser), numactl
#   scripts/install-deps.sh bench    + fio (bench/compare-fio.sh; Debian 12 has fio 3.33)
# Needs root (or sudo) only when something is missing.
set -euo pipefail

build=(build-essential pkg-config libjansson-dev liburing-dev zlib1g-dev)
test=(clang libcmocka-dev jq python3-yaml numactl)
bench=(fio)

case ${1:-build} in
build) want=("${build[@]}") ;;
test) want=("${build[@]}" "${test[@]}") ;;
bench) want=("${build[@]}" "${test[@]}" "${bench[@]}") ;;
*) echo "usage: $0 build|test|bench" >&2; exit 2 ;;
esac

missing=()
for p in "${want[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
	sudo=()
elif command -v sudo >/dev/null; then
	sudo=(sudo)
else
	echo "Missing packages: ${missing[*]}; run as root: apt-get install -y ${missing[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
