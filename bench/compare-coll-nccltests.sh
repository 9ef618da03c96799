#!/usr/bin/env bash
# `gpufeed bench coll` against NVIDIA's nccl-tests on a GPU machine: for
# each collective (all_reduce, all_gather, reduce_scatter, alltoall), the
# same sweep (-b 1M -e 4G -f 2), iterations and warm-up on both sides,
# RUNS runs of each interleaved (bench/lib-compare.sh: nccl-tests first in
# odd runs, gpufeed first in even ones), then per (mode, op, size) the
# median busbw over the runs of each tool (out of place, nccl-tests' first
# column), their ratio, its 95% interval and PASS when |ratio - 1| <= 0.02
# (bench/compare_verdict.py).
#
#   bench/compare-coll-nccltests.sh [--mpi MPI_BUILD_DIR] [--mode single|multi|both]
#                                   NCCLTESTS_BUILD_DIR OUTDIR [RUNS]
#
# Modes: single (default): one process over every GPU, `gpufeed bench coll`
# and `<op>_perf -g NGPU` from NCCLTESTS_BUILD_DIR (built without MPI).
# multi: one process per GPU, gpufeed under `gpufeed launch
# --nproc-per-node NGPU` and nccl-tests as `mpirun -np NGPU
# --allow-run-as-root <op>_perf -g 1` from MPI_BUILD_DIR (nccl-tests built
# with MPI=1; --mpi is required for it).  both: the two, one after the
# other.
#
# Environment: GPUFEED (default build/gpufeed), NGPU (default: the GPUs
# nvidia-smi lists), COLL_OPS (default "all_reduce all_gather
# reduce_scatter alltoall"), COLL_MIN_BYTES (1M), COLL_MAX_BYTES (4G),
# COLL_STEP_FACTOR (2), COLL_ITERS (20), COLL_WARMUP (5), MPIRUN (default
# mpirun), COMPARE_DEADLINE and COMPARE_SUMMARY_ONLY (bench/lib-compare.sh).
# NCCL_NVLS_ENABLE=0 is exported for both tools (the issue's setting).
# Needs python3.
# OUTDIR gets: gpufeed-MODE.jsonl and nccltests-MODE.jsonl (every run's
# JSON, one per line), summary.txt, summary.json (every row with both
# tools' per-run busbw and gpufeed's raw per-iteration samples), log.txt,
# runs.tsv.  Exit 0 all PASS, 1 a figure outside 2%, missing or SHORT, 2
# usage or a missing binary, 3 a tool failed.
set -uo pipefail

# shellcheck source-path=SCRIPTDIR source=lib-compare.sh
. "$(dirname "$0")/lib-compare.sh"

usage() { echo "usage: $0 [--mpi MPI_BUILD_DIR] [--mode single|multi|both] NCCLTESTS_BUILD_DIR OUTDIR [RUNS]" >&2; exit 2; }
mpidir='' mode=single
while [ $# -gt 0 ]; do
	case $1 in
	--mpi) [ $# -ge 2 ] || usage; mpidir=$2; shift 2 ;;
	--mode) [ $# -ge 2 ] || usage; mode=$2; shift 2 ;;
	-h|--help) usage ;;
	-*) echo "$0: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
if [ $# -lt 2 ] || [ $# -gt 3 ]; then usage; fi
ntdir=$1 out=$2 runs=${3:-5}
case $mode in single) modes=(single) ;; multi) modes=(multi) ;; both) modes=(single multi) ;;
	*) echo "$0: --mode: '$mode' is not single, multi or both" >&2; exit 2 ;; esac
cmp_check "$runs" RUNS
root=$(cd "$(dirname "$0")/.." && pwd)
gpufeed=${GPUFEED:-$root/build/gpufeed}
read -r -a ops <<<"${COLL_OPS:-all_reduce all_gather reduce_scatter alltoall}"
min=${COLL_MIN_BYTES:-1M} max=${COLL_MAX_BYTES:-4G} factor=${COLL_STEP_FACTOR:-2}
iters=${COLL_ITERS:-20} warmup=${COLL_WARMUP:-5} mpirun=${MPIRUN:-mpirun}
export NCCL_NVLS_ENABLE=0

