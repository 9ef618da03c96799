#!/usr/bin/env bash
# test-scope: tree (checks the tree, not the build: tests/run.sh runs it in the full set only)
# The comparisons of bench/ (bench/lib-compare.sh, bench/compare_verdict.py
# and the scripts on them: compare-{h2d,p2p}-nvbandwidth.sh, compare-fio.sh)
# with stand-in tools: a fake nvbandwidth, a fake fio and fake gpufeeds that
# print the JSON the real ones print, at chosen figures.  The verdict (PASS
# within the bar, FAIL outside, SHORT under 5 paired runs), the interleaved
# run loop, the deadline stop, summarising again a folder of real runs, the
# per-process log, the h2d GPU sums, fio at its defaults and at its best
# tuning, and the usage errors.  The real comparisons need a GPU or a disk
# worth measuring: bench/results/.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "skip: python3 is needed"; exit 77; }

h2d=$SRC/bench/compare-h2d-nvbandwidth.sh
p2p=$SRC/bench/compare-p2p-nvbandwidth.sh

# fake nvbandwidth: -j -b MIB [-i N] -t TEST...; two GPUs, every h2d
# testcase's row at $FAKE_NVBW_GBS (one figure for both, or "GPU0 GPU1");
# sleeps $FAKE_SLEEP first.
cat >"$TMP/nvbandwidth" <<'EOF'
#!/usr/bin/env bash
sleep "${FAKE_SLEEP:-0}"
echo "$*" >>"$FAKE_CALLS"
while [ "$1" != -t ]; do shift; done
shift
read -r v0 v1 <<<"${FAKE_NVBW_GBS:-50}"
echo 'nvbandwidth Version: v0.8 (fake)'
printf '{"nvbandwidth": {"testcases": ['
sep=
for t in "$@"; do
	printf '%s{"name": "%s", "status": "Passed", "bandwidth_matrix": [["%s", "%s"]]}' "$sep" "$t" "$v0" "${v1:-$v0}"
	sep=,
