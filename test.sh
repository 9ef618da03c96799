#!/usr/bin/env bash
# Every test, in one command (what CI runs through .ci/run): install what the
# tests need (apt, only if missing), then build with three compilers' settings
# and run what each finds bugs in (tests/run.sh, GPUFEED_TEST_SET):
#   gcc            every test (unit, CLI, the tree's own checks)
#   clang          the unit tests (its warnings are errors at build time)
#   gcc ASan+UBSan the unit tests and every CLI script that runs gpufeed
# Warnings are errors in all three.  The last line of each pass is its summary:
#   gpufeed tests: P passed, F failed, S skipped (N test cases; BUILD)
# Then the install test, and once the two-NUMA-node QEMU guest
# (tests/numa/run.sh, about a minute or two under TCG) with the gcc build:
#   gpufeed numa guest tests: P passed, F failed (N checks; QEMU Ss)
#
# Budget: CI gives 90 minutes; this script must stay under 20 on the CI
# machine (2 cores) and a change that pushes it past 45 must make the tests
# faster first (README, "Contributing").  Each pass prints its time.
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh test
jobs=$(nproc)
status=0
pass() { local t0=$SECONDS; "$@" || status=1; echo "($((SECONDS - t0)) s)"; }
pass sh -c "make -s -j$jobs all && make -s check"
pass sh -c "make -s -j$jobs CC=clang BUILD=build-clang all && GPUFEED_TEST_SET=unit make -s CC=clang BUILD=build-clang check"
pass sh -c "GPUFEED_TEST_SET=sanitize make -s -j$jobs sanitize"
# Install into a staging root and build a program against the installed
# headers, pkg-config file and shared library.
tests/install/test-install.sh || status=1
# install-deps.sh test has installed QEMU, busybox and the guest kernel, so a
# skip (77) here means they are broken: loud, and a failure.
numa=0
tests/numa/run.sh build/gpufeed || numa=$?
if [ $numa -eq 77 ]; then
	echo "gpufeed numa guest tests: SKIPPED, counted as a failure (scripts/install-deps.sh test should have provided QEMU, busybox and the kernel)" >&2
	status=1
elif [ $numa -ne 0 ]; then
	status=1
fi
exit $status
