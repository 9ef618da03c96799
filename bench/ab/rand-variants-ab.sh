#!/usr/bin/env bash
set -u
gf=build-device/gpufeed fio=build-fio/fio F=/tmp/rand-ab.dat
trap 'rm -f "$F"' EXIT
$fio --name=lay --filename=$F --size=8G --rw=write --bs=1M --direct=1 --ioengine=io_uring --iodepth=16 --output=/dev/null || exit 3
echo "run qd variant iops cpu_s"
for i in 1 2 3; do
 for qd in 64 128; do
  TIMEFORMAT='%U %S'
  { time $fio --name=r --filename=$F --ioengine=io_uring --direct=1 --fixedbufs --registerfiles --rw=randread --bs=4k --iodepth=$qd --thread --time_based --runtime=5 --disable_slat=1 --disable_lat=1 --randrepeat=0 --norandommap --output-format=json --output=/tmp/r.json >/dev/null; } 2>/tmp/t
  echo "$i $qd fio $(jq '.jobs[0].read.iops|floor' /tmp/r.json) $(cat /tmp/t)"
  for v in coop plain defer coop-eager defer-eager; do
   mode=${v%-eager}; eager=; [ "$v" != "$mode" ] && eager=1
   { time env GPUFEED_URING_MODE=$mode ${eager:+GPUFEED_BENCH_EAGER=1} $gf bench io $F --mode randread --bs 4K --qd $qd --direct --duration 5 --json >/tmp/g.json; } 2>/tmp/t
   echo "$i $qd $v $(jq '.iops|floor' /tmp/g.json) $(cat /tmp/t)"
  done
 done
done
