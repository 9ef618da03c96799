#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
echo 1 >/proc/sys/kernel/printk		# no kernel lines inside the JSON; dmesg at the end
hostname gfguest
for m in $(cat /lib/modules/order); do
	insmod /lib/modules/$m.ko || echo "GF-WARN insmod $m failed"
done

begin() { echo "=====GF-BEGIN $1====="; }
end() { echo "=====GF-END $1 rc=$2====="; }
# run NAME CMD...: stdout in section NAME, stderr in NAME.stderr.
run() {
	local name=$1 rc; shift
	echo "GF-CMD $name: $*"
	"$@" >/tmp/out 2>/tmp/err; rc=$?
	begin "$name"; cat /tmp/out; end "$name" $rc
	begin "$name.stderr"; cat /tmp/err; end "$name.stderr" $rc
}
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

begin topology
echo "kernel $(uname -r)"
echo "nodes_online $(cat /sys/devices/system/node/online)"
for n in /sys/devices/system/node/node[0-9]*; do
	echo "node ${n##*node} cpus $(cat $n/cpulist) distance $(cat $n/distance) $(grep MemTotal $n/meminfo | sed 's/.*MemTotal: *//')"
done
echo "cpus_online $(cat /sys/devices/system/cpu/online)"
for b in /sys/block/vd*; do
	dev=$(readlink -f $b/device)	# .../0000:81:00.0/virtio2
	pci=${dev%/*}
	echo "GF-DISK serial=$(cat $b/serial) name=${b##*/} pci=${pci##*/} numa_node=$(cat $pci/numa_node) local_cpulist=$(cat $pci/local_cpulist) path=$dev"
done
for p in /sys/bus/pci/devices/*; do
	echo "pci ${p##*/} class=$(cat $p/class) id=$(cat $p/vendor):$(cat $p/device) numa_node=$(cat $p/numa_node)"
done
end topology 0

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

# A file created by gpufeed: on an ext2 file system on the node-1 disk (after
# the raw reads above), and on tmpfs (no disk under it).
mke2fs -q /dev/$N1 >/tmp/mkfs.log 2>&1 && mount /dev/$N1 /mnt
begin mount; cat /tmp/mkfs.log; grep " /mnt " /proc/mounts; end mount $?
run file-n1 gpufeed bench io /mnt/gf.bin $B --size 16M --json
run file-tmpfs gpufeed bench io /tmp/gf.bin $B --size 16M --json
umount /mnt

begin dmesg; dmesg; end dmesg 0
echo "=====GF-DONE====="
sync
poweroff -f
