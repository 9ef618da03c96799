#!/usr/bin/env bash
# The CPU time of one gf_monitor_sample (bench/monitor-cost.c) on the
# 4 x H200 VM's recording with this machine's /proc counters and the
# stand-in NVML: the sampler's own cost, docs/monitor.md "Cost".
#   bench/monitor-cost.sh [CALLS]      (after make; BUILD=build by default)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build=$src/$build ;; esac
calls=${1:-2000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -C "$tmp" -xzf "$src/tests/fixtures/machines/h200x4-vm/root.tar.gz"
root=$tmp/root
for f in stat diskstats meminfo; do cp "/proc/$f" "$root/proc/$f"; done
cc -std=c11 -D_GNU_SOURCE -O2 -I"$src/include" -I"$src/src" -o "$tmp/monitor-cost" "$src/bench/monitor-cost.c" \
	"$build/libgpufeed.a" $(pkg-config --libs jansson liburing zlib 2>/dev/null || echo -ljansson -luring -lz) -ldl -lpthread -lm
# A process with threads to sample: this shell's.
mkdir -p "$root/proc/$$"
cp -r /proc/$$/stat /proc/$$/io "$root/proc/$$/" 2>/dev/null || true
mkdir -p "$root/proc/$$/task/$$"
cp /proc/$$/task/$$/stat /proc/$$/task/$$/schedstat "$root/proc/$$/task/$$/"
export GPUFEED_NVML_LIBRARY=$build/fakes/libnvidia-ml.so.1
"$tmp/monitor-cost" "$root" "$calls"
"$tmp/monitor-cost" "$root" "$calls" $$
FAKE_NVML_SCENARIO=no_gpm "$tmp/monitor-cost" "$root" "$calls"
