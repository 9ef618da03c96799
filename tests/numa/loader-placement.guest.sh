# shellcheck shell=sh
# Guest part of loader-placement (sourced by the guest's /init; see
# loader-placement.host.sh).  The stand-in NVML's and libcuda's GPUs are the
# guest's own PCI functions: NVML GPU 0 the pci-testdev behind node 1's
# bridge, GPU 1 the one behind node 0's, GPU 2 the host bridge 0000:00:00.0
# on the root bus (no node), so the loader reads the GPU's node from this
# guest's sysfs, as on a real machine.
export GPUFEED_CUDA_LIBRARY=/lib/gpufeed-fakes/libcuda.so.1
export GPUFEED_NVML_LIBRARY=/lib/gpufeed-fakes/libnvidia-ml.so.1
export FAKE_CUDA_HOST_LOG=/tmp/loader-host.log
LP=/bin/loader_pages
DS=/tmp/loader-ds
ROOTDEV=0000:00:00.0
G0='' G1=''
begin loader-gpus
for p in /sys/bus/pci/devices/*; do
	[ "$(cat "$p"/vendor):$(cat "$p"/device)" = "0x1b36:0x0005" ] || continue
	bdf=${p##*/} node=$(cat "$p"/numa_node)
	echo "GF-LGPU bdf=$bdf numa_node=$node"
	[ "$node" = 0 ] && G0=$bdf
	[ "$node" = 1 ] && G1=$bdf
done
echo "GF-LGPU bdf=$ROOTDEV numa_node=$(cat /sys/bus/pci/devices/$ROOTDEV/numa_node)"
end loader-gpus 0
export FAKE_CUDA_DEVICES=3 FAKE_CUDA_PCI="$G1,$G0,$ROOTDEV" FAKE_NVML_PCI="$G1,$G0,$ROOTDEV"

# A small dataset (1024 records of 4 KiB) in tmpfs; the loader reads it
# through the page cache (tmpfs takes no O_DIRECT).
run loader-pack "$LP" pack "$DS"

# lp NAME ARGS...: loader_pages run with a fresh registration log; lpl
# NAME SPEC ARGS...: the same with GPUFEED_PCI_LOCALITY=SPEC.
lp() { name=$1; shift; rm -f "$FAKE_CUDA_HOST_LOG"; run "loader-$name" "$LP" run "$DS" "$@"; }
lpl() { name=$1 spec=$2; shift 2; rm -f "$FAKE_CUDA_HOST_LOG"; run "loader-$name" env GPUFEED_PCI_LOCALITY="$spec" "$LP" run "$DS" "$@"; }

# The process on the other node's CPU: first touch would put the slots
# there, and the threads may use no CPU of the GPU's node.
lp g1-cpu0 --gpu 0 --cpu 0
lp g0-cpu1 --gpu 1 --cpu 1
# Both CPUs allowed, the caller's own memory bound to the other node:
# only placement puts the slots on the GPU's node, and the threads can be
# bound to its CPU.
lp g1-away0 --gpu 0 --away 0
lp g0-away1 --gpu 1 --away 1
# gf_loader_opts.numa_node wins over the GPU's node.
lp g1-opt0 --gpu 0 --node 0 --away 1
# GPUFEED_PCI_LOCALITY wins over sysfs.
lpl g0-locality1 "$G0=1" --gpu 1 --away 0
# No node (root bus): nothing placed, threads not bound.
lp root-none --gpu 2 --away 1
rm -rf "$DS"
