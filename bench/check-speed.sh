#!/usr/bin/env bash
# How long `gpufeed check` takes (issue 8: on a recording well under 100 ms,
# live under 1 s on the CI machine, NVML start-up aside):
#   - on each recording given with -r (default: every unpacked fixture
#     machine, $GPUFEED_FIXTURES or build/fixtures/machines/*/root):
#     `gpufeed check --root REC`, N runs;
#   - live: `gpufeed check --nvml=off`, N runs.  NVML's own start-up (100 ms
#     and more on a GPU machine: bench/results/README.md, issue 2) is left out
#     on purpose: it is the driver's time, not the audit's;
#   - the floor: `gpufeed --version`, N runs (process start and exit), and
#     per recording `gpufeed topo --root REC` (the same discovery without
#     the checks), measured right after its check.
# Each command runs once as a discarded warm-up, then N times; the wall time
# of a run is bash's $EPOCHREALTIME around it (no fork for the clock), output
# to /dev/null (text output: what a user runs).  Exit 1 (findings) is normal.
#
# Writes OUTDIR/{command.txt,raw.csv,results.json,summary.txt}: the command
# line, the machine, every sample, and per command the median, min, max and
# interquartile range in ms.
#
# usage: bench/check-speed.sh [-n N] [-g GPUFEED] [-o OUTDIR] [-r RECORDING]...
set -euo pipefail

argv="$*"
n=20
gf=build/gpufeed
out=bench/results/$(date -u +%Y-%m-%d)-ci-check-speed
recs=()
while getopts "n:g:o:r:" o; do
	case $o in
	n) n=$OPTARG ;;
	g) gf=$OPTARG ;;
	o) out=$OPTARG ;;
	r) recs+=("$OPTARG") ;;
	*) echo "usage: $0 [-n N] [-g GPUFEED] [-o OUTDIR] [-r RECORDING]..." >&2; exit 2 ;;
	esac
done
if [ ${#recs[@]} = 0 ]; then
	fix=${GPUFEED_FIXTURES:-build/fixtures/machines}
	[ -d "$fix" ] || tests/fixtures/tools/unpack.sh "$fix"
	for r in "$fix"/*/root; do recs+=("$r"); done
fi
[ -x "$gf" ] || { echo "$0: $gf is not an executable (make first, or -g)" >&2; exit 2; }
mkdir -p "$out"

now_us() { local t=$EPOCHREALTIME; echo "${t/./}"; }

# time_cmd NAME cmd...: one discarded run, then n timed ones into raw.csv
# and the array samples.
samples=()
time_cmd() {
	local name=$1 t0 t1 i ms; shift
	samples=()
	"$@" >/dev/null 2>&1 || true
	for ((i = 1; i <= n; i++)); do
		t0=$(now_us)
		"$@" >/dev/null 2>&1 || true
		t1=$(now_us)
		ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1000 }')
		samples+=("$ms")
		printf '"%s",%d,%s\n' "$name" "$i" "$ms" >>"$out/raw.csv"
	done
}

# stats NAME: one JSON object from the samples.
stats() {
	printf '%s\n' "${samples[@]}" | sort -g | awk -v name="$1" -v raw="$(IFS=,; echo "${samples[*]}")" '
		{ v[NR] = $1 }
		function q(p,  i, f) { i = 1 + (NR - 1) * p; f = int(i); return v[f] + (i - f) * (v[f + 1] - v[f]) }
		END {
			printf "{\"name\": \"%s\", \"unit\": \"ms\", \"n\": %d, \"samples\": [%s], \"median\": %.3f, \"min\": %.3f, \"max\": %.3f, \"iqr\": %.3f}", \
				name, NR, raw, q(0.5), v[1], v[NR], q(0.75) - q(0.25)
		}'
}

echo "name,run,ms" >"$out/raw.csv"
results=()
measure() {
	local name=$1; shift
	time_cmd "$name" "$@"
	results+=("$(stats "$name")")
	echo "$name: median $(printf '%s\n' "${samples[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }') ms" >&2
}

measure "gpufeed --version" "$gf" --version
measure "gpufeed check --nvml=off (live)" "$gf" check --nvml=off
for r in "${recs[@]}"; do
	# Named by the machine (FIXTURES/NAME/root -> NAME): paths differ per checkout.
	name=$(basename "$(dirname "$r")")
	measure "gpufeed check --root $name" "$gf" check --root "$r"
	# The same discovery without the checks: what the checks add is the difference.
	measure "gpufeed topo --root $name (reference)" "$gf" topo --root "$r"
done

load=$(cut -d' ' -f1-3 /proc/loadavg)
checks=$("$gf" check --list 2>/dev/null | wc -l)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo " (with uncommitted changes)" || true)
{
	echo "command: bench/check-speed.sh $argv"
	echo "recordings: ${recs[*]}"
	echo "machine: $(hostname), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), kernel $(uname -r)"
	echo "binary: $gf at commit $commit$dirty, $checks checks in the catalogue"
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "load average after the run: $load"
	echo "live runs use --nvml=off: NVML's start-up is the driver's time, left out"
} >"$out/command.txt"
{
	echo "{"
	echo "  \"benchmark\": \"check-speed\","
	echo "  \"date\": \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\","
	echo "  \"host\": \"$(hostname)\", \"kernel\": \"$(uname -r)\", \"cpus\": $(nproc),"
	echo "  \"commit\": \"$commit\", \"checks\": $checks,"
	echo "  \"method\": \"$n runs each after one discarded warm-up; wall time via \$EPOCHREALTIME; text output to /dev/null; live with --nvml=off\","
	echo "  \"load_after\": \"$load\","
	echo "  \"results\": ["
	for ((k = 0; k < ${#results[@]}; k++)); do
		sep=,
		[ $k -eq $((${#results[@]} - 1)) ] && sep=
		echo "    ${results[$k]}$sep"
	done
	echo "  ]"
	echo "}"
} >"$out/results.json"
jq -r '.results[] | [.name, .n, .median, .min, .max, .iqr] | @tsv' "$out/results.json" |
	awk -F'\t' 'BEGIN { printf "%-72s %3s %9s %9s %9s %7s\n", "command", "n", "median", "min", "max", "iqr" }
		{ printf "%-72s %3d %9.2f %9.2f %9.2f %7.2f\n", $1, $2, $3, $4, $5, $6 }' >"$out/summary.txt"
cat "$out/summary.txt"
