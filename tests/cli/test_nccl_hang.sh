#!/usr/bin/env bash
# gpufeed nccl fr / nccl ras: the straggler of the run recorded on 2 x H200
# named from its Flight Recorder dumps and its ncclras output; exit 0 when
# the ranks agree, 1 when a rank is named, 3 for input that is not a dump.
. "$(dirname "$0")/lib.sh"

# The two subcommands are wired under 'gpufeed nccl' by cmd_nccl.c.
"$GPUFEED" nccl fr --help >/dev/null 2>&1 || { echo "skip: this gpufeed has no 'nccl fr' subcommand yet"; exit 77; }

H=$SRC/tests/fixtures/nccl/h200x2
S=$SRC/tests/fixtures/nccl/synthetic

expect_rc 1 "nccl fr on the straggler's dumps names a rank" "$GPUFEED" nccl fr "$H/flight-recorder"
expect_grep "$out" "rank 1 did not enter all_reduce #4 (seq 4) of process group 0 (default_pg) that rank 0 enqueued" \
	"rank 1 is the one that did not enter all_reduce #4"
expect_grep "$out" "verdict: rank 1 did not enter a collective" "the verdict names rank 1"
expect_rc 1 "the TORCH_FR_DUMP_TEMP_FILE prefix, --json" "$GPUFEED" nccl fr --json "$H/flight-recorder/nccl_trace_rank_"
expect_jq "$out" '.verdict.missing_ranks == [1] and .verdict.agree == false and .findings[0].kind == "missing"' \
	"JSON: missing_ranks [1]"
expect_rc 1 "four ranks, rank 2 missing" "$GPUFEED" nccl fr "$S/fr4-missing"
expect_grep "$out" "rank 2 did not enter all_reduce #4" "rank 2 named"
expect_rc 0 "three ranks that agree (one dump JSON)" "$GPUFEED" nccl fr "$S/fr3-agree"
expect_grep "$out" "verdict: all ranks agree" "said so"
expect_rc 0 "--quiet prints nothing" "$GPUFEED" nccl fr --quiet "$S/fr3-agree"
[ ! -s "$out" ] && ok "and stdout is empty" || not_ok "--quiet printed something"
printf '\x80\x02cos\nsystem\n.' >"$TMP/evil_0"
expect_rc 3 "a pickle that would run code" "$GPUFEED" nccl fr "$TMP/evil_0"
expect_grep "$err" "evil_0: offset 2: opcode 0x63 'c' (GLOBAL) would run code: refused" "the file and offset named"
expect_rc 3 "a missing dump" "$GPUFEED" nccl fr "$TMP/none_"
expect_rc 2 "no DUMP" "$GPUFEED" nccl fr

expect_rc 1 "nccl ras on the straggler's ncclras output" "$GPUFEED" nccl ras "$H/ras.txt"
expect_grep "$out" "rank 1 did not enter AllReduce operation 4" "rank 1 named"
run sh -c "'$GPUFEED' nccl ras --json - <'$H/ras.txt'"
[ "$rc" = 1 ] && ok "from standard input (exit 1)" || not_ok "from standard input: exit $rc"
expect_jq "$out" '.source == "ras" and .verdict.missing_ranks == [1] and .nccl_version == "2.28.9"' "JSON: rank 1"
echo hello >"$TMP/notras.txt"
expect_rc 3 "not ncclras output" "$GPUFEED" nccl ras "$TMP/notras.txt"
expect_grep "$err" "notras.txt: line 1: not ncclras output" "the file named"
expect_rc 2 "two FILEs" "$GPUFEED" nccl ras a b
expect_rc 2 "--query and a FILE" "$GPUFEED" nccl ras --query localhost:28028 "$H/ras.txt"
expect_rc 3 "--query where no RAS service listens" "$GPUFEED" nccl ras --query 127.0.0.1:1
expect_grep "$err" "RAS at 127.0.0.1:1: " "the address named"

finish
