#!/usr/bin/env bash
# Storage to GPU memory on a lent GPU machine, in ONE invocation (issue 10's
# evidence: the bounce path at >= 0.9x the slower of the disk's O_DIRECT
# read rate and the pinned host-to-device rate, measured in the same run,
# the naive path beside it, cuFile labelled compatibility mode).
#   bench/compare-io-gpu.sh OUTDIR [RUNS]      RUNS default 5
# Needs build/gpufeed (and build/gpu/xfer_check) carried from the build
# machine; python3 (no jq, no fio).  Environment:
#   GPUFEED        the binary (default build/gpufeed)
#   XFER_DIR       where the test file goes, on the local disk (default
#                  /var/tmp; never OUTDIR: the file must not come back)
#   XFER_SIZE_MB   its size (default 4096, shrunk to a third of the free space)
#   GPU            NVML index (default 0)
#   CUFILE_VM_UDEV 1: first run bench/cufile-vm-udev.sh (a VM without udevd,
#                  where cuFile otherwise refuses every file; see there)
# Every figure's raw JSON lands in OUTDIR; summary.txt holds the verdict.
# Cold reads: O_DIRECT bypasses the page cache (bench io --direct, bounce,
# gds); the naive path reads through it, so bench io-gpu drops the file's
# pages (posix_fadvise DONTNEED) before every sample, and this script also
# drops the whole cache (drop_caches) before each run when it may.
# The bounce path runs triple-buffered with 8 reads of 1 MiB per 8 MiB
# chunk: 24 O_DIRECT reads in flight, near bench io's queue depth of 32.
set -u
out=${1:?usage: bench/compare-io-gpu.sh OUTDIR [RUNS]}
runs=${2:-5}
gf=${GPUFEED:-build/gpufeed}
gpu=${GPU:-0}
dir=${XFER_DIR:-/var/tmp}
mkdir -p "$out" || exit 2
log="$out/log.txt"
exec > >(tee -a "$log") 2>&1
say() { printf '%s %s\n' "$(date -u +%H:%M:%S)" "$*"; }

[ -x "$gf" ] || { say "no $gf"; exit 2; }
command -v python3 >/dev/null || { say "python3 needed"; exit 2; }
{
	uname -a; nproc; free -g; nvidia-smi -L 2>&1; nvidia-smi --query-gpu=name,pci.bus_id,pcie.link.gen.current,pcie.link.width.current --format=csv 2>&1
	lsmod 2>/dev/null | grep -i nvidia_fs || echo "nvidia-fs: not loaded (cuFile runs in compatibility mode)"
	df -h "$dir"; findmnt -T "$dir" 2>&1
	lsblk -o NAME,SIZE,ROTA,MODEL,SCHED 2>&1
} > "$out/machine.txt"

if [ "${CUFILE_VM_UDEV:-0}" = 1 ]; then
	bash "$(dirname "$0")/cufile-vm-udev.sh" "$out" "$dir" || say "cufile-vm-udev.sh failed: gds may be refused"
fi
free_mb=$(df -Pm "$dir" | awk 'NR == 2 { print $4 }')
size_mb=${XFER_SIZE_MB:-4096}
[ -n "$free_mb" ] && [ "$size_mb" -gt $((free_mb / 3)) ] && size_mb=$((free_mb / 3))
file="$dir/gpufeed-io-gpu.$$.bin"
trap 'rm -f "$file"' EXIT
say "writing $file: $size_mb MiB"
python3 "$(dirname "$0")/write-test-file.py" "$file" "$size_mb" || exit 2

check=$(dirname "$gf")/gpu/xfer_check
if [ -x "$check" ]; then
	say "correctness: $check (256 MiB + an unaligned tail, every byte)"
	"$check" "$gpu" "$dir" 256 > "$out/xfer_check.txt" 2>&1; echo "exit $?" >> "$out/xfer_check.txt"
	cat "$out/xfer_check.txt"
fi

drop() {
	sync
	if echo 3 > /proc/sys/vm/drop_caches 2>/dev/null; then echo "drop_caches"; else echo "fadvise-only"; fi
}

