#!/usr/bin/env bash
# Vendor libraries through the one dlopen pattern (src/core/dl.c), seen from
# the command line: an absent library or one lacking a required symbol makes
# the feature "not available" (exit 4 only when required), never a crash.
. "$(dirname "$0")/lib.sh"

expect_rc 0 "no NVML: topo still works" env GPUFEED_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 \
	"$GPUFEED" topo --json
expect_jq "$out" '.machine.nvml == false' "and says NVML was not used"
expect_rc 4 "no NVML, required: not available" env GPUFEED_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 \
	"$GPUFEED" topo --nvml=require
expect_grep "$err" "NVML not available: GPUFEED_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 not found" \
	"the library and the variable that chose it are named"
# A real shared library that is not NVML: the first missing symbol is named.
expect_rc 4 "a library lacking nvmlInit_v2: not available" env GPUFEED_NVML_LIBRARY=libm.so.6 \
	"$GPUFEED" topo --nvml=require
expect_grep "$err" "NVML not available: GPUFEED_NVML_LIBRARY=libm.so.6 lacks nvmlInit_v2" "the missing symbol is named"
expect_rc 0 "a library lacking nvmlInit_v2, NVML optional" env GPUFEED_NVML_LIBRARY=libm.so.6 "$GPUFEED" topo --json
expect_jq "$out" '.machine.nvml == false' "and NVML is not used"
if [ -f "${GPUFEED_FAKE_NVML:-}" ]; then
	expect_rc 0 "the stand-in NVML loads" env GPUFEED_NVML_LIBRARY="$GPUFEED_FAKE_NVML" "$GPUFEED" topo --nvml=require --json
	expect_jq "$out" '.machine.nvml == true' "and is used"
fi

finish
