# shellcheck shell=bash
# Host part of loader-placement (sourced by tests/numa/run.sh after lib.sh).
# The loader's pinned slots, read buffers and I/O threads on the GPU's NUMA
# node (docs/loader.md), shown from the pages and the threads themselves.
# A helper (loader_pages.c, linked with build-numa/libgpufeed.a) packs a
# small dataset in the guest's tmpfs, opens a gf_loader on a stand-in GPU
# (the stand-in NVML and libcuda given the guest's PCI functions as GPUs:
# the pci-testdev behind each node's bridge, and the root-bus host bridge,
# which has no node), takes 6 batches, checks their bytes against what was
# packed (and the GPU copy's against the host's), and reports the node of
# every page of every range the stand-in libcuda was asked to pin (the
# slots), the memory policy of their mappings, every mapping the library
# gave a policy (slots and read buffers), and the Cpus_allowed_list of each
# thread named gf-loader-io.  Each run makes pages the loader did not place
# land on the other node (the process on that node's CPU, or the caller's
# memory bound there); a control buffer shows where that is.

prepare_loader_placement() { numa_ir_stand_in_helper loader_pages; }

# lplace_count NAME LINE FIELD: a number from loader_pages' "LINE ... FIELD N" line
lplace_count() {
	numa_section "loader-$1" | awk -v l="$2" -v f="$3" '$1 == l { for (i = 2; i < NF; i++) if ($i == f) { print $(i + 1); exit } }'
}
lplace_show() {	# the lines a reader needs when a check fails
	numa_section "loader-$1" | grep -E '^(cpu|affinity|pci|bytes|device|slot|slots-total|placed|placed-total|io-thread|io-threads|control) ' |
		sed "s/^/#   $1: /"
	numa_section "loader-$1.stderr" | head -5 | sed "s/^/#   $1 stderr: /"
}

# lplace_on NAME NODE POLICY CPUS CONTROL DESC
#   exit 0; 6 batches of 16 records, bytes as packed (on the GPU too);
#   the driver holds 4 pinned ranges (the slots) of 16 pages, every page on
#   NODE, each inside a mapping whose policy is POLICY (placed: names NODE,
#   as prefer:NODE; default: none);
#   placed: the mappings with a policy hold the slots and more (the read
#   buffers), every page on NODE; default: no mapping has a policy;
#   2 gf-loader-io threads, each with Cpus_allowed_list CPUS;
#   the control buffer's pages (where unplaced pages go) all on CONTROL.
lplace_on() {
	local s=$1 node=$2 pol=$3 cpus=$4 ctl=$5 sec rc ranges total on absent badpol vmas ptotal pon pabs nth badcpu ctot con ok=1
	sec=$(numa_section "loader-$s")
	rc=$(numa_section_rc "loader-$s")
	ranges=$(lplace_count "$s" slots-total ranges) total=$(lplace_count "$s" slots-total pages)
	on=$(lplace_count "$s" slots-total "node$node") absent=$(lplace_count "$s" slots-total absent)
	badpol=$(echo "$sec" | awk -v p="$pol" -v n="$node" '$1 == "slot" {
		got = $NF; if (p == "default" ? got != "default" : got !~ ("^[a-z_]+:" n "$")) k++ } END { print k + 0 }')
	vmas=$(lplace_count "$s" placed-total vmas) ptotal=$(lplace_count "$s" placed-total pages)
	pon=$(lplace_count "$s" placed-total "node$node") pabs=$(lplace_count "$s" placed-total absent)
	nth=$(echo "$sec" | sed -n 's/^io-threads //p')
	badcpu=$(echo "$sec" | awk -v c="$cpus" '$1 == "io-thread" && $4 != c { k++ } END { print k + 0 }')
	ctot=$(lplace_count "$s" control pages) con=$(lplace_count "$s" control "node$ctl")
	[ "$rc" = 0 ] && echo "$sec" | grep -qx 'bytes ok batches 6 samples 96 bytes 393216' &&
		echo "$sec" | grep -qx 'device ok batches 6' || ok=0
	[ "$ranges" = 4 ] && [ "$total" = 64 ] && [ "$on" = 64 ] && [ "$absent" = 0 ] && [ "$badpol" = 0 ] || ok=0
	if [ "$pol" = default ]; then
		[ "$vmas" = 0 ] || ok=0
	else
		[ "${ptotal:-0}" -ge 66 ] && [ "$pon" = "$ptotal" ] && [ "$pabs" = 0 ] || ok=0
	fi
	[ "$nth" = 2 ] && [ "$badcpu" = 0 ] || ok=0
	[ "${ctot:-0}" -gt 0 ] && [ "$con" = "$ctot" ] || ok=0
	if [ "$ok" = 1 ]; then
		numa_ok "loader-placement $s: $6: bytes ok (host and GPU); all 64 pages of the 4 pinned slots on node $node" \
			"(policy $(echo "$sec" | awk '$1 == "slot" { print $NF }' | sort -u | paste -sd,));" \
			"$([ "$pol" = default ] && echo "no mapping placed" || echo "all $ptotal pages of the $vmas placed mappings on node $node");" \
			"both gf-loader-io threads on CPUs $cpus (unplaced pages would go to node $ctl)"
	else
		numa_not_ok "loader-placement $s: $6: want exit 0 (got ${rc:-none}), bytes ok, 4 slots of 16 pages all on node $node" \
			"with policy $pol, placed mappings on node $node, 2 gf-loader-io threads on CPUs $cpus, control on node $ctl"
		lplace_show "$s"
	fi
}

