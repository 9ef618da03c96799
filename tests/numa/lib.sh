# Shared machinery for the two-NUMA-node QEMU guest tests (sourced, bash).
#
# One guest boot runs every part: each part is a guest fragment
# (tests/numa/<part>.guest.sh, sourced by the guest's /init in a subshell)
# plus host-side checks that read its sections from the serial console.
#
#   numa_tools                 qemu, cpio, static busybox and a Debian cloud
#                              kernel (installed by scripts/install-deps.sh
#                              numa when missing), or skip (exit 77)
#   numa_gpufeed [BIN]         the gpufeed under test (default: build
#                              build-numa/gpufeed)
#   numa_workdir [KEEP]        NUMA_W, NUMA_IR: the work folder and initramfs tree
#   numa_ir_program SRC DEST   copy a program and its shared libraries in
#   numa_ir_modules OPT...     the kernel modules CONFIG_OPT needs (=m)
#   numa_testdevs              a pci-testdev behind each node's bridge (once)
#   numa_ir_stand_in_helper NAME  tests/numa/NAME.c linked with
#                              build-numa/libgpufeed.a at /bin/NAME, the
#                              stand-in libcuda and NVML, numa_testdevs
#   numa_ir_init PART...       /init: prologue, each part's fragment, epilogue
#   numa_boot                  pack, boot with NUMA_QEMU (base + parts' devices)
#   numa_section NAME, numa_section_rc NAME   what the guest printed
#   numa_ok / numa_not_ok / numa_check DESC RC / numa_finish   TAP
#
# The guest: q35, TCG (a nested KVM guest hung here), two sockets of one CPU,
# node 0 = CPU 0 + 512 MiB, node 1 = CPU 1 + 512 MiB, distance 21, and a PCIe
# expander bridge on each node (pxb0: bus 0x40, node 0; pxb1: bus 0x80, node
# 1) with root ports rp0/rp1 (and rp0b/rp1b) for the parts' devices.
# Timing figures from an emulated guest mean nothing; placement is exact.

NUMA_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
NUMA_CACHE=${GPUFEED_QEMU_CACHE:-/var/tmp/gpufeed-qemu}
NUMA_TIMEOUT=${GPUFEED_QEMU_TIMEOUT:-300}
NUMA_LOG=${TMPDIR:-/tmp}/gpufeed-numa-$$.log

numa_skip() { echo "1..0 # SKIP $*"; exit 77; }
numa_note() { echo "# $*"; }

# A static busybox (the guest has no shared libraries but those we copy).
numa_find_busybox() {
	local b
	for b in /bin/busybox /usr/bin/busybox $(command -v busybox 2>/dev/null); do
		[ -x "$b" ] && ! ldd "$b" >/dev/null 2>&1 && { echo "$b"; return 0; }
	done
	return 1
}

# The newest extracted kernel in the cache: its vmlinuz path, or nothing.
numa_find_kernel() { ls "$NUMA_CACHE"/kernel/boot/vmlinuz-* 2>/dev/null | sort -V | tail -1; }

numa_have_tools() {
	command -v qemu-system-x86_64 >/dev/null && command -v cpio >/dev/null &&
		command -v gzip >/dev/null && command -v jq >/dev/null && command -v timeout >/dev/null &&
		numa_find_busybox >/dev/null && [ -n "$(numa_find_kernel)" ]
}

