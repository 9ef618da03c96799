#!/usr/bin/env bash
# gpufeed bench io: the fio-style point's JSON contract, the sweep, safety
# of existing files and devices, Ctrl-C cleanup, I/O errors, O_DIRECT
# fallback.  Short durations: this checks behaviour, not speed.
. "$(dirname "$0")/lib.sh"

# A hung benchmark fails the test (exit 124) instead of hanging CI.
gf() { timeout 120 "$GPUFEED" "$@"; }

# Usage errors exit 2.
expect_rc 2 "no PATH" gf bench io
expect_rc 2 "no benchmark named" gf bench
expect_rc 2 "unknown benchmark" gf bench disk "$TMP/f"
expect_rc 2 "bad --mode" gf bench io "$TMP/f" --mode sideways
expect_grep "$err" "seqread, randread" "--mode lists the choices"
expect_rc 2 "bad --bs" gf bench io "$TMP/f" --mode seqread --bs 3Q
expect_rc 2 "--warm with --direct" gf bench io "$TMP/f" --mode seqread --direct --warm
expect_rc 2 "--sqpoll with psync" gf bench io "$TMP/f" --mode seqread --engine psync --sqpoll
expect_rc 2 "--qd without --mode" gf bench io "$TMP/f" --qd 4
expect_rc 2 "bad --engines item" gf bench io "$TMP/f" --engines uring:0
expect_rc 2 "zero duration" gf bench io "$TMP/f" --mode seqread --duration 0
# Numbers are parsed strictly: ' -1' was read as 2^64-1 and filled the disk.
expect_rc 2 "--size ' -1'" gf bench io "$TMP/f" --mode seqread --size ' -1'
expect_grep "$err" "' -1'" "the bad size is named"
expect_rc 2 "--size -1" gf bench io "$TMP/f" --mode seqread --size -1
expect_rc 2 "--size past 2^64" gf bench io "$TMP/f" --mode seqread --size 16777216T
expect_rc 2 "--size with junk" gf bench io "$TMP/f" --mode seqread --size 4Kx
expect_rc 2 "--qd ' 4'" gf bench io "$TMP/f" --mode seqread --qd ' 4'
expect_rc 2 "--qd -1" gf bench io "$TMP/f" --mode seqread --qd -1
expect_rc 2 "--threads 99999999999999999999" gf bench io "$TMP/f" --mode seqread --threads 99999999999999999999
expect_rc 2 "--duration nan" gf bench io "$TMP/f" --mode seqread --duration nan
expect_rc 2 "--duration inf" gf bench io "$TMP/f" --mode seqread --duration inf
expect_rc 2 "--duration -1" gf bench io "$TMP/f" --mode seqread --duration -1
expect_rc 2 "--duration 1e3" gf bench io "$TMP/f" --mode seqread --duration 1e3
expect_rc 2 "--duration 2d" gf bench io "$TMP/f" --mode seqread --duration 2d
expect_rc 2 "--engines uring:-1" gf bench io "$TMP/f" --engines uring:-1
expect_rc 2 "--engines psync:4294967297" gf bench io "$TMP/f" --engines psync:4294967297
expect_rc 2 "--engines with an empty item" gf bench io "$TMP/f" --engines uring:8,,psync:1
expect_rc 2 "--bs list with a negative size" gf bench io "$TMP/f" --bs 4K,-1
expect_rc 2 "--numa-node ' 0'" gf bench io "$TMP/f" --mode seqread --numa-node ' 0'
[ ! -e "$TMP/f" ] && ok "usage errors create nothing" || not_ok "a usage error created $TMP/f"
expect_rc 0 "bench --version" gf bench --version
expect_grep "$out" "gpufeed " "prints the version"
expect_rc 0 "bench io --help" gf bench io --help
expect_grep "$out" "--mode M" "help lists --mode"

# Durations take units.
expect_rc 0 "--duration 200ms" gf bench io "$TMP/u.bin" --mode seqread --duration 200ms --size 4M --json
expect_jq "$out" '.duration_s == 0.2' "200ms is 0.2 s"

# One point, fio-style: the documented numbers are there and sane.
expect_rc 0 "randread point on a new file" gf bench io "$TMP/r.bin" --mode randread --bs 4K --qd 8 \
	--direct --duration 0.3 --size 16M --json
