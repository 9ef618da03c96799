#!/usr/bin/env bash
# gpufeed bench overlap on the stand-in libcuda and libnccl (device memory
# is host memory, the all-reduces move real bytes, the spin kernel takes no
# time): usage errors, the not-available cases (exit 4), a run's JSON
# contract (each bucket size's four figures with raw per-iteration samples,
# the plan, the fraction), a failing all-reduce failing the figures that
# all-reduce (exit 1), the text table.  Checks behaviour and shape, not
# speed: the stand-ins' times mean nothing.
. "$(dirname "$0")/lib.sh"

fakes=${GPUFEED_SRC:-$PWD}/${BUILD:-build}/fakes
mkdir -p "$TMP/nccl"
gf() { timeout 300 env GPUFEED_CUDA_LIBRARY="$fakes/libcuda.so.1" GPUFEED_NVML_LIBRARY="$fakes/libnvidia-ml.so.1" \
	GPUFEED_NCCL_LIBRARY="$fakes/libnccl.so.2" FAKE_NCCL_DIR="$TMP/nccl" FAKE_CUDA_DEVICES=4 "$GPUFEED" "$@"; }
small=(--grad-bytes 4M --buckets 1M,all --repeats 2 --warmup 1)

expect_rc 2 "an operand" gf bench overlap extra
expect_rc 2 "--buckets junk" gf bench overlap --buckets 1M,12Q
expect_grep "$err" "--buckets: '12Q'" "the bad size is named"
expect_rc 2 "--buckets above the gradients" gf bench overlap --grad-bytes 64M --buckets 128M
expect_grep "$err" "--buckets: '128M' is not a multiple of 4 bytes from 4K to the gradients' 67108864 bytes" \
	"the limit and --grad-bytes are named"
expect_rc 2 "--buckets making too many buckets" gf bench overlap --grad-bytes 1G --buckets 4K
expect_grep "$err" "262144 buckets" "the count is said"
expect_rc 2 "--buckets naming nothing" gf bench overlap --buckets ,
expect_rc 2 "--grad-bytes not a multiple of 4" gf bench overlap --grad-bytes 4098
expect_grep "$err" "--grad-bytes" "--grad-bytes is named"
expect_rc 2 "--compute-ms 0" gf bench overlap --compute-ms 0
expect_rc 2 "--repeats 0" gf bench overlap --repeats 0
expect_rc 2 "--gpu junk" gf bench overlap --gpu 0,x
expect_rc 2 "--timeout 0" gf bench overlap --timeout 0
expect_rc 0 "bench overlap --help" gf bench overlap --help
expect_grep "$out" "--grad-bytes SIZE" "help lists --grad-bytes"
expect_grep "$out" "bucket_cap_mb" "help names DDP's bucket_cap_mb"
gf bench --help >"$TMP/bench-help" 2>&1
expect_grep "$TMP/bench-help" "overlap" "bench --help lists overlap"

# Not available: exit 4 with the reason.
expect_rc 4 "no libcuda" env GPUFEED_CUDA_LIBRARY=/nonexistent/libcuda.so.1 \
	GPUFEED_NCCL_LIBRARY="$fakes/libnccl.so.2" "$GPUFEED" bench overlap --quick
expect_grep "$err" "CUDA not available" "the reason is given"
expect_rc 4 "no NCCL" env GPUFEED_CUDA_LIBRARY="$fakes/libcuda.so.1" GPUFEED_NVML_LIBRARY="$fakes/libnvidia-ml.so.1" \
	GPUFEED_NCCL_LIBRARY=/nonexistent/libnccl.so.2 "$GPUFEED" bench overlap --quick
expect_grep "$err" "/nonexistent/libnccl.so.2" "the reason is given: the library looked for"
expect_rc 4 "--gpu naming an absent GPU" gf bench overlap --quick --gpu 6
expect_grep "$err" "GPU 6" "the absent GPU is named"

expect_rc 0 "a small sweep over 2 GPUs, --json" gf bench overlap "${small[@]}" --gpu 0,1 --compute-ms 5 --json
cp "$out" "$TMP/o.json"
expect_jq "$TMP/o.json" '.schema == "gpufeed-bench-overlap/1" and (.gpufeed_version | type) == "string" and (.machine | type) == "object"' \
	"schema, version, machine"
expect_jq "$TMP/o.json" '.config.grad_bytes == 4194304 and .config.compute_ms == 5 and .config.repeats == 2 and .config.warmup == 1 and .config.dtype == "float32" and .config.buckets == "1M,all"' \
	"the options as run"
expect_jq "$TMP/o.json" '.run.launcher == "single process" and .run.nranks == 2 and (.run.gpus | length) == 2 and ([.run.gpus[].pci] == ["0000:00:06.0", "0000:00:07.0"])' \
	"one process, a rank per GPU asked for, at their PCI addresses"
