#!/usr/bin/env bash
# gpufeed tune and revert: on a recording (every byte back, exit codes, the
# lock) and live on this machine (vm.swappiness, and net.core.rmem_max once
# a check for it exists), with a private journal (--state-dir) so the
# machine's /var/lib/gpufeed is never touched.  The journal's own logic
# (a crash at every step, a second tune, --force) is in
# tests/unit/test_tune_revert.c.
. "$(dirname "$0")/lib.sh"
CI=$FIX/ci-vm/root
tree_sum() { (cd "$1" && find . \( -type f -o -type l \) -print0 | sort -z |
	while IFS= read -r -d '' f; do printf '%s\n' "$f"; if [ -L "$f" ]; then readlink "$f"; else cat "$f"; fi; done |
	sha256sum); }

# ---- a recording ----
cp -a "$CI" "$TMP/rec"
echo 60 >"$TMP/rec/proc/sys/vm/swappiness"
before=$(tree_sum "$TMP/rec")
expect_rc 2 "--only naming no check" "$GPUFEED" tune --root "$TMP/rec" --only no.such-check
expect_rc 2 "an operand" "$GPUFEED" tune --root "$TMP/rec" extra
expect_rc 0 "--dry-run" "$GPUFEED" tune --root "$TMP/rec" --dry-run --persist
expect_grep "$out" "would-apply mem.swappiness .*/proc/sys/vm/swappiness: 60 -> 10" "dry run: file, old and new value"
expect_grep "$out" "/etc/sysctl.d/90-gpufeed.conf: + 'vm.swappiness = 10'" "dry run: the persistent line"
[ "$(tree_sum "$TMP/rec")" = "$before" ] && ok "dry run wrote nothing" || not_ok "dry run changed the recording"
expect_rc 0 "tune --persist" "$GPUFEED" tune --root "$TMP/rec" --persist
expect_grep "$out" "applied .*mem.swappiness" "the fix is applied"
[ "$(cat "$TMP/rec/proc/sys/vm/swappiness")" = 10 ] && ok "swappiness is 10 in the recording" || not_ok "swappiness not written"
expect_grep "$TMP/rec/etc/sysctl.d/90-gpufeed.conf" "^vm.swappiness = 10$" "--persist wrote sysctl.d"
expect_rc 0 "check passes after tune" "$GPUFEED" check --root "$TMP/rec" --only mem.swappiness --fail-on warn
# The lock: a tune or revert while another holds the state directory.
(exec 9<"$TMP/rec/var/lib/gpufeed"; flock 9; exec sleep 30) &
locker=$!
for _ in $(seq 50); do flock -n "$TMP/rec/var/lib/gpufeed" true 2>/dev/null || break; sleep 0.1; done
expect_rc 3 "revert while locked" "$GPUFEED" revert --root "$TMP/rec"
expect_grep "$err" "another gpufeed tune or revert is running" "the lock's message says why"
expect_rc 3 "tune while locked" "$GPUFEED" tune --root "$TMP/rec"
kill "$locker"; wait "$locker" 2>/dev/null
# Someone else changes the value: left alone (exit 1), then --force.
echo 30 >"$TMP/rec/proc/sys/vm/swappiness"
expect_rc 1 "revert with a value changed by someone else" "$GPUFEED" revert --root "$TMP/rec"
expect_grep "$out" "changed .*mem.swappiness" "the changed value is named"
expect_grep "$out" "someone else" "and why it is left alone"
[ "$(cat "$TMP/rec/proc/sys/vm/swappiness")" = 30 ] && ok "left alone without --force" || not_ok "overwritten without --force"
expect_rc 0 "revert --force" "$GPUFEED" revert --root "$TMP/rec" --force
[ "$(tree_sum "$TMP/rec")" = "$before" ] && ok "tune then revert: every byte of the recording back" ||
	not_ok "the recording differs after revert"
expect_rc 0 "revert without a journal" "$GPUFEED" revert --root "$TMP/rec"
expect_grep "$out" "nothing to revert" "says there is nothing to revert"
# A crash (SIGKILL) at each step of a tune on the recording, then revert.
for step in 1 4 6 7 9 12 16; do
	GPUFEED_TUNE_FAULT=$step:kill "$GPUFEED" tune --root "$TMP/rec" --persist >/dev/null 2>&1
	rc=$?
	"$GPUFEED" revert --root "$TMP/rec" >"$TMP/rv" 2>&1
	rrc=$?
	if [ $rc = 137 ] && [ $rrc = 0 ] && [ "$(tree_sum "$TMP/rec")" = "$before" ]; then
		ok "kill -9 at tune step $step, then revert: every byte back"
	else not_ok "kill -9 at step $step: tune exit $rc, revert exit $rrc"; sed 's/^/#   /' "$TMP/rv"; fi
