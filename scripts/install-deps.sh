#!/usr/bin/env bash
# Installs the Debian 12 packages gpufeed needs, only those missing.
#   scripts/install-deps.sh build    compiler, make, jansson, liburing, zlib, xxhash
#   scripts/install-deps.sh test     + clang, cmocka, jq, python3-yaml (YAML
#                                      outputs parsed by a real parser), numactl,
#                                      the real clients of gpufeed's outputs:
#                                      slurmd (slurmd -G reads config slurm's
#                                      gres.conf), prometheus (promtool checks
#                                      check --prom and the exporter's metrics; a
#                                      real Prometheus server scrapes the exporter),
#                                      curl (the exporter's HTTP tests), systemd
#                                      (systemd-analyze verify on the units),
#                                      hwloc-nox (lstopo reads every recording,
#                                      tests/cli/test_hwloc.sh), nodejs (with npm, it runs the
#                                      pinned Kubernetes schema and CEL checkers
#                                      of tests/tools/), Python's numpy, torch
#                                      (CPU), pytest, setuptools, pip and headers
#                                      (the binding, tests/python/), libxml2-utils
#                                      (xmllint reads topo --svg), graphviz (dot
#                                      reads topo --dot), chromium (renders the
#                                      picture and report --html headless), zsh
#                                      (its completion, tests/cli/test_completion.sh)
#                                      and the numa group
#   scripts/install-deps.sh numa     the two-node QEMU guest (tests/numa/):
#                                      qemu-system-x86, busybox-static, cpio, and
#                                      a Debian cloud kernel extracted (dpkg-deb -x,
#                                      not installed) into $GPUFEED_QEMU_CACHE/kernel
#                                      (default /var/tmp/gpufeed-qemu)
#   scripts/install-deps.sh bench    + fio (bench/compare-fio.sh; Debian 12 has fio 3.33)
# Needs root (or sudo) only when something is missing.
set -euo pipefail

build=(build-essential pkg-config libjansson-dev liburing-dev zlib1g-dev libxxhash-dev)
test=(clang libcmocka-dev jq python3-yaml numactl slurmd prometheus curl systemd nodejs hwloc-nox
      python3-numpy python3-torch python3-pytest python3-setuptools python3-dev python3-pip
      libxml2-utils chromium graphviz zsh)
bench=(fio)
numa=(qemu-system-x86 busybox-static cpio xz-utils)

case ${1:-build} in
build) want=("${build[@]}") ;;
numa) want=("${numa[@]}") ;;
test) want=("${build[@]}" "${test[@]}" "${numa[@]}") ;;
bench) want=("${build[@]}" "${test[@]}" "${numa[@]}" "${bench[@]}") ;;
*) echo "usage: $0 build|test|bench|numa" >&2; exit 2 ;;
esac

# The guest kernel for tests/numa/: the newest linux-image-*-cloud-amd64
# (CONFIG_NUMA=y) from apt, downloaded as a .deb and unpacked as files only.
guest_kernel() {
	local cache=${GPUFEED_QEMU_CACHE:-/var/tmp/gpufeed-qemu} pkg deb
	ls "$cache"/kernel/boot/vmlinuz-* >/dev/null 2>&1 && return 0
	mkdir -p "$cache"
	deb=$(ls "$cache"/linux-image-*-cloud-amd64_*.deb 2>/dev/null | sort -V | tail -1 || true)
	if [ -z "$deb" ]; then
		pkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null | awk '/Depends: linux-image-/{print $2; exit}')
		[ -n "$pkg" ] || pkg=$(apt-cache search --names-only '^linux-image-[0-9.]+-[0-9]+-cloud-amd64$' |
				       awk '{print $1}' | sort -V | tail -1)
		[ -n "$pkg" ] || { echo "no linux-image-*-cloud-amd64 package known to apt (apt-get update?)" >&2; return 1; }
		echo "Downloading $pkg into $cache (unpacked there, not installed)"
		# Stale package lists name a version the mirror no longer has: update once.
		(cd "$cache" && apt-get download -q "$pkg" >/dev/null 2>&1) ||
			{ [ "$(id -u)" -eq 0 ] && apt-get update -qq && (cd "$cache" && apt-get download -q "$pkg" >/dev/null); } ||
			{ echo "apt-get download $pkg failed" >&2; return 1; }
		deb=$(ls "$cache"/linux-image-*-cloud-amd64_*.deb | sort -V | tail -1)
	fi
	rm -rf "$cache/kernel.tmp" && dpkg-deb -x "$deb" "$cache/kernel.tmp" && mv "$cache/kernel.tmp" "$cache/kernel"
}

missing=()
for p in "${want[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# The kernel comes with the numa group (busybox-static stands for it).
numa_kernel() { [[ " ${want[*]} " != *" busybox-static "* ]] || guest_kernel; }
if [ ${#missing[@]} -eq 0 ]; then
	numa_kernel
	exit
fi

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
numa_kernel