cp "$out" "$TMP/point.json"
expect_jq "$TMP/point.json" '.schema == "gpufeed-bench-io/3"' "schema tag"
expect_jq "$TMP/point.json" '(.gpufeed_version | type) == "string" and (.generated_at | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T"))' \
	"tool version and a timestamp"
expect_jq "$TMP/point.json" '.span_bytes == 16777216 and .redrops == 0 and .target.direct_align > 0' \
	"span, re-drops and the O_DIRECT alignment"
expect_jq "$TMP/point.json" '.gb_per_s > 0 and .iops > 0 and .lat_p50_us > 0 and .lat_p99_us >= .lat_p50_us' \
	"gb_per_s, iops, p50 <= p99"
expect_jq "$TMP/point.json" '(.cpu_s_per_gb | type) == "number" and .bytes == .ios * 4096' "cpu_s_per_gb; bytes = ios x bs"
expect_jq "$TMP/point.json" '.mode == "randread" and .bs == 4096 and .qd == 8 and .direct and .engine == "uring"' \
	"the point echoes its settings"
expect_jq "$TMP/point.json" '.points | length == 1' "points[] holds the one point"
expect_jq "$TMP/point.json" '(.samples_gb_per_s | type) == "array" and .machine.cpus > 0' "raw samples and machine summary"
expect_jq "$TMP/point.json" '.target.created and .target.size == 16777216' "the file was created at --size"
[ ! -e "$TMP/r.bin" ] && ok "the created file is removed" || not_ok "$TMP/r.bin left behind"

# O_DIRECT needs aligned blocks: --bs 513 --direct ran buffered while
# reporting direct_used: true.  Refused, naming the alignment.
expect_rc 2 "--bs 513 --direct" gf bench io "$TMP/a.bin" --mode seqread --bs 513 --direct --duration 0.1 --size 4M
expect_grep "$err" "multiple of" "names the alignment O_DIRECT needs"
[ ! -e "$TMP/a.bin" ] && ok "the refused point's file is removed" || not_ok "$TMP/a.bin left"
expect_rc 2 "a sweep with --bs 513 and direct" gf bench io "$TMP/a.bin" --bs 4K,513 --cache direct \
	--engines psync:1 --modes seqread --duration 0.1 --size 4M
expect_rc 0 "--bs 513 buffered is fine" gf bench io "$TMP/a.bin" --mode seqread --bs 513 --duration 0.1 \
	--size 4M --json
expect_jq "$out" '.direct_used == false and .bytes > 0' "buffered, and said so"

# psync engine and threads.
expect_rc 0 "psync point, 2 threads" gf bench io "$TMP/p.bin" --mode seqread --engine psync --threads 2 \
	--bs 64K --duration 0.2 --size 8M --json
expect_jq "$out" '.engine_used == "psync" and .threads == 2 and .iops > 0' "psync ran with 2 threads"

# Existing files: reads are fine, writes need --force.
head -c 4194304 /dev/urandom >"$TMP/data.bin"
sum=$(md5sum <"$TMP/data.bin")
expect_rc 0 "read an existing file" gf bench io "$TMP/data.bin" --mode seqread --bs 1M --duration 0.2 --json
expect_jq "$out" '.target.created == false and .gb_per_s > 0' "existing file read in place"
expect_rc 3 "write an existing file without --force" gf bench io "$TMP/data.bin" --mode seqwrite --duration 0.2
expect_grep "$err" "--force" "the refusal names --force"
[ "$(md5sum <"$TMP/data.bin")" = "$sum" ] && ok "refused write left the data intact" || not_ok "data changed"
[ -e "$TMP/data.bin" ] && ok "an existing file is never removed" || not_ok "existing file removed"
expect_rc 0 "sweep of an existing file without --force" gf bench io "$TMP/data.bin" --modes seqread,seqwrite \
	--bs 64K --engines uring:4 --cache direct --duration 0.1 --json
expect_grep "$err" "reads only" "the sweep says it skips writes"
expect_jq "$out" '[.points[].mode] | all(. == "seqread")' "no write point ran"
expect_rc 0 "write an existing file with --force" gf bench io "$TMP/data.bin" --mode randwrite --bs 4K \
	--direct --duration 0.2 --force --json
