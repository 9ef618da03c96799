# shellcheck shell=bash disable=SC2154  # size and tests: set by the sourcing script
# Sourced by bench/compare-*-nvbandwidth.sh: what comparing a gpufeed
# bench with nvbandwidth always does, written once so the scripts cannot
# drift apart (the same usage, checks, files and run loop).  Not run alone.

# nvbw_setup OUTDIR [RUNS], with $size set: checks the arguments and tools
# and sets out, runs, root, gpufeed, nvbw, mib and log; OUTDIR gets empty
# nvbandwidth.jsonl and gpufeed.jsonl.  Exits 2 on a usage error.
nvbw_setup() {
	out=${1:-}
	runs=${2:-5}
	[ -n "$out" ] || { echo "usage: $0 OUTDIR [RUNS]" >&2; exit 2; }
	[ "$runs" -ge 5 ] 2>/dev/null || { echo "$0: RUNS must be a number >= 5" >&2; exit 2; }
	root=$(cd "$(dirname "$0")/.." && pwd)
	gpufeed=${GPUFEED:-$root/build/gpufeed}
	nvbw=${NVBANDWIDTH:-$root/bench/.nvbw/nvbandwidth}
	mib=$(( $(numfmt --from=iec "$size") >> 20 ))
	for t in "$gpufeed" "$nvbw"; do [ -x "$t" ] || { echo "$0: $t is not there (build it)" >&2; exit 2; }; done
	command -v python3 >/dev/null || { echo "$0: python3 is needed" >&2; exit 2; }
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

# nvbw_runs BENCH GPUFEED-OPTION...: $runs runs, interleaved (nvbandwidth
# -t "${tests[@]}", then gpufeed bench BENCH with the options), each
# tool's JSON a line of its .jsonl.  Exits 3 when a tool fails.
nvbw_runs() {
	local bench=$1 r rc
	shift
	for r in $(seq 1 "$runs"); do
		echo "run $r of $runs: nvbandwidth" | tee -a "$log" >&2
		if ! CUDA_DEVICE_ORDER=PCI_BUS_ID "$nvbw" -j -b "$mib" ${NVBW_SAMPLES:+-i "$NVBW_SAMPLES"} -t "${tests[@]}" \
			2>>"$log" >"$out/.nvbw.tmp" ||
		   ! oneline <"$out/.nvbw.tmp" >>"$out/nvbandwidth.jsonl" 2>>"$log"; then
			cat "$out/.nvbw.tmp" >>"$log"; rm -f "$out/.nvbw.tmp"
			echo "$0: nvbandwidth failed (log.txt)" >&2; exit 3
		fi
		rm -f "$out/.nvbw.tmp"
		echo "run $r of $runs: gpufeed bench $bench" | tee -a "$log" >&2
		"$gpufeed" bench "$bench" "$@" 2>>"$log" >"$out/.gf.tmp"
		rc=$?
		# Exit 1 (findings) still has figures to compare; others do not.
		if [ "$rc" -gt 1 ] || ! oneline <"$out/.gf.tmp" >>"$out/gpufeed.jsonl" 2>>"$log"; then
			rm -f "$out/.gf.tmp"; echo "$0: gpufeed bench $bench failed with exit $rc (log.txt)" >&2; exit 3
		fi
		rm -f "$out/.gf.tmp"
	done
}
