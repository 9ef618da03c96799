#!/usr/bin/env bash
# Runs every test of the build in $BUILD (default build/):
#   unit tests   $BUILD/tests/test_*  (cmocka; exit status = failures)
#   CLI tests    tests/cli/test_*.sh  (TAP-style lines; exit 0, 1 or 77 = skip)
#   GPU tests    tests/gpu/run-gpu-tests.sh (skips with 77 without a GPU)
# Each runs under a timeout; output goes to $BUILD/test-logs/.  The last
# line is the summary CI reads:
#   gpufeed tests: P passed, F failed, S skipped (BUILD)
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
TIMEOUT=${GPUFEED_TEST_TIMEOUT:-900}
logs=$BUILD/test-logs
mkdir -p "$logs"
case $BUILD in /*) abs=$BUILD ;; *) abs=$PWD/$BUILD ;; esac
export GPUFEED_SRC=$PWD BUILD GPUFEED=$abs/gpufeed
# Every test takes the stand-in vendor libraries of the build under test
# (a clang or sanitizer build runs its own, not build/'s).
export GPUFEED_FAKE_NVML=$abs/fakes/libnvidia-ml.so.1 GPUFEED_FAKE_CUDA=$abs/fakes/libcuda.so.1 \
	GPUFEED_FAKE_CUFILE=$abs/fakes/libcufile.so.0
# Tests never pick up a real NVML or a locality override from the caller.
unset GPUFEED_NVML_LIBRARY GPUFEED_PCI_LOCALITY FAKE_NVML_SCENARIO
export TMPDIR=${TMPDIR:-/tmp} LC_ALL=C
# The fixture recordings are kept as machines/*/root.tar.gz; tests that need
# a directory find them unpacked once per build here (or where the caller says).
export GPUFEED_FIXTURES=${GPUFEED_FIXTURES:-$abs/fixtures/machines}
tests/fixtures/tools/unpack.sh "$GPUFEED_FIXTURES" || { echo "cannot unpack the fixtures"; exit 1; }

pass=0 fail=0 skip=0 failed=() cases=0

# Test cases inside a suite: cmocka's "[==========] N test(s) run." or the
# CLI scripts' TAP plan "1..N".
count_cases() {
	local n
	n=$(sed -n 's/^\[==========\] \([0-9]*\) test(s) run\./\1/p; s/^1\.\.\([0-9]*\)$/\1/p' "$1" | tail -n 1)
	cases=$((cases + ${n:-0}))
}

run_one() {
	local name=$1; shift
	local log=$logs/${name////_}.log rc
	timeout "$TIMEOUT" "$@" >"$log" 2>&1
	rc=$?
	count_cases "$log"
	case $rc in
	0) pass=$((pass + 1)); echo "PASS  $name" ;;
	77) skip=$((skip + 1)); echo "SKIP  $name: $(tail -n 1 "$log")" ;;
	124) fail=$((fail + 1)); failed+=("$name"); echo "FAIL  $name (timed out after ${TIMEOUT}s)" ;;
	*) fail=$((fail + 1)); failed+=("$name"); echo "FAIL  $name (exit $rc)"; tail -n 40 "$log" | sed 's/^/      /' ;;
	esac
}

for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	run_one "$(basename "$t")" "$t"
done
for t in tests/cli/test_*.sh; do
	run_one "cli/$(basename "$t" .sh)" bash "$t"
done
run_one gpu/run-gpu-tests bash tests/gpu/run-gpu-tests.sh

echo
if [ $fail -gt 0 ]; then
	echo "failed: ${failed[*]} (logs in $logs/)"
fi
echo "gpufeed tests: $pass passed, $fail failed, $skip skipped ($cases test cases; $BUILD)"
[ $fail -eq 0 ]
