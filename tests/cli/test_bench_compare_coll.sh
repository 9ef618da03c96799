#!/usr/bin/env bash
# test-scope: tree (checks the tree, not the build: tests/run.sh runs it in the full set only)
# bench/compare-coll-nccltests.sh with stand-in tools: fake <op>_perf
# binaries that write the -J JSON nccl-tests 2.19.6 wrote on 2 x H200
# (tests/fixtures/nccl/h200x2/ncclt-ar.json, its busbw scaled), and a fake
# gpufeed printing gpufeed-bench-coll/1 rows of the same sizes.  The
# parsing of both JSONs, the verdict per (mode, op, size), the ABBA order,
# the early stop on a missing binary, the multi-process mode's commands
# (gpufeed launch, mpirun -g 1) and summarising again.  The real
# comparison needs GPUs: bench/results/.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "skip: python3 is needed"; exit 77; }

cmp=$SRC/bench/compare-coll-nccltests.sh
fixture=$SRC/tests/fixtures/nccl/h200x2/ncclt-ar.json
mkdir -p "$TMP/nt" "$TMP/mpi"
# fake <op>_perf: the fixture's document as this op's, busbw x FAKE_NT_SCALE
cat >"$TMP/nt/fake_perf" <<'EOF'
#!/usr/bin/env bash
echo "$(basename "$0") $*" >>"$FAKE_CALLS"
json=
while [ $# -gt 0 ]; do [ "$1" = -J ] && json=$2; shift; done
python3 - "$FAKE_FIXTURE" "$json" "$0" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["args"][0] = sys.argv[3]
for r in doc["results"]:
    for k in ("out_of_place", "in_place"):
        r[k]["bus_bw"] *= float(__import__("os").environ.get("FAKE_NT_SCALE", "1"))
json.dump(doc, open(sys.argv[2], "w"))
PY
echo "# nccl-tests table (fake)"
EOF
chmod +x "$TMP/nt/fake_perf"
for op in all_reduce all_gather reduce_scatter alltoall; do
	ln -s fake_perf "$TMP/nt/${op}_perf"
	ln -s ../nt/fake_perf "$TMP/mpi/${op}_perf"
done
# fake gpufeed: bench coll --json --op OP ... (or launch ... -- gpufeed bench
# coll ..., its lines prefixed "[0] " as gpufeed launch prefixes them)
cat >"$TMP/gpufeed" <<'EOF'
#!/usr/bin/env bash
echo "gpufeed $*" >>"$FAKE_CALLS"
prefix=
[ "$1" = launch ] && prefix='[0] '
while [ "$1" != --op ]; do shift; done
python3 - "$FAKE_FIXTURE" "$2" <<'PY' | sed "s/^/$prefix/"
import json, os, sys
nt = json.load(open(sys.argv[1]))
scale = float(os.environ.get("FAKE_GF_SCALE", "1"))
rows = [{"size": r["size"], "count": r["count"], "type": "float",
         "out_of_place": {"time": r["out_of_place"]["time"], "alg_bw": r["out_of_place"]["alg_bw"],
                          "bus_bw": r["out_of_place"]["bus_bw"] * scale, "nwrong": None},
         "iteration_us": [r["out_of_place"]["time"]] * 3} for r in nt["results"]]
print(json.dumps({"schema": "gpufeed-bench-coll/1", "config": {"op": sys.argv[2]}, "results": rows}, indent=1))
PY
EOF
chmod +x "$TMP/gpufeed"
export GPUFEED="$TMP/gpufeed" FAKE_CALLS="$TMP/calls" FAKE_FIXTURE="$fixture" NGPU=2

expect_rc 2 "no arguments" bash "$cmp"
expect_rc 2 "RUNS under 5" bash "$cmp" "$TMP/nt" "$TMP/u" 4
expect_grep "$err" "RUNS must be a number >= 5" "the rule is said"
expect_rc 2 "a missing binary stops it before anything runs" env COLL_OPS="all_reduce sendrecv" bash "$cmp" "$TMP/nt" "$TMP/u"
expect_grep "$err" "$TMP/nt/sendrecv_perf" "the missing binary is named"
expect_rc 2 "no gpufeed" env GPUFEED="$TMP/none" bash "$cmp" "$TMP/nt" "$TMP/u"
expect_grep "$err" "$TMP/none (make)" "the missing gpufeed is named"
expect_rc 2 "multi without --mpi" bash "$cmp" --mode multi "$TMP/nt" "$TMP/u"
expect_grep "$err" "needs --mpi MPI_BUILD_DIR" "--mpi is asked for"
expect_rc 2 "a bad mode" bash "$cmp" --mode both-ways "$TMP/nt" "$TMP/u"
expect_rc 2 "multi without mpirun" env MPIRUN="$TMP/no-mpirun" bash "$cmp" --mode multi --mpi "$TMP/mpi" "$TMP/nt" "$TMP/u"
expect_grep "$err" "no-mpirun (MPIRUN)" "the missing mpirun is named"

: >"$TMP/calls"
expect_rc 0 "equal figures pass" env COLL_OPS="all_reduce alltoall" bash "$cmp" "$TMP/nt" "$TMP/eq" 5
expect_grep "$out" "ALL PASS (8 matching figures, 5 paired runs)" "every (op, size) of the fixture matched"
expect_jq "$TMP/eq/summary.json" '(.figures | length) == 8 and all(.figures[]; .result == "PASS" and .ratio == 1 and .paired_runs == 5 and .mode == "single")' \
	"8 rows (2 ops x 4 sizes), each PASS at ratio 1 over 5 paired runs"
expect_jq "$TMP/eq/summary.json" '[.figures[] | select(.op == "all_reduce")] | map(.size) == [1048576, 4194304, 16777216, 67108864]' \
	"the fixture's sizes, in order"
expect_jq "$TMP/eq/summary.json" '[.figures[] | select(.op == "all_reduce" and .size == 1048576)][0] | .nccltests_median == 41.425388 and (.gpufeed_iteration_us | length) == 5' \
	"nccl-tests' out-of-place bus_bw read, gpufeed's samples kept"
expect_grep "$TMP/calls" "^all_reduce_perf -g 2 -b 1M -e 4G -f 2 -n 20 -w 5 -c 0 -J " "nccl-tests: one process over 2 GPUs, the sweep"
expect_grep "$TMP/calls" "^gpufeed bench coll --json --quiet --op alltoall --min-bytes 1M --max-bytes 4G --step-factor 2 --iters 20 --warmup-iters 5 --gpus 0-1" \
	"gpufeed: the same sweep, iterations and GPUs"
if [ "$(cut -d' ' -f1 "$TMP/calls" | head -8 | tr '\n' ' ')" = "all_reduce_perf gpufeed alltoall_perf gpufeed gpufeed all_reduce_perf gpufeed alltoall_perf " ]; then
	ok "ABBA: nccl-tests first in odd runs, gpufeed first in even ones"
else not_ok "the calls are not interleaved ABBA: $(cut -d' ' -f1 "$TMP/calls" | head -8 | tr '\n' '|')"; fi
expect_rc 1 "3% apart fails" env COLL_OPS=all_reduce FAKE_GF_SCALE=0.97 bash "$cmp" "$TMP/nt" "$TMP/far" 5
expect_jq "$TMP/far/summary.json" 'all(.figures[]; .result == "FAIL") and (.all_pass | not)' "every figure FAIL"
expect_rc 0 "1.5% apart passes" env COLL_OPS=all_reduce FAKE_NT_SCALE=1.015 bash "$cmp" "$TMP/nt" "$TMP/near" 5
expect_rc 0 "summarised again without running" env COMPARE_SUMMARY_ONLY=1 GPUFEED="$TMP/none" bash "$cmp" "$TMP/nt" "$TMP/eq" 5
expect_grep "$out" "ALL PASS (8 matching figures" "the same verdict from the files"

: >"$TMP/calls"
cat >"$TMP/mpirun" <<'EOF'
#!/usr/bin/env bash
echo "mpirun $*" >>"$FAKE_CALLS"
while [ "$1" != -x ]; do shift; done
shift 2
exec "$@"
EOF
chmod +x "$TMP/mpirun"
expect_rc 0 "both modes" env COLL_OPS=all_gather MPIRUN="$TMP/mpirun" bash "$cmp" --mode both --mpi "$TMP/mpi" "$TMP/nt" "$TMP/both" 5
expect_jq "$TMP/both/summary.json" '[.figures[].mode] | unique == ["multi", "single"] and length == 8' "a row per mode, op and size"
expect_grep "$TMP/calls" "^mpirun -np 2 --allow-run-as-root -x NCCL_NVLS_ENABLE $TMP/mpi/all_gather_perf -g 1 -b 1M" \
	"nccl-tests multi-process: mpirun, one GPU per process, the MPI build"
expect_grep "$TMP/calls" "^gpufeed launch --nproc-per-node 2 -- $TMP/gpufeed bench coll --json" "gpufeed multi-process: under gpufeed launch"

finish
