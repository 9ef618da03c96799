# shellcheck shell=bash disable=SC2154  # size and tests: set by the sourcing script
# Sourced by bench/compare-*-nvbandwidth.sh: what comparing a gpufeed
# bench with nvbandwidth always does, written once so the scripts cannot
# drift apart (the same usage, checks, files and run loop).  Not run alone.

# nvbw_setup OUTDIR [RUNS], with $size set: checks the arguments and tools
# and sets out, runs, root, gpufeed, nvbw, mib and log; OUTDIR gets empty
# nvbandwidth.jsonl and gpufeed.jsonl.  Exits 2 on a usage error.
#
# NVBW_SUMMARY_ONLY=1 (environment): run nothing; summarise the runs already
# in OUTDIR again (both .jsonl files kept, log.txt untouched), e.g. after a
# run cut short by a time limit.  No GPU, gpufeed or nvbandwidth needed.
nvbw_setup() {
	out=${1:-}
	runs=${2:-5}
	[ -n "$out" ] || { echo "usage: $0 OUTDIR [RUNS]" >&2; exit 2; }
	[ "$runs" -ge 5 ] 2>/dev/null || { echo "$0: RUNS must be a number >= 5" >&2; exit 2; }
	[[ ${NVBW_DEADLINE:-1} =~ ^[1-9][0-9]*$ ]] ||
		{ echo "$0: NVBW_DEADLINE must be a number of seconds > 0" >&2; exit 2; }
	command -v python3 >/dev/null || { echo "$0: python3 is needed" >&2; exit 2; }
	root=$(cd "$(dirname "$0")/.." && pwd)
	gpufeed=${GPUFEED:-$root/build/gpufeed}
	nvbw=${NVBANDWIDTH:-$root/bench/.nvbw/nvbandwidth}
	mib=$(( $(numfmt --from=iec "$size") >> 20 ))
	if [ "${NVBW_SUMMARY_ONLY:-0}" = 1 ]; then
		for f in nvbandwidth.jsonl gpufeed.jsonl; do
			[ -f "$out/$f" ] || { echo "$0: NVBW_SUMMARY_ONLY=1: $out/$f is not there" >&2; exit 2; }
		done
		log=/dev/null
		return
	fi
	for t in "$gpufeed" "$nvbw"; do [ -x "$t" ] || { echo "$0: $t is not there (build it)" >&2; exit 2; }; done
	mkdir -p "$out"
	log=$out/log.txt
	: >"$out/nvbandwidth.jsonl"
	: >"$out/gpufeed.jsonl"
}

# One line of JSON from a tool's stdout (nvbandwidth may print around it).
oneline() { python3 -c 'import json,sys; t=sys.stdin.read(); print(json.dumps(json.loads(t[t.index("{"):t.rindex("}")+1])))'; }

# NVBW_SAMPLES=N (environment): samples per figure in every run, nvbandwidth's
# -i N (its default 3); the calling script gives gpufeed --repeats N to match.
# More samples per run steady a figure whose single samples scatter.

# NVBW_SPLIT=1 (environment): every testcase in a process of its own, both
# tools (nvbandwidth -t TEST, gpufeed with the options plus what the calling
# script's nvbw_test_opts TEST prints), so no figure depends on what ran
# before it in the same process.

# nvbw_one RUN TEST...: one nvbandwidth process over the testcases, its
# JSON a line of nvbandwidth.jsonl.  Exits 3 when it fails.
nvbw_one() {
	local r=$1
	shift
	echo "run $r of $runs: nvbandwidth $*" | tee -a "$log" >&2
	if ! CUDA_DEVICE_ORDER=PCI_BUS_ID "$nvbw" -j -b "$mib" ${NVBW_SAMPLES:+-i "$NVBW_SAMPLES"} -t "$@" \
		2>>"$log" >"$out/.nvbw.tmp" ||
	   ! oneline <"$out/.nvbw.tmp" >>"$out/nvbandwidth.jsonl" 2>>"$log"; then
		cat "$out/.nvbw.tmp" >>"$log"; rm -f "$out/.nvbw.tmp"
		echo "$0: nvbandwidth failed (log.txt)" >&2; exit 3
	fi
	rm -f "$out/.nvbw.tmp"
}

