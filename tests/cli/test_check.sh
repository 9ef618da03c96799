#!/usr/bin/env bash
# gpufeed check: the catalogue is documented, exit codes follow --fail-on,
# outputs are well formed and --prom is written atomically.  Each check's
# own behaviour is tested in tests/unit/test_audit_*.c.
. "$(dirname "$0")/lib.sh"
CI=$FIX/ci-vm/root
HGX=$FIX/hgx-h100-8gpu/root

# docs/checks.md is the catalogue the code has.
"$GPUFEED" check --list --markdown >"$TMP/checks.md"
if cmp -s "$TMP/checks.md" "$SRC/docs/checks.md"; then ok "docs/checks.md equals 'check --list --markdown'"; else
	not_ok "docs/checks.md differs from the code: regenerate with 'gpufeed check --list --markdown >docs/checks.md'"
	diff "$SRC/docs/checks.md" "$TMP/checks.md" | head -10 | sed 's/^/#   /'
fi
n_list=$("$GPUFEED" check --list | wc -l)
n_json=$("$GPUFEED" check --list --json | jq '.checks | length')
[ "$n_list" = "$n_json" ] && [ "$n_list" -gt 0 ] && ok "--list and --list --json agree ($n_list checks)" ||
	not_ok "--list has $n_list lines, --json $n_json checks"
expect_jq <("$GPUFEED" check --list --json) '[.checks[].id] | length == (unique | length)' "check ids are unique"
# Every check cites what a user can open: its section of docs/checks.md and at
# least one public source with its title, in one form; nothing private.
expect_jq <("$GPUFEED" check --list --json) \
	'[.checks[] | . as $c | select($c.why | test("^[^;].*; docs/checks\\.md#" + ($c.id | gsub("\\."; "\\.")) + "(; \"[^\"]+\", https://[^ ;]+)+$") | not) | .id] == []' \
	"every why: reason; docs/checks.md#ID; \"Title\", https://URL ..."
expect_jq <("$GPUFEED" check --list --json) '[.checks[] | select(.why | test("seed|§|research|host-audit"))] == []' \
	"no why cites a private note"
missing=$("$GPUFEED" check --list --json | jq -r '.checks[].id' | while read -r id; do
	grep -qF "<a id=\"$id\"></a>" "$SRC/docs/checks.md" || echo "$id"; done)
[ -z "$missing" ] && ok "docs/checks.md has an anchor for every check" || not_ok "no anchor in docs/checks.md for: $missing"

# Usage errors.
expect_rc 2 "--only naming no check" "$GPUFEED" check --root "$CI" --only no.such-check
expect_rc 2 "--profile other" "$GPUFEED" check --root "$CI" --profile gaming
expect_rc 2 "--fail-on other" "$GPUFEED" check --root "$CI" --fail-on sometimes
expect_rc 2 "--markdown without --list" "$GPUFEED" check --markdown
expect_rc 3 "--root that is not a recording" "$GPUFEED" check --root /no/such/dir

# A warning: exit 0 by default, 1 with --fail-on warn; never with --fail-on never.
cp -a "$CI" "$TMP/ci"
rm -f "$TMP/ci/proc/sys/vm/swappiness"
echo 60 >"$TMP/ci/proc/sys/vm/swappiness"
expect_rc 0 "a warning, --fail-on fail (default)" "$GPUFEED" check --root "$TMP/ci" --only mem.swappiness
expect_grep "$out" "warn .*mem.swappiness" "the warning is listed"
expect_rc 1 "a warning, --fail-on warn" "$GPUFEED" check --root "$TMP/ci" --only mem.swappiness --fail-on warn
expect_rc 0 "--fail-on never" "$GPUFEED" check --root "$TMP/ci" --only mem.swappiness --fail-on never
expect_rc 0 "--json" "$GPUFEED" check --root "$TMP/ci" --json
expect_jq "$out" '.schema == "gpufeed-check/1" and (.results | length) > 0' "JSON has the schema and results"
expect_jq "$out" '[.results[] | select(.id == "mem.swappiness")][0] | .status == "warn" and .action.path == "/proc/sys/vm/swappiness" and .action.value == "10"' \
	"the warning carries its safe fix"
