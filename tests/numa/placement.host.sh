# Host part of placement (sourced by tests/numa/run.sh after lib.sh).
# `gpufeed run` and `gpufeed verify` on a real two-node machine.  The guest
# has no GPU: a pci-testdev function sits behind each node's expander bridge
# (rp0b: node 0, rp1b: node 1), and the guest's recording of itself turns
# both into NVIDIA 3D controllers, so the model (--root) has a GPU on each
# node with the guest's real locality.  A static helper (touch_pages.c)
# writes 64 MiB and reports its CPUs, memory policy, the node of every page
# (move_pages) and its numa_maps line; --hold keeps it alive for verify.

prepare_placement() {
	gcc -static -O2 -std=c11 -Wall -Wextra -Werror -o "$NUMA_W"/touch_pages \
		"$NUMA_SRC"/tests/numa/touch_pages.c >"$NUMA_W"/touch_pages.log 2>&1 ||
		{ sed 's/^/#   /' "$NUMA_W"/touch_pages.log; return 1; }
	cp "$NUMA_W"/touch_pages "$NUMA_IR"/bin/touch_pages
	numa_testdevs
}

# placement_field NAME KEY: the rest of touch_pages' "KEY ..." line
placement_field() { numa_section "$1" | sed -n "s/^$2 //p" | head -1; }
# placement_pages NAME NODE: pages on NODE ("total": all pages)
placement_pages() {
	numa_section "$1" | awk -v k="$([ "$2" = total ] && echo total || echo "node$2")" \
		'$1 == "pages" { for (i = 2; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'
}
placement_show() {	# the lines a reader needs when a check fails
	numa_section "$1" | grep -E '^(Cpus_allowed_list|mempolicy|pages|numa_maps) ' | sed "s/^/#   $1: /"
	numa_section "$1.stderr" | head -5 | sed "s/^/#   $1 stderr: /"
}

# placement_on NAME NODE CPUS POLICY DESC: exit 0, every page on NODE, the
# CPUs allowed are CPUS, the memory policy line is POLICY.
placement_on() {
	local total on
	total=$(placement_pages "$1" total) on=$(placement_pages "$1" "$2")
	if [ "$(numa_section_rc "$1")" = 0 ] && [ "${total:-0}" -ge 16384 ] && [ "$on" = "$total" ] &&
		[ "$(placement_field "$1" Cpus_allowed_list)" = "$3" ] && [ "$(placement_field "$1" mempolicy)" = "$4" ]; then
		numa_ok "$1: $5: all $total pages on node $2, CPUs $3, policy '$4'"
	else
		numa_not_ok "$1: $5: want all pages on node $2, CPUs $3, policy '$4' (exit $(numa_section_rc "$1"))"
		placement_show "$1"
	fi
}

placement_env() {	# placement_env NAME: gpufeed run's environment reached the program
	local s; s=$(numa_section "$1")
	echo "$s" | grep -qx 'env OMP_NUM_THREADS=1' && echo "$s" | grep -qx 'env NCCL_IGNORE_CPU_AFFINITY=1' &&
		echo "$s" | grep -qx 'env CUDA_DEVICE_ORDER=PCI_BUS_ID' && echo "$s" | grep -q '^env CUDA_VISIBLE_DEVICES=[^(]'
	numa_check "$1: OMP_NUM_THREADS=1, NCCL_IGNORE_CPU_AFFINITY=1, CUDA_DEVICE_ORDER=PCI_BUS_ID, CUDA_VISIBLE_DEVICES set" $?
}

