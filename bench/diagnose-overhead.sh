#!/usr/bin/env bash
# What gpufeed diagnose costs the job it watches: the step time of a fixed
# CPU job (bench/diagnose/cpu_steps.py: STEPS steps of the same arithmetic,
# gpufeed.step() after each) alone and under `gpufeed diagnose --samples`,
# interleaved (alone, diagnosed, alone, ...) PAIRS times so that a change in
# the machine's load falls on both; the median of each run's median step,
# the spread (min-max) of those, the difference, the same for each step's
# CPU time (what the step costs, apart from waits for a CPU on a busy
# machine), diagnose's own CPU time,
# and the bytes --samples writes, scaled to an hour.
#   bench/diagnose-overhead.sh [OUTDIR]   (PAIRS=7 STEPS=300 WORK=300000 INTERVAL=1)
# OUTDIR gets the runs' JSON, the summary (summary.txt) and the machine.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$src/build}
gpufeed=${GPUFEED:-$build/gpufeed}
pairs=${PAIRS:-7} steps=${STEPS:-300} work=${WORK:-300000} interval=${INTERVAL:-1}
out=${1:-$(mktemp -d)}
mkdir -p "$out"
py=/usr/bin/python3
pkg=$build/diagnose-bench/gpufeed
mkdir -p "$pkg"
cp "$src"/python/gpufeed/*.py "$pkg"/
make -C "$src" -s BUILD="$build" PY_EXT="$pkg/_gpufeed.abi3.so" python
export PYTHONPATH=$build/diagnose-bench
unset GPUFEED_DIAGNOSE
job=("$py" "$src/bench/diagnose/cpu_steps.py" "$steps" "$work")

{
	echo "command: bench/diagnose-overhead.sh (PAIRS=$pairs STEPS=$steps WORK=$work INTERVAL=$interval)"
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "gpufeed: $("$gpufeed" --version | head -1), commit $(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')), $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "kernel: $(uname -r); python: $("$py" --version 2>&1)"
} >"$out/machine.txt"

for i in $(seq "$pairs"); do
	"${job[@]}" >"$out/alone-$i.json"
	"$gpufeed" diagnose --interval "$interval" --json --report "$out/report-$i.json" \
		--samples "$out/samples-$i.jsonl" -- "${job[@]}" >"$out/diagnosed-$i.json"
done

"$py" - "$out" "$pairs" "$interval" <<'PY' | tee "$out/summary.txt"
import json, statistics, sys, os
out, pairs, interval = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
def load(name):
    with open(os.path.join(out, name)) as f:
        return json.load(f)
alone = [load("alone-%d.json" % i)["median_s"] for i in range(1, pairs + 1)]
diag = [load("diagnosed-%d.json" % i)["median_s"] for i in range(1, pairs + 1)]
reports = [load("report-%d.json" % i) for i in range(1, pairs + 1)]
ma, md = statistics.median(alone), statistics.median(diag)
print("step time alone:     median %.4f s (spread %.4f-%.4f over %d runs)" % (ma, min(alone), max(alone), pairs))
print("step time diagnosed: median %.4f s (spread %.4f-%.4f over %d runs)" % (md, min(diag), max(diag), pairs))
print("difference: %+.2f%% of the step (pairwise: %s)" % (100 * (md - ma) / ma,
      ", ".join("%+.1f%%" % (100 * (d - a) / a) for a, d in zip(alone, diag))))
ca = [load("alone-%d.json" % i)["cpu_median_s"] for i in range(1, pairs + 1)]
cd = [load("diagnosed-%d.json" % i)["cpu_median_s"] for i in range(1, pairs + 1)]
print("CPU time a step alone:     median %.4f s (spread %.4f-%.4f)" % (statistics.median(ca), min(ca), max(ca)))
print("CPU time a step diagnosed: median %.4f s (spread %.4f-%.4f); difference %+.2f%%" % (
      statistics.median(cd), min(cd), max(cd), 100 * (statistics.median(cd) - statistics.median(ca)) / statistics.median(ca)))
cpu = [r["overhead"]["cpu_s"] / r["observed_s"] for r in reports]
print("diagnose's own CPU: median %.2f%% of one CPU (spread %.2f-%.2f%%)" % (100 * statistics.median(cpu),
      100 * min(cpu), 100 * max(cpu)))
rate = [os.path.getsize(os.path.join(out, "samples-%d.jsonl" % i)) / r["observed_s"] * 3600
        for i, r in zip(range(1, pairs + 1), reports)]
rep = [os.path.getsize(os.path.join(out, "report-%d.json" % i)) for i in range(1, pairs + 1)]
print("output: --samples %.2f MB an hour at --interval %g (one rank); the report %d bytes once" %
      (statistics.median(rate) / 1e6, interval, max(rep)))
print("verdicts: %s" % ", ".join(sorted(set(r["bound"] or "none" for r in reports))))
PY
