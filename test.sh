#!/usr/bin/env bash
# Every test, in one command (what CI runs through .ci/run): install what the
# tests need (apt, only if missing), then build and run the whole suite three
# times: with gcc, with clang, and with gcc under ASan+UBSan.  Warnings are
# errors in all three.  The last line of each pass is its summary:
#   gpufeed tests: P passed, F failed, S skipped (N test cases; BUILD)
# Then, once, the two-NUMA-node QEMU guest (tests/numa/run.sh, about a minute
# or two under TCG) with the gcc build:
#   gpufeed numa guest tests: P passed, F failed (N checks; QEMU Ss)
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh test
jobs=$(nproc)
status=0
make -s -j"$jobs" all && make -s check || status=1
make -s -j"$jobs" CC=clang BUILD=build-clang all && make -s CC=clang BUILD=build-clang check || status=1
make -s -j"$jobs" sanitize || status=1
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
