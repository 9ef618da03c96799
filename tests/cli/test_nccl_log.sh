#!/usr/bin/env bash
# gpufeed nccl log: the NCCL logs recorded on 2 x H200 with planted faults
# (tests/fixtures/nccl/h200x2/README.md), text, JSON, standard input, many
# files, exit codes, and the topology-tied message against the recording of
# that machine (h200x2-vm: NV18 between its two GPUs).
. "$(dirname "$0")/lib.sh"
LOGS=$SRC/tests/fixtures/nccl/h200x2
H200=$FIX/h200x2-vm/root

expect_rc 0 "plain.log: P2P over NVLink, nothing planted" "$GPUFEED" nccl log "$LOGS/plain.log"
expect_grep "$out" "P2P/CUMEM" "the transport is named"
expect_grep "$out" "interfaces: .*Socket: \[0\]eth0:192.0.2.2" "the network interfaces NCCL took"
expect_grep "$out" "could not compare with the topology" "without GPUs in the model it says so"
expect_rc 0 "plain.log against the H200 recording" "$GPUFEED" nccl log --root "$H200" "$LOGS/plain.log"
expect_grep "$out" "the best path, the GPUs are NV18" "P2P held against NV18"

expect_rc 1 "p2p-disabled.log" "$GPUFEED" nccl log "$LOGS/p2p-disabled.log"
expect_grep "$out" "NCCL_P2P_DISABLE=1 set by environment" "the override is named"
expect_grep "$out" "fix: unset NCCL_P2P_DISABLE" "with its fix"
expect_rc 1 "p2p-disabled.log against the H200 recording" "$GPUFEED" nccl log --root "$H200" "$LOGS/p2p-disabled.log"
expect_grep "$out" "GPU0-GPU1 (ranks 0-1) is NV18 but uses SHM/direct/direct through host memory: P2P is disabled (NCCL_P2P_DISABLE=1" \
	"the topology-tied message"
expect_rc 1 "p2p-shm-disabled.log" "$GPUFEED" nccl log "$LOGS/p2p-shm-disabled.log"
expect_grep "$out" "use NET/Socket/0, the network" "NET/Socket within one host"
expect_rc 1 "proto-simple.log" "$GPUFEED" nccl log "$LOGS/proto-simple.log"
expect_grep "$out" "NCCL_PROTO=Simple" "the protocol override"
expect_rc 1 "max-nchannels-1.log" "$GPUFEED" nccl log "$LOGS/max-nchannels-1.log"
expect_grep "$out" "NCCL_MAX_NCHANNELS=1" "the channel override"
expect_rc 1 "mixed-versions.log" "$GPUFEED" nccl log "$LOGS/mixed-versions.log"
expect_grep "$out" "rank 0: NCCL 2.28.9+cuda13.0, rank 1: NCCL 2.28.3+cuda13.0" "both versions with their ranks"
expect_rc 1 "straggler.log" "$GPUFEED" nccl log "$LOGS/straggler.log"
expect_grep "$out" "rank 1 did not enter collective 4 (the straggler)" "the straggler named"

expect_rc 1 "--json" "$GPUFEED" nccl log --json "$LOGS/p2p-disabled.log"
expect_jq "$out" '.schema == "gpufeed-nccl-log/1" and .clean == false and (.processes | length) == 2' "schema, not clean, two ranks"
expect_jq "$out" '[.findings[] | select(.id == "nccl.override" and .costs_bandwidth)] | length == 1' "one override that costs bandwidth"
expect_jq "$out" '.processes[0].connections[0].transport == "SHM/direct/direct"' "the transport per connection"

run "$GPUFEED" nccl log - <"$LOGS/proto-simple.log"
if [ "$rc" = 1 ] && grep -q "NCCL_PROTO=Simple" "$out"; then ok "- reads standard input"; else not_ok "stdin: exit $rc"; fi
grep '\[0\] NCCL' "$LOGS/plain.log" >"$TMP/r0.log"
grep '\[1\] NCCL' "$LOGS/plain.log" >"$TMP/r1.log"
expect_rc 0 "one file per rank" "$GPUFEED" nccl log --json "$TMP/r0.log" "$TMP/r1.log"
expect_jq "$out" '[.processes[].source] | sort == ["'"$TMP"'/r0.log", "'"$TMP"'/r1.log"]' "each rank from its file"

expect_rc 3 "a file that cannot be read" "$GPUFEED" nccl log "$TMP/missing.log"
expect_grep "$err" "missing.log" "the message names it"
expect_rc 2 "no FILE" "$GPUFEED" nccl log
printf 'h:1:1 [0] NCCL WARN \033]0;owned\007 \033[2J\n' >"$TMP/evil.log"
expect_rc 1 "a WARN line with escape sequences" "$GPUFEED" nccl log "$TMP/evil.log"
if LC_ALL=C grep -q "$(printf '\033')" "$out"; then not_ok "an escape reached the output"; else ok "no escape reaches the output"; fi
expect_rc 0 "nccl --help" "$GPUFEED" nccl --help
expect_grep "$out" "log" "lists the log subcommand"
finish
