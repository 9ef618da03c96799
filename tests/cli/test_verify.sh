#!/usr/bin/env bash
# gpufeed verify: live processes of this machine (against this machine and
# against the hgx-h100-8gpu model, whose GPU0-3 are local to CPUs 0-55 and
# node 0, GPU4-7 to CPUs 56-111 and node 1), fake /proc/PID trees under
# --root, usage and exit codes.
. "$(dirname "$0")/lib.sh"
HGX=$FIX/hgx-h100-8gpu/root

# --- live, this machine as the model -------------------------------------
ngpus=$("$GPUFEED" topo --json --nvml=off | jq '.gpus | length')
if [ "$ngpus" = 0 ]; then
	expect_rc 4 "verify --self on a host without a GPU: nothing to verify against" "$GPUFEED" verify --self
	expect_grep "$out" "no GPU known" "and it says so, with the report"
	expect_grep "$out" "CPUs allowed" "the report still shows the allowed CPUs"
else
	expect_rc 4 "verify --self: gpufeed itself has no GPU open" "$GPUFEED" verify --self --nvml=off
fi
expect_rc 4 "verify \$\$ (this shell)" "$GPUFEED" verify --json $$
expect_jq "$out" ".schema == \"gpufeed-verify/1\" and .process.pid == $$ and .result == \"no-gpu\"" \
	"--json: the schema, the shell's PID, no GPU"
expect_jq "$out" '(.process.threads | length) >= 1 and .process.threads[0].cpu >= 0' "--json: threads with their CPU"

# A PID that was just reaped.
sleep 0 & gone=$!
wait $gone
expect_rc 3 "a PID that does not exist is exit 3" "$GPUFEED" verify $gone
expect_grep "$err" "$gone: no such process" "the message names the PID"

# --- live process, model from a recording (--model) -----------------------
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
if [ "$(nproc --all)" -le 56 ] && [ "$nodes" -le 1 ]; then
	# This machine's CPUs (0-N, N < 56) and node 0 are GPU0's in the model.
	expect_rc 0 "--model hgx --gpu 0: a live process on CPUs and memory of GPU0's node" \
		"$GPUFEED" verify --self --model "$HGX" --gpu 0 --json
	expect_jq "$out" '.result == "local" and .gpus[0].index == 0 and .gpus[0].source == "asked"' \
		"--json: local to GPU0, asked"
	expect_jq "$out" '[.findings[].id] == ["verify.mempolicy-default"]' "only the info on the default policy"
	expect_rc 1 "--gpu 4 (node 1): the same process is off-node" "$GPUFEED" verify $$ --model "$HGX" --gpu 4
	expect_grep "$out" "verify.cpus-remote" "allowed CPUs none local"
	expect_grep "$out" "verify.threads-remote" "threads off-node"
	expect_grep "$out" "verify.pages-remote" "pages off-node"
	expect_grep "$out" "Result: mismatch" "the result line says mismatch"

	# A live process whose CUDA_VISIBLE_DEVICES names the GPU (none open).
	CUDA_VISIBLE_DEVICES=GPU-7fc91dbd sleep 30 & sleeper=$!
	sleep 0.2
	expect_rc 0 "CUDA_VISIBLE_DEVICES from a live process's environ names GPU2" \
		"$GPUFEED" verify --json --model "$HGX" $sleeper
	expect_jq "$out" '.gpus[0].index == 2 and .gpus[0].source == "CUDA_VISIBLE_DEVICES"
		and .process.cuda_visible_devices == "GPU-7fc91dbd"' "--json: GPU2 by its UUID prefix"
	kill $sleeper
	wait $sleeper 2>/dev/null
else
	echo "# skip: this machine's CPUs are not all GPU0's in the hgx model"
fi

# --- fake /proc/PID trees under --root ------------------------------------
cp -a "$HGX" "$TMP/hgx"
# fake_proc PID CPUS "TID:CPU ..." NUMA_MAPS_LINE [DEVICE...]
fake_proc() {
	local pid=$1 cpus=$2 threads=$3 maps=$4 d=$TMP/hgx/proc/$1 i=10
	shift 4
	mkdir -p "$d/task" "$d/fd"
	printf 'Name:\ttrain\nPid:\t%s\nCpus_allowed_list:\t%s\nMems_allowed_list:\t0-1\n' "$pid" "$cpus" >"$d/status"
	for t in $threads; do
		mkdir -p "$d/task/${t%%:*}"
		# pid (comm) then fields 3..52; field 39 is the CPU.
		printf '%s (py) (x) S%s %s%s\n' "${t%%:*}" "$(printf ' 0%.0s' {4..38})" "${t#*:}" \
			"$(printf ' 0%.0s' {40..52})" >"$d/task/${t%%:*}/stat"
	done
	printf '%s\n' "$maps" >"$d/numa_maps"
	for dev in "$@"; do ln -s "$dev" "$d/fd/$i"; i=$((i + 1)); done
}
fake_proc 7000 0-55,112-167 "7000:3 7001:120" "7f0000000000 bind:0 anon=100 N0=100 kernelpagesize_kB=4" /dev/nvidia2
expect_rc 0 "--root: a process bound right to GPU3 (minor 2, node 0)" "$GPUFEED" verify --root "$TMP/hgx" 7000
expect_grep "$out" "GPU3:" "the open /dev/nvidia2 is GPU3"
expect_grep "$out" "all local to the GPUs" "the result says all local"

