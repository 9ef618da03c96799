#!/usr/bin/env bash
# gpufeed launch with real processes on this machine: the model is the
# ci-2gpu fixture (this machine's 2 CPUs and one node, with 2 GPUs added),
# so each rank is really bound (exclusive: one CPU each) and its
# Cpus_allowed_list, memory policy and environment are read back from the
# rank itself.  Also: prefixes, exit codes, the first failure stopping a
# sleeping sibling, SIGTERM to launch reaching every rank, 128+N, errors
# before anything starts, --no-bind, multi-node and Slurm environments,
# --dry-run --json.
. "$(dirname "$0")/lib.sh"

M=$FIX/ci-2gpu/root
[ -d "$M" ] || { echo "skip: no ci-2gpu fixture in $FIX"; exit 77; }
# The fixture's CPUs 0 and 1 must be ours to use.
if ! grep -q '^Cpus_allowed_list:[[:space:]]*0-1$' /proc/self/status; then
	echo "skip: this process may not use CPUs 0-1 ($(grep Cpus_allowed_list /proc/self/status))"; exit 77
fi
L() { "$GPUFEED" launch --root "$M" "$@"; }
# Variables a caller may have set must not decide what the tests see.
unset PET_NNODES PET_NODE_RANK PET_MASTER_ADDR PET_MASTER_PORT SLURM_STEP_NUM_NODES SLURM_NODEID \
	SLURM_STEP_NODELIST MASTER_ADDR MASTER_PORT RANK LOCAL_RANK WORLD_SIZE CUDA_VISIBLE_DEVICES

# ---- the plan ----
expect_rc 0 "dry-run --json" L --dry-run --json -- python3 train.py --lr 1
plan=$out
expect_jq "$plan" '.schema == "gpufeed-launch/1" and (.ranks | length) == 2' "plan: schema, two ranks"
expect_jq "$plan" '.world.nnodes == 1 and .world.master_addr == "127.0.0.1" and .world.master_port == 29500
	and .world.from.nnodes == "default"' "plan: one node at 127.0.0.1:29500 by default"
expect_jq "$plan" '.command == ["python3", "train.py", "--lr", "1"]' "plan: the command, arguments kept"
expect_jq "$plan" '[.ranks[].binding.cpus] == ["0", "1"] and [.ranks[].binding.cpu_mode] == ["exclusive", "exclusive"]' \
	"plan: exclusive mode gives each rank one CPU of its own"
expect_jq "$plan" '[.ranks[].env.RANK] == ["0", "1"] and .ranks[1].env.LOCAL_WORLD_SIZE == "2"' "plan: rank variables"
uuid0=$(jq -r '.ranks[0].binding.env.CUDA_VISIBLE_DEVICES' "$plan")
uuid1=$(jq -r '.ranks[1].binding.env.CUDA_VISIBLE_DEVICES' "$plan")
case $uuid0$uuid1 in GPU-*GPU-*) ok "plan: CUDA_VISIBLE_DEVICES by UUID" ;; *) not_ok "plan: CUDA_VISIBLE_DEVICES '$uuid0' '$uuid1'" ;; esac

# On a recording, --dry-run shows the binding as it would be there.
expect_rc 0 "dry-run on an 8-GPU recording" "$GPUFEED" launch --root "$FIX/hgx-h100-8gpu/root" --dry-run --json -- true
expect_jq "$out" '(.ranks | length) == 8 and .ranks[5].binding.cpus == "70-83,182-195" and .ranks[5].binding.mems == "1"' \
	"dry-run on a recording: rank 5's share of node 1, as recorded"

expect_rc 0 "dry-run --json -o FILE" L --dry-run --json -o "$TMP/plan.json" -- true
[ ! -s "$out" ] && ok "-o: nothing on standard output" || not_ok "-o: standard output has $(wc -c <"$out") bytes"
expect_jq "$TMP/plan.json" '.schema == "gpufeed-launch/1" and (.ranks | length) == 2' "-o: FILE holds the plan"
echo precious >"$TMP/keep"
expect_rc 2 "-o without --dry-run: the ranks' output is not gpufeed's to put in a file" L -o "$TMP/keep" -- true
expect_grep "$err" "dry-run" "the refusal points at --dry-run"
[ "$(cat "$TMP/keep")" = precious ] && ok "-o refused: FILE left as it was" || not_ok "FILE was changed"

