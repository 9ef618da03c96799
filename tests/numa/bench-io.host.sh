# Host part of bench-io (sourced by tests/numa/run.sh after lib.sh).
# `gpufeed bench io` NUMA placement on three virtio-blk disks:
#   gf-node1   behind the expander bridge on NUMA node 1 (bus 0x80)
#   gf-node0   behind the expander bridge on NUMA node 0 (bus 0x40)
#   gf-rootbus on the root bus pcie.0, which has no NUMA node (-1)
# Inside: `topo --json` and `bench io` with the default placement,
# --numa-node 0, --numa-node none, on each disk, a created file on an ext2
# file system on the node-1 disk and on tmpfs, and one run whose threads and
# buffer pages are read from /proc while it runs.  Outside: checked with jq.

BENCH_IO_JSON=(topo-json n1-default n1-node0 n1-none n1-psync n1-node7 n0-default rootbus-default n1-live file-n1 file-tmpfs)

prepare_bench_io() {
	numa_ir_modules VIRTIO_PCI VIRTIO_BLK
	for d in node1 node0 rootbus; do truncate -s 64M "$NUMA_W/$d.img"; done
	# shellcheck disable=SC2054  # the commas are inside QEMU option values
	NUMA_QEMU+=(-drive file="$NUMA_W/node1.img",if=none,id=d1,format=raw
		-device virtio-blk-pci,drive=d1,bus=rp1,serial=gf-node1
		-drive file="$NUMA_W/node0.img",if=none,id=d0,format=raw
		-device virtio-blk-pci,drive=d0,bus=rp0,serial=gf-node0
		-drive file="$NUMA_W/rootbus.img",if=none,id=dx,format=raw
		-device virtio-blk-pci,drive=dx,bus=pcie.0,serial=gf-rootbus)
}

# bench_io_jqc NAME FILTER DESC: the run exited 0 and jq -e FILTER holds
bench_io_jqc() {
	local rc; rc=$(numa_section_rc "$1")
	# -s: an empty section is [], not a silent pass (jq 1.6 -e exits 0 on no input)
	if [ "$rc" = 0 ] && numa_section "$1" | jq -e -s "length == 1 and (.[0] | $2)" >/dev/null 2>&1; then
		numa_ok "$1: $3"
	else
		numa_not_ok "$1: $3 (exit ${rc:-none}; jq '$2')"
		numa_section "$1" | jq -c '{placement, device: .target.device, device_numa_node: .target.device_numa_node}' 2>/dev/null |
			sed 's/^/#   /'
		numa_section "$1.stderr" | head -5 | sed 's/^/#   stderr: /'
	fi
}

