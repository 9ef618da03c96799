# Host part of bench-mem (sourced by tests/numa/run.sh after lib.sh).
# `gpufeed bench mem` on a real two-node machine: a 2x2 matrix of every
# figure, the latency thread and the bandwidth threads on the row's CPU,
# and every page checked (move_pages) on the column's node.

prepare_bench_mem() { :; }

bench_mem_jqc() {	# bench_mem_jqc SECTION FILTER DESC
	if numa_section "$1" | jq -e "$2" >/dev/null 2>&1; then numa_ok "$1: $3"; else
		numa_not_ok "$1: $3"
		{ numa_section "$1" | head -c 1500; echo; numa_section "$1.stderr" | head -5; } | sed "s/^/#   $1: /"
	fi
}

check_bench_mem() {
	local rc
	rc=$(numa_section_rc mem-json)
	[ "$rc" = 0 ]
	numa_check "mem-json: bench mem --quick --json exits 0 in the guest (got ${rc:-none})" $?
	bench_mem_jqc mem-json '.schema == "gpufeed-bench-mem/1" and .cpu_nodes == [0, 1] and .mem_nodes == [0, 1]' \
		"rows: CPU nodes 0 and 1, columns: memory nodes 0 and 1"
	bench_mem_jqc mem-json '[.matrices[]] | length == 4 and all(.[]; length == 2 and all(.[]; length == 2 and all(.[]; . > 0)))' \
		"four 2x2 matrices (latency, read, write, copy), every figure > 0"
	bench_mem_jqc mem-json '.pairs | length == 4 and all(.[]; .placement.verified and .placement.pages_on_node == .placement.pages_checked and .placement.pages_checked >= 128)' \
		"every pair: all pages checked (move_pages) are on its memory node"
	bench_mem_jqc mem-json '.pairs | all(.[]; .cpus == (.cpu_node | tostring) and .latency_cpu == .cpu_node and .threads == 1)' \
		"every pair: node i's threads on CPU i (one per node), latency on CPU i"
	bench_mem_jqc mem-json '.pairs | all(.[]; (.latency.samples | length) == 2 and (.copy.samples | length) == 2)' \
		"raw samples: 2 per figure"
	bench_mem_jqc mem-json '.machine.numa_nodes == 2 and (.machine.nodes | map(.distance) == [[10, 21], [21, 10]])' \
		"the topology summary: 2 nodes, distances 10/21"
	numa_section mem-text | grep -q '^cpu node 1 .* *[0-9.]\+ \+[0-9.]\+$' &&
		numa_section mem-text | grep -q '^mem node 1: 128 of 128 pages checked are on node 1'
	numa_check "mem-text: a 2-column row for cpu node 1, node 1's pages on node 1" $?
	bench_mem_jqc mem-n1 '.cpu_nodes == [1] and .mem_nodes == [1] and .pairs[0].placement.verified and .pairs[0].cpus == "1"' \
		"--nodes 1: a 1x1 matrix on node 1, pages on node 1, CPU 1"
	rc=$(numa_section_rc mem-absent)
	[ "$rc" = 4 ] && numa_section mem-absent.stderr | grep -q 'no NUMA node 5 here (nodes: 0,1)'
	numa_check "mem-absent: --nodes 0,5 exits 4 naming node 5 and the nodes 0,1 (got ${rc:-none})" $?
	numa_section mem-json | jq -r '.flags[]? | "# info: \(.level): \(.test) \(.cpu_node)->\(.mem_node): \(.message)"' 2>/dev/null
}

evidence_bench_mem() {	# evidence_bench_mem OUTDIR
	numa_section mem-json >"$1/bench-mem.json"
	numa_section mem-text
	printf 'bench-mem mem-json exit %s; mem-n1 exit %s; mem-absent exit %s\n' "$(numa_section_rc mem-json)" \
		"$(numa_section_rc mem-n1)" "$(numa_section_rc mem-absent)"
}