expect_rc 0 "dry-run, text" L --dry-run -- true
expect_grep "$out" "^rank 1 (local 1):" "text plan: a section per rank"
expect_grep "$out" "cpus: *1 (exclusive)" "text plan: rank 1's CPU"

# ---- real binding, read back from each rank ----
probe='echo "env RANK=$RANK LOCAL_RANK=$LOCAL_RANK WORLD_SIZE=$WORLD_SIZE CVD=$CUDA_VISIBLE_DEVICES OMP=$OMP_NUM_THREADS NCCL=$NCCL_IGNORE_CPU_AFFINITY";
grep Cpus_allowed_list /proc/self/status; grep -c " bind:0 " /proc/self/numa_maps | sed "s/^/bound-vmas /";
echo "to stderr $RANK" >&2; printf "partial-$RANK"'
expect_rc 0 "two ranks run and exit 0" L -- sh -c "$probe"
so=$out se=$err
expect_grep "$so" "^\[0\] env RANK=0 LOCAL_RANK=0 WORLD_SIZE=2 CVD=$uuid0 OMP=1 NCCL=1$" "rank 0: its environment"
expect_grep "$so" "^\[1\] env RANK=1 LOCAL_RANK=1 WORLD_SIZE=2 CVD=$uuid1 OMP=1 NCCL=1$" "rank 1: its environment"
expect_grep "$so" "^\[0\] Cpus_allowed_list:[[:space:]]*0$" "rank 0 runs on CPU 0 only"
expect_grep "$so" "^\[1\] Cpus_allowed_list:[[:space:]]*1$" "rank 1 runs on CPU 1 only"
expect_grep "$so" "^\[1\] bound-vmas [1-9]" "rank 1's memory policy is bind:0 (numa_maps)"
expect_grep "$se" "^\[1\] to stderr 1$" "stderr lines prefixed, on stderr"
expect_no_grep "$so" "to stderr" "stderr stays off stdout"
expect_grep "$so" "^\[0\] partial-0$" "a partial last line is flushed, with its prefix"

expect_rc 0 "--cpu node: both ranks get the node" L --cpu node -- grep Cpus_allowed_list /proc/self/status
expect_grep "$out" "^\[1\] Cpus_allowed_list:[[:space:]]*0-1$" "--cpu node: rank 1 has CPUs 0-1"
expect_rc 0 "--gpus 1 runs one rank on GPU 1" L --gpus 1 -- sh -c 'echo "$WORLD_SIZE $CUDA_VISIBLE_DEVICES"'
expect_grep "$out" "^\[0\] 1 $uuid1$" "--gpus 1: one rank, GPU 1's UUID"

# --all-gpus-visible: each rank sees the job's GPUs in rank order, so device
# LOCAL_RANK is its own (torch.cuda.set_device(LOCAL_RANK)); CPUs stay its own.
expect_rc 0 "--all-gpus-visible" L --all-gpus-visible -- sh -c \
	'echo "cvd $LOCAL_RANK $CUDA_VISIBLE_DEVICES"; grep Cpus_allowed_list /proc/self/status'
expect_grep "$out" "^\[0\] cvd 0 $uuid0,$uuid1$" "rank 0 sees both GPUs, its own first"
expect_grep "$out" "^\[1\] cvd 1 $uuid0,$uuid1$" "rank 1 sees both GPUs, its own at device 1"
expect_grep "$out" "^\[1\] Cpus_allowed_list:[[:space:]]*1$" "--all-gpus-visible: rank 1 still bound to its CPU"
expect_rc 0 "--all-gpus-visible --gpus 1,0: rank order, not index order" L --all-gpus-visible --gpus 1,0 --dry-run --json -- true
expect_jq "$out" '[.ranks[].binding.env.CUDA_VISIBLE_DEVICES] == ["'"$uuid1,$uuid0"'", "'"$uuid1,$uuid0"'"]
	and [.ranks[].binding.targets[0].index] == [1, 0]' "--gpus 1,0: device LOCAL_RANK is still the rank's own GPU"