done

# A crash (SIGKILL) at each step of a revert of the recording, then revert
# again: every byte back (a kill mid-write left a value file empty, which
# the next revert took for a change by someone else).
for step in $(seq 1 14); do
	"$GPUFEED" tune --root "$TMP/rec" --persist >/dev/null 2>&1
	GPUFEED_TUNE_FAULT=$step:kill "$GPUFEED" revert --root "$TMP/rec" >/dev/null 2>&1
	rc=$?
	"$GPUFEED" revert --root "$TMP/rec" >"$TMP/rv" 2>&1
	rrc=$?
	if [ $rrc = 0 ] && [ "$(tree_sum "$TMP/rec")" = "$before" ]; then
		ok "kill -9 at revert step $step (exit $rc), then revert: every byte back"
	else not_ok "kill -9 at revert step $step: revert exit $rc, then $rrc"; sed 's/^/#   /' "$TMP/rv"; fi
done

# The journal names its root: a recording's, kept in a --state-dir of this
# machine, is never replayed onto this machine (no --root) or another root.
cp -a "$CI" "$TMP/rec2"
echo 60 >"$TMP/rec2/proc/sys/vm/swappiness"
expect_rc 0 "tune a recording, journal in --state-dir" "$GPUFEED" tune --root "$TMP/rec2" --only mem.swappiness \
	--state-dir "$TMP/rec2-state"
live_swap=$(cat /proc/sys/vm/swappiness)
expect_rc 3 "revert that journal on this machine" "$GPUFEED" revert --state-dir "$TMP/rec2-state"
expect_grep "$err" "journal of the recording $(realpath "$TMP/rec2"), not of this machine" "the refusal names both roots"
[ "$(cat /proc/sys/vm/swappiness)" = "$live_swap" ] && ok "this machine's vm.swappiness untouched" ||
	not_ok "this machine's vm.swappiness changed to $(cat /proc/sys/vm/swappiness)"
expect_rc 3 "revert that journal on another recording" "$GPUFEED" revert --root "$TMP/rec" --state-dir "$TMP/rec2-state"
expect_grep "$err" "not of the recording $(realpath "$TMP/rec"):" "the refusal names both recordings"
[ -e "$TMP/rec2-state/tune.journal" ] && ok "the journal is kept" || not_ok "the journal was removed"
expect_rc 0 "revert it on its own recording" "$GPUFEED" revert --root "$TMP/rec2" --state-dir "$TMP/rec2-state"
[ "$(cat "$TMP/rec2/proc/sys/vm/swappiness")" = 60 ] && ok "its own recording is restored" || not_ok "not restored"

# A FIFO where the journal should be: refused at once, never waited on.
mkdir -p "$TMP/fifo-state" && mkfifo "$TMP/fifo-state/tune.journal"
expect_rc 3 "tune with a FIFO for its journal" timeout 20 "$GPUFEED" tune --root "$TMP/rec" --state-dir "$TMP/fifo-state"
expect_grep "$err" "tune.journal: not a regular file" "the FIFO is named"
expect_rc 3 "revert with a FIFO for its journal" timeout 20 "$GPUFEED" revert --root "$TMP/rec" --state-dir "$TMP/fifo-state"
expect_grep "$err" "tune.journal: not a regular file" "the FIFO is named"
[ "$(tree_sum "$TMP/rec")" = "$before" ] && ok "nothing written with a FIFO journal" || not_ok "the recording changed"

# ---- live, this machine (root, writable /proc/sys) ----
if [ "$(id -u)" != 0 ] || [ ! -w /proc/sys/vm/swappiness ]; then
	echo "# skip live: needs root and a writable /proc/sys"
	finish
fi
orig_swap=$(cat /proc/sys/vm/swappiness)
orig_rmem=$(cat /proc/sys/net/core/rmem_max)
RESERVED=/proc/sys/net/ipv4/ip_local_reserved_ports
orig_reserved=$(cat $RESERVED)
trap 'echo "$orig_swap" >/proc/sys/vm/swappiness; echo "$orig_rmem" >/proc/sys/net/core/rmem_max
	echo "$orig_reserved" >$RESERVED; rm -rf "$TMP"' EXIT
