# shellcheck shell=bash
# Host part of xfer-staging (sourced by tests/numa/run.sh after lib.sh).
# The xfer library's pinned staging pool (docs/xfer.md) on the GPU's NUMA
# node, shown from the pages themselves.  The guest has no GPU: the stand-in
# libcuda (tests/fakes/fake_cuda.c) is given the guest's PCI functions as
# its GPUs (FAKE_CUDA_PCI): the pci-testdev behind each node's bridge, and
# the root-bus host bridge, which has no node.  A helper (xfer_pages.c,
# linked with build-numa/libgpufeed.a) opens a bounce-path gf_xfer, moves
# bytes through the pool, and reports the node of every page of every range
# the driver was asked to pin (the stand-in logs each cuMemHostRegister),
# from move_pages: not what the library says it did.  Each run sits on the
# CPU of the node the pages must NOT be on, and its control buffer (first
# touch there) shows where unplaced pages would have gone.

prepare_xfer_staging() {
	numa_ir_stand_in_helper xfer_pages || return 1
	# bench io-gpu --gpu's file: a disk of its own (O_DIRECT; the guest's tmpfs
	# takes none), on the root bus: the disk's node is not what is checked.
	numa_ir_modules VIRTIO_PCI VIRTIO_BLK
	truncate -s 32M "$NUMA_W/xfer.img"
	# shellcheck disable=SC2054  # the commas are inside QEMU option values
	NUMA_QEMU+=(-drive file="$NUMA_W/xfer.img",if=none,id=dxfer,format=raw
		-device virtio-blk-pci,drive=dxfer,bus=pcie.0,serial=gf-xfer)
}

# xstage_field NAME KEY: the rest of xfer_pages' "KEY ..." line
xstage_field() { numa_section "$1" | sed -n "s/^$2 //p" | head -1; }
# xstage_count NAME LINE FIELD: a number from the "LINE ... FIELD N" line
xstage_count() {
	numa_section "$1" | awk -v l="$2" -v f="$3" '$1 == l { for (i = 2; i < NF; i++) if ($i == f) { print $(i + 1); exit } }'
}
# xstage_node NAME: the node holding every staging page, else "mixed"
xstage_node() {
	local total n0 n1
	total=$(xstage_count "$1" staging-total pages) n0=$(xstage_count "$1" staging-total node0)
	n1=$(xstage_count "$1" staging-total node1)
	if [ "${total:-0}" -gt 0 ] && [ "$n0" = "$total" ]; then echo 0
	elif [ "${total:-0}" -gt 0 ] && [ "$n1" = "$total" ]; then echo 1
	else echo mixed; fi
}
xstage_show() {	# the lines a reader needs when a check fails
	numa_section "$1" | grep -E '^(cpu|claim|staging|numa_maps|control|bytes) ' | sed "s/^/#   $1: /"
	numa_section "$1.stderr" | head -5 | sed "s/^/#   $1 stderr: /"
}

# xstage_on NAME NODE CLAIM CONTROL DESC: exit 0, the bytes came back, the
# driver holds 3 staging ranges (depth 3) of 256 pages each and every page
# is on NODE, the library says CLAIM, and the control buffer's pages (first
# touch on the CPU it ran on) are all on CONTROL.
xstage_on() {
	local ranges total on absent claim ctl ctln
	ranges=$(xstage_count "$1" staging-total ranges) total=$(xstage_count "$1" staging-total pages)
	on=$(xstage_count "$1" staging-total "node$2") absent=$(xstage_count "$1" staging-total absent)
	claim=$(xstage_field "$1" "claim numa_node")
	ctl=$(xstage_count "$1" control pages) ctln=$(xstage_count "$1" control "node$4")
	if [ "$(numa_section_rc "$1")" = 0 ] && numa_section "$1" | grep -q '^bytes ok ' &&
		[ "$ranges" = 3 ] && [ "$total" = 768 ] && [ "$on" = "$total" ] && [ "$absent" = 0 ] &&
		[ "$claim" = "$3" ] && [ "${ctl:-0}" -gt 0 ] && [ "$ctln" = "$ctl" ]; then
		numa_ok "$1: $5: all $total pages of the $ranges pinned ranges on node $2 (library: $claim; first touch here: node $4)"
	else
		numa_not_ok "$1: $5: want 3 ranges, 768 pages all on node $2, library $3, control on node $4 (exit $(numa_section_rc "$1"))"
		xstage_show "$1"
	fi
}

