#!/usr/bin/env bash
# test-scope: tree (checks the tree, not the build: tests/run.sh runs it in the full set only)
# bench/compare-loader-pytorch.sh: its usage errors, and its verdicts on
# made-up runs (COMPARE_SUMMARY_ONLY=1 summarises a folder of records
# without running anything): each of issue 20's targets judged as a ratio
# of medians over paired runs, a target missed is FAIL and named, fewer
# than 5 paired runs is SHORT, the memory growth from 1 to 16 threads in
# MiB.  The real comparison: bench/results/*-loader-vs-pytorch/.
. "$(dirname "$0")/lib.sh"
[ -x /usr/bin/python3 ] || { echo "skip: /usr/bin/python3 is needed"; exit 77; }

cmp=$SRC/bench/compare-loader-pytorch.sh

expect_rc 2 "no WORKDIR" bash "$cmp"
expect_grep "$err" "missing WORKDIR" "  said"
expect_rc 2 "--runs 4" bash "$cmp" --runs 4 "$TMP/w"
expect_grep "$err" "--runs must be a number >= 5" "  the rule is said"
expect_rc 2 "--size junk" bash "$cmp" --size 4Q "$TMP/w"
expect_rc 2 "--sample-sizes not whole sectors" bash "$cmp" --sample-sizes 1000 "$TMP/w"
expect_rc 2 "an unknown option" bash "$cmp" --fast "$TMP/w"
expect_rc 0 "--help" bash "$cmp" --help
expect_grep "$out" "PyTorch's best setting" "  help says how the best setting is found"
expect_rc 2 "summary of a folder without runs" env COMPARE_SUMMARY_ONLY=1 bash "$cmp" --out "$TMP/none"

# rec DIR TOOL UNIT RUN SAMPLES_PER_S CPU_S_PER_GB PSS_MIB [GB_PER_S]
rec() {
	printf '{"samples_per_s": %s, "gb_per_s": %s, "cpu_s_per_gb": %s, "wait_percent": 1, "peak_pss_sum_bytes": %s}\n' \
		"$5" "${8:-1}" "$6" "$(($7 << 20))" >"$1/$2-$3-$4.json"
}
# made DIR RUNS COLD_GBS: gpufeed 2.5x PyTorch's best warm at 0.4x its CPU,
# 10 MiB more with 16 threads, cold at COLD_GBS against bench io's 1.0 and
# PyTorch's files at 0.2, 2.2x DataLoader(num_workers=2) at 0.3x its CPU.
made() {
	local d=$1 r
	mkdir -p "$d"
	: >"$d/runs.log"
	printf 'run\tunit\ttool\n' >"$d/runs.tsv"
	for r in $(seq 1 "$2"); do
		rec "$d" torch-best warm-4K "$r" $((100000 + r)) 1.0 300
		rec "$d" gpufeed warm-4K "$r" $((250000 + r)) 0.4 40
		rec "$d" gpufeed-t1 warm-4K "$r" 250000 0.4 30
		rec "$d" gpufeed-t16 warm-4K "$r" 250000 0.4 40
		echo '{"gb_per_s": 1.0}' >"$d/bench-io-cold-128K-$r.json"
		rec "$d" gpufeed cold-128K "$r" 7000 0.5 40 "$3"
		rec "$d" torch-files cold-128K "$r" 1500 3.0 300 0.2
		rec "$d" torch-best cold-128K "$r" 1600 3.0 300 0.21
		rec "$d" torch-nw2 ci "$r" 100000 1.0 300
		rec "$d" gpufeed ci "$r" 220000 0.3 40
	done
}

made "$TMP/pass" 5 0.95
expect_rc 0 "every target met: exit 0" env COMPARE_SUMMARY_ONLY=1 bash "$cmp" --out "$TMP/pass"
expect_grep "$out" "warm 4K: >= 2x PyTorch best samples/s .* ratio 2.500 .* PASS" "warm samples/s: 2.5x, PASS"
expect_grep "$out" "warm 4K: <= 0.5x PyTorch best CPU s/GB .* ratio 0.400 .* PASS" "warm CPU s/GB: 0.4x, PASS"
expect_grep "$out" "memory growth 1 -> 16 threads <= 64 MiB .* median 10.0 MiB over 5 runs .* PASS" "memory growth in MiB"
expect_grep "$out" "cold 128K: >= 0.9x bench io seq O_DIRECT GB/s .* ratio 0.950 .* PASS" "cold against the disk"
expect_grep "$out" "cold 128K: >= 3x PyTorch per-sample files GB/s .* ratio 4.750 .* PASS" "cold against per-sample files"
expect_grep "$out" "ci: >= 2x DataLoader(num_workers=2) samples/s .* ratio 2.200 .* PASS" "the CI-machine target"
expect_grep "$out" "feed: not measured (no GPU)" "no GPU: the feed is said to be skipped"
expect_grep "$out" "^ALL PASS" "the verdict"
expect_jq "$TMP/pass/summary.json" '.result == "PASS" and (.targets | length) >= 8' "summary.json"

# With a GPU: the feed measurement's record (bench/loader_consumer.py feed).
# busy = steps x the resident run's median step / the fed run's GPU wall time.
feed() { # DIR GPUFEED_WALL_US GPUFEED_P99_US
	cat >"$1/feed.json" <<EOF
{"limit_gb_per_s": 2.0, "step_us": 2000, "runs": {
 "resident": {"gpu": {"steps": 100, "wall_us": 100000, "p50_step_us": 1000, "p99_step_us": 1010}},
 "gpufeed": {"gpu": {"steps": 100, "wall_us": $2, "p50_step_us": 1000, "p99_step_us": $3}},
 "torch-best": {"gpu": {"steps": 100, "wall_us": 150000, "p50_step_us": 1400, "p99_step_us": 2500}}}}
EOF
}
made "$TMP/gpu" 5 0.95
feed "$TMP/gpu" 100500 1015
expect_rc 0 "a GPU feed within the bars: exit 0" env COMPARE_SUMMARY_ONLY=1 bash "$cmp" --out "$TMP/gpu"
expect_grep "$out" "feed (gpufeed): GPU busy 0.9950, p99 step 1015.0 us vs resident 1010.0 us (ratio 1.0050) PASS" \
	"  busy from the resident run's step, p99 against the resident run's"
expect_grep "$out" "feed (torch-best): GPU busy 0.6667, .* INFO" "  PyTorch's feed shown, not judged"
feed "$TMP/gpu" 102000 1015
expect_rc 1 "the GPU idle 2% of the time: exit 1" env COMPARE_SUMMARY_ONLY=1 bash "$cmp" --out "$TMP/gpu"
expect_grep "$out" "feed (gpufeed): GPU busy 0.9804, .* FAIL" "  that target FAIL"

made "$TMP/fail" 5 0.8
expect_rc 1 "the cold rate under 0.9x the disk's: exit 1" env COMPARE_SUMMARY_ONLY=1 bash "$cmp" --out "$TMP/fail"
expect_grep "$out" "cold 128K: >= 0.9x bench io seq O_DIRECT GB/s .* ratio 0.800 .* FAIL" "  that target FAIL, with its ratio"
expect_grep "$out" "^NOT ALL PASS" "  the verdict"

made "$TMP/short" 4 0.95
expect_rc 1 "4 runs: SHORT, exit 1" env COMPARE_SUMMARY_ONLY=1 bash "$cmp" --out "$TMP/short"
expect_grep "$out" "^SHORT" "  the verdict says SHORT"
finish
