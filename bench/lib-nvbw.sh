# shellcheck shell=bash disable=SC2154  # size and tests: set by the sourcing script
# Sourced by bench/compare-*-nvbandwidth.sh: what comparing a gpufeed bench
# with nvbandwidth adds to bench/lib-compare.sh (the run loop, the time
# limit, the log): the usage, the two tools' commands and their JSON.  Not
# run alone.
# shellcheck source-path=SCRIPTDIR source=lib-compare.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib-compare.sh"

# nvbw_setup OUTDIR [RUNS], with $size set: checks the arguments and tools
# and sets out, runs, root, gpufeed, nvbw, mib and log; OUTDIR gets empty
# nvbandwidth.jsonl and gpufeed.jsonl.  Exits 2 on a usage error.  With
# COMPARE_SUMMARY_ONLY=1 both .jsonl files must be there and are kept.
nvbw_setup() {
	out=${1:-}
	runs=${2:-5}
	[ -n "$out" ] || { echo "usage: $0 OUTDIR [RUNS]" >&2; exit 2; }
	cmp_check "$runs" RUNS
	root=$(cd "$(dirname "$0")/.." && pwd)
	gpufeed=${GPUFEED:-$root/build/gpufeed}
	nvbw=${NVBANDWIDTH:-$root/bench/.nvbw/nvbandwidth}
	mib=$(( $(numfmt --from=iec "$size") >> 20 ))
	if [ "$cmp_summary_only" != 1 ]; then
		for t in "$gpufeed" "$nvbw"; do [ -x "$t" ] || { echo "$0: $t is not there (build it)" >&2; exit 2; }; done
	fi
	cmp_start "$out" log.txt nvbandwidth.jsonl gpufeed.jsonl
	log=$cmp_log
	trap cmp_cleanup EXIT
	[ "$cmp_summary_only" = 1 ] && return
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

# nvbw_one TEST...: one nvbandwidth process over the testcases, its JSON a
# line of nvbandwidth.jsonl.  Exits 3 when it fails.
nvbw_one() {
	cmp_exec nvbandwidth "$out/.nvbw.tmp" env CUDA_DEVICE_ORDER=PCI_BUS_ID "$nvbw" -j -b "$mib" \
		${NVBW_SAMPLES:+-i "$NVBW_SAMPLES"} -t "$@"
	if [ "$CMP_RC" != 0 ] || ! oneline <"$out/.nvbw.tmp" >>"$out/nvbandwidth.jsonl" 2>>"$log"; then
		cat "$out/.nvbw.tmp" >>"$log"; rm -f "$out/.nvbw.tmp"
		echo "$0: nvbandwidth failed with exit $CMP_RC (log.txt)" >&2; exit 3
	fi
	rm -f "$out/.nvbw.tmp"
}

# gf_one BENCH OPTION...: one gpufeed bench process, its JSON a line of
# gpufeed.jsonl.  Exits 3 when it fails (exit 1, findings, still has
# figures to compare).
gf_one() {
	local bench=$1
	shift
	cmp_exec gpufeed "$out/.gf.tmp" "$gpufeed" bench "$bench" "$@"
	if [ "$CMP_RC" -gt 1 ] || ! oneline <"$out/.gf.tmp" >>"$out/gpufeed.jsonl" 2>>"$log"; then
		rm -f "$out/.gf.tmp"; echo "$0: gpufeed bench $bench failed with exit $CMP_RC (log.txt)" >&2; exit 3
	fi
	rm -f "$out/.gf.tmp"
}

# nvbw_runs BENCH GPUFEED-OPTION...: $runs runs of nvbandwidth -t
# "${tests[@]}" and gpufeed bench BENCH with the options, interleaved
# (bench/lib-compare.sh: nvbandwidth first in odd runs); with NVBW_SPLIT=1
# that pair once per testcase.
nvbw_runs() {
	nvbw_bench=$1
	shift
	nvbw_gfopts=("$@")
	if [ "${NVBW_SPLIT:-0}" = 1 ] && ! declare -F nvbw_test_opts >/dev/null; then
		echo "$0: NVBW_SPLIT=1 is not offered by this comparison" >&2; exit 2
	fi
	cmp_tools=(nvbandwidth gpufeed)
	if [ "${NVBW_SPLIT:-0}" = 1 ]; then
		cmp_runs "${tests[@]}"
	else
		cmp_runs "${tests[*]}"
	fi
}

# cmp_tool TOOL UNIT (bench/lib-compare.sh): UNIT is the testcases, as words.
cmp_tool() {
	local t
	read -r -a t <<<"$2"
	if [ "$1" = nvbandwidth ]; then
		nvbw_one "${t[@]}"
	elif [ "${NVBW_SPLIT:-0}" = 1 ]; then
		# shellcheck disable=SC2046  # the options split as words
		gf_one "$nvbw_bench" "${nvbw_gfopts[@]}" $(nvbw_test_opts "${t[0]}")
	else
		gf_one "$nvbw_bench" "${nvbw_gfopts[@]}"
	fi
}