check_bench_io() {
	local disks n1 n0 nx p1 live pid workers
	disks=$(numa_section disks)
	echo "$disks" | sed 's/^/# guest: /'
	disk_field() { echo "$disks" | sed -n "s/^GF-DISK serial=$1 .*$2=\([^ ]*\).*/\1/p" | head -1; }
	n1=$(disk_field gf-node1 name) n0=$(disk_field gf-node0 name) nx=$(disk_field gf-rootbus name)
	p1=$(disk_field gf-node1 pci)
	[ "$(disk_field gf-node1 numa_node)" = 1 ] && [ "$(disk_field gf-node0 numa_node)" = 0 ] &&
		[ "$(disk_field gf-rootbus numa_node)" = -1 ]
	numa_check "sysfs: gf-node1 ($n1, PCI $p1) on node 1, gf-node0 ($n0) on node 0, gf-rootbus ($nx) on -1" $?

	bench_io_jqc topo-json '(.numa.nodes | length) == 2' "the model has two NUMA nodes"
	bench_io_jqc topo-json "[.block_devices[] | select(.name == \"$n1\")] | length == 1 and .[0].numa_node == 1 and .[0].pci == \"$p1\"" \
		"the model puts $n1 ($p1) on node 1"
	bench_io_jqc topo-json "[.block_devices[] | select(.name == \"$n0\")] | length == 1 and .[0].numa_node == 0" \
		"the model puts $n0 on node 0"
	# docs/json-topo.md: an unknown node is null (it was -1 before schema /2)
	bench_io_jqc topo-json "[.block_devices[] | select(.name == \"$nx\")] | length == 1 and .[0].numa_node == null" \
		"the model has no node (null) for $nx"

	bench_io_jqc n1-default '.placement.source == "drive" and .placement.numa_node == 1 and .placement.buffer_node_actual == 1 and .placement.cpus == "1"' \
		"default placement: the drive's node 1, CPU 1, buffer on node 1"
	bench_io_jqc n1-default ".target.device == \"$n1\" and .target.device_numa_node == 1 and .target.kind == \"block-device\" and .ios > 0" \
		"the target is $n1, node 1, and I/O ran"
	bench_io_jqc n1-default '.machine.numa_nodes == 2 and .machine.cpus == 2' "the machine summary: 2 nodes, 2 CPUs"
	numa_section n1-default-text | grep -q '^placement: NUMA node 1 (drive), CPUs 1, buffer pages on node 1$'
	numa_check "n1-default-text: the text output says 'placement: NUMA node 1 (drive), CPUs 1, buffer pages on node 1'" $?
	bench_io_jqc n1-node0 '.placement.source == "option" and .placement.numa_node == 0 and .placement.buffer_node_actual == 0 and .placement.cpus == "0"' \
		"--numa-node 0 overrides the drive: node 0, CPU 0, buffer on node 0"
	bench_io_jqc n1-none '.placement.numa_node == -1 and .placement.source == "none" and .placement.cpus == "" and .target.device_numa_node == 1' \
		"--numa-node none: no placement, the drive's node still reported"
	bench_io_jqc n1-psync '.placement.source == "drive" and .placement.numa_node == 1 and .placement.buffer_node_actual == 1 and .placement.cpus == "1" and .threads == 2 and .engine_used == "psync"' \
		"psync, 2 threads: node 1, CPU 1, buffer on node 1"
	bench_io_jqc n0-default '.placement.source == "drive" and .placement.numa_node == 0 and .placement.buffer_node_actual == 0 and .placement.cpus == "0"' \
		"the node-0 disk: node 0, CPU 0, buffer on node 0"
	bench_io_jqc rootbus-default '.placement.numa_node == -1 and .placement.source == "none" and .target.device_numa_node == -1' \
		"the root-bus disk (node unknown): no placement"

	live=$(numa_section n1-live-tasks)
	echo "$live" | sed 's/^/# live: /'
	pid=$(echo "$live" | sed -n 's/^pid //p')
	workers=$(echo "$live" | awk -v p="$pid" '/^tid / && $2 != p')
	[ -n "$workers" ] && ! echo "$workers" | grep -qv 'allowed=1 ' && ! echo "$workers" | grep -qv 'last_cpu=1 '
	numa_check "while running: every worker thread is allowed only CPU 1 and last ran on CPU 1" $?
	numa_section n1-live-numa_maps | grep -E 'prefer[^ ]*:1 ' | sed 's/^/# live numa_maps: /'
	numa_section n1-live-numa_maps | grep -E 'prefer[^ ]*:1 ' | grep -q ' N1='
	numa_check "while running: a mapping with the preferred-node-1 policy has its pages on N1" $?
	bench_io_jqc n1-live '.placement.numa_node == 1 and .placement.buffer_node_actual == 1' "the sampled run reports node 1"

	numa_section mount | grep -q ' /mnt '
	numa_check "ext2 on $n1 mounted" $?
	bench_io_jqc file-n1 ".target.created and .target.device == \"$n1\" and .placement.source == \"drive\" and .placement.numa_node == 1 and .placement.buffer_node_actual == 1 and .placement.cpus == \"1\"" \
		"a file created on the node-1 disk: node 1, CPU 1, buffer on node 1"
	bench_io_jqc file-tmpfs '.target.created and .placement.numa_node == -1 and .placement.source == "none"' \
		"a file created on tmpfs (no drive): no placement"

	# Informational: a node the machine does not have.
	echo "# info: --numa-node 7 (no such node): exit $(numa_section_rc n1-node7); stderr: $(numa_section n1-node7.stderr | tr '\n' ' ')"
}

evidence_bench_io() {	# evidence_bench_io OUTDIR: the JSON files and summary lines
	local s
	for s in "${BENCH_IO_JSON[@]}"; do
		numa_section "$s" >"$1/$s.json"
		[ -s "$1/$s.json" ] || rm -f "$1/$s.json"
	done
	numa_section disks
	for s in "${BENCH_IO_JSON[@]}"; do
		[ "$s" = topo-json ] && continue
		printf 'bench-io %-16s exit %-3s %s\n' "$s" "$(numa_section_rc "$s")" \
			"$(numa_section "$s" | jq -c '{placement, device: .target.device, device_numa_node: .target.device_numa_node}' 2>/dev/null)"
	done
}
