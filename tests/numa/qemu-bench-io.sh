#!/usr/bin/env bash
# `gpufeed bench io` NUMA placement in the two-node QEMU guest: the bench-io
# part of tests/numa/run.sh alone (see there and bench-io.host.sh).
# Usage: tests/numa/qemu-bench-io.sh [--out DIR] [--keep] [GPUFEED_BINARY]
exec "$(dirname "$0")/run.sh" --only bench-io "$@"