done
echo ']}}'
EOF
# fake gpufeed: bench h2d --json ... --direction LIST; every direction on two
# GPUs at $FAKE_GF_GBS, and the all-GPU ones' sums (all_at_once_sums; none
# with FAKE_GF_NOSUMS=1, as an older gpufeed).
cat >"$TMP/gpufeed" <<'EOF'
#!/usr/bin/env bash
sleep "${FAKE_SLEEP:-0}"
echo "$*" >>"$FAKE_CALLS"
dirs=
while [ $# -gt 0 ]; do [ "$1" = --direction ] && dirs=$2; shift; done
v=${FAKE_GF_GBS:-50}
printf '{"points": ['
sep=
for d in ${dirs//,/ }; do
	for g in 0 1; do
		printf '%s{"direction": "%s", "gpu": %d, "memory": "pinned", "median": %s, "samples": [%s], "limit_gb_per_s": 64, "host_node": 0}' \
			"$sep" "$d" "$g" "$v" "$v"
		sep=,
	done
done
printf ']'
if [ "${FAKE_GF_NOSUMS:-0}" != 1 ]; then
	printf ', "all_at_once_sums": ['
	sep=
	for d in ${dirs//,/ }; do
		case _${d}_ in *_all_*)
			printf '%s{"direction": "%s", "bytes": 536870912, "gpus": 2, "sum_gb_per_s": %s}' "$sep" "$d" "$(awk -v v="$v" 'BEGIN { print 2 * v }')"
			sep=, ;;
		esac
	done
	printf ']'
fi
echo '}'
EOF
chmod +x "$TMP/nvbandwidth" "$TMP/gpufeed"
export GPUFEED="$TMP/gpufeed" NVBANDWIDTH="$TMP/nvbandwidth" FAKE_CALLS="$TMP/calls" H2D_PAGEABLE=0
two="host_to_device_memcpy_ce host_to_all_bidirectional_memcpy_ce"

# Usage errors: nothing run.
expect_rc 2 "no OUTDIR" bash "$h2d"
expect_rc 2 "RUNS under 5" bash "$h2d" "$TMP/u" 4
expect_grep "$err" "RUNS must be a number >= 5" "the rule is said"
expect_rc 2 "NVBW_DEADLINE not a number" env NVBW_DEADLINE=soon bash "$h2d" "$TMP/u"
expect_grep "$err" "NVBW_DEADLINE must be a number of seconds" "the variable is named"
expect_rc 2 "a testcase nvbandwidth does not have" env H2D_TESTS=host_to_moon bash "$h2d" "$TMP/u"
expect_rc 2 "no nvbandwidth" env NVBANDWIDTH="$TMP/none" bash "$h2d" "$TMP/u"
expect_grep "$err" "$TMP/none is not there" "the missing tool is named"

# Equal figures, 5 runs: every figure PASS, the runs interleaved.
: >"$TMP/calls"
expect_rc 0 "equal figures pass" env H2D_TESTS="$two" bash "$h2d" "$TMP/eq" 5
expect_grep "$out" "ALL PASS" "ALL PASS said"
expect_jq "$TMP/eq/summary.json" '.runs == 5 and (.figures | length) == 5 and all(.figures[]; .result == "PASS" and .paired_runs == 5 and .ratio == 1)' \
	"5 figures (2 testcases x 2 GPUs, and the all-GPU testcase's sum), each over 5 paired runs, ratio 1"
expect_jq "$TMP/eq/summary.json" '[.figures[] | select(.gpu == "sum")] | length == 1 and .[0].test == "host_to_all_bidirectional_memcpy_ce" and .[0].gpus == 2 and .[0].gpufeed_median == 100 and .[0].nvbandwidth_median == 100' \
	"the all-GPU testcase's sum: both GPUs added up in each tool"
expect_grep "$out" "host_to_all_bidirectional_memcpy_ce  *sum  *100.00  *100.00  *1.0000" "the sum printed beside the per-GPU rows"
expect_grep "$out" "^ALL PASS (5 matching figures, 5 paired runs)" "ALL PASS with the count"
if [ "$(cut -c1-2 "$TMP/calls" | tr -d '\n')" = "-jbebe-j-jbebe-j-jbe" ]; then
	ok "interleaved, the order alternating: nvbandwidth first in odd runs, gpufeed in even ones"
else not_ok "the calls are not interleaved ABBA: $(cut -c1-12 "$TMP/calls" | tr '\n' '|')"; fi
expect_jq "$TMP/eq/summary.json" 'all(.figures[]; .ratio_95 == [1, 1])' "equal runs: the ratio's 95% interval is 1-1"
expect_grep "$out" "1.0000  1.000-1.000" "the interval printed beside the ratio"
expect_grep "$TMP/eq/log.txt" "bench h2d --json --size 512M --quiet --direction host_to_device,bidirectional_host_to_all" \
	"log.txt holds the gpufeed command with the matching directions"
expect_grep "$TMP/eq/log.txt" "^run 2 of 5 \[20[0-9-]*T[0-9:]*Z\] gpufeed: .*bench h2d" "each process's line has its start time"
expect_grep "$TMP/eq/log.txt" "^run 2 of 5 \[20[0-9-]*T[0-9:]*Z\] gpufeed: [0-9.]* s (user [0-9.]* s, sys [0-9.]* s), exit 0" \
	"and a line with its wall and CPU seconds"
expect_grep "$TMP/eq/log.txt" "^run 5 of 5 \[20[0-9-]*T[0-9:]*Z\]: [0-9]* s$" "and every run its duration"
if [ "$(wc -l <"$TMP/eq/runs.tsv")" = 11 ] && [ "$(cut -f1-3 "$TMP/eq/runs.tsv" | sed -n 2,5p | tr '\t\n' ' |')" = "1 host_to_device_memcpy_ce host_to_all_bidirectional_memcpy_ce nvbandwidth|1 host_to_device_memcpy_ce host_to_all_bidirectional_memcpy_ce gpufeed|2 host_to_device_memcpy_ce host_to_all_bidirectional_memcpy_ce gpufeed|2 host_to_device_memcpy_ce host_to_all_bidirectional_memcpy_ce nvbandwidth|" ]; then
	ok "runs.tsv: a line per process, run, testcases and tool"
else not_ok "runs.tsv: $(head -5 "$TMP/eq/runs.tsv" | cut -f1-3 | tr '\t\n' ' |')"; fi

# gpufeed 2.5% under nvbandwidth: FAIL, exit 1; 1.5% under: PASS.
expect_rc 1 "2.5% apart fails" env H2D_TESTS="$two" FAKE_GF_GBS=48.75 bash "$h2d" "$TMP/far" 5
expect_jq "$TMP/far/summary.json" 'all(.figures[]; .result == "FAIL") and (.all_pass | not)' "every figure FAIL"
expect_rc 0 "1.5% apart passes" env H2D_TESTS="$two" FAKE_GF_GBS=49.25 bash "$h2d" "$TMP/near" 5

# GPUs sharing a host link split it 52/48 in nvbandwidth, 50/50 in gpufeed:
# each GPU's figure 4% apart (FAIL), the sum the same (PASS).
expect_rc 1 "split differently, summed the same" env H2D_TESTS=host_to_all_memcpy_ce FAKE_NVBW_GBS="52 48" \
	bash "$h2d" "$TMP/split-sum" 5
expect_jq "$TMP/split-sum/summary.json" '[.figures[] | select(.gpu != "sum") | .result] == ["FAIL", "FAIL"] and ([.figures[] | select(.gpu == "sum")] | .[0].result == "PASS" and .[0].ratio == 1)' \
	"the per-GPU figures FAIL, their sum PASS, each with its own verdict"
expect_grep "$out" "^NOT ALL PASS (3 matching figures: 2 FAIL)" "the summary counts the FAILs"
# An older gpufeed without all_at_once_sums: no sum rows, said so.
expect_rc 0 "a gpufeed without all_at_once_sums" env H2D_TESTS="$two" FAKE_GF_NOSUMS=1 bash "$h2d" "$TMP/nosums" 5
expect_jq "$TMP/nosums/summary.json" '(.figures | length) == 4 and all(.figures[]; .gpu != "sum")' "4 figures, no sum"
expect_grep "$out" "No GPU sums: gpufeed's JSON has no all_at_once_sums" "the missing sums are said"

# The interval: resampled pairs of runs, the same every time (fixed seed).
interval() { PYTHONPATH=$SRC/bench python3 -c "from compare_verdict import verdict; print(verdict($1, $2).get('ratio_95'))"; }
steady=$(interval "[50, 51, 49, 50, 50]" "[50, 50, 50, 51, 49]")
if [ "$steady" = "$(interval "[50, 51, 49, 50, 50]" "[50, 50, 50, 51, 49]")" ]; then ok "the same runs give the same interval"
else not_ok "two intervals of the same runs differ"; fi
# Each tool's runs drift together 40 -> 44 GB/s: paired, the ratio stays 1.
got=$(interval "[40, 41, 42, 43, 44]" "[40, 41, 42, 43, 44]")
if [ "$got" = "[1.0, 1.0]" ]; then ok "drift both tools share is not noise"; else not_ok "shared drift: interval $got"; fi
# One tool scattering 10% from run to run: an interval far wider than the bar.
if PYTHONPATH=$SRC/bench python3 -c "
from compare_verdict import verdict
r = verdict([50, 50, 50, 50, 50, 50], [45, 55, 50, 46, 54, 50])
lo, hi = r['ratio_95']
assert lo <= r['ratio'] <= hi and lo < 0.95 and hi > 1.05, r"; then ok "a scattering tool: the interval spans more than the bar, around the ratio"
else not_ok "the interval of scattering runs"; fi
got=$(interval "[50]" "[50]")
if [ "$got" = None ]; then ok "no interval from one pair"; else not_ok "one pair: interval $got"; fi

# NVBW_SPLIT=1: each testcase a process of its own in both tools.
: >"$TMP/calls"
expect_rc 0 "NVBW_SPLIT=1" env H2D_TESTS="$two" NVBW_SPLIT=1 bash "$h2d" "$TMP/split" 5
if [ "$(grep -c -- '-t host_to_device_memcpy_ce$' "$TMP/calls")" = 5 ] &&
   [ "$(grep -c -- '--direction bidirectional_host_to_all$' "$TMP/calls")" = 5 ]; then
	ok "20 processes, one testcase each"
else not_ok "NVBW_SPLIT=1 calls: $(tr '\n' '|' <"$TMP/calls")"; fi

# COMPARE_DEADLINE (or NVBW_DEADLINE): each run takes 2 s, the deadline 3
# s: one run, then stop and summarise it (SHORT: the bar needs 5 runs), exit 1.
: >"$TMP/calls"
expect_rc 1 "COMPARE_DEADLINE stops the runs" env H2D_TESTS="$two" FAKE_SLEEP=1 COMPARE_DEADLINE=3 bash "$h2d" "$TMP/dl" 5
expect_grep "$err" "stopped after 1 of 5 runs: .*COMPARE_DEADLINE=3 s" "the stop is said, with the runs done"
expect_grep "$TMP/dl/log.txt" "stopped after 1 of 5 runs" "and logged"
if [ "$(wc -l <"$TMP/calls")" = 2 ]; then ok "no run started past the deadline"
else not_ok "$(wc -l <"$TMP/calls") tool calls, wanted 2"; fi
expect_grep "$out" "SHORT (1 paired runs; the bar needs 5)" "the figures are SHORT, with the runs"
expect_jq "$TMP/dl/summary.json" 'all(.figures[]; .result == "SHORT" and .paired_runs == 1 and .ratio == 1) and .result == "SHORT" and (.all_pass | not)' \
	"SHORT in the JSON, the ratio still given"
expect_grep "$out" "^SHORT (5 matching figures, at most 1 paired runs: the bar needs 5; 5 of 5 within it so far)" \
	"the summary line says SHORT, not NOT ALL PASS"

# NVBW_SUMMARY_ONLY=1: no tool run (none there); a run cut short after
# nvbandwidth leaves it one run ahead: only the paired runs count.
cp -r "$TMP/eq" "$TMP/cut"
sed -i '$d' "$TMP/cut/gpufeed.jsonl"
cp "$TMP/cut/log.txt" "$TMP/cut-log"
expect_rc 1 "NVBW_SUMMARY_ONLY=1 on 5 nvbandwidth runs and 4 of gpufeed" env NVBW_SUMMARY_ONLY=1 \
	GPUFEED=/nonexistent NVBANDWIDTH=/nonexistent H2D_TESTS="$two" bash "$h2d" "$TMP/cut"
expect_jq "$TMP/cut/summary.json" 'all(.figures[]; .result == "SHORT" and .paired_runs == 4 and (.nvbandwidth_runs | length) == 5)' \
	"4 paired runs of the 5 and 4"
if cmp -s "$TMP/cut/log.txt" "$TMP/cut-log"; then ok "log.txt left as it was"; else not_ok "log.txt changed"; fi
expect_rc 2 "COMPARE_SUMMARY_ONLY=1 on a folder without runs" env COMPARE_SUMMARY_ONLY=1 bash "$h2d" "$TMP/nothing"
expect_grep "$err" "nvbandwidth.jsonl is not there" "the missing file is named"

# Four H100s (bench/results/2026-11-26-h100x4-h2d-vs-nvbandwidth): every
# testcase alone, one run; the all-GPU testcases summed beside the GPUs.
real=$SRC/bench/results/2026-11-26-h100x4-h2d-vs-nvbandwidth
mkdir -p "$TMP/x4" && cp "$real/split-8-testcases-1-run/"*.jsonl "$TMP/x4/"
expect_rc 1 "h2d: COMPARE_SUMMARY_ONLY=1 on the 4x H100 run" env COMPARE_SUMMARY_ONLY=1 bash "$h2d" "$TMP/x4"
expect_jq "$TMP/x4/summary.json" '.result == "SHORT" and (.figures | length) == 36 and all(.figures[]; .result == "SHORT" and .paired_runs == 1)' \
	"32 GPU figures and 4 sums, all SHORT (one run)"
expect_jq "$TMP/x4/summary.json" '[.figures[] | select(.gpu == "sum") | .test] == ["host_to_all_memcpy_ce", "all_to_host_memcpy_ce", "host_to_all_bidirectional_memcpy_ce", "all_to_host_bidirectional_memcpy_ce"] and all(.figures[] | select(.gpu == "sum"); .gpus == 4)' \
	"a sum of the 4 GPUs for each all-GPU testcase"
sums_agree=$(python3 - "$TMP/x4" <<'PY'
import json, sys
out = sys.argv[1]
figs = {(f["test"], f["gpu"]): f for f in json.load(open(f"{out}/summary.json"))["figures"]}
gf = json.loads(open(f"{out}/gpufeed.jsonl").readlines()[4])   # host_to_all alone
nv = json.loads(open(f"{out}/nvbandwidth.jsonl").readlines()[4])["nvbandwidth"]["testcases"][0]
s = figs[("host_to_all_memcpy_ce", "sum")]
print(s["gpufeed_runs"] == [gf["all_at_once_sums"][0]["sum_gb_per_s"]]
      and abs(s["nvbandwidth_runs"][0] - sum(float(c) for c in nv["bandwidth_matrix"][0])) < 1e-9)
PY
)
if [ "$sums_agree" = True ]; then ok "gpufeed's sum is its all_at_once_sums, nvbandwidth's its row added up"
else not_ok "the sums: $sums_agree"; fi
expect_grep "$out" "^SHORT (36 matching figures, at most 1 paired runs: the bar needs 5; " "the 4x H100 summary says SHORT"

# The p2p comparison re-summarises a folder of real runs (2x H200): every
# CE and SM figure of both pairs within 2%, latency beside it.
real=$SRC/bench/results/2026-11-24-h200x2-p2p-vs-nvbandwidth
mkdir -p "$TMP/p2p" && cp "$real/nvbandwidth.jsonl" "$real/gpufeed.jsonl" "$TMP/p2p/"
expect_rc 0 "p2p: NVBW_SUMMARY_ONLY=1 on the H200x2 runs" env NVBW_SUMMARY_ONLY=1 bash "$p2p" "$TMP/p2p"
expect_jq "$TMP/p2p/summary.json" '.matched == 18 and .runs == 5 and .all_pass' "18 matching figures over 5 runs, all within 2%"
expect_jq "$TMP/p2p/summary.json" 'all(.figures[] | select(.unit != "ns"); .ratio_95[0] <= .ratio and .ratio <= .ratio_95[1])' \
	"each figure's interval holds its ratio"
expect_jq "$TMP/p2p/summary.json" '[.figures[] | select(.test == "device_to_device_memcpy_read_ce")] | length == 2 and all(.[]; .gpufeed_median > 350)' \
	"the read CE figure of both ordered pairs"
head -4 "$TMP/p2p/gpufeed.jsonl" >"$TMP/p2p/g4" && mv "$TMP/p2p/g4" "$TMP/p2p/gpufeed.jsonl"
expect_rc 1 "p2p: 4 runs are SHORT" env NVBW_SUMMARY_ONLY=1 bash "$p2p" "$TMP/p2p"
expect_grep "$out" "SHORT (4 paired runs; the bar needs 5)" "p2p says SHORT too"
expect_grep "$out" "^SHORT (18 matching figures, at most 4 paired runs: the bar needs 5; 18 of 18 within it so far)" \
	"its summary line: SHORT with the 18 figures that matched (it said NOT ALL PASS, 0 matching)"
expect_jq "$TMP/p2p/summary.json" '.matched == 18 and .result == "SHORT"' "18 matched, SHORT, in the JSON"

# ---- compare-fio.sh: fio at its defaults and at its best tuning ------------

fio_cmp=$SRC/bench/compare-fio.sh
# fake fio: --version, --enghelp, the layout (--rw=write makes the file), or
# a read whose JSON goes to --output: fio-best (--fixedbufs) at
# $FAKE_FIO_BEST_BPS bytes/s at iodepth 32 with SQPOLL, 10% less without
# SQPOLL and 10% less at any other depth; fio-default at $FAKE_FIO_DEFAULT_BPS.
# About 20 ms of CPU (a loop), no other process: its CPU per GB is ten times
# the fake gpufeed's.  FAKE_FIO_FAIL=1: every read fails.
cat >"$TMP/fio" <<'EOF'
#!/usr/bin/env bash
echo "fio $*" >>"$FAKE_CALLS"
rw= qd= sq=0 best=0 bs=1m out= file= size= rt=1
for a; do
	case $a in
	--version) echo fio-3.33; exit 0 ;;
	--enghelp=*) exit 0 ;;
	--rw=*) rw=${a#*=} ;;
	--iodepth=*) qd=${a#*=} ;;
	--sqthread_poll=*) sq=${a#*=} ;;
	--fixedbufs) best=1 ;;
	--bs=*) bs=${a#*=} ;;
	--output=*) out=${a#*=} ;;
	--filename=*) file=${a#*=} ;;
	--size=*) size=${a#*=} ;;
	--runtime=*) rt=${a#*=} ;;
	esac
done
if [ "$rw" = write ]; then truncate -s "$size" "$file"; echo '{"jobs": []}' >"$out"; exit 0; fi
[ "${FAKE_FIO_FAIL:-0}" = 1 ] && { echo "fio: io_uring_queue_init: Operation not permitted" >&2; exit 1; }
for ((i = 0; i < 20000; i++)); do :; done
if [ $best = 1 ]; then
	bps=${FAKE_FIO_BEST_BPS:-2000000000}
	[ "$qd" = 32 ] || bps=$((bps * 9 / 10))
	[ "$sq" = 1 ] || bps=$((bps * 9 / 10))
else
	bps=${FAKE_FIO_DEFAULT_BPS:-1000000000}
fi
case $bs in 1m) b=1048576 ;; *) b=4096 ;; esac
printf '{"jobs": [{"usr_cpu": 10.0, "sys_cpu": 20.0, "read": {"io_bytes": %d, "bw_bytes": %d, "iops": %d, "runtime": %d, "clat_ns": {"percentile": {"50.000000": 100000, "99.000000": 200000}}}}]}\n' \
	$((bps * rt)) "$bps" $((bps / b)) $((rt * 1000)) >"$out"
