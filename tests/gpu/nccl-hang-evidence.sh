#!/usr/bin/env bash
# Which rank hangs, on a lent machine of 2 or more GPUs: rank 1 sleeps 40 s
# before its 4th all-reduce (tests/gpu/nccl-planted/, MODE=straggler), the
# process group times out after 15 s; 12 s in, 'gpufeed nccl ras --query'
# asks the job's RAS service, and after the timeout 'gpufeed nccl fr' reads
# the Flight Recorder dumps.  Both must name rank 1 (exit 1).  Elsewhere it
# skips (exit 77) with one line saying why.  Output under $OUT (or a temp
# directory): ras.txt, fr.txt, fr.json and the job's log.
set -u
cd "$(dirname "$0")/../.."
gf=${GPUFEED:-$PWD/build/gpufeed}
if ! command -v nvidia-smi >/dev/null 2>&1 || [ "$(nvidia-smi -L 2>/dev/null | wc -l)" -lt 2 ]; then
	echo "skip: fewer than 2 NVIDIA GPUs here"
	exit 77
fi
if ! command -v torchrun >/dev/null 2>&1; then
	echo "skip: torchrun (PyTorch) is needed"
	exit 77
fi
if ! "$gf" nccl fr --help >/dev/null 2>&1; then
	echo "skip: $gf has no 'nccl fr' (the nccl parent command is not wired)"
	exit 77
fi
out=${OUT:-$(mktemp -d)}
mkdir -p "$out/fr"
rm -f "$out"/fr/nccl_trace_rank_*
export NCCL_NVLS_ENABLE=0 MODE=straggler TMO=15 SLEEP=40
export TORCH_FR_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1 TORCH_FR_DUMP_TEMP_FILE=$out/fr/nccl_trace_rank_
torchrun --standalone --nproc-per-node 2 --no-python bash tests/gpu/nccl-planted/rank-wrapper.sh \
	>"$out/job.log" 2>&1 &
job=$!
sleep 12
"$gf" nccl ras --query localhost:28028 >"$out/ras.txt" 2>&1
ras_rc=$?
wait "$job"
sleep 2
"$gf" nccl fr "$out/fr/nccl_trace_rank_" >"$out/fr.txt" 2>&1
fr_rc=$?
"$gf" nccl fr --json "$out/fr/nccl_trace_rank_" >"$out/fr.json" 2>/dev/null
rc=0
if [ "$ras_rc" = 1 ] && grep -q "rank 1 did not enter" "$out/ras.txt"; then echo "ok - RAS names rank 1"; else
	echo "not ok - RAS (exit $ras_rc):"; head -5 "$out/ras.txt"; rc=1; fi
if [ "$fr_rc" = 1 ] && grep -q "verdict: rank 1 did not enter" "$out/fr.txt"; then
	echo "ok - the Flight Recorder dumps name rank 1"
else
	echo "not ok - Flight Recorder (exit $fr_rc):"; head -5 "$out/fr.txt"; rc=1
fi
echo "output in $out"
exit $rc