expect_rc 2 "--all-gpus-visible with a MIG instance" L --all-gpus-visible --gpus 1:2:0 -- true
expect_grep "$err" "MIG" "the refusal names MIG"
expect_rc 2 "--all-gpus-visible with --no-bind" "$GPUFEED" launch --no-bind --nproc-per-node 1 --all-gpus-visible -- true

# gpufeed verify reads each running rank back: its GPU (from
# CUDA_VISIBLE_DEVICES) and CPUs as launch set them.
if "$GPUFEED" help verify >/dev/null 2>&1; then
	L -- sh -c 'echo $$ > "'"$TMP"'/vpid.$RANK"; sleep 2' >/dev/null 2>&1 &
	lpid=$!
	for _ in $(seq 100); do [ -e "$TMP/vpid.0" ] && [ -e "$TMP/vpid.1" ] && break; sleep 0.05; done
	for r in 0 1; do
		want=$(jq -r ".ranks[$r].binding.env.CUDA_VISIBLE_DEVICES" "$plan")
		expect_rc 0 "verify rank $r while it runs" "$GPUFEED" verify --model "$M" --json "$(cat "$TMP/vpid.$r")"
		expect_jq "$out" ".result == \"local\" and .process.cpus_allowed == \"$r\" and [.gpus[].uuid] == [\"$want\"]" \
			"verify: rank $r allowed CPU $r only, its GPU from CUDA_VISIBLE_DEVICES"
	done
	wait "$lpid"
else
	ok "# skip: this gpufeed has no verify"
fi

# ---- exit codes and the first failure ----
start=$(date +%s%N)
expect_rc 3 "the first failure's exit code" L -- sh -c '[ "$RANK" = 1 ] && { echo failing; exit 3; }; exec sleep 31.27'
ms=$((($(date +%s%N) - start) / 1000000))
[ "$ms" -lt 4000 ] && ok "the sleeping rank 0 was stopped at once (${ms} ms)" || not_ok "took ${ms} ms: rank 0 not stopped"
expect_grep "$err" "rank 1 (pid [0-9]*) failed first: exit 3" "stderr names the rank that failed first"
expect_grep "$out" "^\[1\] failing$" "the failing rank's last output comes out"
pgrep -f "sleep 31.27" -u "$(id -u)" >/dev/null && not_ok "rank 0's sleep survived" || ok "no rank left behind"

expect_rc 137 "killed by SIGKILL: 128+9" L -- sh -c '[ "$RANK" = 0 ] && kill -9 $$; exec sleep 30'
expect_grep "$err" "rank 0 (pid [0-9]*) failed first: killed by signal 9" "the signal is named"
expect_rc 127 "CMD not found: 127" L -- /nonexistent/gpufeed-no-such-command
expect_grep "$err" "gpufeed-no-such-command" "the missing command is named"

# A rank that ignores SIGTERM is killed after --grace.
start=$(date +%s%N)
expect_rc 4 "--grace 0.3: SIGKILL for a rank ignoring SIGTERM" \
	L --grace 0.3 -- sh -c 'if [ "$RANK" = 0 ]; then trap "" TERM; sleep 30; else sleep 0.3; exit 4; fi'
ms=$((($(date +%s%N) - start) / 1000000))
[ "$ms" -lt 4000 ] && ok "--grace honoured (${ms} ms)" || not_ok "--grace 0.3 took ${ms} ms"
expect_grep "$err" "rank 0 .* SIGKILL" "the SIGKILL is reported"

