#!/usr/bin/env bash
# The two-NUMA-node QEMU guest tests, all in one boot (TCG boots in seconds
# but runs slowly: one guest for every part keeps CI within a minute or two).
# Parts (tests/numa/PART.host.sh + PART.guest.sh):
#   bench-io    `gpufeed bench io` placement on disks behind each node
#   bench-mem   `gpufeed bench mem`: a 2x2 matrix, pages on the right node
#   placement   `gpufeed run` CPU and memory binding (pages per node from
#               move_pages and numa_maps) and `gpufeed verify` on live
#               processes, with a model of the guest that has a GPU on each node
#   xfer-staging  the xfer library's pinned staging pool on the GPU's node
#               (stand-in libcuda on the guest's PCI functions), and `bench
#               io-gpu --gpu` end to end
#   loader-placement  the loader's pinned slots, read buffers and I/O
#               threads on the GPU's node (its numa_node option and the
#               locality override included; none for a GPU with no node)
# TAP lines; exit 0 all passed, 1 a check failed, 77 skipped (no QEMU,
# busybox, kernel... and scripts/install-deps.sh numa could not get them).
#
# Usage: tests/numa/run.sh [--only PART[,PART]] [--out DIR] [--keep] [GPUFEED_BINARY]
#   GPUFEED_BINARY  default: build-numa/gpufeed, (re)built with
#                   `make -j2 BUILD=build-numa cli` (leaves build/ alone)
#   --only PARTS    run only these parts (default: all)
#   --out DIR       keep the evidence: console.log, guest-init.sh, the parts'
#                   guest scripts, qemu-command.txt, *.json, summary.txt
#   --keep          keep the work folder (initramfs, disk images)
# Environment:
#   GPUFEED_QEMU_CACHE   kernel cache (default /var/tmp/gpufeed-qemu)
#   GPUFEED_QEMU_TIMEOUT seconds for the whole guest run (default 300; a guest
#                        that hangs is booted once more)
set -u
. "$(dirname "$0")/lib.sh"

ALL_PARTS=(bench-io bench-mem placement xfer-staging loader-placement)
PARTS=("${ALL_PARTS[@]}") OUT='' KEEP=0 BIN=''
while [ $# -gt 0 ]; do
	case $1 in
	--only) IFS=, read -r -a PARTS <<<"${2:?--only needs parts}"; shift 2 ;;
	--only=*) IFS=, read -r -a PARTS <<<"${1#--only=}"; shift ;;
	--out) OUT=${2:?--out needs a folder}; shift 2 ;;
	--out=*) OUT=${1#--out=}; shift ;;
	--keep) KEEP=1; shift ;;
	-h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
	-*) echo "unknown option: $1" >&2; exit 2 ;;
	*) BIN=$1; shift ;;
	esac
done
for p in "${PARTS[@]}"; do
	[ -f "$NUMA_SRC/tests/numa/$p.host.sh" ] || { echo "unknown part: $p (parts: ${ALL_PARTS[*]})" >&2; exit 2; }
	# shellcheck source=/dev/null  # bench-io.host.sh, bench-mem.host.sh, placement.host.sh, xfer-staging.host.sh, loader-placement.host.sh
	. "$NUMA_SRC/tests/numa/$p.host.sh"
done
fn() { echo "${1//-/_}"; }

numa_tools
numa_gpufeed "$BIN"
numa_workdir "$KEEP"
numa_ir_program "$NUMA_GPUFEED" /bin/gpufeed || { echo "not ok 1 - cannot copy $NUMA_GPUFEED into the initramfs"; exit 1; }
numa_qemu_base
for p in "${PARTS[@]}"; do "prepare_$(fn "$p")" || { echo "not ok 1 - preparing part $p failed"; echo "1..1"; exit 1; }; done
numa_ir_init "${PARTS[@]}" || { echo "not ok 1 - writing the guest's /init failed"; echo "1..1"; exit 1; }
T0=$(date +%s)
numa_boot

numa_check_guest
for p in "${PARTS[@]}"; do
	grep -q "^GF-PART-DONE $p rc=" "$NUMA_CONSOLE"
	numa_check "$p: the guest part ran to its end" $?
	"check_$(fn "$p")"
done

if [ -n "$OUT" ]; then
	mkdir -p "$OUT"
	cp "$NUMA_CONSOLE" "$OUT/console.log"
	cp "$NUMA_IR/init" "$OUT/guest-init.sh"
	for p in "${PARTS[@]}"; do cp "$NUMA_IR/parts/$p.sh" "$OUT/guest-$p.sh"; done
	for a in "${NUMA_QEMU[@]}"; do	# one option per line; WORK = the work folder
		case $a in -*) printf ' \\\n  %s' "$a" ;; *\ *) printf " '%s'" "$a" ;; *) printf ' %s' "$a" ;; esac
	done | sed "1s/^ //; s#$NUMA_W/#WORK/#g" >"$OUT/qemu-command.txt"
	echo >>"$OUT/qemu-command.txt"
	{
		echo "gpufeed in a two-node QEMU guest: ${PARTS[*]} ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
		echo "binary: $NUMA_GPUFEED"
		echo "guest kernel: $NUMA_KVER ($NUMA_VMLINUZ)"
		echo "qemu: $(qemu-system-x86_64 --version | head -1); exit $NUMA_QRC after ${NUMA_QSECS}s"
		echo "checks: $((NUMA_COUNT - NUMA_FAILURES)) of $NUMA_COUNT passed"
		echo
		numa_section topology | grep -E '^(kernel|nodes_online|node |cpus_online)'
		for p in "${PARTS[@]}"; do echo; "evidence_$(fn "$p")" "$OUT"; done
		echo
		echo "Timing figures from an emulated (TCG) guest mean nothing; only placement"
		echo "(which node, which CPUs, where the pages are) counts."
	} >"$OUT/summary.txt"
	numa_note "evidence in $OUT"
fi
numa_note "guest run: ${NUMA_QSECS}s in QEMU, $(( $(date +%s) - T0 ))s with the checks"
numa_finish
