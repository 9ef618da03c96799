#!/usr/bin/env bash
# gpufeed bench coll on the stand-in libcuda and libnccl (device memory is
# host memory behind device addresses; the stand-in NCCL moves the real
# bytes between ranks, in one process or between processes): usage
# errors, no NCCL (exit 4), every op on 2 GPUs in one process with the data
# check passing, a corrupting NCCL caught by the check (exit 1), the JSON
# contract and its nccl-tests names, and multi-process runs started here
# with a launcher's environment: a job that agrees, NCCL versions that
# differ (both ranks named), and a rank that hangs (a timeout naming it,
# long before the test's limit).  Behaviour and shape, not speed.
. "$(dirname "$0")/lib.sh"

fake_dir=${GPUFEED_SRC:-$PWD}/${BUILD:-build}/fakes
fake_cuda=${GPUFEED_FAKE_CUDA:-$fake_dir/libcuda.so.1}
fake_nvml=${GPUFEED_FAKE_NVML:-$fake_dir/libnvidia-ml.so.1}
fake_nccl=${GPUFEED_FAKE_NCCL:-$fake_dir/libnccl.so.2}
pci=0000:00:06.0,0000:00:07.0,0000:00:08.0,0000:00:09.0
export GPUFEED_CUDA_LIBRARY="$fake_cuda" GPUFEED_NVML_LIBRARY="$fake_nvml" GPUFEED_NCCL_LIBRARY="$fake_nccl" \
	FAKE_CUDA_PCI="$pci" FAKE_CUDA_DEVICES=2
unset RANK WORLD_SIZE LOCAL_RANK LOCAL_WORLD_SIZE MASTER_ADDR MASTER_PORT SLURM_PROCID SLURM_NTASKS \
	OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE PMI_RANK PMI_SIZE
gf() { timeout 120 "$GPUFEED" "$@"; }
small=(--min-bytes 4K --max-bytes 64K --step-factor 4 --iters 3 --warmup-iters 1)

expect_rc 2 "an operand" gf bench coll extra
expect_rc 2 "--op junk" gf bench coll --op allreduce
expect_grep "$err" "--op: 'allreduce' is not one of all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv" \
	"the bad op is named with the choices"
expect_rc 2 "--dtype junk" gf bench coll --dtype fp32
expect_grep "$err" "--dtype: 'fp32'" "the bad type is named"
expect_rc 2 "--redop junk" gf bench coll --redop mean
expect_rc 2 "--min-bytes above --max-bytes" gf bench coll --min-bytes 2M --max-bytes 1M
expect_rc 2 "--step-factor with --step-bytes" gf bench coll --step-factor 2 --step-bytes 1M
expect_rc 2 "--step-factor 1" gf bench coll --step-factor 1
expect_rc 2 "--iters 0" gf bench coll --iters 0
expect_rc 2 "--gpus junk" gf bench coll --gpus 0,x
expect_rc 0 "bench coll --help" gf bench coll --help
expect_grep "$out" "--step-factor N" "help lists --step-factor"
gf bench --help >"$TMP/bench-help" 2>&1
expect_grep "$TMP/bench-help" "coll" "bench --help lists coll"

# Not available: exit 4 with the reason.
expect_rc 4 "no libnccl" env GPUFEED_NCCL_LIBRARY=/nonexistent/libnccl.so.2 "$GPUFEED" bench coll "${small[@]}"
expect_grep "$err" "NCCL not available" "the reason is given"
expect_rc 4 "no libcuda" env GPUFEED_CUDA_LIBRARY=/nonexistent/libcuda.so.1 "$GPUFEED" bench coll "${small[@]}"
expect_grep "$err" "CUDA not available" "and for CUDA"
expect_rc 4 "--gpus naming an absent GPU" gf bench coll --gpus 6 "${small[@]}"
expect_rc 2 "--root-rank outside the ranks" gf bench coll --op broadcast --root-rank 2 "${small[@]}" --quiet
expect_grep "$err" "--root-rank 2: the job has ranks 0 to 1" "the ranks are said"