# Every binary before anything runs: a comparison that dies an hour in on
# a missing alltoall_perf has cost an hour.
if [ "$cmp_summary_only" != 1 ]; then
	missing=()
	[ -x "$gpufeed" ] || missing+=("$gpufeed (make)")
	for m in "${modes[@]}"; do
		if [ "$m" = multi ]; then
			[ -n "$mpidir" ] || { echo "$0: --mode $mode needs --mpi MPI_BUILD_DIR (nccl-tests built with MPI=1)" >&2; exit 2; }
			command -v "$mpirun" >/dev/null || missing+=("$mpirun (MPIRUN)")
			for op in "${ops[@]}"; do [ -x "$mpidir/${op}_perf" ] || missing+=("$mpidir/${op}_perf"); done
		else
			for op in "${ops[@]}"; do [ -x "$ntdir/${op}_perf" ] || missing+=("$ntdir/${op}_perf"); done
		fi
	done
	if [ ${#missing[@]} -gt 0 ]; then
		printf '%s: not there or not executable:\n' "$0" >&2
		printf '  %s\n' "${missing[@]}" >&2
		exit 2
	fi
	ngpu=${NGPU:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')}
	[[ $ngpu =~ ^[1-9][0-9]*$ ]] || { echo "$0: no GPU found (nvidia-smi -L); set NGPU" >&2; exit 2; }
fi
files=()
for m in "${modes[@]}"; do files+=("gpufeed-$m.jsonl" "nccltests-$m.jsonl"); done
cmp_start "$out" log.txt "${files[@]}"
trap cmp_cleanup EXIT

# One line of JSON from a tool's output: gpufeed launch prefixes each
# rank's lines with "[N] ", nccl-tests prints its table around nothing.
oneline() {
	sed -E 's/^\[[0-9]+\] //' | python3 -c 'import json,sys; t=sys.stdin.read(); print(json.dumps(json.loads(t[t.index("{"):t.rindex("}")+1])))'
}

# cmp_tool TOOL UNIT (bench/lib-compare.sh): UNIT is MODE:OP.
cmp_tool() {
	local m=${2%%:*} op=${2#*:} tmp=$out/.cmp.tmp json=$out/.nt.json
	local gfargs=(bench coll --json --quiet --op "$op" --min-bytes "$min" --max-bytes "$max" --step-factor "$factor"
		      --iters "$iters" --warmup-iters "$warmup")
	local ntargs=(-b "$min" -e "$max" -f "$factor" -n "$iters" -w "$warmup" -c 0 -J "$json")
	if [ "$1" = gpufeed ]; then
		if [ "$m" = multi ]; then
			cmp_exec gpufeed "$tmp" "$gpufeed" launch --nproc-per-node "$ngpu" -- "$gpufeed" "${gfargs[@]}"
		else
			cmp_exec gpufeed "$tmp" "$gpufeed" "${gfargs[@]}" --gpus "0-$((ngpu - 1))"
		fi
		if [ "$CMP_RC" -gt 1 ] || ! oneline <"$tmp" >>"$out/gpufeed-$m.jsonl" 2>>"$cmp_log"; then
			cat "$tmp" >>"$cmp_log"; rm -f "$tmp"
			echo "$0: gpufeed bench coll --op $op ($m) failed with exit $CMP_RC (log.txt)" >&2; exit 3
		fi
	else
		rm -f "$json"
		if [ "$m" = multi ]; then
			cmp_exec nccl-tests "$tmp" "$mpirun" -np "$ngpu" --allow-run-as-root -x NCCL_NVLS_ENABLE \
				"$mpidir/${op}_perf" -g 1 "${ntargs[@]}"
		else
			cmp_exec nccl-tests "$tmp" "$ntdir/${op}_perf" -g "$ngpu" "${ntargs[@]}"
		fi
		cat "$tmp" >>"$cmp_log"
		if [ "$CMP_RC" != 0 ] || ! oneline <"$json" >>"$out/nccltests-$m.jsonl" 2>>"$cmp_log"; then
			rm -f "$tmp" "$json"
			echo "$0: ${op}_perf ($m) failed with exit $CMP_RC (log.txt)" >&2; exit 3
		fi
	fi
	rm -f "$tmp" "$json"
}

if [ "$cmp_summary_only" != 1 ]; then
	{
		echo "# $(date -u +%FT%TZ) $(hostname) $(uname -r) NCCL_NVLS_ENABLE=0 NGPU=$ngpu"
		nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version --format=csv 2>&1 || true
		nvidia-smi topo -m 2>&1 || true
		echo "# modes: ${modes[*]}; ops: ${ops[*]}; -b $min -e $max -f $factor -n $iters -w $warmup"
	} >>"$cmp_log"
	for m in "${modes[@]}"; do : >"$out/gpufeed-$m.jsonl"; : >"$out/nccltests-$m.jsonl"; done
	units=()
	for m in "${modes[@]}"; do for op in "${ops[@]}"; do units+=("$m:$op"); done; done
	cmp_tools=(nccl-tests gpufeed)
	cmp_runs "${units[@]}"
fi

PYTHONPATH=$(dirname "$0") python3 "$(dirname "$0")/compare_coll.py" "$out" "${modes[@]}"