EOF
# fake gpufeed for bench io: one point at $FAKE_GF_BPS bytes/s for 1 s;
# sleeps $FAKE_SLEEP first; FAKE_GF_NO_SQPOLL=1: runs without SQPOLL
# whatever it was asked.
cat >"$TMP/gpufeed-io" <<'EOF'
#!/usr/bin/env bash
echo "gpufeed $*" >>"$FAKE_CALLS"
[ "$1" = --version ] && { echo "gpufeed 0.1.0 (fake)"; exit 0; }
[ -z "${FAKE_SLEEP:-}" ] || sleep "$FAKE_SLEEP"
sq=false b=1048576
for a; do case $a in --sqpoll) sq=true ;; 4K) b=4096 ;; esac; done
[ "${FAKE_GF_NO_SQPOLL:-0}" = 1 ] && sq=false
bps=${FAKE_GF_BPS:-1960000000}
printf '{"status": "ok", "engine_used": "uring", "direct_used": true, "sqpoll": %s, "note": "", "bytes": %d, "seconds": 1.0, "gb_per_s": 1.96, "iops": %d, "lat_p50_us": 90.0, "lat_p99_us": 150.0, "cpu_s_per_gb": 0.01}\n' \
	"$sq" "$bps" $((bps / b))
EOF
chmod +x "$TMP/fio" "$TMP/gpufeed-io"
mkdir -p "$TMP/disk"
fio_args=(--fio "$TMP/fio" --gpufeed "$TMP/gpufeed-io" --size 16M --duration 1 --tune-duration 1 --best-iomem shmhuge)