check_loader_placement() {
	local gpus g0 g1
	gpus=$(numa_section loader-gpus)
	g0=$(echo "$gpus" | sed -n 's/^GF-LGPU bdf=\([^ ]*\) numa_node=0$/\1/p')
	g1=$(echo "$gpus" | sed -n 's/^GF-LGPU bdf=\([^ ]*\) numa_node=1$/\1/p')
	[ -n "$g0" ] && [ -n "$g1" ] && echo "$gpus" | grep -qx 'GF-LGPU bdf=0000:00:00.0 numa_node=-1'
	numa_check "loader-placement: stand-in GPUs 0 = $g1 (node 1), 1 = $g0 (node 0), 2 = 0000:00:00.0 (no node) in sysfs" $?
	[ "$(numa_section_rc loader-pack)" = 0 ] && numa_section loader-pack | grep -qx 'packed samples 1024 shards 1 bytes 4194304'
	numa_check "loader-placement: packed 1024 records of 4 KiB in the guest's tmpfs (gf_pack)" $?
	[ "$(numa_section_rc loader-pack)" = 0 ] || numa_section loader-pack.stderr | head -5 | sed 's/^/#   pack stderr: /'

	#           NAME         NODE POLICY  CPUS CONTROL
	lplace_on g1-cpu0      1 placed  0   0 "GPU 0 ($g1, node 1), the process on CPU 0 (none of node 1's CPUs allowed: threads stay on CPU 0)"
	lplace_on g0-cpu1      0 placed  1   1 "GPU 1 ($g0, node 0), the process on CPU 1 (none of node 0's CPUs allowed: threads stay on CPU 1)"
	lplace_on g1-away0     1 placed  1   0 "GPU 0 ($g1, node 1), CPUs 0-1, the caller's memory bound to node 0"
	lplace_on g0-away1     0 placed  0   1 "GPU 1 ($g0, node 0), CPUs 0-1, the caller's memory bound to node 1"
	lplace_on g1-opt0      0 placed  0   1 "GPU 0 ($g1, node 1) with opts.numa_node 0, the caller's memory bound to node 1"
	lplace_on g0-locality1 1 placed  1   0 "GPU 1 ($g0, sysfs node 0) with GPUFEED_PCI_LOCALITY=$g0=1, the caller's memory bound to node 0"
	lplace_on root-none    1 default 0-1 1 "GPU 2 (0000:00:00.0, no node): nothing placed, threads not bound, the caller's policy (node 1) decides"
}

evidence_loader_placement() {	# evidence_loader_placement OUTDIR
	local s
	numa_section loader-gpus
	numa_section loader-pack
	for s in g1-cpu0 g0-cpu1 g1-away0 g0-away1 g1-opt0 g0-locality1 root-none; do
		printf 'loader-placement %-13s exit %-3s affinity %-4s slots: %s; %s; io threads: %s; control %s\n' "$s" \
			"$(numa_section_rc "loader-$s")" "$(numa_section "loader-$s" | sed -n 's/^affinity //p')" \
			"$(numa_section "loader-$s" | sed -n 's/^slots-total //p')" \
			"$(numa_section "loader-$s" | sed -n 's/^placed-total //p')" \
			"$(numa_section "loader-$s" | awk '$1 == "io-thread" { printf "%s%s", (n++ ? "," : ""), $4 }')" \
			"$(numa_section "loader-$s" | sed -n 's/^control //p')"
	done
}