for r in $(seq 1 "$runs"); do
	say "run $r/$runs: disk O_DIRECT (bench io)"
	"$gf" bench io "$file" --mode seqread --bs 1M --qd 32 --direct --duration 3 --json --quiet \
		> "$out/io.$r.json" 2> "$out/io.$r.err"
	say "run $r/$runs: pinned host-to-device (bench h2d)"
	"$gf" bench h2d --gpu "$gpu" --size 512M --repeats 3 --json --quiet \
		> "$out/h2d.$r.json" 2> "$out/h2d.$r.err"
	echo "run $r: $(drop)" >> "$out/cache.txt"
	say "run $r/$runs: bench io-gpu --gpu $gpu (bounce, naive, gds)"
	"$gf" bench io-gpu --gpu "$gpu" --path bounce,naive,gds --depth 3 --reads 8 --repeats 1 --json --quiet "$file" \
		> "$out/io-gpu.$r.json" 2> "$out/io-gpu.$r.err"
	echo "exit $?" >> "$out/io-gpu.$r.err"
done

python3 - "$out" "$runs" <<'PY' | tee "$out/summary.txt"
import json, os, statistics, sys
out, runs = sys.argv[1], int(sys.argv[2])
def load(name):
    try:
        with open(os.path.join(out, name)) as f: return json.load(f)
    except Exception as e: return None
def disk_gbs(d):
    # bench io --mode (gpufeed-bench-io/3): the point's GB/s at the top level
    return d.get("gb_per_s") if d and isinstance(d.get("gb_per_s"), (int, float)) else None
def h2d_gbs(d):
    if not d: return None
    for p in d.get("points", []):
        if p.get("direction") == "host_to_device" and p.get("memory") == "pinned" and p.get("status", "ok") == "ok":
            return p.get("median")
    return None
rows, ratios, naive_r, gds_r, inrun = [], [], [], [], []
compat = None
for r in range(1, runs + 1):
    disk, h2d, g = disk_gbs(load(f"io.{r}.json")), h2d_gbs(load(f"h2d.{r}.json")), load(f"io-gpu.{r}.json")
    pts = {p["name"]: p for p in (g or {}).get("points", [])}
    med = lambda n: (pts.get(n, {}).get("gbs") or {}).get("median")
    b, n, s = med("bounce"), med("naive"), med("gds")
    if "gds" in pts and "compat_mode" in pts["gds"]: compat = pts["gds"]["compat_mode"]
    lim = min(disk, h2d) if disk and h2d else None
    rows.append((r, disk, h2d, b, n, s, lim, med("disk O_DIRECT read"), med("pinned host-to-device")))
    if b and lim: ratios.append(b / lim)
    if n and lim: naive_r.append(n / lim)
    if s and lim: gds_r.append(s / lim)
    if g and g.get("limit_gbs") and b: inrun.append(b / g["limit_gbs"])
f = lambda v: "-" if v is None else f"{v:.2f}"
print("GB/s per run (1 GB = 1e9 B); limit = min(bench io O_DIRECT, bench h2d pinned HtoD)")
print("run  disk_odirect  h2d_pinned  bounce  naive  gds   limit  | in-run disk  in-run h2d")
for r in rows: print(f"{r[0]:>3}  {f(r[1]):>12}  {f(r[2]):>10}  {f(r[3]):>6}  {f(r[4]):>5}  {f(r[5]):>4}  {f(r[6]):>5}  | {f(r[7]):>11}  {f(r[8]):>10}")
problems = []
for r in rows:
    disk = r[1]
    for name, v in (("bounce", r[3]), ("naive", r[4]), ("gds", r[5])):
        if v and disk and v > 1.1 * disk:
            problems.append(f"run {r[0]}: {name} {v:.2f} GB/s above the disk's O_DIRECT {disk:.2f}: a cache served it")
if ratios:
    m = statistics.median(ratios)
    print(f"\nbounce / limit: median {m:.3f} over {len(ratios)} runs (each: {', '.join(f'{x:.3f}' for x in ratios)}) -> {'PASS' if m >= 0.9 else 'FAIL'} (>= 0.9)")
else:
    print("\nbounce / limit: no figure -> FAIL")
if inrun: print(f"bounce / bench io-gpu's own in-run limit: median {statistics.median(inrun):.3f}")
if naive_r: print(f"naive  / limit: median {statistics.median(naive_r):.3f}")
if gds_r: print(f"gds    / limit: median {statistics.median(gds_r):.3f}" + (" (cuFile compatibility mode: no nvidia-fs, POSIX reads plus a copy inside cuFile)" if compat else " (GDS proper)" if compat is False else ""))
for p in problems: print("PROBLEM:", p)
PY
say "done: $out/summary.txt"