expect_jq "$out" '.iops > 0' "forced write ran"
[ -e "$TMP/data.bin" ] && ok "forced write keeps the file" || not_ok "forced write removed the file"

# Not a file.
expect_rc 3 "a directory" gf bench io "$TMP" --mode seqread --duration 0.1
expect_grep "$err" "directory" "says it is a directory"
expect_rc 3 "a missing parent" gf bench io "$TMP/no/such/f" --mode seqread --duration 0.1
expect_grep "$err" "$TMP/no/such/f" "names the path"

# A block device (a loop device over a file of ours): reads need nothing,
# writes need --force.
head -c 16777216 /dev/zero >"$TMP/loop.img"
loopdev=$(losetup -f --show "$TMP/loop.img" 2>/dev/null)
if [ -b "$loopdev" ]; then
	expect_rc 0 "read a block device" gf bench io "$loopdev" --mode randread --direct --qd 4 \
		--duration 0.2 --json
	expect_jq "$out" '.target.kind == "block-device" and .target.size == 16777216 and .iops > 0' "block device read"
	expect_jq "$out" '.target.fs == "block device" and (.target.device | startswith("loop"))' "a device is not called tmpfs"
	expect_rc 3 "write a block device without --force" gf bench io "$loopdev" --mode seqwrite --duration 0.1
	expect_grep "$err" "--force" "the refusal names --force"
	expect_rc 0 "write it with --force" gf bench io "$loopdev" --mode seqwrite --direct --force \
		--duration 0.1 --json
	[ -b "$loopdev" ] && ok "the device is still there" || not_ok "the device node was removed"
	losetup -d "$loopdev"
else
	ok "# SKIP block device cases: no loop device here"
fi
rm -f "$TMP/loop.img"

# A mounted block device is never written, --force or not: it would destroy
# the file system under a mount.
head -c 33554432 /dev/zero >"$TMP/fs.img"
fsdev=$(losetup -f --show "$TMP/fs.img" 2>/dev/null)
mkdir -p "$TMP/mnt"
if [ -b "$fsdev" ] && mkfs.ext4 -q "$fsdev" 2>/dev/null && mount "$fsdev" "$TMP/mnt" 2>/dev/null; then
	echo precious >"$TMP/mnt/notes.txt"
	sync
	expect_rc 3 "--force on a mounted block device" gf bench io "$fsdev" --mode seqwrite --direct --force \
		--duration 0.1
	expect_grep "$err" "mounted" "says it is mounted"
	expect_grep "$err" "$TMP/mnt" "and where"
	expect_rc 0 "reading it is fine" gf bench io "$fsdev" --mode seqread --direct --duration 0.1 --json
	umount "$TMP/mnt"
	e2fsck -fn "$fsdev" >/dev/null 2>&1 && ok "the file system is intact" || not_ok "the file system was damaged"
else
	ok "# SKIP mounted device case: no loop device or mount here"
	[ -b "$fsdev" ] && umount "$TMP/mnt" 2>/dev/null
fi
[ -b "$fsdev" ] && losetup -d "$fsdev"
rm -f "$TMP/fs.img"

# A file moved onto the path the bench created is someone else's: neither
# written by a later point nor removed at the end.
echo precious >"$TMP/precious.txt"
"$GPUFEED" bench io "$TMP/mv.bin" --modes seqwrite,randwrite --bs 1M --engines psync:1 --cache direct \
	--duration 1.5 --size 8M --json >"$TMP/mv.json" 2>"$TMP/mv.err" &
pid=$!
for _ in $(seq 100); do [ "$(stat -c %s "$TMP/mv.bin" 2>/dev/null)" = 8388608 ] && break; sleep 0.05; done
sleep 0.3
mv "$TMP/precious.txt" "$TMP/mv.bin"
wait $pid
crc=$?
[ "$(cat "$TMP/mv.bin" 2>/dev/null)" = precious ] && ok "the file moved onto the path is intact and kept" ||
	not_ok "the file moved onto the path was overwritten or removed"
[ "$crc" = 3 ] && ok "the run fails (exit 3)" || not_ok "exit $crc after its file was replaced"
expect_grep "$TMP/mv.err" "no longer the file" "says the path changed hands"
rm -f "$TMP/mv.bin"

