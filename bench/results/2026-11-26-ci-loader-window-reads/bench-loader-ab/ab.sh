#!/bin/bash
# Interleaved A/B: before (main at e2cc0f8) and after (wp-window), 3 rounds.
# Each round: bench io, then per unit before then after (ABBA across rounds).
for r in 1 2 3; do
  sync; echo 1 > /proc/sys/vm/drop_caches
  ./gpufeed-after bench io ds4k/shard-00000.bin --mode seqread --bs 1M --qd 32 --direct --json > ab/io-$r.json 2>/dev/null
  if [ $((r % 2)) = 1 ]; then order="before after"; else order="after before"; fi
  for t in $order; do
    ./gpufeed-$t bench loader ds4k --cold --batch-size 256 --json > ab/$t-cold4k-$r.json 2>/dev/null
    ./gpufeed-$t bench loader ds128k --cold --batch-size 32 --json > ab/$t-cold128k-$r.json 2>/dev/null
    ./gpufeed-$t bench loader ds128k --warm --batch-size 32 --json > ab/$t-warm128k-$r.json 2>/dev/null
  done
  ./gpufeed-after bench io ds4k/shard-00000.bin --mode seqread --bs 1M --qd 32 --direct --json > ab/io-$r-end.json 2>/dev/null
done
