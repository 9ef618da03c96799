#!/usr/bin/env bash
# Discovery time, side by side with the anchor tool, in one run:
#   A  `gpufeed topo` on this machine (full discovery: sysfs + NVML)
#   B  `nvidia-smi topo -m`
# interleaved A B A B ..., N runs each after one discarded warm-up of each;
# and, with -r, `gpufeed topo --root REC` (replay of a recording), N runs.
# Wall time per run from bash's $EPOCHREALTIME around the command (no fork
# for the clock).  Output: JSON with the command lines, raw samples (ms),
# median, min, max and the interquartile range, on stdout.
#
# usage: bench/topo-vs-nvidia-smi.sh [-n N] [-g GPUFEED] [-r RECORDING]...
set -euo pipefail

n=10
gf=build/gpufeed
recs=()
while getopts "n:g:r:" o; do
	case $o in
	n) n=$OPTARG ;;
	g) gf=$OPTARG ;;
	r) recs+=("$OPTARG") ;;
	*) echo "usage: $0 [-n N] [-g GPUFEED] [-r RECORDING]..." >&2; exit 2 ;;
	esac
done

now_us() { local t=$EPOCHREALTIME; echo "${t/./}"; }

# time_cmd VAR cmd...: appends the elapsed ms to the array named VAR.
time_cmd() {
	local -n out=$1; shift
	local t0 t1
	t0=$(now_us)
	"$@" >/dev/null 2>&1
	t1=$(now_us)
	out+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1000 }')")
}

# stats name samples...: one JSON object.
stats() {
	local name=$1; shift
	printf '%s\n' "$@" | sort -g | awk -v name="$name" -v raw="$(IFS=,; echo "$*")" '
		{ v[NR] = $1 }
		function q(p,  i, f) { i = 1 + (NR - 1) * p; f = int(i); return v[f] + (i - f) * (v[f + 1] - v[f]) }
		END {
			med = q(0.5)
			printf "{\"name\": \"%s\", \"unit\": \"ms\", \"n\": %d, \"samples\": [%s], \"median\": %.3f, \"min\": %.3f, \"max\": %.3f, \"iqr\": %.3f}", \
				name, NR, raw, med, v[1], v[NR], q(0.75) - q(0.25)
		}'
}

have_smi=0
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 && have_smi=1

a=() b=()
if [ $have_smi = 1 ]; then
	"$gf" topo >/dev/null 2>&1 || true
	nvidia-smi topo -m >/dev/null 2>&1
	for ((i = 0; i < n; i++)); do
		time_cmd a "$gf" topo
		time_cmd b nvidia-smi topo -m
	done
fi

echo "{"
echo "  \"benchmark\": \"topo-vs-nvidia-smi\","
echo "  \"date\": \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\","
echo "  \"host\": \"$(hostname)\", \"kernel\": \"$(uname -r)\","
echo "  \"cpu\": \"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')\", \"cpus\": $(nproc),"
if [ $have_smi = 1 ]; then
	echo "  \"gpus\": \"$(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | sed 's/^ *//' | tr '\n' ';')\","
	echo "  \"driver\": \"$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)\","
	echo "  \"method\": \"interleaved gpufeed/nvidia-smi, $n runs each after one discarded warm-up each; wall time via \$EPOCHREALTIME; output to /dev/null\","
	echo "  \"commands\": [\"$gf topo\", \"nvidia-smi topo -m\"],"
	echo "  \"results\": ["
	echo "    $(stats 'gpufeed topo' "${a[@]}"),"
	echo "    $(stats 'nvidia-smi topo -m' "${b[@]}")$([ ${#recs[@]} -gt 0 ] && echo ,)"
else
	echo "  \"gpus\": \"none (nvidia-smi absent or no GPU)\","
	echo "  \"method\": \"$n runs each after one discarded warm-up; wall time via \$EPOCHREALTIME; output to /dev/null\","
	echo "  \"results\": ["
fi
for ((k = 0; k < ${#recs[@]}; k++)); do
	r=${recs[$k]} c=()
	"$gf" topo --root "$r" >/dev/null 2>&1 || true
	for ((i = 0; i < n; i++)); do
		time_cmd c "$gf" topo --root "$r"
	done
	sep=,
	[ $k -eq $((${#recs[@]} - 1)) ] && sep=
	echo "    $(stats "gpufeed topo --root $r" "${c[@]}")$sep"
done
echo "  ]"
echo "}"