# I/O errors from the fault layer: exit 3 with the path and the error.
GPUFEED_IO_FAULT="read:eio@0" expect_rc 3 "EIO on the first read" gf bench io "$TMP/e.bin" --mode seqread \
	--bs 64K --duration 0.2 --size 4M --json
expect_grep "$err" "Input/output error" "the error is said"
expect_grep "$err" "$TMP/e.bin" "and the file named"
expect_jq "$out" '.status == "error"' "JSON marks the point failed"
[ ! -e "$TMP/e.bin" ] && ok "file removed after the error" || not_ok "file left after an error"
GPUFEED_IO_FAULT="bogus" expect_rc 3 "bad GPUFEED_IO_FAULT" gf bench io "$TMP/e.bin" --mode seqread --duration 0.1
expect_grep "$err" "GPUFEED_IO_FAULT" "names the variable"

# Cold means cold: every byte a cold point counts came from the device (the
# disk's own counters say so), also when the point reads more than the file;
# buffered writes count only what reached the device.  On a real disk:
# tmpfs has no device to count.
DISK=$(mktemp -d "${GPUFEED_DISK_TMP:-/var/tmp}/gpufeed-cold-XXXXXX")
disk_stat() { local f; read -r -a f <"/sys/block/$1/stat"; echo $(( f[$2 - 1] * 512 )); }
cold_point() {	# NAME FIELD ARGS...: $moved = device bytes read/written meanwhile
	local name=$1 field=$2 before; shift 2
	before=$(disk_stat "$dev" "$field")
	expect_rc 0 "$name" gf bench io "$DISK/c.bin" "$@" --size 32M --duration 1 --json
	moved=$(( $(disk_stat "$dev" "$field") - before ))
}
dev=$(gf bench io "$DISK/c.bin" --mode seqread --direct --duration 0.1 --size 4M --json | jq -r .target.device)
if [ -n "$dev" ] && [ -r "/sys/block/$dev/stat" ] && [ "$(stat -f -c %T "$DISK")" != tmpfs ]; then
	cold_point "cold seqread of a file smaller than the point reads" 3 --mode seqread --bs 1M --engine psync
	bytes=$(jq .bytes "$out"); cold_gbps=$(jq .gb_per_s "$out")
	[ "$moved" -ge $(( bytes * 9 / 10 )) ] && ok "cold seqread: the disk read $moved bytes for $bytes counted" ||
		not_ok "cold seqread counted $bytes bytes but the disk read $moved: cached pages were re-read"
	expect_jq "$out" '.redrops > 0 and .span_bytes == 33554432' "it re-dropped its slice between passes"
	cold_point "cold randread" 3 --mode randread --bs 4K --qd 16
	bytes=$(jq .bytes "$out")
	[ "$moved" -ge $(( bytes * 9 / 10 )) ] && ok "cold randread: the disk read $moved bytes for $bytes counted" ||
		not_ok "cold randread counted $bytes bytes but the disk read $moved"
	cold_point "buffered seqwrite" 7 --mode seqwrite --bs 1M --qd 4
	bytes=$(jq .bytes "$out")
	[ "$moved" -ge $(( bytes * 9 / 10 )) ] && ok "buffered seqwrite: the disk wrote $moved bytes for $bytes counted" ||
		not_ok "buffered seqwrite counted $bytes bytes but the disk wrote $moved: rewrites of dirty pages"
	# Readahead keeps a few requests in flight: compare with O_DIRECT at depth 8.
	expect_rc 0 "the same file with O_DIRECT" gf bench io "$DISK/c.bin" --mode seqread --bs 1M --qd 8 \
		--direct --size 32M --duration 1 --json
	direct_gbps=$(jq .gb_per_s "$out")
	awk -v c="$cold_gbps" -v d="$direct_gbps" 'BEGIN { exit !(c <= 3 * d) }' &&
		ok "cold buffered ($cold_gbps GB/s) is not far above O_DIRECT ($direct_gbps GB/s)" ||
		not_ok "cold buffered $cold_gbps GB/s is far above O_DIRECT $direct_gbps GB/s: not cold"
else
	ok "# SKIP cold-cache cases: no disk statistics for $DISK"
fi
rm -rf "$DISK"

