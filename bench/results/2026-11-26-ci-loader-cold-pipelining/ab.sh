#!/bin/bash
# Interleaved A/B/C, cold 4 KiB: before (main at 7438724), lazy (08b0f27:
# nothing read before the consumer asks), after (2f9921f: + radix-sorted
# window plans).  Run from a folder holding gpufeed-{before,lazy,after}
# and ds4k (gpufeed pack --record-size 4096 of 512 MiB).  Each round:
# bench io first and last, the three arms between them in a rotated order.
set -u
mkdir -p ab
uptime > ab/uptime-start.txt
arms=(before lazy after)
for r in 1 2 3 4; do
  sync; echo 1 > /proc/sys/vm/drop_caches
  ./gpufeed-after bench io ds4k/shard-00000.bin --mode seqread --bs 1M --qd 32 --direct --json > ab/io-$r.json 2>/dev/null
  for k in 0 1 2; do
    t=${arms[$(( (k + r) % 3 ))]}
    ./gpufeed-$t bench loader ds4k --cold --batch-size 256 --json > ab/$t-cold4k-$r.json 2>/dev/null
  done
  ./gpufeed-after bench io ds4k/shard-00000.bin --mode seqread --bs 1M --qd 32 --direct --json > ab/io-$r-end.json 2>/dev/null
done
uptime > ab/uptime-end.txt