numa_tools() {
	[ "$(uname -m)" = x86_64 ] || numa_skip "an x86_64 host is needed (gpufeed's own libraries go into an x86_64 guest)"
	if ! numa_have_tools; then
		# One place installs them: the set-up script (Debian packages only).
		numa_note "installing the guest's tools: scripts/install-deps.sh numa (log $NUMA_LOG)"
		GPUFEED_QEMU_CACHE=$NUMA_CACHE "$NUMA_SRC"/scripts/install-deps.sh numa >"$NUMA_LOG" 2>&1 ||
			{ sed 's/^/#   /' "$NUMA_LOG" | tail -5; }
		numa_have_tools || numa_skip "qemu-system-x86_64, cpio, a static busybox and a kernel in $NUMA_CACHE/kernel are needed (scripts/install-deps.sh numa, as root)"
	fi
	NUMA_BUSYBOX=$(numa_find_busybox)
	NUMA_VMLINUZ=$(numa_find_kernel)
	NUMA_KVER=${NUMA_VMLINUZ##*/vmlinuz-}
	NUMA_KCONFIG=$NUMA_CACHE/kernel/boot/config-$NUMA_KVER
	NUMA_MODDIR=$NUMA_CACHE/kernel/lib/modules/$NUMA_KVER
	grep -q '^CONFIG_NUMA=y' "$NUMA_KCONFIG" 2>/dev/null || numa_skip "$NUMA_VMLINUZ: no CONFIG_NUMA=y in $NUMA_KCONFIG"
}

# shellcheck disable=SC2034  # NUMA_GPUFEED is for the caller (run.sh)
numa_gpufeed() {
	local bin=${1:-}
	if [ -z "$bin" ]; then
		numa_note "building build-numa/gpufeed (make -j2 BUILD=build-numa cli)"
		make -C "$NUMA_SRC" -s -j2 BUILD=build-numa cli >"$NUMA_LOG" 2>&1 ||
			{ echo "not ok 1 - make BUILD=build-numa cli failed"; tail -20 "$NUMA_LOG" | sed 's/^/#   /'
			  echo "1..1"; exit 1; }
		bin=$NUMA_SRC/build-numa/gpufeed
	fi
	[ -x "$bin" ] || { echo "not ok 1 - $bin: no such executable"; echo "1..1"; exit 1; }
	NUMA_GPUFEED=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
}

numa_workdir() {	# numa_workdir KEEP(0|1)
	NUMA_W=$(mktemp -d "${TMPDIR:-/tmp}/gpufeed-qemu-XXXXXX")
	if [ "${1:-0}" = 1 ]; then numa_note "work folder: $NUMA_W"; else trap 'rm -rf "$NUMA_W" "$NUMA_LOG"' EXIT; fi
	NUMA_IR=$NUMA_W/ir
	mkdir -p "$NUMA_IR"/bin "$NUMA_IR"/proc "$NUMA_IR"/sys "$NUMA_IR"/dev "$NUMA_IR"/tmp "$NUMA_IR"/mnt \
		"$NUMA_IR"/lib/modules "$NUMA_IR"/etc "$NUMA_IR"/parts
	cp "$NUMA_BUSYBOX" "$NUMA_IR"/bin/busybox
	echo "root:x:0:0:root:/:/bin/sh" >"$NUMA_IR"/etc/passwd
	: >"$NUMA_IR"/lib/modules/order
}

# numa_ir_program SRC DEST: SRC at DEST in the guest, with the shared
# libraries ldd names (at their host paths).
numa_ir_program() {
	local lib
	mkdir -p "$NUMA_IR$(dirname "$2")" && cp "$1" "$NUMA_IR$2" || return 1
	ldd "$1" 2>/dev/null | awk '/=> \//{print $3} /^[ \t]*\//{print $1}' | while read -r lib; do
		mkdir -p "$NUMA_IR$(dirname "$lib")" && cp -L "$lib" "$NUMA_IR$lib"
	done
}

# Kernel modules, in load order (dependencies from .modinfo "depends=").
numa_modfile() {	# name -> path of NAME.ko[.xz|.zst|.gz], or nothing
	find "$NUMA_MODDIR"/kernel \( -name "$1.ko" -o -name "$1.ko.*" \) 2>/dev/null | head -1
	[ "$1" = "${1//-/_}" ] || find "$NUMA_MODDIR"/kernel -name "${1//_/-}.ko*" 2>/dev/null | head -1
}
numa_add_mod() {
	local m=$1 f dep out=$NUMA_IR/lib/modules/$1.ko
	grep -qx "$m" "$NUMA_IR"/lib/modules/order && return 0
	f=$(numa_modfile "$m" | head -1)
	[ -n "$f" ] || { numa_note "kernel module $m not found (built in?)"; return 0; }
	case $f in
	*.ko.xz) xz -dc "$f" >"$out" ;;
	*.ko.zst) zstd -qdc "$f" >"$out" ;;
	*.ko.gz) gzip -dc "$f" >"$out" ;;
	*) cp "$f" "$out" ;;
	esac || numa_skip "cannot unpack kernel module $f"
	for dep in $(tr '\0' '\n' <"$out" | sed -n 's/^depends=//p' | tr ',' ' '); do
		numa_add_mod "$dep"
	done
	echo "$m" >>"$NUMA_IR"/lib/modules/order
}
numa_ir_modules() {	# numa_ir_modules VIRTIO_PCI VIRTIO_BLK ...
	local opt
	for opt in "$@"; do
		if grep -q "^CONFIG_$opt=m" "$NUMA_KCONFIG"; then numa_add_mod "$(echo "$opt" | tr 'A-Z' 'a-z')"
		elif ! grep -q "^CONFIG_$opt=y" "$NUMA_KCONFIG"; then numa_skip "$NUMA_VMLINUZ: CONFIG_$opt is neither y nor m"; fi
	done
}

