#!/usr/bin/env bash
# The I/O issue's evidence on a lent GPU machine, in one run (device time is
# scarce): bench/compare-fio.sh on the machine's disk (fio built here and
# carried in build-fio/), a --quick sweep, and the machine facts.  Run from
# the repository root with GPUFEED pointing at a binary built here
# (BUILD=build-device make cli) and build-fio/ carried.  Writes at most 8
# files to $OUT (the device tool's limit): the compare output is tarred.
# Touches no GPU state; the test file lives in $DIR (default /tmp) and is
# removed at the end.
set -u
OUT=${OUT:-/tmp/gpufeed-io-evidence}
DIR=${DIR:-/tmp}
RUNS=${RUNS:-5}
DURATION=${DURATION:-10}
SIZE=${SIZE:-8G}
gf=${GPUFEED:-build-device/gpufeed}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log.txt") 2>&1

step() { echo; echo "=== $*"; }

step "machine"
uname -a; nproc; free -g | head -2; "$gf" --version; ldd "$gf"; build-fio/fio --version
findmnt -T "$DIR"; lsblk -o NAME,SIZE,MODEL,ROTA,LOG-SEC,PHY-SEC,SCHED 2>/dev/null
cat /sys/block/vda/queue/{nr_requests,max_sectors_kb,logical_block_size} 2>/dev/null

step "compare-fio ($RUNS runs x ${DURATION}s, $SIZE file in $DIR)"
rm -rf /tmp/cmp-out
bench/compare-fio.sh --gpufeed "$gf" --fio build-fio/fio --runs "$RUNS" --duration "$DURATION" \
	--size "$SIZE" --out /tmp/cmp-out "$DIR"
echo "compare-fio rc=$?"
cp /tmp/cmp-out/summary.txt "$OUT/summary.txt" 2>/dev/null
tar czf "$OUT/compare-fio.tar.gz" -C /tmp cmp-out

step "bench io --quick"
"$gf" bench io "$DIR/gpufeed-quick.bin" --quick > "$OUT/quick.txt"; echo "quick rc=$?"
cat "$OUT/quick.txt"
"$gf" bench io "$DIR/gpufeed-quick.bin" --quick --json > "$OUT/quick.json"; echo "quick --json rc=$?"
ls -la "$OUT"
