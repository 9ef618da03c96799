#!/usr/bin/env bash
# `gpufeed bench io` NUMA placement, for real, on a two-node machine: a QEMU
# guest (TCG, seconds to boot) with two NUMA nodes of one CPU and 512 MiB
# each, and three virtio-blk disks:
#   gf-node1   behind a PCIe expander bridge on NUMA node 1 (bus 0x80)
#   gf-node0   behind a PCIe expander bridge on NUMA node 0 (bus 0x40)
#   gf-rootbus on the root bus pcie.0, which has no NUMA node (-1)
# Inside, gpufeed runs `topo --json` and `bench io` with the default
# placement, --numa-node 0, --numa-node none, on each disk, a created file
# on an ext2 file system on the node-1 disk and on tmpfs, and one run whose
# threads and buffer pages are read from /proc while it runs.  Outside, the
# JSON is checked with jq; TAP lines; exit 0 all passed, 1 a check failed,
# 77 skipped (no QEMU, busybox, kernel... and no way to get them).
#
# Usage: tests/numa/qemu-bench-io.sh [--out DIR] [--keep] [GPUFEED_BINARY]
#   GPUFEED_BINARY  default: build-numa/gpufeed, (re)built with
#                   `make -j2 BUILD=build-numa cli` (leaves build/ alone)
#   --out DIR       keep the evidence: console.log, *.json, qemu-command.txt,
#                   guest-init.sh, summary.txt
#   --keep          keep the work folder (initramfs, disk images)
# Environment:
#   GPUFEED_QEMU_CACHE   kernel cache (default /var/tmp/gpufeed-qemu)
#   GPUFEED_QEMU_TIMEOUT seconds for the whole guest run (default 600)
#
# Timing figures from an emulated guest mean nothing; only placement counts.
set -u

SRC=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${GPUFEED_QEMU_CACHE:-/var/tmp/gpufeed-qemu}
QEMU_TIMEOUT=${GPUFEED_QEMU_TIMEOUT:-600}
OUT='' KEEP=0 BIN=''
while [ $# -gt 0 ]; do
	case $1 in
	--out) OUT=${2:?--out needs a folder}; shift 2 ;;
	--out=*) OUT=${1#--out=}; shift ;;
	--keep) KEEP=1; shift ;;
	-h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "unknown option: $1" >&2; exit 2 ;;
	*) BIN=$1; shift ;;
	esac
done

skip() { echo "1..0 # SKIP $*"; exit 77; }
note() { echo "# $*"; }