expect_jq "$out" '.counts | (.pass + .na + ."needs-root" + .warn + .error + .fail) > 0' "counts add up"
expect_rc 0 "--all lists passes" "$GPUFEED" check --root "$HGX" --all --only memory
expect_grep "$out" "pass .*mem.swap" "a pass is listed with --all"

# --prom: the textfile, written atomically; an unwritable FILE is exit 3.
expect_rc 0 "--prom FILE" "$GPUFEED" check --root "$TMP/ci" --prom "$TMP/gf.prom"
expect_grep "$TMP/gf.prom" '^gpufeed_check_result{id="mem.swappiness",category="memory",subject="",status="warn",profile="training"} 1$' \
	"the textfile holds the warning"
expect_grep "$TMP/gf.prom" '^# TYPE gpufeed_check_results gauge$' "with TYPE lines"
ls "$TMP" | grep -q 'gf.prom.tmp-' && not_ok "a temp file was left" || ok "no temp file left"
expect_rc 3 "--prom in a missing directory" "$GPUFEED" check --root "$TMP/ci" --prom "$TMP/no/such/dir/x.prom"
# --prom FILE that is not a regular file: never renamed over (it turned a
# device into a regular file).  Scratch nodes, never the machine's /dev.
if mknod "$TMP/full" c 1 7 2>/dev/null && mknod "$TMP/null" c 1 3; then
	expect_rc 3 "--prom a full device (a copy of /dev/full)" "$GPUFEED" check --root "$TMP/ci" --prom "$TMP/full"
	expect_grep "$err" "full: No space left on device" "the write's error names FILE"
	[ "$(stat -c %F "$TMP/full")" = "character special file" ] && ok "--prom: /dev/full is still a device" ||
		not_ok "--prom: /dev/full became a $(stat -c %F "$TMP/full")"
	expect_rc 0 "--prom a character device (a copy of /dev/null)" "$GPUFEED" check --root "$TMP/ci" --prom "$TMP/null"
	[ "$(stat -c %F "$TMP/null")" = "character special file" ] && ok "--prom: /dev/null is still a device" ||
		not_ok "--prom: /dev/null became a $(stat -c %F "$TMP/null")"
else
	echo "# skip --prom onto device nodes: mknod needs root"
fi
echo old >"$TMP/prom-target"
ln -s prom-target "$TMP/prom-link"
expect_rc 0 "--prom a symlink" "$GPUFEED" check --root "$TMP/ci" --prom "$TMP/prom-link"
[ -L "$TMP/prom-link" ] && ok "--prom: the symlink is kept" || not_ok "--prom: the symlink was replaced"
expect_grep "$TMP/prom-target" "^# TYPE gpufeed_check_results gauge$" "--prom: its target holds the textfile"
ln -s nowhere "$TMP/prom-dangling"
expect_rc 3 "--prom a symlink to nothing" "$GPUFEED" check --root "$TMP/ci" --prom "$TMP/prom-dangling"
expect_grep "$err" "a symbolic link to a missing file" "the refusal says why"
mkfifo "$TMP/prom-fifo"
timeout 30 cat "$TMP/prom-fifo" >"$TMP/prom-fifo.out" &
reader=$!
expect_rc 0 "--prom a FIFO" timeout 20 "$GPUFEED" check --root "$TMP/ci" --prom "$TMP/prom-fifo"
wait "$reader"
[ -p "$TMP/prom-fifo" ] && ok "--prom: the FIFO is still a FIFO" || not_ok "--prom: the FIFO was replaced"
expect_grep "$TMP/prom-fifo.out" "^gpufeed_check_result" "--prom: the reader got the textfile"

# report carries the audit's summary: counts and the worst results.
expect_rc 0 "report with a warning" "$GPUFEED" report --root "$TMP/ci"
expect_grep "$out" "^Audit (gpufeed check, profile training): 0 fail, 0 error, [1-9][0-9]* warn" "report's text has the audit counts"
expect_grep "$out" "^  warn  [a-z]*\\.[a-z-]*" "and the worst results"
expect_rc 0 "report --json" "$GPUFEED" report --root "$TMP/ci" --json
expect_jq "$out" '.audit.counts.warn >= 1 and (.audit.worst | length) >= 1 and .audit.worst[0].status == "warn"' "report's JSON has the audit summary"

finish
