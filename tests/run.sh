#!/usr/bin/env bash
# Runs the tests of the build in $BUILD (default build/):
#   unit tests   $BUILD/tests/test_*  (cmocka; exit status = failures)
#   CLI tests    tests/cli/test_*.sh  (TAP-style lines; exit 0, 1 or 77 = skip)
#   GPU tests    tests/gpu/run-gpu-tests.sh (skips with 77 without a GPU)
# Independent programs run side by side, GPUFEED_TEST_JOBS at a time
# (default: the CPUs this process may use, plus one for the ones waiting on
# I/O); each under a timeout, its output in $BUILD/test-logs/.
#
# GPUFEED_TEST_SET picks what runs (test.sh runs the full set once, with gcc):
#   full      everything (the default)
#   unit      the unit tests: what another compiler's build finds bugs in
#   sanitize  the unit tests and every CLI script that runs gpufeed's code,
#             not the ones that check the tree itself (a "# test-scope: tree"
#             line: layout, help and man pages, PTX, the bench scripts)
# The last line is the summary CI reads:
#   gpufeed tests: P passed, F failed, S skipped (N test cases; BUILD)
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
TIMEOUT=${GPUFEED_TEST_TIMEOUT:-900}
SET=${GPUFEED_TEST_SET:-full}
JOBS=${GPUFEED_TEST_JOBS:-$(( $(nproc) + 1 ))}
case $SET in full|unit|sanitize) ;; *) echo "GPUFEED_TEST_SET=$SET: want full, unit or sanitize" >&2; exit 2 ;; esac
logs=$BUILD/test-logs
rm -rf "$logs"
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
# a directory find them unpacked once per build here (or where the caller
# says), shared read-only: a test copies one as hard links and replaces,
# never writes through, a file it changes (tests/unit/helpers.c).
export GPUFEED_FIXTURES=${GPUFEED_FIXTURES:-$abs/fixtures/machines}
tests/fixtures/tools/unpack.sh "$GPUFEED_FIXTURES" || { echo "cannot unpack the fixtures"; exit 1; }

# Test cases inside a suite: cmocka's "[==========] N test(s) run." or the
# CLI scripts' TAP plan "1..N".
count_cases() {
	local n
	n=$(sed -n 's/^\[==========\] \([0-9]*\) test(s) run\./\1/p; s/^1\.\.\([0-9]*\)$/\1/p' "$1" | tail -n 1)
	echo "${n:-0}"
}

# One test in the background: its output in its log, its exit code in
# $logs/NAME.rc when it ends (the parent reads both).
start_one() {
	local name=$1; shift
	local base=$logs/${name////_}
	(
		start=$SECONDS
		timeout "$TIMEOUT" "$@" >"$base.log" 2>&1
		echo "$? $((SECONDS - start))" >"$base.rc.tmp" && mv "$base.rc.tmp" "$base.rc"
	) &
}

pass=0 fail=0 skip=0 failed=() cases=0
# report NAME: the verdict of a finished test.
report() {
	local name=$1 base=$logs/${1////_} rc secs
	read -r rc secs <"$base.rc"
	cases=$((cases + $(count_cases "$base.log")))
	case $rc in
	0) pass=$((pass + 1)); echo "PASS  $name (${secs}s)" ;;
	77) skip=$((skip + 1)); echo "SKIP  $name: $(tail -n 1 "$base.log")" ;;
	124) fail=$((fail + 1)); failed+=("$name"); echo "FAIL  $name (timed out after ${TIMEOUT}s)" ;;
	*) fail=$((fail + 1)); failed+=("$name"); echo "FAIL  $name (exit $rc)"; tail -n 40 "$base.log" | sed 's/^/      /' ;;
	esac
}

names=() cmds=()
add() { names+=("$1"); shift; cmds+=("$*"); }
for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] && add "$(basename "$t")" "$t"
done
if [ "$SET" != unit ]; then
	for t in tests/cli/test_*.sh; do
		[ "$SET" = sanitize ] && grep -q '^# test-scope: tree' "$t" && continue
		add "cli/$(basename "$t" .sh)" bash "$t"
	done
fi
add gpu/run-gpu-tests bash tests/gpu/run-gpu-tests.sh

# Start them in order, JOBS at a time; report each as it ends.
running=() next=0
while [ $next -lt ${#names[@]} ] || [ ${#running[@]} -gt 0 ]; do
	while [ $next -lt ${#names[@]} ] && [ ${#running[@]} -lt "$JOBS" ]; do
		# shellcheck disable=SC2086  # a command's words
		start_one "${names[$next]}" ${cmds[$next]}
		running+=("${names[$next]}")
		next=$((next + 1))
	done
	wait -n 2>/dev/null || true
	still=()
	for n in "${running[@]}"; do
		if [ -f "$logs/${n////_}.rc" ]; then report "$n"; else still+=("$n"); fi
	done
	running=("${still[@]}")
done

# A test that wrote into a shared fixture (through a hard link) would change
# what every later test reads: fail loudly, and unpack it afresh next time.
for stamp in "$GPUFEED_FIXTURES"/*/.unpacked; do
	changed=$(find "$(dirname "$stamp")/root" -newer "$stamp" -print 2>/dev/null | head -n 3)
	if [ -n "$changed" ]; then
		fail=$((fail + 1)); failed+=("fixtures")
		echo "FAIL  fixtures: a test wrote into the shared fixture $(dirname "$stamp"): $(echo $changed)"
		rm -f "$stamp"
	fi
done

echo
if [ $fail -gt 0 ]; then
	echo "failed: ${failed[*]} (logs in $logs/)"
fi
echo "gpufeed tests: $pass passed, $fail failed, $skip skipped ($cases test cases; $BUILD)"
[ $fail -eq 0 ]