# 1. Tools: install with apt only what is missing, and only as root.
apt_install() {
	[ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || return 1
	note "installing $*"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >"${TMPDIR:-/tmp}/gpufeed-qemu-apt.log" 2>&1 ||
		{ apt-get update -q >/dev/null 2>&1 &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >>"${TMPDIR:-/tmp}/gpufeed-qemu-apt.log" 2>&1; }
}
need() {	# need COMMAND PACKAGE
	command -v "$1" >/dev/null && return 0
	apt_install "$2" && command -v "$1" >/dev/null || skip "$1 is needed (package $2) and could not be installed"
}
need qemu-system-x86_64 qemu-system-x86
need cpio cpio
need gzip gzip
need jq jq
need timeout coreutils
BUSYBOX=
for b in /bin/busybox /usr/bin/busybox $(command -v busybox 2>/dev/null); do
	[ -x "$b" ] && ! ldd "$b" >/dev/null 2>&1 && { BUSYBOX=$b; break; }
done
if [ -z "$BUSYBOX" ]; then
	apt_install busybox-static || skip "a static busybox is needed (package busybox-static)"
	[ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1 && BUSYBOX=/bin/busybox
	[ -n "$BUSYBOX" ] || skip "busybox-static installed but /bin/busybox is not static"
fi

# A Debian cloud kernel, extracted (not installed) into $CACHE/kernel.
mkdir -p "$CACHE" || skip "cannot create $CACHE"
KDIR=$CACHE/kernel
if ! ls "$KDIR"/boot/vmlinuz-* >/dev/null 2>&1; then
	deb=$(ls "$CACHE"/linux-image-*-cloud-amd64_*.deb 2>/dev/null | sort -V | tail -1)
	if [ -z "$deb" ]; then
		command -v apt-get >/dev/null || skip "no kernel in $CACHE and no apt-get to download one"
		pkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null | awk '/Depends: linux-image-/{print $2; exit}')
		[ -n "$pkg" ] || pkg=$(apt-cache search --names-only '^linux-image-[0-9.]+-[0-9]+-cloud-amd64$' |
				       awk '{print $1}' | sort -V | tail -1)
		[ -n "$pkg" ] || skip "no linux-image-*-cloud-amd64 package known to apt"
		note "downloading $pkg into $CACHE"
		(cd "$CACHE" && apt-get download "$pkg" >/dev/null 2>&1) || skip "apt-get download $pkg failed"
		deb=$(ls "$CACHE"/linux-image-*-cloud-amd64_*.deb 2>/dev/null | sort -V | tail -1)
		[ -n "$deb" ] || skip "apt-get download $pkg left no .deb in $CACHE"
	fi
	command -v dpkg-deb >/dev/null || skip "dpkg-deb is needed to extract $deb"
	rm -rf "$KDIR.tmp" && dpkg-deb -x "$deb" "$KDIR.tmp" && mv "$KDIR.tmp" "$KDIR" || skip "cannot extract $deb"
fi
VMLINUZ=$(ls "$KDIR"/boot/vmlinuz-* | sort -V | tail -1)
KVER=${VMLINUZ##*/vmlinuz-}
KCONFIG=$KDIR/boot/config-$KVER
MODDIR=$KDIR/lib/modules/$KVER
[ "$(uname -m)" = x86_64 ] || skip "an x86_64 host is needed (gpufeed's own libraries go into an x86_64 guest)"
grep -q '^CONFIG_NUMA=y' "$KCONFIG" 2>/dev/null || skip "$VMLINUZ: no CONFIG_NUMA=y in $KCONFIG"

# The binary under test.
if [ -z "$BIN" ]; then
	note "building build-numa/gpufeed (make -j2 BUILD=build-numa cli)"
	make -C "$SRC" -s -j2 BUILD=build-numa cli >"${TMPDIR:-/tmp}/gpufeed-qemu-make.log" 2>&1 ||
		{ echo "not ok 1 - make BUILD=build-numa cli failed"; tail -20 "${TMPDIR:-/tmp}/gpufeed-qemu-make.log" |
		  sed 's/^/#   /'; echo "1..1"; exit 1; }
	BIN=$SRC/build-numa/gpufeed
fi
[ -x "$BIN" ] || { echo "not ok 1 - $BIN: no such executable"; echo "1..1"; exit 1; }
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")

W=$(mktemp -d "${TMPDIR:-/tmp}/gpufeed-qemu-XXXXXX")
[ "$KEEP" = 1 ] && note "work folder: $W" || trap 'rm -rf "$W"' EXIT
IR=$W/ir

# 2. The initramfs: busybox, gpufeed and its shared libraries, the virtio
# modules if the kernel has them as modules, and /init.
mkdir -p "$IR"/bin "$IR"/proc "$IR"/sys "$IR"/dev "$IR"/tmp "$IR"/mnt "$IR"/lib/modules "$IR"/etc
cp "$BUSYBOX" "$IR"/bin/busybox
cp "$BIN" "$IR"/bin/gpufeed
ldd "$BIN" 2>/dev/null | awk '/=> \//{print $3} /^[ \t]*\//{print $1}' | while read -r lib; do
	mkdir -p "$IR$(dirname "$lib")" && cp -L "$lib" "$IR$lib"
done
echo "root:x:0:0:root:/:/bin/sh" >"$IR"/etc/passwd

# Kernel modules: what virtio_pci and virtio_blk need, in load order
# (dependencies from each module's .modinfo "depends=").
modfile() {	# name -> path of NAME.ko[.xz|.zst|.gz], or nothing
	find "$MODDIR"/kernel \( -name "$1.ko" -o -name "$1.ko.*" \) 2>/dev/null | head -1
	[ "$1" = "${1//-/_}" ] || find "$MODDIR"/kernel -name "${1//_/-}.ko*" 2>/dev/null | head -1
}
MODS=()
add_mod() {
	local m=$1 f dep
	for x in "${MODS[@]:-}"; do [ "$x" = "$m" ] && return 0; done
	f=$(modfile "$m" | head -1)
	[ -n "$f" ] || { note "kernel module $m not found (built in?)"; return 0; }
	case $f in
	*.ko.xz) xz -dc "$f" >"$IR/lib/modules/$m.ko" ;;
	*.ko.zst) zstd -qdc "$f" >"$IR/lib/modules/$m.ko" ;;
	*.ko.gz) gzip -dc "$f" >"$IR/lib/modules/$m.ko" ;;
	*) cp "$f" "$IR/lib/modules/$m.ko" ;;
	esac || skip "cannot unpack kernel module $f"
	for dep in $(tr '\0' '\n' <"$IR/lib/modules/$m.ko" | sed -n 's/^depends=//p' | tr ',' ' '); do
		add_mod "$dep"
	done
	MODS+=("$m")
}
for opt in VIRTIO_PCI VIRTIO_BLK; do
	if grep -q "^CONFIG_$opt=m" "$KCONFIG"; then add_mod "$(echo "$opt" | tr 'A-Z' 'a-z')"
	elif ! grep -q "^CONFIG_$opt=y" "$KCONFIG"; then skip "$VMLINUZ: CONFIG_$opt is neither y nor m"; fi
