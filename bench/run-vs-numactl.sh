#!/usr/bin/env bash
# Start-up cost of `gpufeed run` beside numactl and taskset for the same
# binding (issue 9: "at most a few milliseconds over numactl", the model
# with --nvml=off):
#   gpufeed   gpufeed run --nvml=off --root REC --gpu 0 -- /bin/true
#             (node mode and MPOL_BIND: discover the model from the
#             recording, compute, set the affinity of every thread and the
#             memory policy, export the environment, exec)
#   numactl   numactl --cpunodebind=0 --membind=0 /bin/true
#   taskset   taskset -c CPUS /bin/true (CPUs only: the node's CPUs)
#   true      /bin/true (process start and exit: the floor)
# REC defaults to the ci-2gpu fixture: this machine's shape with two GPUs,
# so the binding is the one numactl makes here (node 0, its CPUs).
# Interleaved: each round runs every command once, in the same order, so a
# slow moment on the machine hits all of them; one discarded warm-up round.
# Wall time per run is bash's $EPOCHREALTIME around it; output to /dev/null.
#
# Writes OUTDIR/{command.txt,raw.csv,summary.txt}: the commands and machine,
# every sample (ms), and per command the median, p10, p90, min, max, and
# gpufeed's median minus numactl's.
#
# usage: bench/run-vs-numactl.sh [-n N] [-g GPUFEED] [-r REC] [-o OUTDIR]
set -euo pipefail

n=200
gf=build/gpufeed
rec=${GPUFEED_FIXTURES:-build/fixtures/machines}/ci-2gpu/root
out=bench/results/$(date -u +%Y-%m-%d)-ci-run-vs-numactl
while getopts "n:g:r:o:" o; do
	case $o in
	n) n=$OPTARG ;;
	g) gf=$OPTARG ;;
	r) rec=$OPTARG ;;
	o) out=$OPTARG ;;
	*) echo "usage: $0 [-n N] [-g GPUFEED] [-r REC] [-o OUTDIR]" >&2; exit 2 ;;
	esac
done
[ -x "$gf" ] || { echo "$0: $gf: not built (make)" >&2; exit 2; }
[ -d "$rec" ] || tests/fixtures/tools/unpack.sh "$(dirname "$(dirname "$rec")")"
command -v numactl >/dev/null || { echo "$0: numactl is needed (scripts/install-deps.sh test)" >&2; exit 2; }
cpus=$(grep Cpus_allowed_list /proc/self/status | awk '{print $2}')
node_cpus=$(cat /sys/devices/system/node/node0/cpulist)
mkdir -p "$out"

names=(gpufeed numactl taskset true)
cmds=(
	"$gf run --nvml=off --root $rec --gpu 0 -- /bin/true"
	"numactl --cpunodebind=0 --membind=0 /bin/true"
	"taskset -c $node_cpus /bin/true"
	"/bin/true"
)
# The binding must work (exit 0) before it is timed.
for c in "${cmds[@]}"; do
	$c >/dev/null || { echo "$0: '$c' failed" >&2; exit 1; }
done

{
	echo "# bench/run-vs-numactl.sh -n $n, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "# machine: $(uname -n), $(uname -r), $(nproc) CPUs allowed ($cpus), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
	echo "# gpufeed: $("$gf" --version), numactl $(dpkg-query -W -f='${Version}' numactl 2>/dev/null || echo '?')"
	for i in "${!names[@]}"; do echo "${names[$i]}: ${cmds[$i]}"; done
} >"$out/command.txt"

echo "round,command,ms" >"$out/raw.csv"
for ((r = 0; r <= n; r++)); do
	for i in "${!names[@]}"; do
		t0=$EPOCHREALTIME
		${cmds[$i]} >/dev/null
		t1=$EPOCHREALTIME
		[ "$r" = 0 ] && continue	# warm-up round
		echo "$r,${names[$i]},$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) * 1000 }')"
	done
done >>"$out/raw.csv"

python3 - "$out/raw.csv" >"$out/summary.txt" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {}
for r in rows:
    by.setdefault(r["command"], []).append(float(r["ms"]))
def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))]
print(f"{'command':<10}{'runs':>6}{'median':>9}{'p10':>8}{'p90':>8}{'min':>8}{'max':>8}  (ms)")
for k, v in by.items():
    print(f"{k:<10}{len(v):>6}{statistics.median(v):>9.3f}{q(v, .1):>8.3f}{q(v, .9):>8.3f}{min(v):>8.3f}{max(v):>8.3f}")
d = statistics.median(by["gpufeed"]) - statistics.median(by["numactl"])
print(f"\ngpufeed run - numactl (medians): {d:+.3f} ms")
PY
cat "$out/summary.txt"