# gf_one RUN BENCH OPTION...: one gpufeed bench process, its JSON a line of
# gpufeed.jsonl.  Exits 3 when it fails (exit 1, findings, still has
# figures to compare).
gf_one() {
	local r=$1 bench=$2 rc
	shift 2
	echo "run $r of $runs: gpufeed bench $bench $*" | tee -a "$log" >&2
	"$gpufeed" bench "$bench" "$@" 2>>"$log" >"$out/.gf.tmp"
	rc=$?
	if [ "$rc" -gt 1 ] || ! oneline <"$out/.gf.tmp" >>"$out/gpufeed.jsonl" 2>>"$log"; then
		rm -f "$out/.gf.tmp"; echo "$0: gpufeed bench $bench failed with exit $rc (log.txt)" >&2; exit 3
	fi
	rm -f "$out/.gf.tmp"
}

# nvbw_pair RUN BENCH "TEST..." GPUFEED-OPTION...: one run of each tool, in
# the order nvbw_runs gives run RUN.
nvbw_pair() {
	local r=$1 bench=$2 t
	read -r -a t <<<"$3"
	shift 3
	if [ $((r % 2)) = 1 ]; then
		nvbw_one "$r" "${t[@]}"
		gf_one "$r" "$bench" "$@"
	else
		gf_one "$r" "$bench" "$@"
		nvbw_one "$r" "${t[@]}"
	fi
}

# nvbw_runs BENCH GPUFEED-OPTION...: $runs runs, interleaved (nvbandwidth
# -t "${tests[@]}" and gpufeed bench BENCH with the options; with
# NVBW_SPLIT=1 that pair once per testcase).  The pair's order alternates,
# nvbandwidth first in odd runs and gpufeed first in even ones (ABBA): a
# machine whose state drifts over seconds (a VM's host, a GPU coming out of
# idle after the other tool's process) then favours neither tool's median.
#
# NVBW_DEADLINE=S (environment): start no run that would end more than S
# seconds after the script began, judging by the longest run so far, and
# summarise the runs done: a device call's time limit then costs the last
# run, not every run's summary.  Fewer than 5 runs is reported SHORT.
nvbw_runs() {
	local bench=$1 r t t0 took longest=0
	shift
	[ "${NVBW_SUMMARY_ONLY:-0}" = 1 ] && return
	if [ "${NVBW_SPLIT:-0}" = 1 ] && ! declare -F nvbw_test_opts >/dev/null; then
		echo "$0: NVBW_SPLIT=1 is not offered by this comparison" >&2; exit 2
	fi
	for r in $(seq 1 "$runs"); do
		if [ -n "${NVBW_DEADLINE:-}" ] && [ "$r" -gt 1 ] && [ $((SECONDS + longest)) -gt "$NVBW_DEADLINE" ]; then
			echo "stopped after $((r - 1)) of $runs runs: another (up to ${longest} s) would end past" \
				"NVBW_DEADLINE=$NVBW_DEADLINE s (at $SECONDS s)" | tee -a "$log" >&2
			break
		fi
		t0=$SECONDS
		if [ "${NVBW_SPLIT:-0}" = 1 ]; then
			for t in "${tests[@]}"; do
				# shellcheck disable=SC2046  # the options split as words
				nvbw_pair "$r" "$bench" "$t" "$@" $(nvbw_test_opts "$t")
			done
		else
			nvbw_pair "$r" "$bench" "${tests[*]}" "$@"
		fi
		took=$((SECONDS - t0))
		[ "$took" -gt "$longest" ] && longest=$took
	done
}