# Every op on 2 GPUs in one process, checked.
for op in all_reduce all_gather reduce_scatter broadcast reduce alltoall sendrecv; do
	expect_rc 0 "$op, 2 GPUs, --check 2" gf bench coll --op "$op" "${small[@]}" --check 2 --json --quiet
	expect_jq "$out" '(.results | length) == 3 and all(.results[]; .wrong == 0 and .check_iterations == 2 and .busbw_gb_per_s > 0)' \
		"$op: 3 sizes, no wrong element in 2 checks"
done
expect_rc 0 "all_reduce in place, half, max, checked" gf bench coll --in-place --dtype half --redop max "${small[@]}" --check 1 --json --quiet
expect_jq "$out" 'all(.results[]; .in_place.nwrong == 0 and (has("out_of_place") | not))' "the in-place column, no wrong element"
expect_rc 0 "reduce_scatter in place, int32, prod" gf bench coll --op reduce_scatter --in-place --dtype int32 --redop prod "${small[@]}" --check 1 --json --quiet
expect_jq "$out" 'all(.results[]; .wrong == 0)' "no wrong element"

# The JSON contract, nccl-tests' names among it.
FAKE_CUDA_DEVICES=2 gf bench coll --op all_gather --min-bytes 1M --max-bytes 4M --step-factor 4 --iters 5 \
	--warmup-iters 1 --json --quiet >"$TMP/ag.json"
expect_jq "$TMP/ag.json" '.schema == "gpufeed-bench-coll/1" and (.gpufeed_version | type) == "string" and (.machine | type) == "object"' \
	"schema, version, machine"
expect_jq "$TMP/ag.json" '.config.op == "all_gather" and .config.nccl_tests_binary == "all_gather_perf" and .config.mode == "single-process" and .config.nranks == 2 and .config.iterations == 5' \
	"the config"
expect_jq "$TMP/ag.json" '(.nccl.version | test("^[0-9]+\\.[0-9]+\\.[0-9]+$")) and (.nccl.version_code | type) == "number" and (.nccl.library | length) > 0' \
	"the NCCL version and library"
expect_jq "$TMP/ag.json" '[.gpus[].pci] == ["0000:00:06.0", "0000:00:07.0"] and [.gpus[].rank] == [0, 1]' "one rank per GPU, in order"
expect_jq "$TMP/ag.json" '[.results[] | [.size, .count]] == [[1048576, 131072], [4194304, 524288]]' \
	"nccl-tests' size and count (all_gather: one rank's block)"
expect_jq "$TMP/ag.json" 'all(.results[]; .type == "float" and .redop == "none" and .root == -1 and (.out_of_place | keys) == ["alg_bw", "bus_bw", "nwrong", "time"] and .actual_iterations == 5)' \
	"each row as nccl-tests writes it"
expect_jq "$TMP/ag.json" 'all(.results[]; (.iteration_us | length) == 5 and .p50_us > 0 and .p99_us >= .p50_us and .slowest_rank >= 0 and .slowest_rank < 2)' \
	"raw per-iteration samples, p50 <= p99, the slowest rank"
expect_jq "$TMP/ag.json" 'all(.results[]; (.bus_bw = .out_of_place.bus_bw) | (.busbw_gb_per_s - .out_of_place.alg_bw / 2) | fabs < 0.01)' \
	"all_gather on 2 ranks: busbw = algbw x 1/2"
expect_jq "$TMP/ag.json" '.limit.gb_per_s == null and (.limit.link | test("not in the machine model")) and all(.results[]; .percent_of_limit == null)' \
	"GPUs outside this machine's model: no limit, and it says why"
gf bench coll "${small[@]}" --quiet >"$TMP/text"
expect_grep "$TMP/text" "size  *count  *type  *redop  *root  *time  *algbw  *busbw  *#wrong  *p50  *p99  *slowest  *%limit" \
	"the table's header"
expect_grep "$TMP/text" "^ *4096  *1024  *float  *sum  *-1  *[0-9.]*  *[0-9.]*  *[0-9.]*  *N/A " "a row as nccl-tests prints it"
expect_grep "$TMP/text" "ring's narrowest link: " "the link is named"

# What NCCL chose: its choice line ("AllReduce: 4096 Bytes -> Algo RING proto
# LL channel{Lo..Hi}={0..0}") caught around one more, untimed call per size.
expect_grep "$TMP/text" "%limit  NCCL chose$" "the table's last column"
expect_grep "$TMP/text" "^ *4096  *1024 .* RING/LL/1$" "a row's algorithm/protocol/channels"
expect_grep "$TMP/text" "^NCCL's choice: algorithm/protocol/channels from its log of one more, untimed call per size" \
	"where it comes from"
