# shellcheck shell=sh
# Guest part of xfer-staging (sourced by the guest's /init; see
# xfer-staging.host.sh).  The stand-in libcuda's GPUs are the guest's own PCI
# functions: the pci-testdev behind node 1's bridge, the one behind node 0's,
# and the host bridge 0000:00:00.0 on the root bus (no node), so the library
# reads the GPU's locality from this guest's sysfs, as on a real machine.
export GPUFEED_CUDA_LIBRARY=/lib/gpufeed-fakes/libcuda.so.1
export FAKE_CUDA_HOST_LOG=/tmp/cuda-host.log
XP=/bin/xfer_pages
ROOTDEV=0000:00:00.0
G0='' G1=''
begin xfer-gpus
for p in /sys/bus/pci/devices/*; do
	[ "$(cat "$p"/vendor):$(cat "$p"/device)" = "0x1b36:0x0005" ] || continue
	bdf=${p##*/} node=$(cat "$p"/numa_node)
	echo "GF-XGPU bdf=$bdf numa_node=$node"
	[ "$node" = 0 ] && G0=$bdf
	[ "$node" = 1 ] && G1=$bdf
done
echo "GF-XGPU bdf=$ROOTDEV numa_node=$(cat /sys/bus/pci/devices/$ROOTDEV/numa_node)"
# The root port above the node-1 GPU (its sysfs path's parent).
G1PORT=$(basename "$(dirname "$(readlink -f "/sys/bus/pci/devices/$G1")")")
echo "GF-XPORT gpu=$G1 port=$G1PORT"
end xfer-gpus 0
export FAKE_CUDA_DEVICES=3 FAKE_CUDA_PCI="$G1,$G0,$ROOTDEV"

# xp NAME ARGS...: xfer_pages with a fresh registration log; xpl NAME SPEC
# ARGS...: the same with GPUFEED_PCI_LOCALITY=SPEC.
xp() { name=$1; shift; rm -f "$FAKE_CUDA_HOST_LOG"; run "$name" "$XP" "$@"; }
xpl() { name=$1 spec=$2; shift 2; rm -f "$FAKE_CUDA_HOST_LOG"; run "$name" env GPUFEED_PCI_LOCALITY="$spec" "$XP" "$@"; }

# The GPU's node from sysfs; each run on the other node's CPU, so pages the
# library failed to place would land there by first touch.
xp g1-cpu0 "$G1" --cpu 0
xp g0-cpu1 "$G0" --cpu 1
# Both GPUs from the same CPU: only placement can put them apart.
xp g0-cpu0 "$G0" --cpu 0
# options.numa_node wins over the GPU's node.
xp g1-opt0 "$G1" --node 0 --cpu 1
xp g0-opt1 "$G0" --node 1 --cpu 0
# No node (root bus): no placement, first touch decides.
xp root-none $ROOTDEV --cpu 1
# GPUFEED_PCI_LOCALITY: over sysfs's answer, where sysfs has none, and by a
# rule for the root port above the GPU (a bridge covers what is below, as
# in topo); a malformed one fails.
xpl g0-locality1 "$G0=1" "$G0" --cpu 0
xpl root-locality1 "0000:00=1" $ROOTDEV --cpu 0
xpl g1-portlocality0 "$G1PORT=0" "$G1" --cpu 1
xpl bad-locality "0000:00=zero" "$G1" --cpu 0

# End to end: `gpufeed bench io-gpu --gpu` (the stand-in NVML's GPUs made the
# same PCI functions) on an ext2 file system on a disk of its own.  The
# stand-in libcuda logs every range it is asked to pin with the node of its
# pages at that moment; JSON's staging_numa_node must be that node.
xdisk() {
	for s in /sys/block/vd*/serial; do
		[ "$(cat "$s" 2>/dev/null)" = gf-xfer ] && { d=${s%/serial}; echo "${d##*/}"; return; }
	done
}
i=0
while [ $i -lt 200 ] && [ -z "$(xdisk)" ]; do sleep 0.1; i=$((i + 1)); done
XD=$(xdisk)
mkdir -p /tmp/xd
mke2fs -q "/dev/$XD" >/tmp/xd-mkfs.log 2>&1 && mount "/dev/$XD" /tmp/xd
begin xfer-disk; echo "disk $XD"; cat /tmp/xd-mkfs.log; grep " /tmp/xd " /proc/mounts; end xfer-disk $?
export GPUFEED_NVML_LIBRARY=/lib/gpufeed-fakes/libnvidia-ml.so.1 FAKE_NVML_PCI="$G1,$G0"
# xb NAME CPU [VAR=VALUE] -- BENCH-ARGS: bench io-gpu --gpu on CPU, its pins in NAME.pins
xb() {
	name=$1 cpu=$2; shift 2
	rm -f "$FAKE_CUDA_HOST_LOG" /tmp/xd/f.bin
	run "$name" taskset -c "$cpu" env "$@" --path bounce --size 8M --chunk 1M --repeats 1 --quiet --json /tmp/xd/f.bin
	begin "$name.pins"; cat "$FAKE_CUDA_HOST_LOG"; end "$name.pins" 0
}
xb bench-g1 0 gpufeed bench io-gpu --gpu 0
xb bench-g0 1 gpufeed bench io-gpu --gpu 1
xb bench-g0-locality1 0 GPUFEED_PCI_LOCALITY="$G0=1" gpufeed bench io-gpu --gpu 1
umount /tmp/xd
