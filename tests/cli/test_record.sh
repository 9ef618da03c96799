#!/usr/bin/env bash
# gpufeed record: recordings replay exactly, are written atomically, and a
# failure (full disk, bad target) leaves nothing behind.
. "$(dirname "$0")/lib.sh"
HGX=$FIX/hgx-h100-8gpu/root
# Mounts made below are undone whatever happens (rm -rf would cross them).
trap 'awk -v t="$TMP/" "index(\$2, t) == 1 { print \$2 }" /proc/mounts | sort -r | xargs -r -n1 umount; rm -rf "$TMP"' EXIT

strip() { jq 'del(.machine.source, .machine.nvml_note, .generated_at)' "$1"; }

# This machine: record, then the replay equals the live model.
expect_rc 0 "record this machine" "$GPUFEED" record "$TMP/live"
expect_grep "$out" "Recorded" "summary line"
[ -f "$TMP/live/gpufeed-recording.json" ] && ok "manifest written" || not_ok "no manifest"
# The process facts the audit reads (ctr.memlock, nccl.*), and only the kept variables.
M=$TMP/live/gpufeed-recording.json
[ "$(jq '.euid' "$M")" = "$(id -u)" ] && ok "manifest: euid" || not_ok "manifest: euid $(jq .euid "$M")"
want_ml=$(ulimit -S -l); [ "$want_ml" = unlimited ] && want_ml=-1 || want_ml=$((want_ml * 1024))
[ "$(jq '.rlimits.memlock.soft' "$M")" = "$want_ml" ] && ok "manifest: rlimits.memlock" || not_ok "manifest: memlock $(jq -c .rlimits "$M")"
want_nf=$(ulimit -S -n); [ "$want_nf" = unlimited ] && want_nf=-1
[ "$(jq '.rlimits.nofile.soft' "$M")" = "$want_nf" ] && ok "manifest: rlimits.nofile" || not_ok "manifest: nofile $(jq -c .rlimits "$M")"
NCCL_IB_HCA='=mlx5_0' NVIDIA_API_KEY=hunter2 HOME_SECRET=x "$GPUFEED" record "$TMP/envrec" >/dev/null 2>&1
[ "$(jq -r '.environ.NCCL_IB_HCA' "$TMP/envrec/gpufeed-recording.json")" = "=mlx5_0" ] && ok "manifest: NCCL_* kept" || not_ok "manifest: NCCL_IB_HCA not kept"
jq -e '.environ | has("NVIDIA_API_KEY") or has("HOME_SECRET") or has("PATH") or has("HOME")' "$TMP/envrec/gpufeed-recording.json" >/dev/null \
	&& not_ok "manifest: a secret or an unread variable was kept" || ok "manifest: secrets and other variables left out"
[ -L "$TMP/live/proc/self" ] && ok "/proc/self kept as a link" || not_ok "/proc/self is not a link"
[ -n "$(find "$TMP/live/sys/bus/pci/devices" -maxdepth 1 -type l)" ] && ok "sysfs links kept" || not_ok "no PCI links recorded"
"$GPUFEED" topo --json >"$TMP/a.json" 2>/dev/null
"$GPUFEED" topo --json --root "$TMP/live" >"$TMP/b.json" 2>/dev/null
if diff <(strip "$TMP/a.json") <(strip "$TMP/b.json") >/dev/null; then ok "replay equals live"; else
	not_ok "replay differs from live"; diff <(strip "$TMP/a.json") <(strip "$TMP/b.json") | head -20 | sed 's/^/#   /'; fi
ls "$TMP" | grep -q '\.tmp-' && not_ok "a temp directory was left" || ok "no temp directory left"
# Every check says on the recording what it says here (record ran them all).
statuses() { "$GPUFEED" check --all --json --fail-on never "$@" 2>/dev/null | jq -r '.results[] | "\(.id) \(.subject) \(.status)"'; }
for p in training inference; do
	if diff <(statuses --profile $p) <(statuses --profile $p --root "$TMP/live") >"$TMP/d.txt"; then
		ok "check --profile $p: the recording's results equal this machine's"
	else not_ok "check --profile $p differs on the recording"; head -6 "$TMP/d.txt" | sed 's/^/#   /'; fi