# A reader that goes away (SIGPIPE) neither kills the run before it removes
# its file nor passes for success: a write error on stdout is exit 3.
for what in point sweep; do
	if [ $what = point ]; then set -- --mode seqread --duration 0.2; else
		set -- --modes seqread --engines psync:1,uring:4 --cache direct --bs 4K,16K,64K,256K,1M --duration 0.05; fi
	( "$GPUFEED" bench io "$TMP/pipe.bin" "$@" --size 8M --json 2>"$TMP/pipe.err"; echo $? >"$TMP/pipe.rc" ) | true
	[ ! -e "$TMP/pipe.bin" ] && ok "$what: closed stdout: the file is removed" || not_ok "$what: SIGPIPE left $TMP/pipe.bin"
	rm -f "$TMP/pipe.bin"
	[ "$(cat "$TMP/pipe.rc")" = 3 ] && ok "$what: closed stdout exits 3" || not_ok "$what: closed stdout: exit $(cat "$TMP/pipe.rc")"
	expect_grep "$TMP/pipe.err" "Broken pipe" "$what: says why"
done

# Ctrl-C removes the file we created, promptly.
"$GPUFEED" bench io "$TMP/c.bin" --mode seqread --bs 64K --duration 60 --size 8M >/dev/null 2>"$TMP/c.err" &
pid=$!
for _ in $(seq 50); do [ -e "$TMP/c.bin" ] && break; sleep 0.1; done
sleep 0.5
kill -INT $pid
t0=$(date +%s)
wait $pid
crc=$?
[ "$crc" = 3 ] && ok "interrupted run exits 3" || not_ok "interrupted run exit $crc"
[ $(( $(date +%s) - t0 )) -le 5 ] && ok "stops within 5 s" || not_ok "took too long to stop"
[ ! -e "$TMP/c.bin" ] && ok "Ctrl-C removed the file" || not_ok "Ctrl-C left $TMP/c.bin"
grep -q "interrupted" "$TMP/c.err" && ok "says it was interrupted" || not_ok "no interrupted message"

# Stops are honoured everywhere: in the warm-up of a large file (it took 65 s
# after Ctrl-C), and while requests keep coming back short (over 11 minutes).
# stop_within SECS DESC SIGNAL DELAY CMD...: the run ends SECS after the signal, exit 3.
stop_within() {
	local secs=$1 desc=$2 sig=$3 delay=$4 pid t0 crc; shift 4
	"$@" >/dev/null 2>"$TMP/stop.err" &
	pid=$!
	sleep "$delay"
	t0=$(date +%s%N)
	kill -"$sig" $pid
	wait $pid
	crc=$?
	t=$(( ($(date +%s%N) - t0) / 1000000 ))
	[ "$crc" = 3 ] && ok "$desc: exit 3" || not_ok "$desc: exit $crc"
	[ "$t" -le $((secs * 1000)) ] && ok "$desc: stopped ${t} ms after SIG$sig" ||
		not_ok "$desc: took ${t} ms after SIG$sig (more than ${secs} s)"
}
truncate -s 64G "$TMP/sparse.bin"
stop_within 3 "SIGINT in the warm-up of a 64 GiB file" INT 1 \
	"$GPUFEED" bench io "$TMP/sparse.bin" --mode seqread --warm --duration 60 --json
[ -e "$TMP/sparse.bin" ] && ok "an existing file stays" || not_ok "removed an existing file"
rm -f "$TMP/sparse.bin"
GPUFEED_IO_FAULT="read:short=512" stop_within 3 "SIGTERM with injected short reads" TERM 1.5 \
	"$GPUFEED" bench io "$TMP/short.bin" --mode seqread --bs 1M --qd 32 --duration 600 --size 16M
[ ! -e "$TMP/short.bin" ] && ok "the file is removed" || not_ok "$TMP/short.bin left"
t0=$(date +%s)
GPUFEED_IO_FAULT="read:short=512" expect_rc 0 "--duration 1 with injected short reads" gf bench io "$TMP/short.bin" \
	--mode seqread --bs 1M --qd 32 --duration 1 --size 16M --json
[ $(( $(date +%s) - t0 )) -le 5 ] && ok "ends within its duration and a second" || not_ok "took $(( $(date +%s) - t0 )) s"