done
printf '%s\n' "${MODS[@]:-}" | sed '/^$/d' >"$IR"/lib/modules/order

cat >"$IR"/init <<'EOF'
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
EOF
chmod +x "$IR"/init
(cd "$IR" && find . | cpio -o -H newc 2>/dev/null | gzip -1 >"$W"/initramfs.gz) || { echo "not ok 1 - cpio"; exit 1; }

# 3. Disks and the guest.
for d in node1 node0 rootbus; do truncate -s 64M "$W/$d.img"; done
# shellcheck disable=SC2054  # the commas are inside QEMU option values
QEMU=(qemu-system-x86_64 -M q35 -accel tcg -cpu max -smp 2,sockets=2,cores=1,threads=1 -m 1G
	-object memory-backend-ram,id=m0,size=512M -object memory-backend-ram,id=m1,size=512M
	-numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1
	-numa dist,src=0,dst=1,val=21
	-device pxb-pcie,id=pxb0,bus_nr=64,numa_node=0,bus=pcie.0
	-device pcie-root-port,id=rp0,bus=pxb0,chassis=1
	-device pxb-pcie,id=pxb1,bus_nr=128,numa_node=1,bus=pcie.0
	-device pcie-root-port,id=rp1,bus=pxb1,chassis=2
	-drive file="$W/node1.img",if=none,id=d1,format=raw
	-device virtio-blk-pci,drive=d1,bus=rp1,serial=gf-node1
	-drive file="$W/node0.img",if=none,id=d0,format=raw
	-device virtio-blk-pci,drive=d0,bus=rp0,serial=gf-node0
	-drive file="$W/rootbus.img",if=none,id=dx,format=raw
	-device virtio-blk-pci,drive=dx,bus=pcie.0,serial=gf-rootbus
	-kernel "$VMLINUZ" -initrd "$W/initramfs.gz" -append "console=ttyS0 quiet panic=-1"
	-nodefaults -display none -serial file:"$W/console.raw" -monitor none -no-reboot)
note "booting $KVER in QEMU (TCG, 2 NUMA nodes), up to ${QEMU_TIMEOUT}s"
t0=$(date +%s)
timeout "$QEMU_TIMEOUT" "${QEMU[@]}" </dev/null >"$W/qemu.out" 2>&1
qrc=$?
note "QEMU exit $qrc after $(( $(date +%s) - t0 ))s"
tr -d '\r' <"$W/console.raw" >"$W/console.log" 2>/dev/null

# 4. Outside: the sections, checked with jq.
section() {	# section NAME -> its text
	awk -v b="=====GF-BEGIN $1=====" -v e="^=====GF-END $1 rc=" \
		'$0 == b {on = 1; next} on && $0 ~ e {exit} on {print}' "$W/console.log"
}
section_rc() { sed -n "s/^=====GF-END $1 rc=\([0-9]*\)=====\$/\1/p" "$W/console.log" | head -1; }
J=$W/json
mkdir -p "$J"
for s in topo-json n1-default n1-node0 n1-none n1-psync n1-node7 n0-default rootbus-default n1-live file-n1 file-tmpfs; do
	section "$s" >"$J/$s.json"
done