check_xfer_staging() {
	local gpus g0 g1 port n1 n0 rc
	gpus=$(numa_section xfer-gpus)
	numa_section xfer-gpus | sed 's/^/# guest: /'
	g0=$(echo "$gpus" | sed -n 's/^GF-XGPU bdf=\([^ ]*\) numa_node=0$/\1/p')
	g1=$(echo "$gpus" | sed -n 's/^GF-XGPU bdf=\([^ ]*\) numa_node=1$/\1/p')
	[ -n "$g0" ] && [ -n "$g1" ] && echo "$gpus" | grep -qx 'GF-XGPU bdf=0000:00:00.0 numa_node=-1'
	numa_check "xfer-gpus: stand-in GPUs $g1 (node 1), $g0 (node 0) and 0000:00:00.0 (no node) in sysfs" $?
	port=$(echo "$gpus" | sed -n "s/^GF-XPORT gpu=$g1 port=\(.*\)$/\1/p")

	xstage_on g1-cpu0 1 1 0 "GPU $g1 (sysfs node 1), run on CPU 0"
	xstage_on g0-cpu1 0 0 1 "GPU $g0 (sysfs node 0), run on CPU 1"
	xstage_on g0-cpu0 0 0 0 "GPU $g0 (sysfs node 0), run on CPU 0 too"
	# From the same CPU, first touch would put both on node 0.
	n1=$(xstage_node g1-cpu0) n0=$(xstage_node g0-cpu0)
	[ "$n1" != mixed ] && [ "$n0" != mixed ] && [ "$n1" != "$n0" ]
	numa_check "from the same CPU 0, the node-1 GPU's staging (node $n1) and the node-0 GPU's (node $n0) are on different nodes" $?
	xstage_on g1-opt0 0 0 1 "GPU $g1 with options.numa_node 0, run on CPU 1"
	xstage_on g0-opt1 1 1 0 "GPU $g0 with options.numa_node 1, run on CPU 0"
	xstage_on root-none 1 -1 1 "GPU 0000:00:00.0 (no node): no placement, first touch on CPU 1 decides"
	xstage_on g0-locality1 1 1 0 "GPU $g0 with GPUFEED_PCI_LOCALITY=$g0=1 (over sysfs's 0), run on CPU 0"
	xstage_on root-locality1 1 1 0 "GPU 0000:00:00.0 with GPUFEED_PCI_LOCALITY=0000:00=1 (sysfs has none), run on CPU 0"
	xstage_on g1-portlocality0 0 0 1 "GPU $g1 with a GPUFEED_PCI_LOCALITY rule for its root port ($port=0), run on CPU 1"
	numa_section xfer-disk | grep ' /tmp/xd ' | sed 's/^/# guest: /'
	xbench bench-g1 1 0 "bench io-gpu --gpu 0 (NVML GPU 0 = $g1, node 1)"
	xbench bench-g0 0 1 "bench io-gpu --gpu 1 (NVML GPU 1 = $g0, node 0)"
	xbench bench-g0-locality1 1 0 "bench io-gpu --gpu 1 ($g0) with GPUFEED_PCI_LOCALITY=$g0=1"
	rc=$(numa_section_rc bad-locality)
	[ "$rc" = 1 ] && numa_section bad-locality.stderr | grep -q GPUFEED_PCI_LOCALITY
	numa_check "bad-locality: a malformed GPUFEED_PCI_LOCALITY fails gf_xfer_open, naming the variable (exit ${rc:-none})" $?
}

# xbench NAME NODE CPU DESC: bench io-gpu --gpu exited 0 or 1 (1: a finding,
# such as a path above the disk's rate in an emulated guest) with its
# JSON, the bounce path ran and its byte check passed, staging_numa_node is
# NODE, and every range the driver was asked to pin (>= 2: the pinned
# host-to-device limit's buffer and the bounce pool's) had all its pages on
# NODE when pinned, from CPU, whose first touch would be on the other node.
xbench() {
	local rc pins bad
	rc=$(numa_section_rc "$1")
	pins=$(numa_section "$1.pins" | grep -c '^register ')
	bad=$(numa_section "$1.pins" | awk -v k="node$2" '$1 == "register" {
		want = $5; ok = 0
		for (i = 6; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k && kv[2] == want) ok = 1 }
		if (!ok) n++ } END { print n + 0 }')
	if { [ "$rc" = 0 ] || [ "$rc" = 1 ]; } && [ "$pins" -ge 2 ] && [ "$bad" = 0 ] &&
		numa_section "$1" | jq -e -s --argjson n "$2" 'length == 1 and (.[0] | .config.staging_numa_node == $n
			and any(.points[]; .kind == "path" and .path == "bounce" and (.check | startswith("ok:"))))' >/dev/null 2>&1; then
		numa_ok "$1: $4: staging_numa_node $2 in the JSON, and all pages of the $pins pinned ranges on node $2 (run on CPU $3)"
	else
		numa_not_ok "$1: $4: want exit 0/1 (got ${rc:-none}), staging_numa_node $2, bounce checked ok, >= 2 pins all on node $2 ($pins pins, $bad not)"
		numa_section "$1" | jq -c '{config: .config.staging_numa_node, points: [.points[] | {name, check, gbs: (.gbs.median // .gbs.status)}]}' 2>/dev/null | sed 's/^/#   /'
		numa_section "$1.pins" | head -6 | sed "s/^/#   $1 pins: /"
		numa_section "$1.stderr" | head -5 | sed "s/^/#   $1 stderr: /"
	fi
}

evidence_xfer_staging() {	# evidence_xfer_staging OUTDIR
	local s
	numa_section xfer-gpus
	for s in g1-cpu0 g0-cpu1 g0-cpu0 g1-opt0 g0-opt1 root-none g0-locality1 root-locality1 g1-portlocality0; do
		printf 'xfer-staging %-17s exit %-3s cpu %-2s claim %-3s %s; control %s\n' "$s" "$(numa_section_rc "$s")" \
			"$(xstage_field "$s" cpu)" "$(xstage_field "$s" "claim numa_node")" \
			"$(xstage_field "$s" staging-total)" "$(xstage_field "$s" control)"
	done
	for s in bench-g1 bench-g0 bench-g0-locality1; do
		numa_section "$s" >"$1/xfer-staging-$s.json"
		printf 'xfer-staging %-19s exit %-3s staging_numa_node %s; pinned: %s\n' "$s" "$(numa_section_rc "$s")" \
			"$(numa_section "$s" | jq -r .config.staging_numa_node 2>/dev/null)" \
			"$(numa_section "$s.pins" | awk '$1 == "register" { $1 = $2 = ""; print }' | sort | uniq -c | tr -s ' ' | paste -sd';')"
	done
}
