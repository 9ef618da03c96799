#!/usr/bin/env bash
# gpufeed run binds this machine for real: the model is ci-2gpu (this
# machine's shape, 2 CPUs and one node, with 2 GPUs), so every CPU and node
# it chooses exists here.  What CMD sees is read from /proc/self inside it.
. "$(dirname "$0")/lib.sh"
CI=$FIX/ci-2gpu/root
HGX=$FIX/hgx-h100-8gpu/root
RUN=("$GPUFEED" run --root "$CI")
ncpu=$(nproc --all)
if [ "$ncpu" -lt 2 ] || ! taskset -c 0,1 true 2>/dev/null; then
	echo "skip: needs CPUs 0 and 1 allowed (have $(grep Cpus_allowed_list /proc/self/status))"
	exit 77
fi
# The tests start from both CPUs allowed, whatever the runner's mask.
RUN=(taskset -c 0,1 "${RUN[@]}")

show='grep -E "^(Cpus|Mems)_allowed_list" /proc/self/status; env | grep -E "^(CUDA|OMP|NCCL)_" | sort'

# exclusive: GPU1 is the second of the node's two GPUs: CPU 1.
run "${RUN[@]}" --gpu 1 --cpu exclusive -- sh -c "$show"
[ "$rc" = 0 ] && ok "run --cpu exclusive runs CMD" || not_ok "run --cpu exclusive: exit $rc: $(cat "$err")"
expect_grep "$out" "Cpus_allowed_list:[[:space:]]*1$" "GPU1 exclusive: CMD runs on CPU 1 only"
uuid1=$("$GPUFEED" topo --root "$CI" --json | jq -r '.gpus[1].uuid')
expect_grep "$out" "^CUDA_VISIBLE_DEVICES=$uuid1$" "CUDA_VISIBLE_DEVICES is GPU1's UUID"
expect_grep "$out" "^CUDA_DEVICE_ORDER=PCI_BUS_ID$" "CUDA_DEVICE_ORDER=PCI_BUS_ID"
expect_grep "$out" "^OMP_NUM_THREADS=1$" "OMP_NUM_THREADS is the one core bound"
expect_grep "$out" "^NCCL_IGNORE_CPU_AFFINITY=1$" "NCCL_IGNORE_CPU_AFFINITY=1"

run "${RUN[@]}" --gpu 0 --cpu exclusive --keep-nccl-affinity -- sh -c "$show"
expect_grep "$out" "Cpus_allowed_list:[[:space:]]*0$" "GPU0 exclusive: CPU 0"
expect_no_grep "$out" "NCCL_IGNORE_CPU_AFFINITY" "--keep-nccl-affinity leaves NCCL's variable unset"

run "${RUN[@]}" --gpu 0,1 -- sh -c "$show"
expect_grep "$out" "Cpus_allowed_list:[[:space:]]*0-1$" "node mode: both CPUs of node 0"
expect_grep "$out" "^OMP_NUM_THREADS=2$" "OMP_NUM_THREADS=2 for two cores"

# A MIG instance by G:GI:CI: CUDA sees its MIG UUID.
mig=$("$GPUFEED" topo --root "$CI" --json | jq -r '.gpus[1].mig.instances[] | select(.gpu_instance == 2) | .uuid')
run "${RUN[@]}" --gpu 1:2:0 -- sh -c "$show"
expect_grep "$out" "^CUDA_VISIBLE_DEVICES=$mig$" "a MIG target exports its MIG UUID"

# The memory policy as the kernel shows it on CMD's own mappings.
for p in bind:bind preferred:prefer interleave:interleave; do
	run "${RUN[@]}" --gpu 0 --mem "${p%%:*}" -- cat /proc/self/numa_maps
	if [ "$rc" = 0 ] && grep -q " ${p#*:}:0 " "$out" && ! grep -q " default " "$out"; then
		ok "--mem ${p%%:*}: numa_maps shows ${p#*:}:0 on every mapping"
	else
		not_ok "--mem ${p%%:*}: exit $rc: $(head -2 "$out") $(cat "$err")"
	fi
done
run "${RUN[@]}" --gpu 0 --mem none -- cat /proc/self/numa_maps
expect_grep "$out" " default " "--mem none leaves the default policy"

# CMD is executed in run's place: same process, its exit code, its signals.
run sh -c 'echo $$; exec "$@"' sh "${RUN[@]}" --gpu 0 -- sh -c 'echo $$'
[ "$(sed -n 1p "$out")" = "$(sed -n 2p "$out")" ] && ok "CMD runs in run's process (exec, no child)" ||
	not_ok "CMD in another process: $(tr '\n' ' ' <"$out")"
