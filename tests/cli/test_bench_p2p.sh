#!/usr/bin/env bash
# gpufeed bench p2p on the stand-in libcuda (host memory behind device
# addresses, so copies really move bytes; kernels need peer access to touch
# a peer's memory): usage errors, the not-available cases (exit 4), a
# --quick run on 2 GPUs (every test, both copy kinds, the JSON contract),
# a pair without peer access (n/a, not a failure), one GPU (the diagonal
# only), a failing copy (a finding), the text matrices.  Behaviour and
# shape, not speed.
. "$(dirname "$0")/lib.sh"

fake_cuda=${GPUFEED_FAKE_CUDA:-${GPUFEED_SRC:-$PWD}/${BUILD:-build}/fakes/libcuda.so.1}
fake_nvml=${GPUFEED_FAKE_NVML:-${GPUFEED_SRC:-$PWD}/${BUILD:-build}/fakes/libnvidia-ml.so.1}
# The stand-in NVML's GPUs 0-2 at their PCI addresses, in CUDA order too.
pci=0000:00:06.0,0000:00:07.0,0000:00:08.0
gfn() { local n=$1; shift; timeout 120 env GPUFEED_CUDA_LIBRARY="$fake_cuda" GPUFEED_NVML_LIBRARY="$fake_nvml" \
	FAKE_CUDA_DEVICES="$n" FAKE_CUDA_PCI="$pci" "$GPUFEED" "$@"; }
gf() { gfn 2 "$@"; }

expect_rc 2 "an operand" gf bench p2p extra
expect_rc 2 "--size under 4K" gf bench p2p --size 1K
expect_grep "$err" "--sizes: '1K'" "the bad size is named"
expect_rc 2 "--test junk" gf bench p2p --test read,sideways
expect_grep "$err" "--test: 'sideways' is not one of read, write, bidir-read, bidir-write, local, latency" \
	"the bad test is named with the choices"
expect_rc 2 "--copy junk" gf bench p2p --copy dma
expect_grep "$err" "--copy: 'dma'" "the bad copy kind is named"
expect_rc 2 "--gpu junk" gf bench p2p --gpu 0,x
expect_rc 2 "--repeats 0" gf bench p2p --repeats 0
expect_rc 2 "--loops past the bound" gf bench p2p --loops 999999
expect_rc 0 "bench p2p --help" gf bench p2p --help
expect_grep "$out" "--test LIST" "help lists --test"
gf bench --help >"$TMP/bench-help" 2>&1
expect_grep "$TMP/bench-help" "p2p" "bench --help lists p2p"

# Not available: exit 4 with the reason.
expect_rc 4 "no libcuda" env GPUFEED_CUDA_LIBRARY=/nonexistent/libcuda.so.1 "$GPUFEED" bench p2p --quick
expect_grep "$err" "CUDA not available" "the reason is given"
expect_rc 4 "no GPU (cuInit: CUDA_ERROR_NO_DEVICE)" env FAKE_CUDA_SCENARIO=no_device \
	GPUFEED_CUDA_LIBRARY="$fake_cuda" GPUFEED_NVML_LIBRARY="$fake_nvml" "$GPUFEED" bench p2p --quick
expect_grep "$err" "no GPU" "no GPU is said"
expect_rc 4 "no NVML to name the GPUs" env GPUFEED_CUDA_LIBRARY="$fake_cuda" \
	GPUFEED_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 "$GPUFEED" bench p2p --quick
expect_rc 4 "--gpu naming an absent GPU" gf bench p2p --quick --gpu 6
expect_grep "$err" "GPU 6" "the absent GPU is named"

expect_rc 0 "2 GPUs, --size 4M --json" gf bench p2p --size 4M --repeats 3 --json
cp "$out" "$TMP/q.json"
expect_jq "$TMP/q.json" '.schema == "gpufeed-bench-p2p/1" and (.gpufeed_version | type) == "string" and (.machine | type) == "object"' \
	"schema, version, machine"
expect_jq "$TMP/q.json" '[.gpus[].gpu] == [0, 1] and [.gpus[].pci] == ["0000:00:06.0", "0000:00:07.0"]' \
	"the GPUs by NVML index at their PCI addresses"
expect_jq "$TMP/q.json" '.pairs == [{"gpus": [0, 1], "peer_access": true, "link": null, "limit_gb_per_s": null, "limited_by": "not in the machine model"}]' \
	"the pair: peer access, and no limit for GPUs outside this machine's model"
# 2 ordered pairs x 4 peer tests x 2 copy kinds + 2 GPUs x 2 local + 4 latency
expect_jq "$TMP/q.json" '.points | length == 24' "every test, copy kind and pair"
expect_jq "$TMP/q.json" '[.points[] | select(.unit == "GB/s") | [.test, .copy]] | unique | length == 10' \
	"read, write, bidir-read, bidir-write, local: each by CE and SM"
expect_jq "$TMP/q.json" '.points | all(.[]; .status == "ok" and .n == 3 and (.samples | length) == 3 and .median > 0 and .min <= .median and .median <= .max and .iqr >= 0 and .verified)' \
	"each point: 3 raw samples, median, spread, bytes checked"
expect_jq "$TMP/q.json" '[.points[] | select(.test == "read")] | all(.[]; .issued_by == .dst_gpu) and ([.[] | select(.test == "write")] | all(.[]; .issued_by == .src_gpu))' \
	"read is issued by the destination"
expect_jq "$TMP/q.json" '[.points[] | select(.test == "write")] | all(.[]; .issued_by == .src_gpu)' \
	"write is issued by the source"