# Status lines when stderr is not a terminal (fio's --status-interval).
expect_rc 0 "--status-interval 300ms" gf bench io "$TMP/st.bin" --mode seqread --duration 1.5 \
	--status-interval 300ms --size 4M
n=$(grep -c "elapsed .* ETA" "$err")
[ "$n" -ge 2 ] && ok "$n status lines" || not_ok "$n status lines, wanted 2 or more"
expect_grep "$err" "\[1/1\] seqread cold bs=1048576 uring:32: [0-9.]* of 1.5 s, [0-9.]* GB/s now" \
	"a status line names the point, its progress and the current rate"
expect_rc 0 "no status lines without it" gf bench io "$TMP/st.bin" --mode seqread --duration 0.5 --size 4M
expect_no_grep "$err" "ETA" "stderr is quiet"
expect_rc 0 "--quiet silences them" gf bench io "$TMP/st.bin" --mode seqread --duration 0.5 --size 4M \
	--status-interval 100ms --quiet
expect_no_grep "$err" "ETA" "no status line with --quiet"
expect_rc 2 "--status-interval 0" gf bench io "$TMP/st.bin" --mode seqread --status-interval 0
expect_rc 2 "--status-interval nan" gf bench io "$TMP/st.bin" --mode seqread --status-interval nan

# Placement: none when asked; the model from a recording.
expect_rc 0 "--numa-node none" gf bench io "$TMP/n.bin" --mode seqread --duration 0.1 --size 4M \
	--numa-node none --json
expect_jq "$out" '.placement.source == "none" and .placement.numa_node == -1' "no placement"
expect_rc 0 "--numa-node 0" gf bench io "$TMP/n.bin" --mode seqread --duration 0.1 --size 4M \
	--numa-node 0 --json
expect_jq "$out" '.placement.source == "option" and .placement.numa_node == 0 and .placement.buffer_node_actual == 0' \
	"buffers on node 0, checked with move_pages"
expect_rc 4 "--numa-node of a node that does not exist" gf bench io "$TMP/n.bin" --mode seqread \
	--duration 0.1 --size 4M --numa-node 7
expect_grep "$err" "no such NUMA node" "says the node does not exist"
[ ! -e "$TMP/n.bin" ] && ok "nothing created for a bad node" || not_ok "$TMP/n.bin left"
expect_rc 0 "--root takes the model from a recording" gf bench io "$TMP/n.bin" --mode seqread --duration 0.1 \
	--size 4M --root "$FIX/hgx-h100-8gpu/root" --json
expect_jq "$out" '.machine.cpus == 224' "the recording's machine summary"

# O_DIRECT on ramfs falls back with a note (needs root and mount).
mkdir -p "$TMP/ram"
if mount -t ramfs ramfs "$TMP/ram" 2>/dev/null; then
	expect_rc 0 "--direct on ramfs" gf bench io "$TMP/ram/f" --mode seqread --direct --duration 0.1 \
		--size 4M --json
	expect_jq "$out" '.direct_used == false and (.note | test("O_DIRECT refused by ramfs"))' "fallback with a note"
	umount "$TMP/ram"
else
	ok "# SKIP ramfs case: cannot mount here"
fi

# A full disk while laying out the file: exit 3, nothing left behind.
mkdir -p "$TMP/small"
if mount -t tmpfs -o size=8m tmpfs "$TMP/small" 2>/dev/null; then
	expect_rc 3 "file larger than the disk" gf bench io "$TMP/small/f" --mode seqread --size 64M --duration 0.1
	expect_grep "$err" "No space left on device" "says the disk is full"
	[ -z "$(ls -A "$TMP/small")" ] && ok "no file or temp file left" || not_ok "left: $(ls -A "$TMP/small")"
	umount "$TMP/small"
else
	ok "# SKIP full-disk case: cannot mount a tmpfs here"
fi

# The quick sweep: every point runs, under a minute, nothing left behind.
t0=$(date +%s)
expect_rc 0 "--quick sweep" gf bench io "$TMP/q.bin" --quick --json
t=$(( $(date +%s) - t0 ))
[ "$t" -lt 60 ] && ok "--quick took ${t}s (< 60)" || not_ok "--quick took ${t}s"
expect_jq "$out" '(.points | length) == 40 and all(.points[]; .status == "ok")' "40 points, all ok"
expect_jq "$out" '[.points[].cache] | (index("warm") != null and index("buffered") != null and index("cold") != null)' \
	"cold, warm and buffered points"