expect_jq "$TMP/o.json" '[.configs[] | [.bucket, .bucket_bytes, .buckets]] == [["1.0 MiB", 1048576, 4], ["all", 4194304, 1]]' \
	"the plan per bucket size: 4 buckets of 1 MiB, one of everything"
expect_jq "$TMP/o.json" '.configs | all(.[]; (.figures | keys) == ["comm", "compute", "overlap", "serial"])' \
	"four figures per bucket size"
expect_jq "$TMP/o.json" '[.configs[].figures[]] | all(.[]; .unit == "ms" and .n == 2 and (.samples | length) == 2 and .min <= .median and .median <= .max)' \
	"each figure: 2 raw per-iteration samples in ms, median and spread"
expect_jq "$TMP/o.json" '.configs | all(.[]; has("overlap_fraction") and has("saved_ms"))' "the fraction and the time saved"
expect_jq "$TMP/o.json" '.configs | all(.[]; .saved_ms == null or ((.saved_ms - (.figures.serial.median - .figures.overlap.median)) | fabs) < 0.002)' \
	"saved = serial - overlap of the medians"
expect_jq "$TMP/o.json" '.findings == 0' "no findings"

# An all-reduce that fails fails the figures that all-reduce; compute
# alone still runs.  Exit 1, as a failed figure of any target.
expect_rc 1 "a failing ncclAllReduce: exit 1" env FAKE_NCCL_FAIL=ncclAllReduce \
	GPUFEED_CUDA_LIBRARY="$fakes/libcuda.so.1" GPUFEED_NVML_LIBRARY="$fakes/libnvidia-ml.so.1" \
	GPUFEED_NCCL_LIBRARY="$fakes/libnccl.so.2" FAKE_NCCL_DIR="$TMP/nccl" FAKE_CUDA_DEVICES=4 \
	"$GPUFEED" bench overlap --grad-bytes 4M --buckets all --repeats 1 --warmup 1 --gpu 0,1 --json
cp "$out" "$TMP/fail.json"
expect_jq "$TMP/fail.json" '.configs[0].figures | (.compute.n == 1) and ([.comm, .serial, .overlap] | all(.[]; .status == "error" and (.error | test("ncclAllReduce"))))' \
	"compute ran; the three figures with all-reduces failed, naming the call"
expect_jq "$TMP/fail.json" '.findings == 3 and .configs[0].overlap_fraction == null' "3 findings, no fraction"

expect_rc 0 "text" gf bench overlap "${small[@]}" --gpu 0-2 --quiet
expect_grep "$out" "3 ranks (single process), 3 GPUs here" "who ran"
expect_grep "$out" "4.0 MiB of float32 gradients all-reduced" "the model's size"
expect_grep "$out" "^  bucket  *buckets  *compute  *comm  *serial  *overlap  *saved  *fraction" "the table's head"
expect_grep "$out" "^  1.0 MiB  *4  *[0-9.]" "a row per bucket size"
expect_grep "$out" "^  all  *1  *[0-9.]" "one bucket: all"
expect_no_grep "$err" "bench overlap: \[" "--quiet: no progress"

# Two ranks started as torchrun starts them, each driving one GPU: the
# figures are the slowest rank's, so both ranks report the same samples.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
for r in 0 1; do
	env RANK=$r WORLD_SIZE=2 LOCAL_RANK=$r LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" \
		GPUFEED_COLL_PORT="$port" GPUFEED_CUDA_LIBRARY="$fakes/libcuda.so.1" \
		GPUFEED_NVML_LIBRARY="$fakes/libnvidia-ml.so.1" GPUFEED_NCCL_LIBRARY="$fakes/libnccl.so.2" \
		FAKE_NCCL_DIR="$TMP/nccl" FAKE_CUDA_DEVICES=2 timeout 120 "$GPUFEED" bench overlap "${small[@]}" \
		--timeout 30s --json --quiet -o "$TMP/rank$r.json" 2>"$TMP/rank$r.err" &
	eval "pid$r=\$!"
done
wait "$pid0"; rc0=$?
wait "$pid1"; rc1=$?
[ "$rc0$rc1" = 00 ] && ok "two ranks: both exit 0" || not_ok "two ranks: exit $rc0 and $rc1: $(cat "$TMP/rank0.err" "$TMP/rank1.err")"
expect_jq "$TMP/rank0.json" '.run.nranks == 2 and .run.rank == 0 and .run.launcher == "torchrun" and (.run.gpus | length) == 1' \
	"  rank 0 of 2 under torchrun's variables, one GPU"
expect_jq "$TMP/rank1.json" '.run.nranks == 2 and .run.rank == 1' "  rank 1 of 2"
a=$(jq -c '[.configs[].figures[].samples]' "$TMP/rank0.json" 2>/dev/null)
b=$(jq -c '[.configs[].figures[].samples]' "$TMP/rank1.json" 2>/dev/null)
[ -n "$a" ] && [ "$a" = "$b" ] && ok "  the same samples on both ranks (the slowest rank's)" ||
	not_ok "  samples differ: $a / $b"
finish
