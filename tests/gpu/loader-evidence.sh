#!/usr/bin/env bash
# The loader issue's evidence on a GPU machine, in one run of a few minutes
# (device time is scarce):
#   1. a dataset of fixed-size records packed there (gpufeed pack
#      --record-size; RECORD bytes, DATASET_MB MiB of random bytes);
#   2. `gpufeed launch --nproc-per-node N` running tests/gpu/loader_ddp.py, a
#      small PyTorch DDP training job, fed by gpufeed.torch, then the same job
#      fed by PyTorch's DataLoader (num_workers WORKERS, pin_memory,
#      persistent workers, prefetch 4) over the same records, A B A B: each
#      rank's RESULT line (binding, samples/s, step p50/p99, input wait).
#      Cold: the page cache is dropped before each run (as root; said
#      otherwise), so both read the disk: gpufeed with O_DIRECT (THREADS
#      I/O threads per rank), PyTorch's workers through the page cache.
# Writes to OUTDIR: log.txt, ddp-<loader>-<run>.log, results.jsonl (every
# rank's RESULT), summary.txt.  Exit 0 when every run worked and every rank
# was bound (launch's binding, read back by the rank itself), 1 otherwise, 77
# (skip) without a GPU or PyTorch.
#   tests/gpu/loader-evidence.sh OUTDIR
# Environment: GPUFEED (build/gpufeed), NPROC (GPUs, at most 2 by default),
# RECORD (131072), DATASET_MB (4096), STEPS (300), BATCH (64), WORKERS (8),
# STEP_MS (0: no extra GPU time per step), RUNS (2), THREADS (4).
set -u
OUT=${1:?usage: tests/gpu/loader-evidence.sh OUTDIR}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
gf=$(realpath "${GPUFEED:-build/gpufeed}" 2>/dev/null)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
exec > >(tee "$OUT/log.txt") 2>&1
[ -n "$gf" ] && [ -x "$gf" ] || { echo "no gpufeed binary (${GPUFEED:-build/gpufeed}): build first"; exit 2; }
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { echo "skip: no NVIDIA GPU"; exit 77; }
python3 -c 'import sys, torch; sys.exit(0 if torch.cuda.device_count() >= 1 else 1)' 2>/dev/null ||
	{ echo "skip: needs PyTorch with a visible GPU"; exit 77; }
ngpu=$(python3 -c 'import torch; print(torch.cuda.device_count())')
np=${NPROC:-$((ngpu >= 2 ? 2 : 1))}
record=${RECORD:-131072}
mb=${DATASET_MB:-4096}
steps=${STEPS:-300}
batch=${BATCH:-64}
workers=${WORKERS:-8}
runs=${RUNS:-2}
data=${DATA_DIR:-/tmp/gpufeed-loader-evidence}
# The Python binding: the abi3 extension built beside the binary
# (tests/cli/test_python.sh or make python PY_EXT=BUILD/python/gpufeed/...),
# with the libraries carried in BUILD/lib where this machine lacks them.
bdir=$(dirname "$gf")
if [ -f "$bdir/python/gpufeed/_gpufeed.abi3.so" ]; then
	export PYTHONPATH=$bdir/python${PYTHONPATH:+:$PYTHONPATH}
	export LD_LIBRARY_PATH=$bdir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
python3 -c 'import gpufeed.torch' || { echo "skip: import gpufeed.torch fails (build the extension beside $gf)"; exit 77; }
fails=()
fail() { echo "FAIL: $*"; fails+=("$*"); }
echo "# $(date -u +%FT%TZ) $(hostname) $(uname -r); $np ranks; records $record B; $mb MiB; gpufeed $("$gf" --version 2>&1 | head -1)"
nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version --format=csv,noheader
python3 -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__)'

echo; echo "=== pack: $mb MiB of $record-byte records"
rm -rf "$data" && mkdir -p "$data"
t0=$SECONDS
head -c $((mb << 20)) /dev/urandom > "$data/records.bin" || fail "writing the records"
"$gf" pack --record-size "$record" "$data/records.bin" "$data/ds" || fail "gpufeed pack"
rm -f "$data/records.bin"
echo "packed in $((SECONDS - t0)) s"
"$gf" inspect "$data/ds" | head -12

echo; echo "=== DDP on $np ranks: gpufeed.torch beside PyTorch's DataLoader ($workers workers), $runs runs each, A B A B"
: > "$OUT/results.jsonl"
for run in $(seq 1 "$runs"); do
	order=(gpufeed torch)
	[ $((run % 2)) = 0 ] && order=(torch gpufeed)
	for l in "${order[@]}"; do
		log=$OUT/ddp-$l-$run.log
		if [ "$(id -u)" = 0 ]; then sync; echo 1 > /proc/sys/vm/drop_caches; else echo "not root: the page cache is not dropped"; fi
		echo "run $run: $l"
		"$gf" launch --nproc-per-node "$np" -- python3 "$PWD/tests/gpu/loader_ddp.py" --data "$data/ds" \
			--loader "$l" --batch-size "$batch" --steps "$steps" --workers "$workers" --threads "${THREADS:-4}" \
			--step-ms "${STEP_MS:-0}" > "$log" 2>&1 || fail "launch of the $l job, run $run (exit $?; $log)"
		grep -o 'RESULT .*' "$log" | sed 's/^RESULT //' | python3 -c '
import json, sys
run, loader = sys.argv[1], sys.argv[2]
for line in sys.stdin:
    d = json.loads(line); d["run"] = int(run); print(json.dumps(d))' "$run" "$l" >> "$OUT/results.jsonl"
	done
done

python3 - "$OUT/results.jsonl" "$np" > "$OUT/summary.txt" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
np_ = int(sys.argv[2])
print("loader   rank  runs  samples/s (median)  GB/s   step p50 ms  step p99 ms  input wait  bound CPUs")
ok = True
for loader in ("gpufeed", "torch"):
    for r in range(np_):
        mine = [x for x in rows if x["loader"] == loader and x["rank"] == r]
        if not mine:
            print("%-8s %4d  none" % (loader, r)); ok = False; continue
        med = lambda k: statistics.median(x[k] for x in mine)
        cpus = [l for l in mine[0]["binding"] if l.startswith("Cpus_allowed_list")]
        print("%-8s %4d  %4d  %18.0f  %5.2f  %11.2f  %11.2f  %9.1f%%  %s" % (
            loader, r, len(mine), med("samples_per_s"), med("gb_per_s"), med("step_ms_p50"), med("step_ms_p99"),
            100 * med("input_wait_fraction"), cpus[0] if cpus else "?"))
tot = {l: sum(statistics.median(x["samples_per_s"] for x in rows if x["loader"] == l and x["rank"] == r)
              for r in range(np_) if any(x["loader"] == l and x["rank"] == r for x in rows)) for l in ("gpufeed", "torch")}
if tot.get("torch"):
    print("all ranks: gpufeed %.0f samples/s, PyTorch %.0f samples/s, ratio %.2f" % (
        tot["gpufeed"], tot["torch"], tot["gpufeed"] / tot["torch"]))
sys.exit(0 if ok else 1)
EOF
[ $? = 0 ] || fail "a rank has no RESULT line (summary.txt)"
cat "$OUT/summary.txt"
rm -rf "$data"
if [ ${#fails[@]} -gt 0 ]; then
	printf 'FAILED: %s\n' "${fails[@]}"
	exit 1
fi
echo "loader evidence: all held"
