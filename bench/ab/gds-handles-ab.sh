#!/usr/bin/env bash
# A/B of the cuFile path of `bench io-gpu` (--path gds): two gpufeed
# binaries, before/after a change to src/xfer/gds.c (one batch handle
# draining between waves, then two handles), interleaved ABBA, cold: the
# page cache dropped before every run.  Each round also takes the disk's
# O_DIRECT rate with `bench io`, the figure gds cannot beat.  Used for
# bench/results/*-gds-handles-ab/.  On a VM without udevd run
# bench/cufile-vm-udev.sh first (cuFile refuses every file otherwise).
#
#   bench/ab/gds-handles-ab.sh OLD NEW OUTDIR [ROUNDS] [DIR] [SIZE_MB]
#     (ROUNDS default 6, DIR /var/tmp, SIZE_MB 4096)
# OUTDIR gets every run's JSON (ROUND.old.json, ROUND.new.json,
# ROUND.disk.json) and summary.txt: per round the GB/s and CPU seconds per
# GB of each binary, then each one's median.  Needs python3 (no jq).
set -u
old=${1:?usage: gds-handles-ab.sh OLD NEW OUTDIR [ROUNDS] [DIR] [SIZE_MB]}
new=${2:?usage: gds-handles-ab.sh OLD NEW OUTDIR [ROUNDS] [DIR] [SIZE_MB]}
out=${3:?usage: gds-handles-ab.sh OLD NEW OUTDIR [ROUNDS] [DIR] [SIZE_MB]}
rounds=${4:-6} dir=${5:-/var/tmp} size_mb=${6:-4096}
for b in "$old" "$new"; do [ -x "$b" ] || { echo "$0: $b is not there" >&2; exit 2; }; done
mkdir -p "$out" || exit 2
file=$dir/gpufeed-gds-ab.$$.bin
trap 'rm -f "$file"' EXIT
python3 "$(dirname "$0")/../write-test-file.py" "$file" "$size_mb" || exit 2
drop() { sync; echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || echo "$0: cannot drop the page cache" >&2; }
gds() {	# gds NAME BINARY ROUND
	drop
	"$2" bench io-gpu --gpu 0 --path gds --depth 3 --reads 8 --repeats 1 --json --quiet "$file" \
		>"$out/$3.$1.json" 2>"$out/$3.$1.err"
	echo "exit $?" >>"$out/$3.$1.err"
}
for r in $(seq 1 "$rounds"); do
	drop
	"$new" bench io "$file" --mode seqread --bs 1M --qd 32 --direct --duration 3 --json --quiet \
		>"$out/$r.disk.json" 2>/dev/null
	if [ $((r % 2)) = 1 ]; then gds old "$old" "$r"; gds new "$new" "$r"
	else gds new "$new" "$r"; gds old "$old" "$r"; fi
	echo "round $r of $rounds done" >&2
done
python3 - "$out" "$rounds" <<'PY' | tee "$out/summary.txt"
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def load(name):
    try:
        return json.load(open(f"{out}/{name}"))
    except (OSError, ValueError):
        return None
def gds(d):
    p = next((p for p in (d or {}).get("points", []) if p.get("name") == "gds"), None)
    if not p:
        return None
    cpu = p.get("cpu_s_per_gb") or None   # one per sample
    return ((p.get("gbs") or {}).get("median"), cpu and statistics.median(cpu), p.get("api"), p.get("compat_mode"))
col = {"old": [], "new": [], "disk": []}
print("round  disk_odirect  old_gds  new_gds  old_cpu  new_cpu   (GB/s, 1e9 B/s, cold; CPU s per GB)")
for r in range(1, rounds + 1):
    disk = (load(f"{r}.disk.json") or {}).get("gb_per_s")
    a, b = gds(load(f"{r}.old.json")), gds(load(f"{r}.new.json"))
    f = lambda v: f"{v:.3f}" if isinstance(v, (int, float)) else "-"
    print(f"{r:>5}  {f(disk):>12}  {f(a and a[0]):>7}  {f(b and b[0]):>7}  {f(a and a[1]):>7}  {f(b and b[1]):>7}")
    for k, v in (("disk", disk), ("old", a and a[0]), ("new", b and b[0])):
        if isinstance(v, (int, float)):
            col[k].append(v)
for k, v in col.items():
    if v:
        print(f"{k:>5}: median {statistics.median(v):.3f} GB/s over {len(v)} runs, {min(v):.3f}-{max(v):.3f}")
if col["old"] and col["new"]:
    print(f"new / old: {statistics.median(col['new']) / statistics.median(col['old']):.3f}")
last = gds(load(f"{rounds}.new.json"))
if last:
    print(f"api {last[2]}, compat_mode {last[3]}")
PY