check_placement() {
	local gpus g0 g1 idx1_node total n0 n1 rc
	gpus=$(numa_section fake-gpus)
	echo "$gpus" | sed 's/^/# guest: /'
	g0=$(echo "$gpus" | sed -n 's/^GF-GPU bdf=\([^ ]*\) numa_node=0 local_cpulist=0$/\1/p')
	g1=$(echo "$gpus" | sed -n 's/^GF-GPU bdf=\([^ ]*\) numa_node=1 local_cpulist=1$/\1/p')
	[ -n "$g0" ] && [ -n "$g1" ] && ! echo "$gpus" | grep -q GF-WARN
	numa_check "record: a recording of the guest, with a fake GPU on node 0 ($g0) and one on node 1 ($g1)" $?
	[ "$(numa_section_rc record)" = 0 ]
	numa_check "record: gpufeed record exits 0 in the guest" $?

	numa_section model-json | jq -e -s --arg g0 "$g0" --arg g1 "$g1" 'length == 1 and (.[0].gpus | length == 2
		and any(.[]; .pci == $g0 and .numa_node == 0) and any(.[]; .pci == $g1 and .numa_node == 1))' >/dev/null 2>&1
	numa_check "model: topo --root REC --json has 2 GPUs, $g0 on node 0 and $g1 on node 1" $?
	idx1_node=$(numa_section model-json | jq -r '.gpus[] | select(.index == 1) | .numa_node' 2>/dev/null)

	echo "# info: nobind (first touch, no policy): $(placement_field nobind pages); CPUs $(placement_field nobind Cpus_allowed_list)"
	placement_on bind-g1 1 1 "bind nodes 1" "run --gpu $g1 (node 1) --mem bind"
	placement_env bind-g1
	placement_on bind-g0 0 0 "bind nodes 0" "run --gpu $g0 (node 0) --mem bind"
	placement_on bind-index1 "${idx1_node:-1}" "${idx1_node:-1}" "bind nodes ${idx1_node:-1}" \
		"run --gpu 1 (by index; the model's GPU 1 is on node ${idx1_node:-none}) --mem bind"
	placement_on preferred-g1 1 1 "$(placement_field preferred-g1 mempolicy | grep -E '^preferred(-many)? nodes 1$' || echo 'preferred nodes 1')" \
		"run --gpu $g1 --mem preferred"
	placement_on interleave-g1 1 1 "interleave nodes 1" "run --gpu $g1 --mem interleave (one GPU: its node only)"
	total=$(placement_pages interleave-both total) n0=$(placement_pages interleave-both 0) n1=$(placement_pages interleave-both 1)
	# Interleaving alternates pages; allow 10% either way for THP or
	# kernel-side allocations that land in the range.
	if [ "$(numa_section_rc interleave-both)" = 0 ] && [ "${total:-0}" -ge 16384 ] &&
		[ $((n0 * 10)) -ge $((total * 4)) ] && [ $((n1 * 10)) -ge $((total * 4)) ] && [ $((n0 + n1)) = "$total" ] &&
		[ "$(placement_field interleave-both Cpus_allowed_list)" = 0-1 ] &&
		[ "$(placement_field interleave-both mempolicy)" = "interleave nodes 0 1" ]; then
		numa_ok "interleave-both: run --gpu $g0,$g1 --mem interleave: pages across both nodes ($n0 + $n1 of $total), CPUs 0-1"
	else
		numa_not_ok "interleave-both: run --gpu $g0,$g1 --mem interleave: want 40-60% of pages on each node, CPUs 0-1 (node0 ${n0:-?}, node1 ${n1:-?} of ${total:-?})"
		placement_show interleave-both
	fi
	rc=$(numa_section_rc exit-code)
	[ "$rc" = 7 ]
	numa_check "exit-code: run -- sh -c 'exit 7' exits 7 (got ${rc:-none})" $?

	# verify: the held processes were placed as intended...
	placement_on held-right 1 1 "bind nodes 1" "held process bound by run --gpu $g1"
	placement_on held-wrong 0 0 "bind nodes 0" "held process placed by hand on CPU 0, node 0"
	placement_on held-other 0 0 "bind nodes 0" "held process bound by run --gpu $g0"
	# ...and verify tells them apart (exit 0 no finding, 1 findings).
	placement_verify verify-right 0 "a process bound to $g1's node, checked against $g1: no finding"
	placement_verify verify-wrong 1 "a process on node 0 (CPU 0, memory bind 0), checked against $g1: flagged"
	placement_verify verify-other 1 "a process bound by run to $g0 (node 0), checked against $g1: flagged"
	placement_verify verify-other-g0 0 "the same process checked against $g0: no finding"
	placement_verify verify-self 0 "run --gpu $g1 -- verify --self --gpu $g1: no finding"
	# The JSON (docs/json-verify.md): the right one local with its 64 MiB on
	# node 1, the wrong one a mismatch naming the CPUs and the pages.
	numa_section verify-right-json | jq -e -s 'length == 1 and (.[0] | .schema == "gpufeed-verify/1"
		and .result == "local" and .findings == [] and .memory.off_node_percent < 10
		and any(.nodes[]; .node == 1 and .local and .private_bytes >= 64 * 1048576))' >/dev/null 2>&1 &&
		[ "$(numa_section_rc verify-right-json)" = 0 ]
	numa_check "verify-right-json: result local, no findings, 64 MiB private on node 1, exit 0" $?
	numa_section verify-wrong-json | jq -e -s 'length == 1 and (.[0] | .result == "mismatch"
		and .memory.off_node_percent >= 90 and .process.memory_policy == "bind:0"
		and ([.findings[].id] | index("verify.cpus-remote") != null and index("verify.pages-remote") != null))' \
		>/dev/null 2>&1 && [ "$(numa_section_rc verify-wrong-json)" = 1 ]
	numa_check "verify-wrong-json: result mismatch, findings verify.cpus-remote and verify.pages-remote, >= 90% off node, exit 1" $?
}

placement_verify() {	# placement_verify NAME WANT_RC DESC
	local rc; rc=$(numa_section_rc "$1")
	if [ "$rc" = "$2" ]; then numa_ok "$1: exit $2: $3"; else
		numa_not_ok "$1: exit ${rc:-none}, want $2: $3"
		{ numa_section "$1"; numa_section "$1.stderr"; } | head -15 | sed "s/^/#   $1: /"
	fi
	numa_section "$1" | grep -E '^  (error|warning) |^Result:' | sed "s/^/# $1: /"
}

evidence_placement() {	# evidence_placement OUTDIR
	local s
	numa_section model-json >"$1/placement-model.json"
	numa_section verify-right-json >"$1/verify-right.json"
	numa_section verify-wrong-json >"$1/verify-wrong.json"
	numa_section fake-gpus
	for s in nobind bind-g1 bind-g0 bind-index1 preferred-g1 interleave-g1 interleave-both held-right held-wrong held-other; do
		printf 'placement %-16s exit %-3s CPUs %-4s %-24s %s\n' "$s" "$(numa_section_rc "$s")" \
			"$(placement_field "$s" Cpus_allowed_list)" "$(placement_field "$s" mempolicy)" "$(placement_field "$s" pages)"
	done
	for s in verify-right verify-wrong verify-other verify-other-g0 verify-self; do
		printf 'placement %-16s exit %s\n' "$s" "$(numa_section_rc "$s")"
	done
}