# ---- what a rank leaves behind ends with it ----
# gone PID: the process has exited (gone, or a zombie not yet reaped by init).
gone() { [ ! -e "/proc/$1/stat" ] || awk '{ exit !($3 == "Z" || $3 == "X") }' "/proc/$1/stat" 2>/dev/null; }
NB=("$GPUFEED" launch --no-bind --nproc-per-node 1)

start=$(date +%s%N)
expect_rc 0 "a rank leaves a sleep holding its stdout and exits 0" \
	"${NB[@]}" -- sh -c 'sleep 1000 & echo $! > "$0"; echo bye' "$TMP/left.pid"
ms=$((($(date +%s%N) - start) / 1000000))
[ "$ms" -lt 4000 ] && ok "launch returns at once (${ms} ms)" || not_ok "launch took ${ms} ms"
gone "$(cat "$TMP/left.pid")" && ok "the sleep it left is gone" || not_ok "the sleep it left survives"
expect_grep "$out" "^\[0\] bye$" "the rank's output came out"
expect_grep "$err" "rank 0 .* ended; stopping what it left running" "launch says it stops the rest of the rank's group"

# A leftover that ignores SIGTERM gets SIGKILL after --grace.  (The rank
# waits for the pid file, written once the trap is set: no race.)
start=$(date +%s%N)
expect_rc 0 "a leftover ignoring SIGTERM, --grace 0.3" "${NB[@]}" --grace 0.3 -- sh -c \
	'sh -c "trap \"\" TERM; echo \$\$ > $0.tmp; mv $0.tmp $0; exec sleep 1000" & while [ ! -s "$0" ]; do sleep 0.01; done' \
	"$TMP/stubborn.pid"
ms=$((($(date +%s%N) - start) / 1000000))
[ "$ms" -lt 4000 ] && ok "launch returns after the grace (${ms} ms)" || not_ok "launch took ${ms} ms"
gone "$(cat "$TMP/stubborn.pid")" && ok "the stubborn leftover is gone" || not_ok "the stubborn leftover survives"
expect_grep "$err" "left processes still running .* SIGKILL" "the SIGKILL is reported"

# launch itself SIGKILLed (an OOM kill, a scheduler): the ranks' children go
# too, not only the ranks (PR_SET_PDEATHSIG reaches those alone).
"$GPUFEED" launch --no-bind --nproc-per-node 2 -- sh -c \
	'sleep 1000 & echo $! > "$0.$RANK"; wait' "$TMP/orphan" >/dev/null 2>&1 &
lpid=$!
for _ in $(seq 100); do [ -s "$TMP/orphan.0" ] && [ -s "$TMP/orphan.1" ] && break; sleep 0.05; done
{ kill -KILL "$lpid"; wait "$lpid"; } 2>/dev/null
left=
for r in 0 1; do
	p=$(cat "$TMP/orphan.$r")
	for _ in $(seq 100); do gone "$p" && break; sleep 0.05; done	# (gives up after 5 s)
	gone "$p" || { left="$left $p"; kill "$p" 2>/dev/null; }
done
[ -z "$left" ] && ok "launch SIGKILLed: the ranks' children are stopped too" || not_ok "orphans left:$left"

# Output lost to a full disk: the ranks ran, but exit 3, as --help says.
"${NB[@]}" -- echo hello >/dev/full 2>"$TMP/full.err"
rc=$?
[ "$rc" = 3 ] && ok "stdout on a full disk: exit 3" || not_ok "stdout on /dev/full: exit $rc, wanted 3"
expect_grep "$TMP/full.err" "rank 0's standard output: No space left on device" "the lost output is named"
"${NB[@]}" -- sh -c 'echo hello; exit 5' >/dev/full 2>/dev/null
rc=$?
[ "$rc" = 5 ] && ok "a rank's failure still wins over lost output" || not_ok "exit $rc, wanted the rank's 5"

