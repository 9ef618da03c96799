#!/usr/bin/env bash
# Every test, in one command (what CI runs through .ci/run): install what the
# tests need (apt, only if missing), then build and run the whole suite three
# times: with gcc, with clang, and with gcc under ASan+UBSan.  Warnings are
# errors in all three.  The last line of each pass is its summary:
#   gpufeed tests: P passed, F failed, S skipped (N test cases; BUILD)
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
exit $status