STATE=$TMP/state
ids=mem.swappiness
"$GPUFEED" check --list | grep -q '^net.rmem-max ' && ids=$ids,net.rmem-max
echo 60 >/proc/sys/vm/swappiness
echo 212992 >/proc/sys/net/core/rmem_max
expect_rc 0 "live tune --only $ids" "$GPUFEED" tune --only "$ids" --state-dir "$STATE"
[ "$(cat /proc/sys/vm/swappiness)" = 10 ] && ok "live: vm.swappiness is 10 after tune" ||
	not_ok "live: vm.swappiness is $(cat /proc/sys/vm/swappiness) after tune"
if [[ $ids == *net.rmem-max* ]]; then
	[ "$(cat /proc/sys/net/core/rmem_max)" != 212992 ] && ok "live: net.core.rmem_max raised" ||
		not_ok "live: net.core.rmem_max unchanged"
fi
expect_grep "$STATE/tune.journal" "^set	mem.swappiness	/proc/sys/vm/swappiness	60	10	" "live: the journal holds the original"
expect_rc 0 "live revert" "$GPUFEED" revert --state-dir "$STATE"
[ "$(cat /proc/sys/vm/swappiness)" = 60 ] && ok "live: vm.swappiness back to 60" ||
	not_ok "live: vm.swappiness is $(cat /proc/sys/vm/swappiness) after revert"
[ "$(cat /proc/sys/net/core/rmem_max)" = 212992 ] && ok "live: net.core.rmem_max back to 212992" ||
	not_ok "live: net.core.rmem_max is $(cat /proc/sys/net/core/rmem_max) after revert"
[ ! -e "$STATE/tune.journal" ] && ok "live: the journal is removed" || not_ok "live: the journal is left"
# kill -9 half-way: after the value is written, before its 'done' record
# (steps: header, fsync, fsync dir, set, fsync, write value, done).
GPUFEED_TUNE_FAULT=7:kill "$GPUFEED" tune --only "$ids" --state-dir "$STATE" >/dev/null 2>&1
rc=$?
[ $rc = 137 ] && ok "live: tune killed with SIGKILL half-way" || not_ok "live: tune exit $rc, wanted 137"
[ "$(cat /proc/sys/vm/swappiness)" = 10 ] && ok "live: the killed tune had written vm.swappiness" ||
	not_ok "live: vm.swappiness is $(cat /proc/sys/vm/swappiness) after the kill"
expect_rc 0 "live revert after kill -9" "$GPUFEED" revert --state-dir "$STATE"
[ "$(cat /proc/sys/vm/swappiness)" = 60 ] && ok "live: vm.swappiness back to 60 after kill -9 and revert" ||
	not_ok "live: vm.swappiness is $(cat /proc/sys/vm/swappiness)"
[ "$(cat /proc/sys/net/core/rmem_max)" = 212992 ] && ok "live: net.core.rmem_max is 212992 after kill -9 and revert" ||
	not_ok "live: net.core.rmem_max is $(cat /proc/sys/net/core/rmem_max)"
# Revert on this machine writes the journal's original whole (a 299-character
# reserved-ports list came back cut at 255), and an empty original too (it
# was written as nothing, which the kernel ignores).
list=$(seq -s, 10000 2 10098)
[ ${#list} = 299 ] || not_ok "the test's list is ${#list} characters, not 299"
for old in "$list" ""; do
	mkdir -p "$TMP/plant" && rm -f "$TMP/plant/tune.journal"
	printf 'gpufeed-tune-journal/2\nroot\t/\nset\tnet.port-range\t%s\t%s\t%s\t%s\n' "$RESERVED" "$old" \
		"$old${old:+,}30000-32767" "$(printf '%s\n' "$old" | od -An -tx1 | tr -d ' \n')" >"$TMP/plant/tune.journal"
	echo "$old${old:+,}30000-32767" >$RESERVED
	expect_rc 0 "live revert of a ${#old}-character original" "$GPUFEED" revert --state-dir "$TMP/plant"
	[ "$(cat $RESERVED)" = "$old" ] && ok "live: ip_local_reserved_ports is back to its ${#old} characters" ||
		not_ok "live: ip_local_reserved_ports reads '$(cat $RESERVED)'"
done
finish