# ---- signals: SIGTERM to launch reaches every rank ----
# signal_run NAME SIG SCRIPT [WRAPPER...]: launch (under WRAPPER) in the
# background, two ranks running SCRIPT, which creates "$READY.$RANK" when it
# is ready for the signal; then SIG to launch.  Sets $rc; output in
# $TMP/NAME.out.
signal_run() {
	local name=$1 sig=$2 script=$3 lpid
	shift 3
	READY=$TMP/$name "$@" "$GPUFEED" launch --root "$M" -- sh -c "$script" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	lpid=$!
	for _ in $(seq 100); do [ -e "$TMP/$name.0" ] && [ -e "$TMP/$name.1" ] && break; sleep 0.05; done
	kill "-$sig" "$lpid"
	wait "$lpid"
	rc=$?
}

# (the loops give up after 5 s: a broken forwarding fails, it does not hang)
signal_run term TERM 'trap "echo got-term; exit 0" TERM; : > "$READY.$RANK"; for i in $(seq 100); do sleep 0.05; done'
[ "$rc" = 0 ] && ok "ranks that handle SIGTERM and exit 0: launch exits 0" || not_ok "exit $rc after SIGTERM"
expect_grep "$TMP/term.out" "^\[0\] got-term$" "rank 0 got the forwarded SIGTERM"
expect_grep "$TMP/term.out" "^\[1\] got-term$" "rank 1 got the forwarded SIGTERM"

# (bash starts background commands with SIGINT ignored, which launch would
# keep, as it keeps nohup's SIGHUP: env restores the default.)
signal_run int INT ': > "$READY.$RANK"; exec sleep 5' env --default-signal=INT
[ "$rc" = 130 ] && ok "ranks killed by a forwarded SIGINT: 128+2" || not_ok "exit $rc after SIGINT, wanted 130"

# An ignored SIGHUP (nohup) stays ignored: not forwarded, and the ranks
# ignore it too, as a shell keeps it.
signal_run hup HUP ': > "$READY.$RANK"; sleep 0.5; echo survived' nohup
[ "$rc" = 0 ] && [ "$(grep -c survived "$TMP/hup.out")" = 2 ] && ok "under nohup, SIGHUP is ignored by launch and ranks" ||
	not_ok "nohup: exit $rc, $(grep -c survived "$TMP/hup.out") ranks survived"

# ---- errors before anything starts ----
expect_rc 4 "--reserve takes every CPU: exit 4" L --reserve 0-1 -- touch "$TMP/started"
[ -e "$TMP/started" ] && not_ok "a rank started despite the impossible binding" || ok "no rank started"
expect_rc 2 "no '--'" L --dry-run true
expect_rc 2 "more ranks than GPUs" L --nproc-per-node 3 -- true
expect_rc 2 "--gpus and --nproc-per-node disagree" L --gpus 0,1 --nproc-per-node 1 -- true
expect_rc 2 "an unknown GPU" L --gpus 7 -- true
expect_grep "$err" "7" "the unknown GPU is named"
expect_rc 4 "no GPU in the model" "$GPUFEED" launch --root "$FIX/ci-vm/root" -- true
expect_grep "$err" "no-bind" "the error points at --no-bind"
expect_rc 2 "--no-bind needs --nproc-per-node" "$GPUFEED" launch --no-bind -- true
expect_rc 2 "--no-bind with --gpus" "$GPUFEED" launch --no-bind --nproc-per-node 1 --gpus 0 -- true
expect_rc 2 "--json without --dry-run" L --json -- true
expect_rc 2 "--grace not a duration" L --grace soon -- true

# ---- no binding, several nodes, the scheduler's environment ----
expect_rc 0 "--no-bind: three ranks, rank variables only" "$GPUFEED" launch --no-bind --nproc-per-node 3 \
	--nnodes 2 --node-rank 1 --master-addr head0 --master-port 1234 -- \
	sh -c 'echo "$RANK/$WORLD_SIZE $LOCAL_RANK $GROUP_RANK $MASTER_ADDR:$MASTER_PORT [${CUDA_VISIBLE_DEVICES-unset}]"'