expect_rc 2 "fio: --runs under 5" bash "$fio_cmp" "${fio_args[@]}" --runs 4 "$TMP/disk"
expect_grep "$err" "\--runs must be a number >= 5" "the rule is the other comparisons'"
expect_rc 2 "fio: an unknown --best-iomem" bash "$fio_cmp" "${fio_args[@]}" --best-iomem huge "$TMP/disk"
expect_rc 2 "fio: COMPARE_SUMMARY_ONLY=1 without --out" env COMPARE_SUMMARY_ONLY=1 bash "$fio_cmp" "${fio_args[@]}"
expect_rc 2 "fio: COMPARE_DEADLINE not a number" env COMPARE_DEADLINE=1.5 bash "$fio_cmp" "${fio_args[@]}" "$TMP/disk"

# gpufeed at 0.98x fio-best and 1.96x fio-default: every target met.
: >"$TMP/calls"
expect_rc 0 "fio: gpufeed within the targets of both fio tunings" bash "$fio_cmp" "${fio_args[@]}" --out "$TMP/fio-eq" "$TMP/disk"
expect_jq "$TMP/fio-eq/summary.json" '.result == "PASS" and ([.figures[] | select(.result == "PASS")] | length) == 6 and ([.figures[] | select(.result == "INFO")] | length) == 2' \
	"6 figures judged (GB/s, IOPS and random CPU per GB against each fio), seq CPU as information"