fake_proc 7010 0-223 "7010:3 7011:60" "7f0000000000 default anon=100 N0=30 N1=70 kernelpagesize_kB=4" /dev/nvidia2
run "$GPUFEED" verify --root "$TMP/hgx" --json 7010
[ "$rc" = 1 ] && ok "--root: threads and pages on node 1 are exit 1" || not_ok "exit $rc, wanted 1"
expect_jq "$out" '[.findings[].id] | index("verify.threads-remote") and index("verify.pages-remote")
	and index("verify.cpus-allowed")' "--json: the findings by id"
expect_jq "$out" '.process.threads[0].comm == "py) (x" and .process.threads[1].cpu == 60' \
	"a comm with ') (' in it is read whole, the CPU after it"
expect_jq "$out" '.memory.off_node_percent > 69.9 and .memory.off_node_percent < 70.1' "70% of the pages off-node"
fake_proc 7020 0-223 "7020:3" "7f0000000000 default anon=100 N0=30 N1=70 kernelpagesize_kB=4" \
	/dev/nvidia2 /dev/nvidia5
run "$GPUFEED" verify --root "$TMP/hgx" --json 7020
expect_jq "$out" '[.findings[].id] == ["verify.gpus-split", "verify.mempolicy-default"] and .local_nodes == "0-1"' \
	"GPU3 and GPU5 open: split over nodes 0 and 1, both local"
expect_rc 3 "--root: a PID absent from the tree" "$GPUFEED" verify --root "$TMP/hgx" 7999
expect_grep "$err" "--model DIR" "the message points at --model for a live process"

# --- usage ----------------------------------------------------------------
expect_rc 2 "no PID" "$GPUFEED" verify
expect_rc 2 "--self and a PID" "$GPUFEED" verify --self 1
expect_rc 2 "a PID that is not a number" "$GPUFEED" verify abc
expect_rc 2 "--gpu naming no GPU of the model" "$GPUFEED" verify --root "$TMP/hgx" --gpu 99 7000
expect_grep "$err" "'99'" "the message names the entry"
expect_rc 2 "--max-off-node out of range" "$GPUFEED" verify --max-off-node 101 --self

# --- another user's process -------------------------------------------------
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1 &&
	setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$GPUFEED"; then
	expect_rc 3 "nobody verifying PID 1 (root's) is exit 3" \
		setpriv --reuid=nobody --regid=nogroup --clear-groups "$GPUFEED" verify 1
	expect_grep "$err" "needs root or the same user" "the message says who may read it"
else
	echo "# skip: needs root, setpriv and a nobody user"
fi
# Root refused all the same (the ptrace access check: another user namespace,
# a process that is not dumpable, a security module): not "needs root".
if [ "$(id -u)" = 0 ] && ! cat /proc/1/numa_maps >/dev/null 2>&1; then
	expect_rc 3 "root refused PID 1's files is exit 3" "$GPUFEED" verify 1
	expect_no_grep "$err" "needs root" "the message does not tell root it needs root"
	expect_grep "$err" "Permission denied (EACCES) even as root" "it says what failed, with the errno"
else
	echo "# skip: root reads PID 1 here"
fi
# A kernel thread (PF_KTHREAD, 0x200000 in stat's flags) has no memory map.
kthread=
for s in /proc/[0-9]*/stat; do
	read -r line <"$s" 2>/dev/null || continue
	set -- ${line##*) }
	[ $(($7 & 0x200000)) -ne 0 ] && { kthread=${s#/proc/}; kthread=${kthread%/stat}; break; }
done
if [ -n "$kthread" ]; then
	expect_rc 3 "verify a kernel thread ($kthread) is exit 3" "$GPUFEED" verify "$kthread"
	expect_grep "$err" "$kthread (.*) is a kernel thread" "and says it is one"
else
	echo "# skip: no kernel thread visible here"
fi
finish
