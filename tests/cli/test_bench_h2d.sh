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

expect_rc 0 "--quick text" gf bench h2d --quick --gpu 1 --quiet
expect_grep "$out" "GPU 1 .*0000:00:07.0" "a table per GPU, named by index and PCI address"
expect_grep "$out" "bidirectional_device_to_host  *pinned  *node [0-9]  *64.0 MiB  *[0-9.]" "a row per direction, memory, node, size"
expect_no_grep "$err" "bench h2d: \[" "--quiet: no progress"
finish