expect_jq "$TMP/fio-eq/summary.json" '[.figures[] | select(.figure != "cpu_s_per_gb_outside") | [.pattern, .against, (.ratio * 100 | round)]] == [["seq", "fio-default", 196], ["seq", "fio-best", 98], ["rand", "fio-default", 196], ["rand", "fio-best", 98]]' \
	"each ratio names the fio it is against"
expect_jq "$TMP/fio-eq/summary.json" 'all(.figures[] | select(.figure == "cpu_s_per_gb_outside" and .pattern == "rand"); .ratio < 0.5 and .bar == "median ratio <= 1.00")' \
	"random reads: CPU per GB counted from outside for every tool"
expect_jq "$TMP/fio-eq/summary.json" '.patterns.seq.chosen.iodepth == "32" and .patterns.seq.chosen.sqpoll == "1" and .patterns.rand.chosen.iodepth == "32"' \
	"fio-best's tuning found its best point (depth 32, SQPOLL)"
tsv=$TMP/fio-eq/runs.tsv
if [ "$(awk -F'\t' '$1 ~ /^[0-9]+$/ { printf "%s %s %s|", $1, $2, $3 }' "$tsv" | cut -d'|' -f1-12)" = \
     "1 seq fio-default|1 seq fio-best|1 seq gpufeed|1 rand fio-default|1 rand fio-best|1 rand gpufeed|2 seq gpufeed|2 seq fio-best|2 seq fio-default|2 rand gpufeed|2 rand fio-best|2 rand fio-default" ]; then
	ok "fio: three tools per pattern, ABC in odd runs and CBA in even ones"