mkdir -p "$TMP/tmpd"
expect_rc 0 "NCCL's choice forced, as NCCL_ALGO and NCCL_PROTO force it" env TMPDIR="$TMP/tmpd" NCCL_ALGO=Tree \
	NCCL_PROTO=Simple NCCL_MAX_NCHANNELS=3 "$GPUFEED" bench coll "${small[@]}" --json --quiet
expect_jq "$out" '.nccl.choice_absent == null and all(.results[]; .nccl_algorithm == "TREE" and .nccl_protocol == "SIMPLE" and .nccl_channels == 3)' \
	"every row reports the forced TREE/SIMPLE on 3 channels"
if [ -z "$(ls -A "$TMP/tmpd")" ]; then ok "no capture file left in TMPDIR"; else not_ok "left: $(ls "$TMP/tmpd")"; fi
expect_rc 0 "unforced: the stand-in's choice by size" gf bench coll "${small[@]}" --json --quiet
expect_jq "$out" '[.results[].nccl_protocol] == ["LL", "LL", "LL128"] and all(.results[]; .nccl_algorithm == "RING" and .nccl_channels == 1)' \
	"LL, LL, LL128 as the sizes grow"
expect_rc 0 "alltoall: point-to-point" gf bench coll --op alltoall "${small[@]}" --json --quiet
expect_jq "$out" '(.nccl.choice_absent | test("no algorithm for point-to-point")) and all(.results[]; .nccl_algorithm == null and .nccl_protocol == null and .nccl_channels == null)' \
	"no choice, and why"
expect_rc 0 "an NCCL before 2.24" env FAKE_NCCL_NO_RESET_DEBUG=1 "$GPUFEED" bench coll "${small[@]}" --quiet
expect_grep "$out" "^NCCL's choice: not shown: NCCL 2.28.9 has no ncclResetDebugInit (2.24 and later)" "says why"
expect_grep "$out" "^ *4096  *1024 .* -$" "and the column shows -"
expect_rc 0 "the user's NCCL_DEBUG_FILE" env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING NCCL_DEBUG_FILE="$TMP/users.log" \
	"$GPUFEED" bench coll "${small[@]}" --json --quiet
expect_jq "$out" '(.nccl.choice_absent | test("NCCL_DEBUG_FILE is set")) and all(.results[]; .nccl_algorithm == null)' \
	"is left alone, and the choice says why it is absent"
expect_grep "$TMP/users.log" "NCCL INFO AllReduce: 4096 Bytes -> Algo RING" "the user's log has NCCL's lines"
# The user's own NCCL_DEBUG to stdout is put back after each capture: every
# timed call still logs there (3 sizes x (1 warm-up + 1 sync + 3 timed + 3
# with events)), the captured call does not, and the table has the choice.
expect_rc 0 "the user's NCCL_DEBUG=INFO on stdout" env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING \
	"$GPUFEED" bench coll "${small[@]}" --quiet
n=$(grep -c "NCCL INFO AllReduce: .* Bytes -> Algo" "$out")
if [ "$n" = 24 ]; then ok "24 lines of the user's log on stdout, none of the captured calls"; else
	not_ok "$n lines of NCCL's log on stdout, not 24"; fi
expect_grep "$out" "^ *65536  *16384 .* RING/LL128/1$" "and the captured choice in the table"

# A corrupting NCCL: the check counts wrong elements, exit 1.
expect_rc 1 "FAKE_NCCL_CORRUPT: wrong elements, exit 1" env FAKE_NCCL_CORRUPT=1 \
	"$GPUFEED" bench coll "${small[@]}" --check 1 --json --quiet
expect_jq "$out" 'all(.results[]; .wrong > 0) and .findings == 3' "every size has wrong elements"
expect_rc 1 "and as text" env FAKE_NCCL_CORRUPT=1 "$GPUFEED" bench coll "${small[@]}" --check 1 --quiet
expect_grep "$out" "wrong elements in 1 check iteration" "the text says so"
expect_rc 0 "without --check the corruption is not looked for" env FAKE_NCCL_CORRUPT=1 \
	"$GPUFEED" bench coll "${small[@]}" --quiet

