#!/usr/bin/env bash
# For a GPU VM without udevd (the lent Firecracker VMs): cuFile reads the
# file system's block device properties through libudev, finds none
# (cufile.log: "udev property not found: ID_FS_USAGE vda", then
# cuFileHandleRegister fails with CU_FILE_HANDLE_NOT_REGISTERED), and
# refuses every file, even in compatibility mode.  This writes the two
# properties it asks for into /run/udev/data/b<major>:<minor>, as udevd's
# blkid rule would have, for the disk holding DIR.  /run only: gone at
# reboot; no GPU or driver setting is touched.  Run as root before
# `bench io-gpu --path gds` or tests/gpu/xfer_check on such a VM.
#
#   bench/cufile-vm-udev.sh OUTDIR [DIR]     (DIR default /var/tmp)
# OUTDIR/udev-made.txt records what was written.
#   bench/cufile-vm-udev.sh --check [DIR]    writes nothing: exit 0 when the
#   disk has the properties, 1 (its device printed) when not, 2 when its
#   device cannot be told.
set -eu
o=${1:?usage: bench/cufile-vm-udev.sh OUTDIR|--check [DIR]}
d=${2:-/var/tmp}

dev=$(findmnt -n -o SOURCE -T "$d") || exit 2
fstype=$(findmnt -n -o FSTYPE -T "$d")
mm=$(lsblk -n -d -o MAJ:MIN "$dev" | tr -d ' ') || exit 2
[ -n "$mm" ] || exit 2
if [ "$o" = --check ]; then
	grep -q '^E:ID_FS_USAGE=' "/run/udev/data/b$mm" 2>/dev/null && exit 0
	echo "$dev"
	exit 1
fi
mkdir -p "$o" /run/udev/data
[ -e "/run/udev/data/b$mm" ] && cp "/run/udev/data/b$mm" "$o/udev-before.txt"
grep -q '^E:ID_FS_USAGE=' "/run/udev/data/b$mm" 2>/dev/null ||
	printf 'E:ID_FS_TYPE=%s\nE:ID_FS_USAGE=filesystem\n' "$fstype" >> "/run/udev/data/b$mm"
echo "$dev b$mm $fstype" > "$o/udev-made.txt"
cat "/run/udev/data/b$mm" >> "$o/udev-made.txt"