count=0 failures=0
ok() { count=$((count + 1)); echo "ok $count - $*"; }
not_ok() { count=$((count + 1)); failures=$((failures + 1)); echo "not ok $count - $*"; }
check() {	# check DESC CONDITION-RC
	if [ "$2" = 0 ]; then ok "$1"; else not_ok "$1"; fi
}
jqc() {	# jqc NAME FILTER DESC: the run exited 0 and jq -e FILTER holds
	local rc; rc=$(section_rc "$1")
	# -s: an empty file is [], not a silent pass (jq 1.6 -e exits 0 on no input)
	if [ "$rc" = 0 ] && jq -e -s "length == 1 and (.[0] | $2)" "$J/$1.json" >/dev/null 2>&1; then ok "$1: $3"; else
		not_ok "$1: $3 (exit ${rc:-none}; jq '$2')"
		jq -c '{placement, device: .target.device, device_numa_node: .target.device_numa_node}' "$J/$1.json" 2>/dev/null |
			sed 's/^/#   /'
		section "$1.stderr" | head -5 | sed 's/^/#   stderr: /'
	fi
}

grep -q '^=====GF-DONE=====$' "$W/console.log" 2>/dev/null
check "the guest ran to the end and powered off (qemu exit $qrc)" $?
TOPO=$(section topology)
echo "$TOPO" | grep -E '^(kernel|nodes_online|node |GF-DISK)' | sed 's/^/# guest: /'
echo "$TOPO" | grep -qx 'nodes_online 0-1'
check "the guest has NUMA nodes 0-1" $?
echo "$TOPO" | grep -q '^node 1 cpus 1 '
check "node 1 holds CPU 1" $?
disk_field() { echo "$TOPO" | sed -n "s/^GF-DISK serial=$1 .*$2=\([^ ]*\).*/\1/p" | head -1; }
N1=$(disk_field gf-node1 name) N0=$(disk_field gf-node0 name) NX=$(disk_field gf-rootbus name)
P1=$(disk_field gf-node1 pci)
[ "$(disk_field gf-node1 numa_node)" = 1 ] && [ "$(disk_field gf-node0 numa_node)" = 0 ] &&
	[ "$(disk_field gf-rootbus numa_node)" = -1 ]
check "sysfs: gf-node1 ($N1, PCI $P1) on node 1, gf-node0 ($N0) on node 0, gf-rootbus ($NX) on -1" $?

jqc topo-json '(.numa.nodes | length) == 2' "the model has two NUMA nodes"
jqc topo-json "[.block_devices[] | select(.name == \"$N1\")][0] | .numa_node == 1 and .pci == \"$P1\"" \
	"the model puts $N1 ($P1) on node 1"
jqc topo-json "[.block_devices[] | select(.name == \"$N0\")][0].numa_node == 0" "the model puts $N0 on node 0"
jqc topo-json "[.block_devices[] | select(.name == \"$NX\")][0].numa_node == -1" "the model has no node for $NX"

jqc n1-default '.placement.source == "drive" and .placement.numa_node == 1 and .placement.buffer_node_actual == 1 and .placement.cpus == "1"' \
	"default placement: the drive's node 1, CPU 1, buffer on node 1"
jqc n1-default ".target.device == \"$N1\" and .target.device_numa_node == 1 and .target.kind == \"block-device\" and .ios > 0" \
	"the target is $N1, node 1, and I/O ran"
jqc n1-default '.machine.numa_nodes == 2 and .machine.cpus == 2' "the machine summary: 2 nodes, 2 CPUs"
grep -q '^placement: NUMA node 1 (drive), CPUs 1, buffer pages on node 1$' <(section n1-default-text)
check "n1-default-text: the text output says 'placement: NUMA node 1 (drive), CPUs 1, buffer pages on node 1'" $?
jqc n1-node0 '.placement.source == "option" and .placement.numa_node == 0 and .placement.buffer_node_actual == 0 and .placement.cpus == "0"' \
	"--numa-node 0 overrides the drive: node 0, CPU 0, buffer on node 0"
jqc n1-none '.placement.numa_node == -1 and .placement.source == "none" and .placement.cpus == "" and .target.device_numa_node == 1' \
	"--numa-node none: no placement, the drive's node still reported"
jqc n1-psync '.placement.source == "drive" and .placement.numa_node == 1 and .placement.buffer_node_actual == 1 and .placement.cpus == "1" and .threads == 2 and .engine_used == "psync"' \
	"psync, 2 threads: node 1, CPU 1, buffer on node 1"