# /init: mount, load modules, print the topology; then each part's fragment
# in its own subshell (one part failing leaves the others' output), then
# dmesg and power off.  Sections: =====GF-BEGIN name===== ... =====GF-END
# name rc=N=====; run NAME CMD... puts stdout in NAME, stderr in NAME.stderr.
numa_ir_init() {
	local part
	cat >"$NUMA_IR"/init <<'EOF'
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
run() {
	local name=$1 rc; shift
	echo "GF-CMD $name: $*"
	"$@" >/tmp/out 2>/tmp/err; rc=$?
	begin "$name"; cat /tmp/out; end "$name" $rc
	begin "$name.stderr"; cat /tmp/err; end "$name.stderr" $rc
}

begin topology
echo "kernel $(uname -r)"
echo "nodes_online $(cat /sys/devices/system/node/online)"
for n in /sys/devices/system/node/node[0-9]*; do
	echo "node ${n##*node} cpus $(cat $n/cpulist) distance $(cat $n/distance) $(grep MemTotal $n/meminfo | sed 's/.*MemTotal: *//')"
done
echo "cpus_online $(cat /sys/devices/system/cpu/online)"
for p in /sys/bus/pci/devices/*; do
	echo "pci ${p##*/} class=$(cat $p/class) id=$(cat $p/vendor):$(cat $p/device) numa_node=$(cat $p/numa_node)"
done
end topology 0
EOF
	for part in "$@"; do
		cp "$NUMA_SRC/tests/numa/$part.guest.sh" "$NUMA_IR/parts/$part.sh" || return 1
		printf 'echo "GF-PART %s"\n( . /parts/%s.sh )\necho "GF-PART-DONE %s rc=$?"\n' "$part" "$part" "$part" >>"$NUMA_IR"/init
	done
	cat >>"$NUMA_IR"/init <<'EOF'
begin dmesg; dmesg; end dmesg 0
echo "=====GF-DONE====="
sync
poweroff -f
EOF
	chmod +x "$NUMA_IR"/init
}

# The base machine; parts append their devices to NUMA_QEMU before numa_boot.
# shellcheck disable=SC2054  # the commas are inside QEMU option values
numa_qemu_base() {
	NUMA_QEMU=(qemu-system-x86_64 -M q35 -accel tcg -cpu max -smp 2,sockets=2,cores=1,threads=1 -m 1G
		-object memory-backend-ram,id=m0,size=512M -object memory-backend-ram,id=m1,size=512M
		-numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1
		-numa dist,src=0,dst=1,val=21
		-device pxb-pcie,id=pxb0,bus_nr=64,numa_node=0,bus=pcie.0
		-device pcie-root-port,id=rp0,bus=pxb0,chassis=1
		-device pcie-root-port,id=rp0b,bus=pxb0,chassis=3
		-device pxb-pcie,id=pxb1,bus_nr=128,numa_node=1,bus=pcie.0
		-device pcie-root-port,id=rp1,bus=pxb1,chassis=2
		-device pcie-root-port,id=rp1b,bus=pxb1,chassis=4)
}

# A pci-testdev function behind each node's expander bridge (rp0b: node 0,
# rp1b: node 1), the stand-in GPUs of the parts that need one per node.
# Added once however many parts ask: a root port has a single slot.
numa_testdevs() {
	case " ${NUMA_QEMU[*]} " in *" pci-testdev,bus=rp0b "*) return 0 ;; esac
	# shellcheck disable=SC2054  # the commas are inside QEMU option values
	NUMA_QEMU+=(-device pci-testdev,bus=rp0b -device pci-testdev,bus=rp1b)
}

# numa_ir_stand_in_helper NAME: tests/numa/NAME.c, linked with
# build-numa/libgpufeed.a (made, with the stand-in libcuda and NVML), at
# /bin/NAME in the guest; the stand-ins in /lib/gpufeed-fakes (dlopen'ed,
# so ldd does not name them: copied by hand); the pci-testdevs they are
# given as GPUs (numa_testdevs).
numa_ir_stand_in_helper() {
	local b=$NUMA_SRC/build-numa name=$1
	if ! make -C "$NUMA_SRC" -s -j2 BUILD=build-numa build-numa/libgpufeed.a build-numa/fakes/libcuda.so.1 \
		build-numa/fakes/libnvidia-ml.so.1 >"$NUMA_W/$name.log" 2>&1 ||
		! gcc -O2 -std=c11 -Wall -Wextra -Werror -I"$NUMA_SRC"/include -I"$NUMA_SRC"/src -o "$NUMA_W/$name" \
			"$NUMA_SRC/tests/numa/$name.c" "$b"/libgpufeed.a -ljansson -luring -lz -ldl -lpthread -lm \
			>>"$NUMA_W/$name.log" 2>&1; then
		tail -20 "$NUMA_W/$name.log" | sed 's/^/#   /'
		return 1
	fi
	numa_ir_program "$NUMA_W/$name" "/bin/$name" || return 1
	mkdir -p "$NUMA_IR"/lib/gpufeed-fakes &&
		cp "$b"/fakes/libcuda.so.1 "$b"/fakes/libnvidia-ml.so.1 "$NUMA_IR"/lib/gpufeed-fakes/ || return 1
	numa_testdevs
}

