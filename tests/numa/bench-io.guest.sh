# Guest part of bench-io (sourced by the guest's /init; see bench-io.host.sh):
# `gpufeed bench io` on the three disks, a created file, a sampled live run.
disk() {	# serial -> vdX
	for s in /sys/block/vd*/serial; do
		[ "$(cat "$s" 2>/dev/null)" = "$1" ] && { d=${s%/serial}; echo "${d##*/}"; return; }
	done
}
# The disks appear asynchronously: wait up to 20 s for all three.
i=0
while [ $i -lt 200 ] && { [ -z "$(disk gf-node1)" ] || [ -z "$(disk gf-node0)" ] || [ -z "$(disk gf-rootbus)" ]; }; do
	sleep 0.1; i=$((i + 1))
done
N1=$(disk gf-node1) N0=$(disk gf-node0) NX=$(disk gf-rootbus)

begin disks
for b in /sys/block/vd*; do
	dev=$(readlink -f $b/device)	# .../0000:81:00.0/virtio2
	pci=${dev%/*}
	echo "GF-DISK serial=$(cat $b/serial) name=${b##*/} pci=${pci##*/} numa_node=$(cat $pci/numa_node) local_cpulist=$(cat $pci/local_cpulist) path=$dev"
done
end disks 0

run topo-json gpufeed topo --json --nvml=off
run topo-text gpufeed topo --nvml=off
B="--mode randread --direct --qd 4 --duration 1"
run n1-default gpufeed bench io /dev/$N1 $B --json
run n1-default-text gpufeed bench io /dev/$N1 $B
run n1-node0 gpufeed bench io /dev/$N1 $B --numa-node 0 --json
run n1-none gpufeed bench io /dev/$N1 $B --numa-node none --json
run n1-psync gpufeed bench io /dev/$N1 --mode randread --direct --engine psync --threads 2 --duration 1 --json
run n1-node7 gpufeed bench io /dev/$N1 $B --numa-node 7 --json
run n1-node7-text gpufeed bench io /dev/$N1 $B --numa-node 7
run n0-default gpufeed bench io /dev/$N0 $B --json
run rootbus-default gpufeed bench io /dev/$NX $B --json

# While a run is going: its threads' allowed CPUs and the CPU each last ran
# on, and which node its pages are on (numa_maps).
L="--mode randread --direct --qd 4 --duration 4 --json"
echo "GF-CMD n1-live: gpufeed bench io /dev/$N1 $L (sampled from /proc once its worker runs)"
gpufeed bench io /dev/$N1 $L >/tmp/live.json 2>/tmp/live.err &
pid=$!
i=0
while [ $i -lt 100 ] && [ "$(ls /proc/$pid/task 2>/dev/null | wc -l)" -lt 2 ]; do sleep 0.1; i=$((i + 1)); done
sleep 1
begin n1-live-tasks
echo "pid $pid"
for t in /proc/$pid/task/*; do
	echo "tid ${t##*/} comm=$(cat $t/comm) allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' $t/status) last_cpu=$(cut -d' ' -f39 $t/stat) mems_allowed=$(sed -n 's/^Mems_allowed_list:[[:space:]]*//p' $t/status)"
done
end n1-live-tasks 0
begin n1-live-numa_maps; cat /proc/$pid/numa_maps; end n1-live-numa_maps 0
wait $pid; rc=$?
begin n1-live; cat /tmp/live.json; end n1-live $rc
begin n1-live.stderr; cat /tmp/live.err; end n1-live.stderr $rc

# A file created by gpufeed: on an ext2 file system (busybox mke2fs) on the node-1 disk (after
# the raw reads above), and on tmpfs (no disk under it).
mke2fs -q /dev/$N1 >/tmp/mkfs.log 2>&1 && mount /dev/$N1 /mnt
begin mount; cat /tmp/mkfs.log; grep " /mnt " /proc/mounts; end mount $?
run file-n1 gpufeed bench io /mnt/gf.bin $B --size 16M --json
run file-tmpfs gpufeed bench io /tmp/gf.bin $B --size 16M --json
umount /mnt