done
# Of the processes, PID 1, record's own (proc/self) and the daemons the checks look for.
self=$(readlink "$TMP/live/proc/self")
others=$(cd "$TMP/live/proc" && for d in [0-9]*; do
	[ "$d" = 1 ] || [ "$d" = "$self" ] || grep -qE '^(irqbalance|nvidia-cuda-mps|nv-fabricmanage|nvidia-persiste)' "$d/comm" 2>/dev/null || echo "$d"
done)
[ -z "$others" ] && ok "no other process is recorded" || not_ok "processes recorded: $others"

# Re-record a recording: same model (NVML facts included).
expect_rc 0 "record --root a fixture" "$GPUFEED" record --root "$HGX" "$TMP/hgx"
[ -f "$TMP/hgx/nvml.json" ] && ok "nvml.json carried over" || not_ok "nvml.json missing"
"$GPUFEED" topo --json --root "$HGX" >"$TMP/a.json" 2>/dev/null
"$GPUFEED" topo --json --root "$TMP/hgx" >"$TMP/b.json" 2>/dev/null
diff <(strip "$TMP/a.json") <(strip "$TMP/b.json") >/dev/null && ok "re-recording replays the same" || not_ok "re-recording differs"
# Every fixture recorded again: every check the same, the environment and
# device nodes of its manifest included.
for m in "$FIX"/*/; do
	m=$(basename "$m")
	"$GPUFEED" record --quiet --root "$FIX/$m/root" "$TMP/again-$m" || { not_ok "re-recording $m failed"; continue; }
	for p in training inference; do
		diff <(statuses --profile $p --root "$FIX/$m/root") <(statuses --profile $p --root "$TMP/again-$m") \
			>"$TMP/d.txt" && ok "re-recording $m: check --profile $p the same" ||
			{ not_ok "re-recording $m: check --profile $p differs"; head -6 "$TMP/d.txt" | sed 's/^/#   /'; }
	done
done
# Each config output (nccl-topo: the PCI subsystem ids the model carries)
# from the re-recording equals the source's.
hgx_abs=$(realpath "$HGX")
for what in nccl-topo kubelet slurm labels; do
	"$GPUFEED" config "$what" --root "$hgx_abs" 2>&1 | sed "s|$hgx_abs|ROOT|g" >"$TMP/a.cfg"
	"$GPUFEED" config "$what" --root "$TMP/hgx" 2>&1 | sed "s|$TMP/hgx|ROOT|g" >"$TMP/b.cfg"
	if [ -s "$TMP/a.cfg" ] && diff "$TMP/a.cfg" "$TMP/b.cfg" >/dev/null; then ok "re-recording: config $what the same"
	else not_ok "re-recording: config $what differs"; diff "$TMP/a.cfg" "$TMP/b.cfg" | head -6 | sed 's/^/#   /'; fi
done

# Existing targets.
expect_rc 3 "record into a non-empty directory" "$GPUFEED" record --root "$HGX" "$TMP/hgx"
expect_grep "$err" "use --force" "the way out is given"
expect_rc 0 "record --force replaces it" "$GPUFEED" record --force --root "$HGX" "$TMP/hgx"
mkdir "$TMP/empty"
expect_rc 0 "record into an empty directory" "$GPUFEED" record --root "$HGX" "$TMP/empty"
expect_rc 3 "record onto a file" "$GPUFEED" record "$TMP/empty/nvml.json"
expect_rc 3 "record under a missing parent" "$GPUFEED" record "$TMP/no/such/dir"
expect_grep "$err" "$TMP/no/such/dir" "the target is named"
expect_rc 2 "record without DIR" "$GPUFEED" record
expect_rc 4 "record --nvml=require without NVML" "$GPUFEED" record --nvml=require --root "$FIX/dual-8gpu-pcie-switch/root" "$TMP/req"
[ -e "$TMP/req" ] && not_ok "a failed recording left $TMP/req" || ok "nothing left after refusal"
expect_rc 0 "record --json" "$GPUFEED" record --json --root "$HGX" "$TMP/j"
expect_jq "$out" '.schema == "gpufeed-record/2" and .gpus == 8 and .nvml == true and .nvml_note == null and .format == "dir" and (.gpufeed_version | type) == "string" and (.generated_at | test("Z$"))' "JSON summary, stamped"
weird=$(printf '%s/we"ird\\\xff' "$TMP")
expect_rc 0 "record --json into an odd directory name" "$GPUFEED" record --json --root "$FIX/ci-vm/root" "$weird"
expect_jq "$out" '.dir | endswith("we\"ird\\\ufffd")' "the name is escaped, the bad byte replaced"
expect_rc 0 "record DIR/ (trailing slash)" "$GPUFEED" record --root "$FIX/ci-vm/root" "$TMP/slash/"
[ -f "$TMP/slash/gpufeed-recording.json" ] && ok "recorded into DIR" || not_ok "trailing slash broke it"
mkdir -p "$TMP/mine" && echo precious > "$TMP/mine/notes.txt"
expect_rc 3 "record --force never replaces a directory that is not a recording" "$GPUFEED" record --force --root "$FIX/ci-vm/root" "$TMP/mine"
expect_grep "$err" "not a gpufeed recording" "and says why"
[ "$(cat "$TMP/mine/notes.txt")" = precious ] && ok "its content is untouched" || not_ok "content changed"
cp -a "$FIX/l40s-4gpu-224/root" "$TMP/l40s"
echo zero > "$TMP/l40s/sys/devices/pci0000:20/0000:20:01.1/0000:21:00.0/numa_node"
expect_rc 0 "record from a recording with a malformed file" "$GPUFEED" record --root "$TMP/l40s" "$TMP/l40s-rec"
expect_grep "$err" "warning: .*0000:21:00.0/numa_node: not an integer: 'zero'" "the warning is printed"
expect_rc 0 "record --quiet" "$GPUFEED" record --quiet --root "$TMP/l40s" "$TMP/l40s-rec2"
[ -s "$err" ] && not_ok "--quiet printed: $(head -1 "$err")" || ok "--quiet prints nothing on stderr"

# A recording as one .tar.gz: written atomically, read by --root as the directory is.
expect_rc 0 "record FILE.tar.gz" "$GPUFEED" record --root "$HGX" "$TMP/hgx.tar.gz"
[ -f "$TMP/hgx.tar.gz" ] && gzip -t "$TMP/hgx.tar.gz" && ok "one gzip file" || not_ok "no valid .tar.gz"
tar -tzf "$TMP/hgx.tar.gz" | grep -q '^hgx/gpufeed-recording.json$' && ok "tar reads it; entries under hgx/" ||
	not_ok "tar cannot list it"
ls "$TMP" | grep -q 'hgx.tar.gz.tmp-' && not_ok "a temp file was left" || ok "no temp file left"
for cmd in topo report; do
	"$GPUFEED" $cmd --root "$TMP/hgx" >"$TMP/dir.txt" 2>&1
	"$GPUFEED" $cmd --root "$TMP/hgx.tar.gz" >"$TMP/tgz.txt" 2>&1
	diff "$TMP/dir.txt" "$TMP/tgz.txt" >/dev/null && ok "$cmd --root FILE.tar.gz equals the directory" ||
		not_ok "$cmd --root FILE.tar.gz differs"
done
"$GPUFEED" topo --json --root "$TMP/hgx" >"$TMP/a.json" 2>/dev/null
"$GPUFEED" topo --json --root "$TMP/hgx.tar.gz" >"$TMP/b.json" 2>/dev/null
diff <(strip "$TMP/a.json") <(strip "$TMP/b.json") >/dev/null && ok "topo --json round trip dir -> tar.gz" ||
	not_ok "topo --json differs after tar.gz"
expect_jq "$TMP/b.json" ".machine.source == \"$TMP/hgx.tar.gz\"" "the source is the archive"
expect_rc 0 "record --root FILE.tar.gz DIR (re-record from an archive)" "$GPUFEED" record --root "$TMP/hgx.tar.gz" "$TMP/from-tgz"
"$GPUFEED" topo --json --root "$TMP/from-tgz" >"$TMP/c.json" 2>/dev/null
diff <(strip "$TMP/a.json") <(strip "$TMP/c.json") >/dev/null && ok "re-recorded from the archive, the same" || not_ok "differs"
expect_rc 0 "record --format tar.gz" "$GPUFEED" record --format tar.gz --root "$FIX/ci-vm/root" "$TMP/ci.rec"
gzip -t "$TMP/ci.rec" 2>/dev/null && ok "--format tar.gz writes an archive whatever the name" || not_ok "not an archive"
expect_rc 2 "record --format zip" "$GPUFEED" record --format zip "$TMP/x"
expect_rc 3 "record over an existing archive without --force" "$GPUFEED" record --root "$HGX" "$TMP/hgx.tar.gz"
expect_grep "$err" "use --force" "the way out is given"
expect_rc 0 "record --force over an archive" "$GPUFEED" record --force --root "$FIX/ci-vm/root" "$TMP/hgx.tar.gz"
echo "my notes" >"$TMP/notes.tar.gz"
expect_rc 3 "record --force never replaces a file that is not an archive" "$GPUFEED" record --force --root "$HGX" "$TMP/notes.tar.gz"
[ "$(cat "$TMP/notes.tar.gz")" = "my notes" ] && ok "the file is kept" || not_ok "the file was replaced"
mkdir -p "$TMP/thesis" && echo draft >"$TMP/thesis/thesis.tex" && tar -C "$TMP" -czf "$TMP/thesis.tar.gz" thesis
expect_rc 3 "record --force never replaces a .tar.gz that is not a recording" "$GPUFEED" record --force --root "$FIX/ci-vm/root" "$TMP/thesis.tar.gz"
tar -tzf "$TMP/thesis.tar.gz" | grep -q thesis.tex && ok "the archive is kept" || not_ok "the archive was replaced"
# Neither a symlink nor a device node is ever replaced by a recording.
ln -s hgx.tar.gz "$TMP/link.tar.gz"
expect_rc 3 "record --force onto a symlink to a recording" "$GPUFEED" record --force --root "$HGX" "$TMP/link.tar.gz"
[ -L "$TMP/link.tar.gz" ] && ok "the symlink is kept" || not_ok "the symlink was replaced"
ln -s "$TMP/j" "$TMP/linkdir"
expect_rc 3 "record --force onto a symlink to a recording directory" "$GPUFEED" record --force --root "$HGX" "$TMP/linkdir"
[ -L "$TMP/linkdir" ] && ok "the directory symlink is kept" || not_ok "the directory symlink was replaced"
if mknod "$TMP/null.tar.gz" c 1 3 2>/dev/null; then
	expect_rc 3 "record --force onto a character device" "$GPUFEED" record --force --root "$HGX" "$TMP/null.tar.gz"
	[ -c "$TMP/null.tar.gz" ] && ok "the device is kept" || not_ok "the device was replaced"
fi
expect_rc 3 "--root a file that is no recording" "$GPUFEED" topo --root "$TMP/notes.tar.gz"
expect_grep "$err" "notes.tar.gz: not a directory or a .tar.gz" "says what a root must be"
# Cut in half (the file was last written from the small ci-vm recording).
head -c $(($(stat -c %s "$TMP/hgx.tar.gz") / 2)) "$TMP/hgx.tar.gz" >"$TMP/cut.tar.gz"
expect_rc 3 "--root a truncated archive" "$GPUFEED" topo --root "$TMP/cut.tar.gz"
expect_grep "$err" "cut.tar.gz" "the archive is named"
printf '\037\213garbage' >"$TMP/garbage.tar.gz"
expect_rc 3 "--root a damaged gzip" "$GPUFEED" topo --root "$TMP/garbage.tar.gz"
expect_grep "$err" "garbage.tar.gz" "the archive is named"
# A link, then a file through it (made with Python's tarfile when there is one).
python3 - "$TMP/evil.tar.gz" <<'PY' 2>/dev/null && {
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w:gz") as t:
    i = tarfile.TarInfo("up"); i.type = tarfile.SYMTYPE; i.linkname = "/"; t.addfile(i)
    data = b"pwned\n"; i = tarfile.TarInfo("up/tmp/gpufeed-pwned"); i.size = len(data); t.addfile(i, io.BytesIO(data))
PY
	expect_rc 3 "--root an archive writing through a link" "$GPUFEED" topo --root "$TMP/evil.tar.gz"
	[ -e /tmp/gpufeed-pwned ] && not_ok "it wrote outside" || ok "nothing written outside"
}

# The unpacked copies of process $1 (its pid is in their names).
copies_of() { compgen -G "/dev/shm/gpufeed-unpack-*-$1-*"; compgen -G "${TMPDIR:-/tmp}/gpufeed-unpack-*-$1-*"; }
# run_bg CMD...: as run, and $pid is the process's.
run_bg() {
	out=$TMP/out.$count err=$TMP/err.$count
	"$@" >"$out" 2>"$err" & pid=$!
	wait $pid; rc=$?
}
run_bg "$GPUFEED" topo --root "$TMP/hgx.tar.gz"
[ "$rc" = 0 ] && [ -z "$(copies_of $pid)" ] && ok "the unpacked copy is removed at the end" ||
	not_ok "exit $rc, left: $(copies_of $pid)"
# What an archive may expand to is bounded, and a refused one leaves no copy:
# 300 nested directories once unpacked and stayed (deeper than the remover went).
python3 - "$TMP/deep.tar.gz" <<'PY' && {
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w:gz", format=tarfile.GNU_FORMAT) as t:
    i = tarfile.TarInfo("deep/" + "d/" * 300 + "f"); i.size = 1; t.addfile(i, io.BytesIO(b"x"))
PY
	run_bg "$GPUFEED" topo --root "$TMP/deep.tar.gz"
	[ "$rc" = 3 ] && ok "--root an archive nested 300 deep: exit 3" || not_ok "nested 300 deep: exit $rc"
	expect_grep "$err" "deep.tar.gz: an entry is nested deeper than 64 levels" "names the archive and the limit"
	[ -z "$(copies_of $pid)" ] && ok "and leaves no unpacked copy" || not_ok "left: $(copies_of $pid)"
}
# A gzip cut in its trailer (CRC, length), or followed by anything, is refused.
size=$(stat -c %s "$TMP/hgx.tar.gz")
head -c $((size - 4)) "$TMP/hgx.tar.gz" >"$TMP/trailer.tar.gz"
run_bg "$GPUFEED" topo --root "$TMP/trailer.tar.gz"
[ "$rc" = 3 ] && ok "--root an archive cut in its gzip trailer: exit 3" || not_ok "cut trailer: exit $rc"
expect_grep "$err" "trailer.tar.gz: truncated" "says it is truncated"
[ -z "$(copies_of $pid)" ] && ok "and leaves no unpacked copy" || not_ok "left: $(copies_of $pid)"
{ cat "$TMP/hgx.tar.gz"; echo garbage; } >"$TMP/trailing.tar.gz"
expect_rc 3 "--root an archive followed by garbage" "$GPUFEED" topo --root "$TMP/trailing.tar.gz"
expect_grep "$err" "trailing.tar.gz: data after the end of the gzip stream" "says what follows it"

# SIGINT, SIGTERM, SIGHUP while a command works on an unpacked archive (with
# and without -o FILE, which has its own handler): the copy goes with it.
# The command is stopped once its copy is seen, then signalled; env gives it
# the default SIGINT, which a background job of a script would ignore.
for sig in INT TERM HUP; do
	for o in "" "-o $TMP/sig.txt"; do
		how="SIG$sig${o:+ with -o}"
		env --default-signal=INT "$GPUFEED" check --root "$TMP/hgx.tar.gz" $o >/dev/null 2>&1 & pid=$!
		seen=
		while kill -0 $pid 2>/dev/null; do
			if [ -n "$(copies_of $pid)" ]; then kill -STOP $pid; seen=$(copies_of $pid); break; fi
		done
		if [ -z "$seen" ]; then
			wait $pid
			ok "# SKIP $how: check ended before its copy was seen"
			continue
		fi
		kill -$sig $pid; kill -CONT $pid
		{ wait $pid; } 2>/dev/null; rc=$?
		[ "$rc" -gt 128 ] && ok "$how ends check (exit $rc)" || not_ok "$how: exit $rc"
		[ -z "$(copies_of $pid)" ] && [ ! -e "$seen" ] && ok "$how: the unpacked copy is removed" ||
			not_ok "$how: left $seen"
	done
done
ls "$TMP" | grep -q 'sig.txt' && not_ok "-o left a file" || ok "-o left no file"

# Races on DIR (deterministic versions in tests/unit/test_record.c).
# Two records into one new DIR: one wins, the other fails; never both exit 0.
"$GPUFEED" record --quiet --root "$HGX" "$TMP/race" 2>"$TMP/race1.err" & p1=$!
"$GPUFEED" record --quiet --root "$HGX" "$TMP/race" 2>"$TMP/race2.err" & p2=$!
wait $p1; r1=$?; wait $p2; r2=$?
[ "$(printf '%s\n' $r1 $r2 | sort | tr '\n' ' ')" = "0 3 " ] && ok "two records into one DIR: one exits 0, one 3" ||
	not_ok "two records into one DIR exited $r1 and $r2"
ls "$TMP" | grep -q 'race\.' && not_ok "a race left $(ls "$TMP" | grep 'race\.')" || ok "no temp or aside directory left"
# A directory made at DIR while record runs is the user's: kept whole.
"$GPUFEED" record --quiet --root "$HGX" "$TMP/data" 2>"$TMP/data.err" & p1=$!
sleep 0.02
if mkdir "$TMP/data" 2>/dev/null; then
	echo precious >"$TMP/data/notes.txt"
	wait $p1; r1=$?
	[ "$r1" = 3 ] && ok "record exits 3 when DIR appears meanwhile" || not_ok "record exited $r1 over a new DIR"
	[ "$(cat "$TMP/data/notes.txt" 2>/dev/null)" = precious ] && ok "the directory made meanwhile is kept" ||
		not_ok "the directory made meanwhile was replaced"
	# Seen at the final swap, or (on a slow machine) already at the start.
	grep -q "appeared while recording\|not a gpufeed recording" "$TMP/data.err" && ok "and says why" ||
		not_ok "no reason given: $(cat "$TMP/data.err")"
else
	wait $p1
	ok "# SKIP record finished before the directory was made"
fi
expect_rc 2 "record with an empty DIR" "$GPUFEED" record ""
expect_grep "$err" "empty" "the empty DIR is named as such"
expect_rc 2 "record --root with an empty SRC" "$GPUFEED" record --root "" "$TMP/emptyroot"
expect_grep "$err" "empty" "the empty --root is named as such"

# --force never deletes across a mount point inside the old recording (a
# tmpfs, and a bind mount of the same file system, which has the same st_dev).
expect_rc 0 "record a recording to replace" "$GPUFEED" record --root "$FIX/ci-vm/root" "$TMP/mnt"
for kind in tmpfs bind; do
	mkdir -p "$TMP/mnt/sys/$kind" "$TMP/$kind-src"
	if [ $kind = tmpfs ]; then m=(mount -t tmpfs -o size=1m tmpfs "$TMP/mnt/sys/$kind");
	else m=(mount --bind "$TMP/$kind-src" "$TMP/mnt/sys/$kind"); fi
	if "${m[@]}" 2>/dev/null; then
		echo precious >"$TMP/mnt/sys/$kind/notes.txt"
		expect_rc 3 "record --force over a recording with a $kind mounted inside" \
			"$GPUFEED" record --force --root "$FIX/ci-vm/root" "$TMP/mnt"
		expect_grep "$err" "mount point" "the mount point is named"
		[ "$(cat "$TMP/mnt/sys/$kind/notes.txt")" = precious ] && ok "what is on the $kind is kept" ||
			not_ok "the $kind was emptied"
		[ -f "$TMP/mnt/gpufeed-recording.json" ] && ok "the old recording is kept whole" || not_ok "old recording damaged"
		umount "$TMP/mnt/sys/$kind"
	else
		ok "# SKIP $kind mount inside a recording: cannot mount here"
	fi
	rmdir "$TMP/mnt/sys/$kind"
done
ls "$TMP" | grep -q 'mnt\.' && not_ok "left $(ls "$TMP" | grep 'mnt\.')" || ok "no temp directory left"
expect_rc 0 "with nothing mounted inside, --force replaces it" "$GPUFEED" record --force --root "$FIX/ci-vm/root" "$TMP/mnt"

# A full disk: a 256 KiB tmpfs (needs root and mount; skipped otherwise).
mkdir -p "$TMP/small"
if mount -t tmpfs -o size=256k tmpfs "$TMP/small" 2>/dev/null; then
	expect_rc 3 "record onto a full disk" "$GPUFEED" record --root "$HGX" "$TMP/small/rec"
	expect_grep "$err" "No space left on device" "ENOSPC is reported"
	[ -z "$(ls -A "$TMP/small")" ] && ok "nothing half-written is left" || { not_ok "left: $(ls -A "$TMP/small")"; }
	umount "$TMP/small"
else
	ok "# SKIP full-disk case: cannot mount a tmpfs here"
fi
finish