# Multi-process: ranks started here with a launcher's environment.
port=$((20000 + $$ % 20000))
# rank R N CMD...: one rank in the background, its output in $TMP/rank.R.{out,err,rc}, when it
# ended (the shell's SECONDS) in $TMP/rank.R.end
rank() {
	local r=$1 n=$2
	shift 2
	( env RANK="$r" WORLD_SIZE="$n" LOCAL_RANK="$r" LOCAL_WORLD_SIZE="$n" MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" \
		FAKE_CUDA_DEVICES="$n" "$@" >"$TMP/rank.$r.out" 2>"$TMP/rank.$r.err"; echo $? >"$TMP/rank.$r.rc"
	  echo "$SECONDS" >"$TMP/rank.$r.end" ) &
}
job_rc() { cat "$TMP/rank.$1.rc"; }

for n in 2 4; do
	port=$((port + 1))
	for r in $(seq 0 $((n - 1))); do
		rank "$r" "$n" timeout 60 "$GPUFEED" bench coll --op all_reduce "${small[@]}" --check 1 --json --quiet
	done
	wait
	codes=$(for r in $(seq 0 $((n - 1))); do job_rc "$r"; done | tr -d '\n')
	if [ "$codes" = "$(printf '0%.0s' $(seq 1 "$n"))" ]; then ok "$n ranks: every rank exits 0"; else
		not_ok "$n ranks: exits $codes"; sed 's/^/#   /' "$TMP"/rank.*.err | head -10; fi
	expect_jq "$TMP/rank.0.out" ".config.mode == \"multi-process\" and .config.nranks == $n and all(.results[]; .wrong == 0 and (.rank_time_us | length) == $n)" \
		"$n ranks: rank 0 writes the job's figures, each rank's time, no wrong element"
	expect_jq "$TMP/rank.0.out" 'all(.results[]; .nccl_algorithm == "RING" and .nccl_channels == 1)' \
		"$n ranks: rank 0 caught NCCL's choice"
	if [ ! -s "$TMP/rank.1.out" ]; then ok "$n ranks: rank 1 prints nothing"; else not_ok "$n ranks: rank 1 printed"; fi
done

# NCCL versions that differ: an error naming both ranks and versions.
port=$((port + 1))
rank 0 2 timeout 60 "$GPUFEED" bench coll "${small[@]}" --quiet
rank 1 2 env FAKE_NCCL_VERSION=22803 timeout 60 "$GPUFEED" bench coll "${small[@]}" --quiet
wait
if [ "$(job_rc 0)" = 3 ] && [ "$(job_rc 1)" = 3 ]; then ok "versions differ: both ranks exit 3"; else
	not_ok "versions differ: exits $(job_rc 0) $(job_rc 1)"; fi
expect_grep "$TMP/rank.0.err" "rank 1 (pid [0-9]* on [^)]*) has NCCL 2.28.3, rank 0 (pid [0-9]* on [^)]*) has 2.28.9" \
	"rank 0 names both ranks and versions"
expect_grep "$TMP/rank.1.err" "NCCL versions differ: rank 1" "rank 1 says the same"

# A rank that never comes (rank 1 of 2 is not started): rank 0 ends at its
# deadline naming it.  A rank whose collective hangs on the GPU is ended by
# gf_coll_comm_wait's deadline, which the stand-in cannot show: its blocking
# collectives run in the call itself (synchronous streams), and bench coll's
# communicators are blocking, as nccl-tests' are.
port=$((port + 1))
start=$SECONDS
rank 0 2 timeout -k 5 60 "$GPUFEED" bench coll "${small[@]}" --quiet --timeout 3s
wait
took=$(($(cat "$TMP/rank.0.end") - start))
if [ "$(job_rc 0)" = 3 ] && [ "$took" -lt 30 ]; then ok "a hung rank: rank 0 exits 3 after $took s"; else
	not_ok "a hung rank: rank 0 exit $(job_rc 0) after $took s"; sed 's/^/#   /' "$TMP/rank.0.err" | head -5; fi
expect_grep "$TMP/rank.0.err" "rank 1" "rank 0 names rank 1"
expect_grep "$TMP/rank.0.err" "within 3 s" "and the deadline"
finish