numa_boot() {
	(cd "$NUMA_IR" && find . | cpio -o -H newc 2>/dev/null | gzip -1 >"$NUMA_W"/initramfs.gz) ||
		{ echo "not ok 1 - cpio"; echo "1..1"; exit 1; }
	NUMA_QEMU+=(-kernel "$NUMA_VMLINUZ" -initrd "$NUMA_W/initramfs.gz" -append "console=ttyS0 quiet panic=-1"
		-nodefaults -display none -serial file:"$NUMA_W/console.raw" -monitor none -no-reboot)
	local t0 try
	for try in 1 2; do
		numa_note "booting $NUMA_KVER in QEMU (TCG, 2 NUMA nodes), up to ${NUMA_TIMEOUT}s"
		t0=$(date +%s)
		timeout "$NUMA_TIMEOUT" "${NUMA_QEMU[@]}" </dev/null >"$NUMA_W/qemu.out" 2>&1
		NUMA_QRC=$?
		NUMA_QSECS=$(( $(date +%s) - t0 ))
		numa_note "QEMU exit $NUMA_QRC after ${NUMA_QSECS}s"
		# Once in many runs on a loaded 2-core machine, an emulated boot
		# hung (every part takes seconds otherwise): show where, boot again.
		[ "$NUMA_QRC" = 124 ] && [ "$try" = 1 ] || break
		numa_note "the guest hung; its console ended with:"
		tr -d '\r' <"$NUMA_W/console.raw" 2>/dev/null | tail -5 | sed 's/^/#   console: /'
		: >"$NUMA_W/console.raw"
	done
	[ "$NUMA_QRC" = 0 ] || sed 's/^/#   qemu: /' "$NUMA_W/qemu.out" | tail -5
	tr -d '\r' <"$NUMA_W/console.raw" >"$NUMA_W/console.log" 2>/dev/null
	NUMA_CONSOLE=$NUMA_W/console.log
}

numa_section() {	# numa_section NAME -> its text
	awk -v b="=====GF-BEGIN $1=====" -v e="^=====GF-END $1 rc=" \
		'$0 == b {on = 1; next} on && $0 ~ e {exit} on {print}' "$NUMA_CONSOLE"
}
numa_section_rc() { sed -n "s/^=====GF-END $1 rc=\([0-9]*\)=====\$/\1/p" "$NUMA_CONSOLE" | head -1; }

NUMA_COUNT=0 NUMA_FAILURES=0
numa_ok() { NUMA_COUNT=$((NUMA_COUNT + 1)); echo "ok $NUMA_COUNT - $*"; }
numa_not_ok() { NUMA_COUNT=$((NUMA_COUNT + 1)); NUMA_FAILURES=$((NUMA_FAILURES + 1)); echo "not ok $NUMA_COUNT - $*"; }
numa_check() {	# numa_check DESC RC
	if [ "$2" = 0 ]; then numa_ok "$1"; else numa_not_ok "$1"; fi
}

# The checks every run makes: the guest finished and has the two nodes.
numa_check_guest() {
	local topo
	grep -q '^=====GF-DONE=====$' "$NUMA_CONSOLE" 2>/dev/null
	numa_check "the guest ran to the end and powered off (qemu exit $NUMA_QRC)" $?
	topo=$(numa_section topology)
	echo "$topo" | grep -E '^(kernel|nodes_online|node )' | sed 's/^/# guest: /'
	echo "$topo" | grep -qx 'nodes_online 0-1'
	numa_check "the guest has NUMA nodes 0-1" $?
	echo "$topo" | grep -q '^node 0 cpus 0 ' && echo "$topo" | grep -q '^node 1 cpus 1 '
	numa_check "node 0 holds CPU 0, node 1 holds CPU 1" $?
}

numa_finish() {
	echo "1..$NUMA_COUNT"
	echo "gpufeed numa guest tests: $((NUMA_COUNT - NUMA_FAILURES)) passed, $NUMA_FAILURES failed ($NUMA_COUNT checks; QEMU ${NUMA_QSECS:-?}s)"
	[ "$NUMA_FAILURES" -eq 0 ] || { echo "# $NUMA_FAILURES of $NUMA_COUNT failed"; exit 1; }
	exit 0
}
