#!/usr/bin/env bash
# examples/ built against the public API (make builds them into
# $BUILD/examples) and run, each on a recording or the stand-in vendor
# libraries, so an example that no longer builds or runs fails here.  Every
# example must have a check below: a new one without one fails.
. "$(dirname "$0")/lib.sh"

B=${BUILD:-build}
case $B in /*) ;; *) B=$SRC/$B ;; esac
E=$B/examples
fakes=$(dirname "${GPUFEED_FAKE_CUDA:-$B/fakes/libcuda.so.1}")
onfakes() { env GPUFEED_CUDA_LIBRARY="$fakes/libcuda.so.1" GPUFEED_NVML_LIBRARY="$fakes/libnvidia-ml.so.1" "$@"; }

checked="gpus-and-nodes bench-any-target pinned-to-dlpack read-file-to-gpu bind-worker loader-host monitor-sample"
for src in "$SRC"/examples/*.c; do
	name=$(basename "$src" .c)
	[ -x "$E/$name" ] && ok "$name is built" || not_ok "$name is not built in $E"
	[[ " $checked " == *" $name "* ]] && ok "$name is run below" || not_ok "$name has no check in test_examples.sh"
done

# The 4 x H200 VM's recording: every GPU on node 0, as NVML says.
expect_rc 0 "gpus-and-nodes on a recording" "$E/gpus-and-nodes" "$FIX/h200x4-vm/root"
expect_grep "$out" "^vm: 4 GPU(s), 1 NUMA node(s)$" "  its summary"
expect_grep "$out" "^GPU 3 0000:00:09.0: node 0 (nvml), CPUs 0-63$" "  each GPU's node and where it came from"
expect_grep "$out" "^host -> GPU0: 63.0 GB/s, limited by PCIe Gen5 x16" "  the narrowest host link"
expect_rc 1 "gpus-and-nodes on no recording" "$E/gpus-and-nodes" /nonexistent/recording
expect_grep "$err" "/nonexistent/recording" "  names it"

expect_rc 0 "bench-any-target lists the targets" "$E/bench-any-target"
expect_grep "$out" "^io-gpu FILE: storage to GPU memory" "  with their operands"
expect_grep "$out" "^  --direction LIST$" "  and their options"
expect_rc 0 "bench-any-target runs bench mem by names" "$E/bench-any-target" mem nodes=0 size=4M repeats=1 quick threads=1
expect_jq "$out" '.schema == "gpufeed-bench-mem/1" and (.pairs | length) == 1' "  its JSON"
expect_rc 2 "bench-any-target: a bad option" "$E/bench-any-target" mem repeats=0
expect_grep "$err" "--repeats: '0' is not a number from 1 to 1000" "  the library's message"

expect_rc 0 "pinned-to-dlpack on the stand-ins" onfakes "$E/pinned-to-dlpack" 0
expect_grep "$out" "^tensor 256x1024 float32 on device type 1 (CPU), 1048576 bytes pinned" "  a pinned tensor, CPU memory"
expect_rc 4 "pinned-to-dlpack without libcuda" env GPUFEED_CUDA_LIBRARY=/nonexistent/libcuda.so.1 \
	GPUFEED_NVML_LIBRARY="$fakes/libnvidia-ml.so.1" "$E/pinned-to-dlpack" 0

head -c 3000000 /dev/urandom >"$TMP/data.bin"
expect_rc 0 "read-file-to-gpu on the stand-ins" onfakes "$E/read-file-to-gpu" "$TMP/data.bin" 0
expect_grep "$out" "^3000000 bytes by \(io_uring\|psync\) in 1 chunks" "  the whole file, by the engine"
expect_rc 4 "read-file-to-gpu, no such GPU" onfakes "$E/read-file-to-gpu" "$TMP/data.bin" 9

# Computed on the 2-GPU recording, applied to this process: 2 CPUs (the
# recorded node's share for GPU 0) where this machine has them.
if [ "$(nproc)" -ge 2 ]; then
	expect_rc 0 "bind-worker on a recording" "$E/bind-worker" 0 "$FIX/ci-2gpu/root"
	expect_grep "$out" "^bound to [0-9]* CPU(s).*; CUDA_VISIBLE_DEVICES=GPU-" "  CPUs and the GPU by UUID"
fi
expect_rc 2 "bind-worker: a GPU the machine lacks is a bad list, as for run --gpu" "$E/bind-worker" 7 "$FIX/ci-2gpu/root"

# A tiny dataset packed and loaded on host memory: two epochs, every sample
# once in each; resumed from a state saved 3 batches (192 samples) in.
expect_rc 0 "loader-host packs and iterates" env TMPDIR="$TMP" "$E/loader-host" 500
expect_grep "$out" "^epoch 0: 8 batches, 500 samples, 500 of 500 seen exactly once$" "  epoch 0, each sample once"
expect_grep "$out" "^epoch 1: 8 batches, 500 samples, 500 of 500 seen exactly once$" "  epoch 1 too"
expect_grep "$out" "^resumed: 308 samples left in epoch 2$" "  resumed where the state says"
expect_rc 1 "loader-host: no samples" "$E/loader-host" 0

# The monitor on a recording: every GPU with its limits, no figures, and why.
expect_rc 0 "monitor-sample on a recording" env GPUFEED_ROOT="$FIX/h200x4-vm/root" "$E/monitor-sample" 2 0
expect_grep "$out" "^gpus: a recording holds no GPU counters" "  says why there are no GPU figures"
expect_grep "$out" "^GPU3 0000:00:09.0 src=none sm=nan .* pcie_limit_mbs=63015.4 " "  each GPU beside its PCIe limit"
expect_grep "$out" "^node0 cpu_busy=nan " "  no rates from a recording"
expect_grep "$out" "^cost: 2 calls, " "  and what a call cost"
# This machine with the stand-in NVML, whose GPUs this machine's sysfs lacks.
expect_rc 0 "monitor-sample here, NVML's GPUs not the model's" onfakes "$E/monitor-sample" 2 0
expect_grep "$out" "^gpus: NVML lists 4 GPU(s), none of them a GPU of the model's" "  said, not a failure"
expect_grep "$out" "^sample interval_s=0\.[0-9]* " "  the second sample has an interval"
expect_rc 2 "monitor-sample: no count" "$E/monitor-sample"
expect_rc 1 "monitor-sample: no such recording" env GPUFEED_ROOT=/nonexistent/recording "$E/monitor-sample" 1 0
expect_grep "$err" "/nonexistent/recording" "  names it"
finish
