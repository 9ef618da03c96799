#!/usr/bin/env bash
# Rewrites the per-command table of docs/exit-codes.md from the binary's
# command tables ('gpufeed help --exit-table'); tests/cli/test_help.sh fails
# when the two differ.   scripts/update-exit-table.sh [GPUFEED]
set -eu
cd "$(dirname "$0")/.."
bin=${1:-build/gpufeed}
doc=docs/exit-codes.md
table=$("$bin" help --exit-table)
tmp=$(mktemp "$doc.tmp-XXXXXX")
awk -v table="$table" '
	/^\| command \| returns \|/ { print table; skip = 1; next }
	skip && /^\|/ { next }
	{ skip = 0; print }
' "$doc" >"$tmp"
mv "$tmp" "$doc"
