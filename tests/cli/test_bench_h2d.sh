#!/usr/bin/env bash
# gpufeed bench h2d on the stand-in libcuda (host memory behind device
# addresses, so copies really move bytes): usage errors, the not-available
# cases (exit 4), a --quick run's JSON contract (every direction, raw
# samples, median and spread, the limit, the byte check), pageable beside
# pinned, the text table.  Checks behaviour and shape, not speed.
. "$(dirname "$0")/lib.sh"

fake_cuda=${GPUFEED_FAKE_CUDA:-${GPUFEED_SRC:-$PWD}/${BUILD:-build}/fakes/libcuda.so.1}
fake_nvml=${GPUFEED_FAKE_NVML:-${GPUFEED_SRC:-$PWD}/${BUILD:-build}/fakes/libnvidia-ml.so.1}
# Four stand-in GPUs: the stand-in NVML's four, at the same PCI addresses.
gf() { timeout 120 env GPUFEED_CUDA_LIBRARY="$fake_cuda" GPUFEED_NVML_LIBRARY="$fake_nvml" FAKE_CUDA_DEVICES=4 \
	"$GPUFEED" "$@"; }

expect_rc 2 "an operand" gf bench h2d extra
expect_rc 2 "--size under 4K" gf bench h2d --size 1K
expect_grep "$err" "--sizes: '1K'" "the bad size is named"
expect_rc 2 "--size not a multiple of 8" gf bench h2d --size 4099
expect_rc 2 "--sizes junk" gf bench h2d --sizes 4M,12Q
expect_rc 2 "--gpu junk" gf bench h2d --gpu 0,x
expect_grep "$err" "--gpu: '0,x'" "the bad GPU list is named"
expect_rc 2 "--numa-node junk" gf bench h2d --numa-node some
expect_rc 2 "--repeats 0" gf bench h2d --repeats 0
expect_rc 2 "--loops past the bound" gf bench h2d --loops 999999
expect_rc 2 "an unknown option" gf bench h2d --p2p
expect_rc 0 "bench h2d --help" gf bench h2d --help
expect_grep "$out" "--numa-node LIST" "help lists --numa-node"
gf bench --help >"$TMP/bench-help" 2>&1
expect_grep "$TMP/bench-help" "h2d" "bench --help lists h2d"

# Not available: exit 4 with the reason.
expect_rc 4 "no libcuda" env GPUFEED_CUDA_LIBRARY=/nonexistent/libcuda.so.1 "$GPUFEED" bench h2d --quick
expect_grep "$err" "CUDA not available" "the reason is given"
expect_rc 4 "no GPU (cuInit: CUDA_ERROR_NO_DEVICE)" env FAKE_CUDA_SCENARIO=no_device \
	GPUFEED_CUDA_LIBRARY="$fake_cuda" GPUFEED_NVML_LIBRARY="$fake_nvml" "$GPUFEED" bench h2d --quick
expect_grep "$err" "no GPU" "no GPU is said"
expect_rc 4 "no NVML to name the GPUs" env GPUFEED_CUDA_LIBRARY="$fake_cuda" \
	GPUFEED_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 "$GPUFEED" bench h2d --quick
expect_rc 4 "--gpu naming an absent GPU" gf bench h2d --quick --gpu 6
expect_grep "$err" "GPU 6" "the absent GPU is named"
expect_rc 4 "--numa-node naming an absent node" gf bench h2d --quick --numa-node 63 --gpu 0
expect_grep "$err" "no NUMA node 63 here" "the absent node is named"

# A CUDA error in a copy fails that point (a finding), not the run.
expect_rc 1 "a failing cuMemcpyHtoDAsync: exit 1" env FAKE_CUDA_FAIL=cuMemcpyHtoDAsync_v2=2 \
	GPUFEED_CUDA_LIBRARY="$fake_cuda" GPUFEED_NVML_LIBRARY="$fake_nvml" FAKE_CUDA_DEVICES=4 \
	"$GPUFEED" bench h2d --size 4M --gpu 1 --repeats 1 --json