jqc n0-default '.placement.source == "drive" and .placement.numa_node == 0 and .placement.buffer_node_actual == 0 and .placement.cpus == "0"' \
	"the node-0 disk: node 0, CPU 0, buffer on node 0"
jqc rootbus-default '.placement.numa_node == -1 and .placement.source == "none" and .target.device_numa_node == -1' \
	"the root-bus disk (node unknown): no placement"

LIVE=$(section n1-live-tasks)
echo "$LIVE" | sed 's/^/# live: /'
pid=$(echo "$LIVE" | sed -n 's/^pid //p')
workers=$(echo "$LIVE" | awk -v p="$pid" '/^tid / && $2 != p')
[ -n "$workers" ] && ! echo "$workers" | grep -qv 'allowed=1 ' && ! echo "$workers" | grep -qv 'last_cpu=1 '
check "while running: every worker thread is allowed only CPU 1 and last ran on CPU 1" $?
section n1-live-numa_maps | grep -E 'prefer[^ ]*:1 ' | sed 's/^/# live numa_maps: /'
section n1-live-numa_maps | grep -E 'prefer[^ ]*:1 ' | grep -q ' N1='
check "while running: a mapping with the preferred-node-1 policy has its pages on N1" $?
jqc n1-live '.placement.numa_node == 1 and .placement.buffer_node_actual == 1' "the sampled run reports node 1"

section mount | grep -q ' /mnt ' && ok "ext2 on $N1 mounted" || not_ok "ext2 on $N1 not mounted"
jqc file-n1 ".target.created and .target.device == \"$N1\" and .placement.source == \"drive\" and .placement.numa_node == 1 and .placement.buffer_node_actual == 1 and .placement.cpus == \"1\"" \
	"a file created on the node-1 disk: node 1, CPU 1, buffer on node 1"
jqc file-tmpfs '.target.created and .placement.numa_node == -1 and .placement.source == "none"' \
	"a file created on tmpfs (no drive): no placement"

# Informational: a node the machine does not have.
echo "# info: --numa-node 7 (no such node): exit $(section_rc n1-node7); placement $(jq -c .placement "$J/n1-node7.json" 2>/dev/null); note $(jq -c .note "$J/n1-node7.json" 2>/dev/null); stderr: $(section n1-node7.stderr | tr '\n' ' ')"
section n1-node7-text | grep -E '^placement|randread' | sed 's/^/# info: text: /'

echo "1..$count"
if [ -n "$OUT" ]; then
	mkdir -p "$OUT"
	cp "$W/console.log" "$OUT/console.log"
	for f in "$J"/*.json; do [ -s "$f" ] && cp "$f" "$OUT/"; done
	cp "$IR/init" "$OUT/guest-init.sh"
	for a in "${QEMU[@]}"; do	# one option per line; WORK = the work folder
		case $a in -*) printf ' \\\n  %s' "$a" ;; *\ *) printf " '%s'" "$a" ;; *) printf ' %s' "$a" ;; esac
	done | sed "1s/^ //; s#$W/#WORK/#g" >"$OUT/qemu-command.txt"
	echo >>"$OUT/qemu-command.txt"
	{
		echo "gpufeed bench io NUMA placement in a two-node QEMU guest ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
		echo "binary: $BIN"
		echo "guest kernel: $KVER ($VMLINUZ)"
		echo "qemu: $(qemu-system-x86_64 --version | head -1); exit $qrc"
		echo "checks: $((count - failures)) of $count passed"
		echo
		echo "$TOPO" | grep -E '^(kernel|nodes_online|node |cpus_online|GF-DISK)'
		echo
		for s in n1-default n1-node0 n1-none n1-psync n1-node7 n0-default rootbus-default n1-live file-n1 file-tmpfs; do
			printf '%-16s exit %-3s %s\n' "$s" "$(section_rc "$s")" \
				"$(jq -c '{placement, device: .target.device, device_numa_node: .target.device_numa_node}' "$J/$s.json" 2>/dev/null)"
		done
		echo
		echo "Timing figures (GB/s, IOPS, latency) come from an emulated (TCG) guest and mean nothing;"
		echo "only placement (which node, which CPUs, where the buffer pages are) counts."
	} >"$OUT/summary.txt"
	note "evidence in $OUT"
fi
[ "$failures" -eq 0 ] || { echo "# $failures of $count failed"; exit 1; }
exit 0