expect_rc 7 "CMD's exit code passes through" "${RUN[@]}" --gpu 0 -- sh -c 'exit 7'
expect_rc 143 "CMD killed by SIGTERM: 128+15 as with CMD alone" "${RUN[@]}" --gpu 0 -- sh -c 'kill -TERM $$'
expect_rc 127 "missing command: 127" "${RUN[@]}" --gpu 0 -- /nonexistent/cmd
expect_grep "$err" "/nonexistent/cmd" "the missing command is named"
expect_rc 126 "a command that cannot be executed: 126" "${RUN[@]}" --gpu 0 -- "$SRC/README.md"

# Errors: never a silent fallback.
expect_rc 4 "allowed CPUs miss the GPU's node: exit 4" taskset -c 0,1 "$GPUFEED" run --root "$HGX" --gpu 5 -- true
expect_grep "$err" "56-111,168-223" "the message names the GPU's CPUs"
expect_grep "$err" "(0-1)" "and the CPUs this process may use"
expect_rc 4 "exclusive with one allowed core for two GPUs: exit 4" taskset -c 1 "$GPUFEED" run --root "$CI" --gpu 0 --cpu exclusive -- true
expect_rc 4 "reserved CPUs take the node: exit 4" "${RUN[@]}" --gpu 0 --reserve 0-1 -- true
expect_rc 4 "no GPU in the model: exit 4" "$GPUFEED" run --root "$FIX/ci-vm/root" --gpu 0 -- true
expect_grep "$err" "no NVIDIA GPU" "says there is no GPU"
expect_rc 2 "an unknown GPU: usage error" "${RUN[@]}" --gpu 0,9 -- true
expect_grep "$err" "'9'" "the entry is named"
expect_rc 2 "no '--': usage error" "${RUN[@]}" --gpu 0 true
expect_rc 2 "--json without --dry-run" "${RUN[@]}" --gpu 0 --json -- true
expect_rc 2 "bad --cpu" "${RUN[@]}" --gpu 0 --cpu numa -- true
expect_rc 2 "--gpu is required" "${RUN[@]}" -- true

# --dry-run: the binding on stdout, nothing run.
expect_rc 0 "--dry-run --json" "${RUN[@]}" --gpu 1 --cpu exclusive --dry-run --json -- touch "$TMP/ran"
expect_jq "$out" '.schema == "gpufeed-run/1" and .cpus == "1" and .mems == "0" and .threads == 1
	and .env.CUDA_VISIBLE_DEVICES == "'"$uuid1"'" and .command == ["touch", "'"$TMP/ran"'"]' \
	"--dry-run --json: schema, CPUs, nodes, environment, command"
[ ! -e "$TMP/ran" ] && ok "--dry-run runs nothing" || not_ok "--dry-run ran the command"
expect_rc 0 "--dry-run text" "${RUN[@]}" --gpu 1 --cpu exclusive --dry-run -- true
expect_grep "$out" "^why:.*exclusive" "the text says why"
expect_rc 0 "--dry-run needs no command" "${RUN[@]}" --gpu 1 --dry-run --json
expect_jq "$out" '.cpus == "0-1" and .command == []' "--dry-run without a command: the binding, no command"
# --dry-run on a recording: the binding as on the recorded machine, not cut
# down to this machine's CPUs (which miss GPU5's node entirely).
expect_rc 0 "--dry-run --root: a preview as recorded" taskset -c 0,1 "$GPUFEED" run --root "$HGX" --gpu 5 --dry-run --json
expect_jq "$out" '.cpus == "56-111,168-223" and .mems == "1" and (.reason | test("as recorded"))' \
	"--dry-run --root: GPU5's node 1 CPUs and memory, said to be as recorded"
# -o FILE: the preview, written as every command writes FILE; CMD's own
# output is its own, so -o without --dry-run is a usage error.
expect_rc 0 "--dry-run --json -o FILE" "${RUN[@]}" --gpu 1 --dry-run --json -o "$TMP/b.json"
[ ! -s "$out" ] && ok "-o: nothing on standard output" || not_ok "-o: standard output has $(wc -c <"$out") bytes"
expect_jq "$TMP/b.json" '.schema == "gpufeed-run/1" and .cpus == "0-1"' "-o: FILE holds the binding"
echo precious >"$TMP/keep"
expect_rc 2 "-o without --dry-run" "${RUN[@]}" --gpu 0 -o "$TMP/keep" -- true
expect_grep "$err" "dry-run" "the refusal points at --dry-run"
[ "$(cat "$TMP/keep")" = precious ] && ok "-o refused: FILE left as it was" || not_ok "FILE was changed"
run "${RUN[@]}" -v --gpu 0 -- true
expect_grep "$err" "^cpus:" "-v prints the binding on stderr"
finish