[ ! -e "$TMP/q.bin" ] && ok "sweep file removed" || not_ok "sweep left $TMP/q.bin"
expect_rc 0 "human table" gf bench io "$TMP/q.bin" --modes randread --bs 4K --engines psync:1 --cache direct \
	--duration 0.1 --size 4M
expect_grep "$out" "randread  direct" "a table row"

# --repeats N: N runs of each point on the shared runner; the figure is the
# median of their GB/s, every run and the summary are in the JSON.
expect_rc 2 "--repeats 0" gf bench io "$TMP/rp.bin" --mode seqread --repeats 0
expect_rc 2 "--repeats 101" gf bench io "$TMP/rp.bin" --mode seqread --repeats 101
expect_rc 0 "--repeats 3 on a sweep of 2 points" gf bench io "$TMP/rp.bin" --modes seqread --bs 4K,64K \
	--engines psync:1 --cache direct --duration 0.2 --size 4M --repeats 3 --status-interval 100ms --json
expect_jq "$out" 'all(.points[]; .repeats == 3 and (.runs | length) == 3 and .summary.n == 3)' "3 runs per point"
expect_jq "$out" 'all(.points[]; ([.runs[].gb_per_s] | sort | .[1]) as $m | .gb_per_s == $m and .summary.median == $m)' \
	"gb_per_s is the median of the runs' GB/s"
expect_jq "$out" 'all(.points[]; .summary.samples == [.runs[].gb_per_s] and all(.runs[]; (.samples_gb_per_s | length) > 0))' \
	"the runs' GB/s and their per-interval samples"
expect_jq "$out" 'all(.points[]; .summary.unit == "GB/s" and .summary.iqr >= 0)' "the summary's unit and spread"
# Progress lines come from the runner: the point, the run, elapsed and ETA.
expect_grep "$err" "gpufeed bench io: \[1/2\] seqread direct bs=4096 psync:1: run 2 of 3, [0-9.]* of 0.2 s, .*ETA" \
	"a status line names the point and the run"
expect_grep "$err" "\[2/2\] seqread direct bs=65536 psync:1: .* elapsed [0-9.]* s, ETA [0-9.]* s" "and the next point"
[ ! -e "$TMP/rp.bin" ] && ok "--repeats: file removed" || not_ok "--repeats left $TMP/rp.bin"
expect_rc 0 "human table with --repeats 2" gf bench io "$TMP/rp.bin" --mode seqread --duration 0.1 --size 4M --repeats 2
expect_grep "$out" "median of 2 runs" "the table says what GB/s is"

# Ctrl-C mid-sweep: the points that ran are written, the one in progress
# is "interrupted", those not reached "not run (interrupted)"; the file goes; exit 3.
"$GPUFEED" bench io "$TMP/cs.bin" --modes seqread --bs 4K,8K,16K --engines psync:1 --cache direct \
	--duration 2 --size 4M --status-interval 100ms --json >"$TMP/cs.json" 2>"$TMP/cs.err" &
pid=$!
# Stopped once the second point reports (the runner's in-point lines).
for _ in $(seq 200); do grep -q '\[2/3\]' "$TMP/cs.err" && break; sleep 0.05; done
kill -INT $pid
wait $pid
crc=$?
[ "$crc" = 3 ] && ok "interrupted sweep exits 3" || not_ok "interrupted sweep exit $crc"
[ ! -e "$TMP/cs.bin" ] && ok "interrupted sweep removed its file" || not_ok "interrupted sweep left $TMP/cs.bin"
expect_grep "$TMP/cs.err" "interrupted; removed $TMP/cs.bin" "says it was interrupted and removed the file"
expect_jq "$TMP/cs.json" '.points[0].status == "ok" and .points[1].error == "interrupted"' \
	"the first point ran, the second was interrupted"
expect_jq "$TMP/cs.json" '.points[2].status == "error" and .points[2].error == "not run (interrupted)" and .points[2].bs == 16384' \
	"the point not reached is marked"

finish