cp "$out" "$TMP/fail.json"
# (Every direction copies host to device: the others to seed the check.)
expect_jq "$TMP/fail.json" '(.points | length) == 4 and ([.points[].status] | all(. == "error")) and .findings == 4' \
	"every point is there, failed, and counted"
expect_jq "$TMP/fail.json" '.points | all(.[]; .error | test("cuMemcpyHtoDAsync: CUDA_ERROR_OUT_OF_MEMORY"))' \
	"the error names the call and the CUDA error"

expect_rc 0 "--size 8M --gpu 0,2 --pageable --json runs" gf bench h2d --size 8M --gpu 0,2 --pageable --json --repeats 3
cp "$out" "$TMP/q.json"
expect_jq "$TMP/q.json" '.schema == "gpufeed-bench-h2d/1" and (.gpufeed_version | type) == "string" and (.machine | type) == "object"' \
	"schema, version, machine"
expect_jq "$TMP/q.json" '[.gpus[].gpu] == [0, 2] and [.gpus[].pci] == ["0000:00:06.0", "0000:00:08.0"]' \
	"the GPUs asked for, by NVML index, at their PCI addresses"
expect_jq "$TMP/q.json" '.gpus | all(.[]; has("copy_cpus") and .limit_gb_per_s == null and (.limited_by | length) > 0)' \
	"stand-in GPUs are not in this machine's model: no CPUs, no limit, and why"
expect_jq "$TMP/q.json" '.points | length == 16' "2 GPUs x 2 memory kinds x 4 directions"
expect_jq "$TMP/q.json" '[.points[].direction] | unique == ["bidirectional_device_to_host", "bidirectional_host_to_device", "device_to_host", "host_to_device"]' \
	"every direction, bidirectional per direction"
expect_jq "$TMP/q.json" '[.points[].memory] | unique == ["pageable", "pinned"]' "pinned and pageable"
expect_jq "$TMP/q.json" '.points | all(.[]; .unit == "GB/s" and .n == 3 and (.samples | length) == 3 and .median > 0 and .min <= .median and .median <= .max and .iqr >= 0)' \
	"each point: 3 raw samples, median, spread"
expect_jq "$TMP/q.json" '.points | all(.[]; .verified and .bytes == 8388608)' "each point's bytes checked"
expect_jq "$TMP/q.json" '.points | all(.[]; has("limit_gb_per_s") and has("percent_of_limit") and has("host_node"))' \
	"each point carries its limit and percentage (null: not in this machine's model)"
expect_jq "$TMP/q.json" '.config.loops == 16 and .config.warmup_copies == 4 and .config.sizes == [8388608] and .config.repeats == 3' \
	"nvbandwidth's loop count and warm-up copies"
expect_jq "$TMP/q.json" '.findings == 0 and (.flags | length) == 0' "no findings"

# All GPUs at once: each GPU measured while the others copy too, their
# bytes checked, the sum per direction; a copy failing on an interfering
# GPU fails the points it was part of.
expect_rc 0 "--all-at-once --gpu 0-2 runs" gf bench h2d --size 4M --gpu 0-2 --all-at-once --json --repeats 2
cp "$out" "$TMP/all.json"
expect_jq "$TMP/all.json" '.points | length == 24' "3 GPUs x 4 directions alone + 3 GPUs x 4 directions all at once"
expect_jq "$TMP/all.json" '[.points[] | select(.direction | test("all")) | .direction] | unique == ["all_to_host", "bidirectional_all_to_host", "bidirectional_host_to_all", "host_to_all"]' \
	"nvbandwidth's four all-GPU testcases"
expect_jq "$TMP/all.json" '[.points[] | select(.direction | test("all"))] | all(.[]; .memory == "pinned" and .verified and .median > 0)' \
	"pinned, checked, measured"
expect_jq "$TMP/all.json" '.config.all_at_once and (.all_at_once_sums | length) == 4 and (.all_at_once_sums | all(.[]; .gpus == 3 and .sum_gb_per_s > 0 and .bytes == 4194304))' \
	"a sum over the 3 GPUs per direction"