expect_jq "$TMP/q.json" '[.points[] | select(.test == "read" and .copy == "ce" and .src_gpu == 0)][0].nvbandwidth == {"testcase": "device_to_device_memcpy_read_ce", "row": 1, "column": 0}' \
	"each point names its nvbandwidth testcase and cell"
expect_jq "$TMP/q.json" '[.points[] | select(.test == "local" and .copy == "ce")] | all(.[]; .nvbandwidth.testcase == "device_local_copy" and .src_gpu == .dst_gpu)' \
	"the diagonal is device_local_copy"
expect_jq "$TMP/q.json" '[.points[] | select(.test == "latency")] | length == 4 and all(.[]; .unit == "ns" and .loads == 1000000 and .bytes == 2097152)' \
	"latency: every (runner, memory) pair, ns, nvbandwidth's 1M loads over 2 MiB"
expect_jq "$TMP/q.json" '.points | all(.[]; has("limit_gb_per_s") and has("percent_of_limit"))' "every point has its limit fields"
expect_jq "$TMP/q.json" '.config.loops == 16 and .config.warmup_copies == 4 and .config.sizes == [4194304] and .config.sm_threads_per_block == 512' \
	"nvbandwidth's loop count, warm-up copies and SM grid"
expect_jq "$TMP/q.json" '.findings == 0 and (.flags | length) == 0' "no findings"

# A pair without peer access: n/a, not measured, not a failure.
expect_rc 0 "3 GPUs, 0 and 2 without peer access" env FAKE_CUDA_NO_PEER=0-2 \
	GPUFEED_CUDA_LIBRARY="$fake_cuda" GPUFEED_NVML_LIBRARY="$fake_nvml" FAKE_CUDA_DEVICES=3 FAKE_CUDA_PCI="$pci" \
	"$GPUFEED" bench p2p --quick --size 4M --test read,latency --copy ce --json
cp "$out" "$TMP/np.json"
expect_jq "$TMP/np.json" '[.pairs[] | select(.peer_access | not) | .gpus] == [[0, 2]]' "the pair is reported without peer access"
expect_jq "$TMP/np.json" '[.points[] | select(.test == "read") | [.src_gpu, .dst_gpu]] | sort == [[0,1],[1,0],[1,2],[2,1]]' \
	"its cells are not measured; the others are"
expect_jq "$TMP/np.json" '.findings == 0' "and it is no finding"
expect_rc 0 "the same as text" env FAKE_CUDA_NO_PEER=0-2 \
	GPUFEED_CUDA_LIBRARY="$fake_cuda" GPUFEED_NVML_LIBRARY="$fake_nvml" FAKE_CUDA_DEVICES=3 FAKE_CUDA_PCI="$pci" \
	"$GPUFEED" bench p2p --quick --size 4M --test read --copy ce --quiet
expect_grep "$out" "GPU 0 <-> GPU 2: n/a: no peer access" "text says n/a for the pair"
expect_grep "$out" "^GPU0  *-  *[0-9.]*  *-$" "its matrix cell is empty"

# One GPU: the diagonal alone, and the output says so.
expect_rc 0 "1 GPU" gfn 1 bench p2p --quick --size 4M --quiet
expect_grep "$out" "One GPU: no peer pairs" "the output says only the diagonal runs"
expect_grep "$out" "device_local_copy" "and names nvbandwidth's comparable testcase"
expect_grep "$out" "^ce  *[0-9.][0-9.]*$" "the local CE copy has a figure"
expect_grep "$out" "^sm  *[0-9.][0-9.]*$" "the local SM copy has a figure"
expect_no_grep "$out" "read ce" "no peer matrices"
expect_rc 0 "1 GPU --json" gfn 1 bench p2p --quick --size 4M --quiet --json
expect_jq "$out" '.pairs == [] and ([.points[].test] | unique) == ["latency", "local"]' "JSON: no pairs, local and latency"

# A CUDA error in a copy fails those points (findings), not the run.
expect_rc 1 "a failing cuMemcpyPeerAsync: exit 1" env FAKE_CUDA_FAIL=cuMemcpyPeerAsync=2 \
	GPUFEED_CUDA_LIBRARY="$fake_cuda" GPUFEED_NVML_LIBRARY="$fake_nvml" FAKE_CUDA_DEVICES=2 FAKE_CUDA_PCI="$pci" \
	"$GPUFEED" bench p2p --size 4M --repeats 1 --copy ce --test read,local --json
cp "$out" "$TMP/fail.json"
expect_jq "$TMP/fail.json" '[.points[] | select(.test == "read") | .status] == ["error", "error"] and ([.points[] | select(.test == "local") | .status] | all(. == "ok")) and .findings == 2' \
	"the peer copies failed and count; the local ones ran"
expect_jq "$TMP/fail.json" '[.points[] | select(.status == "error")] | all(.[]; .error | test("cuMemcpyPeerAsync: CUDA_ERROR_OUT_OF_MEMORY"))' \
	"the error names the call and the CUDA error"

expect_rc 0 "--quick text, 2 GPUs" gf bench p2p --quick --size 4M --quiet
expect_grep "$out" "read ce, 4.0 MiB: GB/s (nvbandwidth device_to_device_memcpy_read_ce)" "a matrix per test and copy kind"
expect_grep "$out" "^from.to  *GPU0  *GPU1$" "GPUs as rows and columns"
expect_grep "$out" "^GPU1  *[0-9.][0-9.]*  *-$" "a figure off the diagonal, '-' on it"
expect_grep "$out" "^latency: ns per dependent load" "the latency matrix"
expect_no_grep "$err" "bench p2p: \[" "--quiet: no progress"
finish