else not_ok "fio: the order: $(awk -F'\t' '$1 ~ /^[0-9]+$/ { printf "%s %s %s|", $1, $2, $3 }' "$tsv" | cut -c1-200)"; fi
if [ "$(awk -F'\t' '$1 ~ /^[0-9]+$/' "$tsv" | wc -l)" = 30 ] && [ "$(grep -c '^tune	' "$tsv")" = 20 ]; then
	ok "5 runs x 2 patterns x 3 tools measured, 20 tuning runs"
else not_ok "runs.tsv: $(cut -f1 "$tsv" | sort | uniq -c | tr '\n' ' ')"; fi
best_cmd=$(awk -F'\t' '$1 == 3 && $2 == "seq" && $3 == "fio-best" { print $9 }' "$tsv")
default_cmd=$(awk -F'\t' '$1 == 3 && $2 == "seq" && $3 == "fio-default" { print $9 }' "$tsv")
gf_cmd=$(awk -F'\t' '$1 == 3 && $2 == "seq" && $3 == "gpufeed" { print $9 }' "$tsv")
case $best_cmd in *" --iodepth=32 "*" --iomem=shmhuge --fixedbufs --registerfiles "*) ok "fio-best: huge-page buffers, registered, at the tuned depth" ;;
	*) not_ok "fio-best: $best_cmd" ;; esac