expect_grep "$out" "^\[5\] 5/6 2 1 head0:1234 \[unset\]$" "node 1's rank 5 of 6, no GPU variable"
expect_grep "$out" "^\[3\] 3/6 0 1 head0:1234" "prefixes are global ranks"
expect_rc 2 "two nodes need a master address" "$GPUFEED" launch --no-bind --nproc-per-node 1 --nnodes 2 -- true

run env SLURM_STEP_NUM_NODES=2 SLURM_NODEID=1 SLURM_STEP_NODELIST='gpu[07-08]' \
	"$GPUFEED" launch --no-bind --nproc-per-node 2 --dry-run --json -- true
expect_jq "$out" '.world.nnodes == 2 and .world.node_rank == 1 and .world.master_addr == "gpu07"
	and .world.from.master_addr == "SLURM_STEP_NODELIST" and .ranks[1].env.RANK == "3"' \
	"a Slurm step: nodes, node rank, its first host"
run env PET_NNODES=4 PET_NODE_RANK=3 MASTER_ADDR=10.0.0.1 MASTER_PORT=2222 \
	"$GPUFEED" launch --no-bind --nproc-per-node 1 --dry-run --json -- true
expect_jq "$out" '.world.nnodes == 4 and .world.node_rank == 3 and .world.master_addr == "10.0.0.1"
	and .world.master_port == 2222 and .world.from.nnodes == "PET_NNODES" and .ranks[0].binding == null' \
	"torchrun's PET_* and MASTER_*"
run env MASTER_PORT=http "$GPUFEED" launch --no-bind --nproc-per-node 1 --dry-run -- true
[ "$rc" = 2 ] && grep -q MASTER_PORT "$err" && ok "a malformed MASTER_PORT is named (exit 2)" || not_ok "MASTER_PORT=http: exit $rc"

# ---- torchrun's habits ----
run "$GPUFEED" launch --no-bind --nproc_per_node 2 --nnodes 2:2 --node_rank 1 --master_addr head0 --master_port 1234 \
	--dry-run --json -- true
expect_jq "$out" '.world.nproc_per_node == 2 and .world.nnodes == 2 and .world.node_rank == 1
	and .world.master_addr == "head0" and .world.master_port == 1234' "torchrun's underscore spellings and --nnodes N:N"
expect_rc 2 "--nnodes 1:4 (an elastic range) is refused" "$GPUFEED" launch --no-bind --nproc-per-node 1 --nnodes 1:4 -- true
expect_grep "$err" "elastic" "the refusal says why"
expect_rc 0 "--nproc-per-node gpu: one rank per GPU" L --nproc-per-node gpu --dry-run --json -- true
expect_jq "$out" '(.ranks | length) == 2' "--nproc-per-node gpu: two ranks on two GPUs"
expect_rc 0 "--nproc_per_node=auto, as torchrun spells it" L --nproc_per_node=auto --dry-run --json -- true
expect_rc 2 "--nproc-per-node cpu is refused" L --nproc-per-node cpu -- true
expect_rc 2 "--nproc-per-node gpu with --no-bind: nothing to count" "$GPUFEED" launch --no-bind --nproc-per-node gpu -- true

# --standalone: one node here on a free port, whatever the environment says.
run env PET_NNODES=4 MASTER_ADDR=10.0.0.1 MASTER_PORT=2222 \
	"$GPUFEED" launch --no-bind --nproc-per-node 2 --standalone --dry-run --json -- true
expect_jq "$out" '.world.nnodes == 1 and .world.node_rank == 0 and .world.master_addr == "127.0.0.1"
	and .world.master_port > 0 and .world.master_port != 2222 and .world.from.master_port == "--standalone"' \
	"--standalone: one node at 127.0.0.1 on a free port"
expect_rc 2 "--standalone with --nnodes 2" "$GPUFEED" launch --no-bind --nproc-per-node 1 --standalone --nnodes 2 -- true
expect_grep "$err" "nnodes" "the conflict is named"
expect_rc 0 "--standalone --nnodes 1, as torchrun's examples write it" \
	"$GPUFEED" launch --no-bind --nproc-per-node 1 --standalone --nnodes 1 --dry-run -- true

