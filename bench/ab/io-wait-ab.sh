#!/usr/bin/env bash
# A/B of the engine's per-request overhead between two gpufeed binaries
# (before/after a change to the wait loop: the bounded-retry and interrupt
# work of issue 7 made every blocking wait a timed one of at most 20 ms).
# Warm-cache 4 KiB random reads, where the engine's cost dominates, and
# 1 MiB O_DIRECT sequential reads, interleaved.  Compare iops and
# cpu_s_per_gb per point.  usage: io-wait-ab.sh OLD NEW [DIR] [REPS]
set -u
old=$1 new=$2 dir=${3:-/tmp} reps=${4:-5}
F=$dir/io-wait-ab.dat
trap 'rm -f "$F"' EXIT
dd if=/dev/urandom of="$F" bs=1M count=1024 status=none || exit 3
cat "$F" >/dev/null
echo "rep tool mode bs qd engine iops cpu_s_per_gb"
for i in $(seq "$reps"); do
	for pt in "randread 4K 1 uring --warm" "randread 4K 32 uring --warm" "randread 4K 1 psync --warm" \
		  "seqread 1M 32 uring --direct"; do
		set -- $pt
		for t in old new; do
			bin=$old; [ $t = new ] && bin=$new
			"$bin" bench io "$F" --mode "$1" --bs "$2" --qd "$3" --engine "$4" "$5" --duration 3 \
				--numa-node none --json -q >/tmp/io-wait-ab.json || continue
			echo "$i $t $1 $2 $3 $4 $(jq -r '"\(.iops) \(.cpu_s_per_gb)"' /tmp/io-wait-ab.json)"
		done
	done
done