case $default_cmd in *--iomem* | *--fixedbufs* | *--registerfiles* | *--hipri*) not_ok "fio-default tuned: $default_cmd" ;;
	*" --sqthread_poll=1 "*" --iodepth=32 "*) ok "fio-default: the same point (depth, SQPOLL), fio's own buffers" ;;
	*) not_ok "fio-default: $default_cmd" ;; esac
case $gf_cmd in *" --qd 32 "*" --sqpoll "*) ok "gpufeed at the same point" ;; *) not_ok "gpufeed: $gf_cmd" ;; esac
expect_grep "$TMP/fio-eq/summary.txt" "^fio-default: fio's own defaults at that point: --iomem=malloc" "summary.txt says what fio-default is"
expect_grep "$TMP/fio-eq/summary.txt" "^fio-best:    --iomem=shmhuge --fixedbufs --registerfiles$" "and what fio-best is"
expect_grep "$TMP/fio-eq/summary.txt" "^fio-best    GB/s *0.9800 *0.980-0.980  median ratio >= 0.95 *PASS" "the ratio against fio-best, its interval and bar"
expect_grep "$TMP/fio-eq/command.txt" "^queue limits: max_segments" "command.txt records the disk's queue limits"
expect_grep "$TMP/fio-eq/runs.log" "^run 3 of 5 \[20[0-9-]*T[0-9:]*Z\] fio-best: [0-9.]* s (user" "runs.log: each process with its start and duration"
if [ "$(wc -l <"$TMP/fio-eq/raw.csv")" = 31 ]; then ok "raw.csv: a line per measured run"; else not_ok "raw.csv: $(wc -l <"$TMP/fio-eq/raw.csv") lines"; fi
if [ ! -e "$TMP/disk/compare-fio.dat" ]; then ok "the test file removed at exit"; else not_ok "the test file is left"; fi