# --max-restarts: every rank starts again after a failure, told which try.
# (rank 0 fails the first try after saying so; rank 1 waits to be stopped,
# maybe before its line: only rank 0's first line is sure to come out)
expect_rc 0 "--max_restarts 1: the second try succeeds" "$GPUFEED" launch --no-bind --nproc-per-node 2 --max_restarts 1 -- \
	sh -c 'echo "try $TORCHELASTIC_RESTART_COUNT/$TORCHELASTIC_MAX_RESTARTS"
		[ "$TORCHELASTIC_RESTART_COUNT" = 1 ] && exit 0; [ "$RANK" = 0 ] && exit 1; exec sleep 5'
expect_grep "$out" "^\[0\] try 0/1$" "the first try"
expect_grep "$out" "^\[0\] try 1/1$" "the restart, rank 0"
expect_grep "$out" "^\[1\] try 1/1$" "the restart, rank 1"
expect_grep "$err" "restarting every rank (restart 1 of 1)" "the restart is said"
expect_rc 3 "--max-restarts 1, failing every time: the last failure's code" \
	"$GPUFEED" launch --no-bind --nproc-per-node 1 --max-restarts 1 -- sh -c 'exit 3'
run "$GPUFEED" launch --no-bind --nproc-per-node 1 --rdzv_id job42 --max-restarts 3 --dry-run --json -- true
expect_jq "$out" '.ranks[0].env.TORCHELASTIC_RUN_ID == "job42" and .ranks[0].env.TORCHELASTIC_MAX_RESTARTS == "3"
	and .ranks[0].env.TORCHELASTIC_RESTART_COUNT == "0" and .ranks[0].env.TORCHELASTIC_USE_AGENT_STORE == "False"
	and .world.max_restarts == 3 and .world.run_id == "job42"' "torchrun's TORCHELASTIC_* variables in the plan"
run "$GPUFEED" launch --no-bind --nproc-per-node 1 --standalone --dry-run --json -- true
expect_jq "$out" '.ranks[0].env.TORCHELASTIC_RUN_ID | test("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")' \
	"--standalone: a random run id (a UUID), as torchrun's"

# -m MODULE: python3 -u -m MODULE ARG..., the arguments after MODULE its own.
if command -v python3 >/dev/null; then
	mkdir -p "$TMP/py"
	printf 'import os, sys\nprint("mod", os.environ["RANK"], sys.argv[1:])\n' >"$TMP/py/gfmod.py"
	expect_rc 0 "-m MODULE runs python3 -m MODULE in each rank" env PYTHONPATH="$TMP/py" \
		"$GPUFEED" launch --no-bind --nproc_per_node 2 -m gfmod --lr 1 -- x
	expect_grep "$out" "^\[1\] mod 1 \['--lr', '1', '--', 'x'\]$" "the module's arguments are its own, '--' included"
	run "$GPUFEED" launch --no-bind --nproc-per-node 1 --dry-run --json --module=gfmod
	expect_jq "$out" '.command == ["python3", "-u", "-m", "gfmod"]' "--module=M: python3 -u -m M, unbuffered as torchrun runs it"
else
	ok "# skip: no python3 for -m"
fi
expect_rc 2 "-m without a module" "$GPUFEED" launch --no-bind --nproc-per-node 1 -m

# Long lines come out whole, in pieces of 64 KiB each with the prefix.
expect_rc 0 "a 100 KB line" "$GPUFEED" launch --no-bind --nproc-per-node 1 -- \
	sh -c 'head -c 100000 /dev/zero | tr "\0" x; echo'
pieces=$(grep -c '^\[0\] x' "$out")
total=$(sed 's/^\[0\] //' "$out" | tr -d '\n' | wc -c)
[ "$pieces" = 2 ] && [ "$total" = 100000 ] && ok "100000 bytes in 2 prefixed pieces" || not_ok "pieces $pieces, bytes $total"

finish
