#!/usr/bin/env bash
# gpufeed check as an unprivileged user: what it cannot read is needs-root,
# never a pass (issue 8).  Runs as root only (it drops to nobody with
# setpriv); skips elsewhere.
. "$(dirname "$0")/lib.sh"
CI=$FIX/ci-vm/root
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null || ! id nobody >/dev/null 2>&1; then
	echo "1..0 # SKIP needs root, setpriv and a nobody user"
	exit 77
fi
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
if ! as_nobody test -x "$GPUFEED"; then
	echo "1..0 # SKIP nobody cannot run $GPUFEED (a directory on the way is private)"
	exit 77
fi
chmod 755 "$TMP"

# A recording with one file only root can read.
cp -a "$CI" "$TMP/ci"
chmod -R a+rX "$TMP/ci"
rm -f "$TMP/ci/proc/sys/vm/swappiness"
echo 60 >"$TMP/ci/proc/sys/vm/swappiness"
chmod 000 "$TMP/ci/proc/sys/vm/swappiness"
as_nobody "$GPUFEED" check --root "$TMP/ci" --only mem.swappiness --json >"$TMP/nobody.json" 2>"$TMP/err"
expect_jq "$TMP/nobody.json" '.results[0].status == "needs-root"' "a file nobody cannot read is needs-root"
expect_jq "$TMP/nobody.json" '.results[0].note | test("permission denied")' "and the note says why"
"$GPUFEED" check --root "$TMP/ci" --only mem.swappiness --json >"$TMP/root.json"
expect_jq "$TMP/root.json" '.results[0].status == "warn"' "root reads the same file: warn"

# Live: every result that differs between root and nobody is needs-root for
# nobody (a check that could not read something never passes).
"$GPUFEED" check --json --nvml=off >"$TMP/live-root.json" 2>/dev/null
as_nobody "$GPUFEED" check --json --nvml=off >"$TMP/live-nobody.json" 2>/dev/null
expect_jq "$TMP/live-nobody.json" '.privileged == false' "nobody's run says it is not privileged"
expect_jq "$TMP/live-root.json" '.privileged == true' "root's run says it is"
bad=$(jq -n --slurpfile r "$TMP/live-root.json" --slurpfile n "$TMP/live-nobody.json" '
	[ $r[0].results[] as $a | $n[0].results[]
	  | select(.id == $a.id and .subject == $a.subject and .status != $a.status and .status != "needs-root")
	  | "\(.id) \(.subject // ""): root \($a.status), nobody \(.status)" ]')
if [ "$(jq length <<<"$bad")" = 0 ]; then ok "live: every result nobody sees differently is needs-root"; else
	not_ok "live: results differ without needs-root: $(jq -c . <<<"$bad")"; fi
finish