expect_jq "$TMP/all.json" '.all_at_once_sums[0] as $s | ([.points[] | select(.direction == $s.direction) | .median] | add) as $t | (($s.sum_gb_per_s - $t) | fabs) < 0.01 * $t' \
	"the sum is the sum of the GPUs' medians"
expect_rc 1 "an interfering GPU's stream wait failing fails the all-at-once points" \
	env FAKE_CUDA_FAIL=cuStreamWaitEvent GPUFEED_CUDA_LIBRARY="$fake_cuda" GPUFEED_NVML_LIBRARY="$fake_nvml" \
	FAKE_CUDA_DEVICES=4 "$GPUFEED" bench h2d --size 4M --gpu 0,1 --all-at-once --json --repeats 1
cp "$out" "$TMP/allfail.json"
expect_jq "$TMP/allfail.json" '[.points[] | select(.direction | test("all")) | .status] | all(. == "error")' \
	"every all-at-once point failed, naming the call"
expect_jq "$TMP/allfail.json" '[.points[] | select(.direction == "host_to_device" or .direction == "device_to_host") | .status] | all(. != "error")' \
	"the one-GPU, one-way points did not wait on anything and ran"
expect_jq "$TMP/allfail.json" '.all_at_once_sums | all(.[]; .sum_gb_per_s == null)' "no sum over failed points"
expect_rc 0 "--all-at-once text" gf bench h2d --size 4M --gpu 0,1 --all-at-once --repeats 1 --quiet
expect_grep "$out" "^All GPUs at once, 4.0 MiB per copy" "the sums' table"
expect_grep "$out" "bidirectional_host_to_all  *[0-9.]* GB/s over 2 GPUs" "a sum per direction over the GPUs"

# --direction: only the figures named (nvbandwidth's -t); an *_all one
# brings the all-GPU points without --all-at-once; a wrong name is usage.
expect_rc 2 "--direction naming no direction" gf bench h2d --direction host_to_device,sideways
expect_grep "$err" "--direction: 'sideways' is not one of" "the bad name is named"
expect_rc 2 "--direction ',' (an empty name)" gf bench h2d --direction ,
expect_grep "$err" "--direction: '' is not one of" "the empty name is refused"
expect_rc 2 "--all-at-once with a --direction naming no *_all figure" \
	gf bench h2d --all-at-once --direction host_to_device
expect_grep "$err" "names no \*_all figure" "the conflict is said"
expect_rc 0 "--direction bidirectional_host_to_device,host_to_all" \
	gf bench h2d --size 4M --gpu 0,1 --pageable --direction bidirectional_host_to_device,host_to_all --json --repeats 1
cp "$out" "$TMP/dir.json"
expect_jq "$TMP/dir.json" '[.points[] | [.gpu, .direction, .memory]] == [[0, "bidirectional_host_to_device", "pinned"], [0, "bidirectional_host_to_device", "pageable"], [1, "bidirectional_host_to_device", "pinned"], [1, "bidirectional_host_to_device", "pageable"], [0, "host_to_all", "pinned"], [1, "host_to_all", "pinned"]]' \
	"the two figures, per GPU and memory kind, nothing else"
expect_jq "$TMP/dir.json" '.config.directions == ["bidirectional_host_to_device", "host_to_all"] and .config.all_at_once and ([.all_at_once_sums[].direction] == ["host_to_all"])' \
	"the config says which; host_to_all turned the all-GPU points on, its sum alone"
expect_jq "$TMP/dir.json" '.points | all(.[]; .status == "ok" and .verified)' "measured and checked"
expect_jq "$TMP/q.json" '.config.directions == ["host_to_device", "device_to_host", "bidirectional_host_to_device", "bidirectional_device_to_host"]' \
	"by default the four per-GPU figures"

expect_rc 0 "--quick text" gf bench h2d --quick --gpu 1 --quiet
expect_grep "$out" "GPU 1 .*0000:00:07.0" "a table per GPU, named by index and PCI address"
expect_grep "$out" "bidirectional_device_to_host  *pinned  *node [0-9]  *64.0 MiB  *[0-9.]" "a row per direction, memory, node, size"
expect_no_grep "$err" "bench h2d: \[" "--quiet: no progress"
finish
