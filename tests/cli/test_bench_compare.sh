#!/usr/bin/env bash
# The comparisons of bench/ (bench/lib-compare.sh, bench/compare_verdict.py
# and the scripts on them: compare-{h2d,p2p}-nvbandwidth.sh) with stand-in
# tools: a fake nvbandwidth and a fake gpufeed that print the JSON the real
# ones print, at chosen figures.  The verdict (PASS within the bar, FAIL
# outside, SHORT under 5 paired runs), the interleaved run loop, the
# deadline stop, summarising again a folder of real runs, the per-process
# log, the h2d GPU sums, and the usage errors.  The real comparisons need a
# GPU: bench/results/.
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

finish
