#!/usr/bin/env bash
# What gpufeed exporter costs: its CPU time (every thread's, from
# /proc/PID/task/*/schedstat) while it samples every --interval and a
# scraper fetches /metrics at the same period, over a few minutes.
#
#   bench/exporter-cost.sh [--interval S] [--duration S] [--gpufeed BIN]
#                          [--stand-in] [--out DIR]
#
# On a GPU machine (the issue's figure: a 4-GPU machine, --interval 15):
#   bench/exporter-cost.sh --interval 15 --duration 300 --out bench/results/DATE-h100x4-exporter-cost
#   bench/exporter-cost.sh --interval 1 --duration 120 --out ...-1s
# Without a GPU it skips (exit 77) unless --stand-in: the stand-in NVML of
# the build (four H200s) with the h200x4-vm recording's model, on this
# machine's /proc and /sys.
#
# Writes DIR/summary.txt (the command, the machine, the figures) and
# DIR/samples.tsv (the raw samples: seconds since start, CPU seconds used,
# scrapes done).  The figure: CPU seconds per wall second after the first
# sample (start-up, discovery and the first checks, counted apart), in %
# of one core; the checks' share is their measured duration (the
# gpufeed_exporter_checks_duration_seconds metric) over --checks-interval,
# 300 s by default, which a run shorter than that would not see.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
interval=15 duration=120 gpufeed=$here/build/gpufeed stand_in=0 out=
while [ $# -gt 0 ]; do
	case $1 in
	--interval) interval=$2; shift 2 ;;
	--duration) duration=$2; shift 2 ;;
	--gpufeed) gpufeed=$2; shift 2 ;;
	--stand-in) stand_in=1; shift ;;
	--out) out=$2; shift 2 ;;
	*) echo "usage: $0 [--interval S] [--duration S] [--gpufeed BIN] [--stand-in] [--out DIR]" >&2; exit 2 ;;
	esac
done
[ -x "$gpufeed" ] || { echo "no gpufeed at $gpufeed (make, or --gpufeed BIN)" >&2; exit 2; }
command -v curl >/dev/null || { echo "curl is needed" >&2; exit 2; }
args=(exporter --listen 127.0.0.1:0 --interval "$interval")
if [ "$stand_in" = 1 ]; then
	build=$(dirname "$gpufeed")
	export GPUFEED_NVML_LIBRARY=$build/fakes/libnvidia-ml.so.1
	fix=${GPUFEED_FIXTURES:-$build/fixtures/machines}
	"$here/tests/fixtures/tools/unpack.sh" "$fix" >/dev/null
	args+=(--model "$fix/h200x4-vm/root")
	what="stand-in NVML (4 x H200, $GPUFEED_NVML_LIBRARY), model from the h200x4-vm recording"
else
	if ! "$gpufeed" topo --nvml=require --json 2>/dev/null | grep -q '"uuid"'; then
		echo "skip: no NVIDIA GPU through NVML here (--stand-in to use the stand-in)"; exit 77
	fi
	what="this machine's GPUs through NVML"
fi
out=${out:-$here/bench/results/$(date -u +%Y-%m-%d)-exporter-cost-${interval}s}
mkdir -p "$out"
log=$out/exporter.log
"$gpufeed" "${args[@]}" 2>"$log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null || true' EXIT
addr=
for _ in $(seq 200); do
	addr=$(sed -n 's/.*listening on \([^ ]*\) .*/\1/p' "$log")
	[ -n "$addr" ] && break
	sleep 0.05
done
[ -n "$addr" ] || { echo "the exporter did not start: $(cat "$log")" >&2; exit 1; }
# Nanoseconds on a CPU per thread (/proc/PID/task/TID/schedstat, the
# scheduler's own count), summed: /proc/PID/stat's utime and stime tick at
# 100 Hz, too coarse for a process that runs a few milliseconds a minute.
# Both threads (server, sampler) live as long as the process.
cpu() { cat /proc/"$pid"/task/*/schedstat | awk '{ ns += $1 } END { printf "%.6f\n", ns / 1e9 }'; }
now() { date +%s.%N; }
# Arithmetic in awk: GPU hosts may lack bc.
calc() { awk "BEGIN { printf \"%.6f\\n\", $* }"; }
is() { awk "BEGIN { exit !($*) }"; }

t0=$(now) c0=$(cpu) scrapes=0
printf 'seconds\tcpu_seconds\tscrapes\n' >"$out/samples.tsv"
printf '%.3f\t%s\t%d\n' 0 "$c0" 0 >>"$out/samples.tsv"
end=$(calc "$t0 + $duration")
next=$t0
while is "$(now) < $end"; do
	curl -s -m 5 -o "$out/last.prom" "http://$addr/metrics" && scrapes=$((scrapes + 1))
	t=$(now)
	printf '%.3f\t%s\t%d\n' "$(calc "$t - $t0")" "$(cpu)" "$scrapes" >>"$out/samples.tsv"
	next=$(calc "$next + $interval")
	wait_s=$(calc "$next - $(now)")
	if is "$wait_s > 0"; then sleep "$wait_s"; fi
done
t1=$(now) c1=$(cpu)
checks=$(sed -n 's/^gpufeed_exporter_checks_duration_seconds //p' "$out/last.prom")
sample=$(sed -n 's/^gpufeed_exporter_sample_duration_seconds //p' "$out/last.prom")
ngpus=$(grep -c '^DCGM_FI_DEV_FB_USED{' "$out/last.prom" || true)
startup=$c0
wall=$(calc "$t1 - $t0")
steady=$(calc "($c1 - $startup) / $wall * 100")
checks_pct=$(calc "${checks:-0} / 300 * 100")
{
	echo "command:  $gpufeed ${args[*]} (scraped every ${interval}s by curl)"
	echo "GPUs:     $what; $ngpus GPU(s) in the metrics"
	echo "machine:  $(uname -srm); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(nproc) CPUs"
	echo "when:     $(date -u +%Y-%m-%dT%H:%M:%SZ), gpufeed $("$gpufeed" --version | cut -d' ' -f2)"
	echo "run:      ${wall%.*} s wall, $scrapes scrapes, interval ${interval} s"
	printf 'start-up: %.3f CPU s (discovery, NVML, the first sample and the checks)\n' "$startup"
	printf 'steady:   %.3f CPU s over %.1f s = %.4f %% of one core\n' "$(calc "$c1 - $startup")" "$wall" "$steady"
	printf 'sample:   %s s the last sample took; checks: %s s each, every 300 s = %.4f %% of one core\n' \
		"${sample:-?}" "${checks:-?}" "$checks_pct"
	printf 'total:    %.4f %% of one core (steady + the checks amortised)\n' "$(calc "$steady + $checks_pct")"
} | tee "$out/summary.txt"
