#!/usr/bin/env bash
# How fast `gpufeed plan` chooses: on the 16-GPU recording, 8 of 16 (12,870
# sets) and the other sizes, RUNS times each.  Reports the median and the
# spread (min-max) of the selection alone (the JSON's select_ms, timed inside
# the library around the search) and of the whole command (process start,
# reading the recording, the search, the output).  Target: under 10 ms.
# The command is timed by bash's $EPOCHREALTIME from just before the fork
# to just after the wait; TIMER=date times it as the first version did,
# by two `date` processes whose exit and start fall inside the interval
# (about 1.7 ms more on the 2-CPU CI machine).
#   bench/plan-speed.sh [OUTDIR]     (RUNS=50 by default)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
gpufeed=${GPUFEED:-$src/build/gpufeed}
runs=${RUNS:-50}
timer=${TIMER:-epochrealtime}
out=${1:-}
fix=${GPUFEED_FIXTURES:-$src/build/fixtures/machines}
"$src/tests/fixtures/tools/unpack.sh" "$fix" >/dev/null
root=$fix/dual-16gpu-pcie-tree/root
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for n in 1 2 4 8 16; do
	for _ in $(seq "$runs"); do
		if [ "$timer" = date ]; then
			t0=$(date +%s%N)
			"$gpufeed" plan --root "$root" --gpus "$n" --json >"$tmp/plan.json"
			t1=$(date +%s%N)
			us=$(((t1 - t0) / 1000))
		else
			t0=${EPOCHREALTIME/[.,]/}	# microseconds: always 6 decimals
			"$gpufeed" plan --root "$root" --gpus "$n" --json >"$tmp/plan.json"
			t1=${EPOCHREALTIME/[.,]/}
			us=$((t1 - t0))
		fi
		echo "$n $(jq .select_ms "$tmp/plan.json") $us" >>"$tmp/samples"
	done
done
python3 - "$tmp/samples" "$runs" "$timer" <<'PY' | tee "$tmp/summary.txt"
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
print(f"# gpufeed plan on dual-16gpu-pcie-tree, {sys.argv[2]} runs per size (ms), timer {sys.argv[3]}")
print(f"{'gpus':>4} {'select median':>14} {'select min-max':>16} {'command median':>15} {'command min-max':>16}")
for n in sorted({int(r[0]) for r in rows}):
    sel = [float(r[1]) for r in rows if int(r[0]) == n]
    cmd = [int(r[2]) / 1000 for r in rows if int(r[0]) == n]
    print(f"{n:>4} {statistics.median(sel):>14.3f} {min(sel):>7.3f}-{max(sel):<8.3f}"
          f" {statistics.median(cmd):>15.2f} {min(cmd):>7.2f}-{max(cmd):<8.2f}")
PY
if [ -n "$out" ]; then
	mkdir -p "$out"
	cp "$tmp/samples" "$out/samples.txt"
	cp "$tmp/summary.txt" "$out/summary.txt"
fi
