#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine, in one command: install what the
# build needs (apt, only if missing), build, and run `gpufeed report` on this
# machine.  Extra arguments go to gpufeed report (e.g. --json, --strict).
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh build
make -s -j"$(nproc)" lib cli
exec build/gpufeed report "$@"
