#!/usr/bin/env bash
# bench/overlap-sweep.sh: its usage errors, its refusal on a machine with
# fewer than 2 GPUs (exit 4, before anything runs), and a whole sweep on the
# stand-in CUDA and NCCL behind a stand-in nvidia-smi: every run's JSON,
# the machine, the commands, and the summary's rows per (mode, compute,
# bucket).  The stand-ins' times mean nothing; the shapes are checked.
. "$(dirname "$0")/lib.sh"
[ -x /usr/bin/python3 ] || { echo "skip: /usr/bin/python3 is needed"; exit 77; }

sweep=$SRC/bench/overlap-sweep.sh
fakes=${GPUFEED_SRC:-$PWD}/${BUILD:-build}/fakes

expect_rc 2 "no OUT" bash "$sweep"
expect_grep "$err" "usage:" "  said"
expect_rc 2 "REPEATS 0" env GPUFEED="$GPUFEED" bash "$sweep" "$TMP/o" 0
expect_grep "$err" "REPEATS must be a number >= 1" "  the rule is said"
expect_rc 2 "GPUFEED not a binary" env GPUFEED=/nonexistent/gpufeed bash "$sweep" "$TMP/o"

# A stand-in nvidia-smi: two GPUs, or none.
mkdir -p "$TMP/bin2" "$TMP/bin0" "$TMP/nccl"
printf '#!/bin/sh\n[ "$1" = -L ] && { echo "GPU 0: Fake (UUID: GPU-0)"; echo "GPU 1: Fake (UUID: GPU-1)"; }\nexit 0\n' \
	>"$TMP/bin2/nvidia-smi"
printf '#!/bin/sh\nexit 9\n' >"$TMP/bin0/nvidia-smi"
chmod +x "$TMP/bin2/nvidia-smi" "$TMP/bin0/nvidia-smi"
expect_rc 4 "fewer than 2 GPUs" env PATH="$TMP/bin0:$PATH" GPUFEED="$GPUFEED" bash "$sweep" "$TMP/o"
expect_grep "$err" "needs 2 or more GPUs" "  said"
[ ! -e "$TMP/o" ] && ok "  nothing made" || not_ok "  $TMP/o was made"

expect_rc 0 "a sweep on the stand-ins, single process" env PATH="$TMP/bin2:$PATH" GPUFEED="$GPUFEED" \
	GPUFEED_CUDA_LIBRARY="$fakes/libcuda.so.1" GPUFEED_NVML_LIBRARY="$fakes/libnvidia-ml.so.1" \
	GPUFEED_NCCL_LIBRARY="$fakes/libnccl.so.2" FAKE_NCCL_DIR="$TMP/nccl" FAKE_CUDA_DEVICES=2 \
	OVERLAP_MULTI=0 OVERLAP_GRAD=4M OVERLAP_BUCKETS=1M,all OVERLAP_COMPUTE_MS="2 8" OVERLAP_ITERS=1 \
	bash "$sweep" "$TMP/s" 2
for f in single-c2-r1 single-c8-r1 single-c2-r2 single-c8-r2; do
	expect_jq "$TMP/s/$f.json" '.schema == "gpufeed-bench-overlap/1" and (.configs | length) == 2' "  $f.json"
done
expect_grep "$TMP/s/machine.txt" "GPU 1: Fake" "  the machine's GPUs"
expect_grep "$TMP/s/commands.txt" "single-c8-r2: .* bench overlap --grad-bytes 4M --buckets 1M,all --compute-ms 8 --repeats 1 --json" \
	"  each command"
expect_grep "$TMP/s/summary.tsv" "^mode	compute_ms	bucket	buckets	runs	" "  the summary's head"
[ "$(grep -c '^single	' "$TMP/s/summary.tsv")" = 4 ] && ok "  a row per (compute, bucket)" ||
	not_ok "  rows: $(cat "$TMP/s/summary.tsv")"
expect_grep "$TMP/s/summary.tsv" "^single	8	all	1	2	" "  one bucket at 8 ms over 2 runs"
finish