# Summarised again without tools; then one gpufeed run fewer: SHORT.
cp "$TMP/fio-eq/summary.json" "$TMP/fio-eq.json"
expect_rc 0 "fio: COMPARE_SUMMARY_ONLY=1" env COMPARE_SUMMARY_ONLY=1 bash "$fio_cmp" --fio /nonexistent --gpufeed /nonexistent --out "$TMP/fio-eq"
if cmp -s "$TMP/fio-eq/summary.json" "$TMP/fio-eq.json"; then ok "the same summary"; else not_ok "another summary"; fi
awk -F'\t' '!($1 == 5 && $2 == "rand" && $3 == "gpufeed")' "$tsv" >"$tsv.new" && mv "$tsv.new" "$tsv"
expect_rc 1 "fio: 4 paired random runs are SHORT" env COMPARE_SUMMARY_ONLY=1 bash "$fio_cmp" --out "$TMP/fio-eq"
expect_jq "$TMP/fio-eq/summary.json" '.result == "SHORT" and all(.figures[] | select(.pattern == "rand"); .result == "SHORT" and .paired_runs == 4)' \
	"the random figures SHORT, over 4 pairs"
expect_grep "$out" "^SHORT (6 matching figures, at most 5 paired runs: the bar needs 5; 6 of 6 within it so far)" "and the summary says so"

# gpufeed at 0.9x fio-best: under the 0.95 bar (FAIL), still above fio-default.
expect_rc 1 "fio: gpufeed under fio-best's 0.95x" env FAKE_GF_BPS=1800000000 bash "$fio_cmp" "${fio_args[@]}" --patterns seq --out "$TMP/fio-slow" "$TMP/disk"
expect_jq "$TMP/fio-slow/summary.json" '[.figures[] | select(.figure == "gb_per_s") | [.against, .result]] == [["fio-default", "PASS"], ["fio-best", "FAIL"]]' \
	"FAIL against fio-best, PASS against fio-default"
expect_grep "$out" "^NOT ALL PASS (2 matching figures: 1 FAIL)" "the summary counts it"

# COMPARE_DEADLINE: each gpufeed run takes 1 s (the warm-up too), the
# deadline 2 s: one run, SHORT.
expect_rc 1 "fio: COMPARE_DEADLINE" env FAKE_SLEEP=1 COMPARE_DEADLINE=2 bash "$fio_cmp" "${fio_args[@]}" --patterns seq --no-sqpoll "$TMP/disk"
expect_grep "$err" "stopped after 1 of 5 runs: .*COMPARE_DEADLINE=2 s" "the stop is said"
expect_grep "$out" "^SHORT (2 matching figures, at most 1 paired runs" "SHORT"

# A tool that fails, a gpufeed that runs another point: exit 3, named.
expect_rc 3 "fio: every tuning run fails" env FAKE_FIO_FAIL=1 bash "$fio_cmp" "${fio_args[@]}" --patterns seq "$TMP/disk"
expect_grep "$err" "fio-best failed: every tuning configuration failed for pattern seq" "the tool is named"
expect_rc 3 "fio: gpufeed without the SQPOLL it was asked" env FAKE_GF_NO_SQPOLL=1 bash "$fio_cmp" "${fio_args[@]}" --patterns seq "$TMP/disk"
expect_grep "$err" "gpufeed failed: did not run the point asked for: sqpoll false, asked true" "the difference is said"
if [ ! -e "$TMP/disk/compare-fio.dat" ]; then ok "no test file left after a failure"; else not_ok "a test file left"; fi

finish
