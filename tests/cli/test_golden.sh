#!/usr/bin/env bash
# Golden outputs: `topo`, `topo --json`, `report` and `check --all` of every fixture machine
# must equal tests/fixtures/machines/<name>/expected/*.  The recording's
# absolute path (its root.tar.gz) is written as ROOT.  Regenerate after a deliberate change
# with GPUFEED_REGEN=1 (then read the diff before committing it).  The
# version in "gpufeed_version" is written as VERSION.
. "$(dirname "$0")/lib.sh"
# JSON documents carry generated_at: the epoch makes it 1970-01-01T00:00:00Z.
export SOURCE_DATE_EPOCH=0

# Text is wrapped to 100 columns, and a path in it (ROOT) wraps by its
# length: the archives are read from a path as long in every checkout.
gold=$(mktemp -d /tmp/gpufeed-golden-XXXXXX)
trap 'rm -rf "$TMP" "$gold"' EXIT
for dir in "$FIX"/*/; do
	name=$(basename "$dir")
	# Read from the archive itself (as a user's --root FILE.tar.gz).
	[ -f "$SRC/tests/fixtures/machines/$name/root.tar.gz" ] || continue
	cp "$SRC/tests/fixtures/machines/$name/root.tar.gz" "$gold/$name.tar.gz"
	root=$gold/$name.tar.gz
	mkdir -p "$dir/expected"
	for variant in "topo:topo.txt" "topo --json:topo.json" "report:report.txt" "check --all --fail-on never:check.txt"; do
		args=${variant%%:*} file=${variant#*:}
		# shellcheck disable=SC2086
		"$GPUFEED" $args --root "$root" --color=never >"$TMP/raw" 2>"$TMP/stderr"
		rc=$?
		sed "s|$root|ROOT|g; s|\"gpufeed_version\": \"[^\"]*\"|\"gpufeed_version\": \"VERSION\"|" "$TMP/raw" >"$TMP/got"
		if [ "$rc" != 0 ] || [ -s "$TMP/stderr" ]; then
			not_ok "$name: gpufeed $args: exit $rc, stderr: $(head -c 300 "$TMP/stderr")"
			continue
		fi
		# report is the one screen to read first: it fits 100 columns.
		if [ "$file" = report.txt ]; then
			wide=$(expand "$TMP/got" | awk '{ if (length > w) w = length } END { print w + 0 }')
			[ "$wide" -le 100 ] && ok "$name: report fits 100 columns ($wide)" ||
				not_ok "$name: report is $wide columns wide"
		fi
		if [ "${GPUFEED_REGEN:-0}" = 1 ]; then
			cp "$TMP/got" "$dir/expected/$file"
			ok "$name: $file regenerated"
		elif diff -u "$dir/expected/$file" "$TMP/got" >"$TMP/diff"; then
			ok "$name: gpufeed $args matches expected/$file"
		else
			not_ok "$name: gpufeed $args differs from expected/$file"
			head -40 "$TMP/diff" | sed 's/^/#   /'
		fi
	done
done
finish
